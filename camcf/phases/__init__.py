"""The four phases of Ca-MCF for one target category, one module each (SPEC.md)."""

from .local_structure import parents_children, spouses
from .pruning import symmetry_and_redundancy
from .recovery import recover_blocked
from .skeleton import label_skeleton

__all__ = [
    "label_skeleton",
    "parents_children",
    "recover_blocked",
    "spouses",
    "symmetry_and_redundancy",
]

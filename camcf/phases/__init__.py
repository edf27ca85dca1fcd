"""The four phases of Ca-MCF for one target category, one module each (SPEC.md), and their
wiring: :func:`run_target` (one target's whole run on any :class:`camcf.engine.Engine`),
:func:`outcomes` (targets one after the other, each on its own engine),
:func:`rerun_phase4` / :func:`with_k2` (Phase 4 again for another k2 on a finished result)."""

from .local_structure import parents_children, spouses
from .pruning import symmetry_and_redundancy
from .recovery import recover_blocked
from .skeleton import label_skeleton
from .target import outcomes, rerun_phase4, run_target, with_k2

__all__ = [
    "label_skeleton",
    "outcomes",
    "parents_children",
    "recover_blocked",
    "rerun_phase4",
    "run_target",
    "spouses",
    "symmetry_and_redundancy",
    "with_k2",
]

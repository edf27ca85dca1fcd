"""The four phases of Ca-MCF for one target category, one module each (SPEC.md), and their
wiring: :func:`run_target` (one target's whole run on any :class:`camcf.info.Engine`),
:func:`run_targets` (several, their Phase 1, Phase 2's short walks, spouse steps and Phase 4
together),
:func:`rerun_phase4` / :func:`with_k2` (Phase 4 again for another k2 on a finished result)."""

from .local_structure import parents_children, parents_children_many, spouses, spouses_many
from .pruning import symmetry_and_redundancy
from .recovery import recover_blocked
from .skeleton import label_skeleton, label_skeletons
from .target import batch_size, rerun_phase4, run_target, run_targets, with_k2

__all__ = [
    "batch_size",
    "label_skeleton",
    "label_skeletons",
    "parents_children",
    "parents_children_many",
    "recover_blocked",
    "rerun_phase4",
    "run_target",
    "run_targets",
    "spouses",
    "spouses_many",
    "symmetry_and_redundancy",
    "with_k2",
]

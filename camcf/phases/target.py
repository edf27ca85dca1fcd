"""One target category's whole run (the four phases wired together), and Phase 4 again for
another k2 on a finished run.

:func:`run_target` is what :func:`camcf.run` does per target category, on any engine that
implements :class:`camcf.engine.Engine`. k2 is read by Phase 4 alone, so a finished
:class:`camcf.Result` answers every other k2 without Phases 1–3: :func:`rerun_phase4` (one
target) and :func:`with_k2` (the whole result) run the library's Phase 4 on each target's
blanket CMB and the run's MI table, exactly as :func:`run_target` calls it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence

import numpy as np

from ..errors import ParameterError
from ..result import Category, Result, TargetResult
from ..trace import (
    _KEEP,
    STEP_NAMES,
    STEPS,
    TRACE_LEVELS,
    CondSetList,
    CondSets,
    TraceBuilder,
)
from .local_structure import parents_children, spouses
from .pruning import symmetry_and_redundancy
from .recovery import recover_blocked
from .skeleton import label_skeleton


def run_target(engine, category: Category, others: Sequence[int] | np.ndarray, params: dict,
               *, cond_sets: CondSets | None = None, trace: str = "full",
               scores: np.ndarray | None = None) -> TargetResult:
    """Phases 1–4 for the target category ``category`` on ``engine`` (a
    :class:`camcf.engine.Engine`).

    Parameters
    ----------
    engine : camcf.engine.Engine
    category : Category
        The target; ``category.id`` is its category id in the engine's pool.
    others : sequence of int
        The categories of the other labels, in flattened order.
    params : dict
        Ca-MCF's parameters with numeric thresholds (:func:`camcf.algorithm.check_params`,
        "auto" resolved): delta1, delta2, k1, k2, gamma, recovery and, when on, adequacy.
    cond_sets : CondSets, optional
        Where the record's conditioning sets are interned (a new one by default); the result's
        ``trace["cond"]`` holds ids into it.
    trace : {"full", "decisions", "counters"}
    scores : array, optional
        s_f = I(t; X_f) for every feature (default: the engine's MI table column).

    Returns
    -------
    TargetResult
    """
    tb = TraceBuilder(CondSets() if cond_sets is None else cond_sets, trace,
                      strata=engine.strata)
    c = category
    d1 = params["delta1"]
    s = engine.mi_table()[:, c.id] if scores is None else scores
    given = engine.given(c.id)  # the target's session: R once Phase 1 has run
    R, sk_cands = label_skeleton(engine, given, others, params["delta2"], tb)
    cands_all, kept, pc, walk = parents_children(engine, given, s, d1, params["k1"], tb,
                                                 params.get("adequacy", 0.0))
    sp_ = spouses(engine, given, s, pc, d1, tb)
    cmb = sorted(set(pc) | set(sp_))
    rec = recover_blocked(engine, given if walk is None else walk, s, pc, cmb, R, d1,
                          params["recovery"], tb)
    p4 = symmetry_and_redundancy(engine.mi_table(), c.id, s, cmb + [f for f, _ in rec], others,
                                 d1, params["k2"], params["gamma"], tb)
    return TargetResult(
        category=c,
        skeleton=tuple(R),
        skeleton_candidates=tuple(sk_cands),
        candidates_all=tuple(cands_all),
        candidates=tuple(kept),
        pc=tuple(pc),
        spouses={z: tuple(xs) for z, xs in sp_.items()},
        recovered=tuple(rec),
        trace=tb.freeze(),
        test_counts=tb.counts,
        **_phase4_fields(p4),
    )


def outcomes(X, C: np.ndarray, tables: tuple[np.ndarray, np.ndarray], categories, others,
             params: dict, trace: str, engine: str, shared: dict | None
             ) -> Iterator[tuple[TargetResult, CondSetList, dict]]:
    """:func:`run_target` of each of ``categories`` in turn (``others[i]`` for the i-th), each
    on an engine of its own, :data:`camcf.engine.ENGINES` ``[engine](X, C, tables=tables,
    **shared)``: yields (the result, its conditioning sets frozen, the engine's counters)."""
    from ..engine import ENGINES

    Engine = ENGINES[engine]
    for c, o in zip(categories, others, strict=True):
        eng = Engine(X, C, tables=tables, **(shared or {}))
        sets = CondSets()
        res = run_target(eng, c, o, params, cond_sets=sets, trace=trace,
                         scores=tables[0][:, c.id])
        yield res, sets.freeze(), eng.stats()


def _phase4_fields(p4: dict) -> dict:
    return dict(cmb=tuple(p4["cmb"]), after_cut=tuple(p4["after_cut"]), cut=tuple(p4["cut"]),
                symmetry_removed=tuple(p4["symmetry_removed"]),
                after_symmetry=tuple(p4["after_symmetry"]),
                redundancy_removed=tuple(p4["redundancy_removed"]),
                blanket=tuple(p4["blanket"]))


_PHASE_OF_STEP = np.array([STEPS[s][0] for s in STEP_NAMES])
_LEVEL_RANK = {"counters": 0, "decisions": 1, "full": 2}


def _check_k2(k2) -> float:
    from ..algorithm_params import by_name

    return by_name()["k2"].validate(k2)


def _level(result: Result, trace: str | None) -> str:
    level = result.trace_level if trace is None else trace
    if level not in TRACE_LEVELS:
        raise ParameterError(f"trace must be one of {', '.join(TRACE_LEVELS)}, got {level!r}",
                             name="trace", value=level, allowed=list(TRACE_LEVELS))
    if _LEVEL_RANK[level] > _LEVEL_RANK[result.trace_level]:
        raise ParameterError(
            f"the result keeps its record at level {result.trace_level!r}: Phase 4 can be run "
            f"again at that level or below, not at {level!r} (run Ca-MCF with trace={level!r})",
            name="trace", value=level, allowed=list(TRACE_LEVELS))
    return level


def rerun_phase4(result: Result, target, k2: float, *, trace: str | None = None
                 ) -> TargetResult:
    """The target ``target`` of ``result`` with Phase 4 run again for ``k2``.

    Phases 1–3 do not read k2, so their sets and records are taken from ``result``; Phase 4
    (:func:`camcf.phases.symmetry_and_redundancy`) runs on the target's CMB with the run's MI
    table, δ1 and γ, as :func:`run_target` calls it. The decisions are those of a full run with
    this k2. The record keeps Phases 1–3's rows (filtered to ``trace``, which may not keep more
    than the result does) followed by the new Phase 4 rows; its conditioning-set ids refer to
    ``result.cond_sets`` (Phase 4 conditions on nothing: set 0, the empty set).

    Parameters
    ----------
    result : Result
    target : int, (label, value) or str
        As :meth:`camcf.Result.target` takes it.
    k2 : float in (0, 1]
    trace : {"full", "decisions", "counters"}, optional
        Default: the result's level.
    """
    k2 = _check_k2(k2)
    level = _level(result, trace)
    t = result.target(target)
    if t.skipped:
        return t
    if t.mirror_of is not None:  # a complement: the decisions of the category it mirrors
        src = rerun_phase4(result, t.mirror_of, k2, trace=level)
        return dataclasses.replace(src, category=t.category, mirror_of=t.mirror_of)
    return _rerun(result, t, k2, level)


def _rerun(result: Result, t: TargetResult, k2: float, level: str) -> TargetResult:
    if len(result.cond_sets) == 0 or result.cond_sets.lengths[0] != 0:
        raise ParameterError("this result's conditioning sets do not start with the empty set "
                             "(a result not made by camcf.run): Phase 4 cannot be run again")
    p = result.params
    c = t.category
    label_of = np.array([d.label_index for d in result.categories])
    others = np.flatnonzero(label_of != c.label_index)
    tb = TraceBuilder(CondSets(), level)
    p4 = symmetry_and_redundancy(result.mi_table, c.id, result.mi_table[:, c.id], list(t.cmb),
                                 others, p["delta1"], k2, p["gamma"], tb)
    counts = {s: k for s, k in t.test_counts.items() if STEPS[s][0] < 4}
    before = sum(counts.values())
    new = tb.freeze()
    trace: dict[str, np.ndarray] = {}
    if t.trace and level != "counters":
        old = t.trace
        keep = _PHASE_OF_STEP[old["step"]] < 4
        if level != result.trace_level:  # "decisions" from a "full" record
            keep &= _KEEP[old["step"], old["decision"]]
        new["seq"] = (new["seq"] + before).astype(np.int32)
        new["cond"] = np.zeros_like(new["cond"])  # the empty set, id 0 in result.cond_sets
        trace = {k: np.concatenate([old[k][keep], new[k]]).astype(old[k].dtype, copy=False)
                 for k in old}
    elif level != "counters":
        trace = new
    counts.update(tb.counts)
    counts = {s: counts[s] for s in STEP_NAMES if s in counts}  # step order
    return dataclasses.replace(t, trace=trace, test_counts=counts, **_phase4_fields(p4))


def with_k2(result: Result, k2: float, *, trace: str | None = None) -> Result:
    """``result`` as a run with ``k2`` would have given it: :func:`rerun_phase4` for every
    target, the selection, ``params["k2"]`` and the record (at ``trace``, default the result's
    level, never more than it keeps) updated. Cheap: no information is computed."""
    k2 = _check_k2(k2)
    level = _level(result, trace)
    targets: list[TargetResult] = []
    for t in result.targets:
        if t.skipped:
            targets.append(t)
        elif t.mirror_of is not None:
            targets.append(dataclasses.replace(targets[t.mirror_of], category=t.category,
                                               mirror_of=t.mirror_of))
        else:
            targets.append(_rerun(result, t, k2, level))
    selected: set[int] = set()
    for t in targets:
        if not t.skipped:
            selected.update(t.blanket)
    return dataclasses.replace(
        result, targets=targets, params={**result.params, "k2": k2},
        selected_indices=np.array(sorted(selected), dtype=np.int64), trace_level=level,
        stats={**result.stats, "phase4_rerun_for_k2": k2})


__all__ = ["outcomes", "rerun_phase4", "run_target", "with_k2"]

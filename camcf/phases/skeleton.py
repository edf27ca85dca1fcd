"""Phase 1 — the label skeleton R of a target category (paper, Algorithm 2; SPEC.md).

For the target indicator t = [Y_i == c] and every category d of every *other* label j ≠ i
(whatever its size), v = DCSMI(t; [Y_j == d]) = I(t; C_d). C_d is a candidate when v > δ2.
Candidates are sorted by v (stable, descending: ties keep the flattened order, label by label,
categories ascending). The first is accepted; each later candidate is accepted iff
I(t; C_d | all accepted so far) > δ2. R is the accepted list in acceptance order.
"""

from __future__ import annotations

import numpy as np

from ..batch_counts import cmi_many_batch, lookups_many
from ..info import rounded
from ..trace import DECISION_CODE, TARGET, TraceBuilder, decide

_ACCEPTED = DECISION_CODE["accepted"]
_REJECTED = DECISION_CODE["rejected"]


def label_skeleton(engine, target: int, others, delta2: float, tb: TraceBuilder
                   ) -> tuple[list[int], list[int]]:
    """Return (R, sorted candidates) as category ids (pool index − m).

    ``others`` lists the categories of the other labels in flattened order (a list or an
    integer array).
    """
    return label_skeletons([(engine, target, others, delta2, tb)])[0]


def label_skeletons(jobs: list[tuple]) -> list[tuple[list[int], list[int]]]:
    """:func:`label_skeleton` of several targets, each job ``(engine, target, others, delta2,
    tb)``: the targets advance together, and each round's tests given R of every target are
    measured in one call (:func:`camcf.batch_counts.cmi_many_batch`); each target's result
    and record are those of :func:`label_skeleton` alone."""
    steps = [_skeleton_steps(*job, *first)
             for job, first in zip(jobs, _label_mi_many(jobs), strict=True)]
    results: list = [None] * len(jobs)
    asks: dict[int, tuple] = {}
    for i, st in enumerate(steps):
        _advance(st, None, i, asks, results)
    while asks:
        items = list(asks.items())
        asks = {}
        got = cmi_many_batch([(jobs[i][0], jobs[i][1], cols, cond) for i, (cols, cond) in items])
        r = rounded(np.concatenate(got))  # every target's values rounded at once
        a = 0
        for (i, _), vals in zip(items, got, strict=True):
            _advance(steps[i], (vals, r[a:a + vals.size]), i, asks, results)
            a += vals.size
    return results


def _advance(steps, value, i: int, asks: dict, results: list) -> None:
    """Send ``value`` to a target's steps: its next request goes to ``asks``, its result
    (when it has finished) to ``results``."""
    try:
        asks[i] = steps.send(value)
    except StopIteration as stop:
        results[i] = stop.value


_FIRST_CHUNK = 8  # candidates measured in the first chunk of a round (then 16, 32, …)


def _label_mi_many(jobs: list[tuple]) -> list[tuple]:
    """The first step of each job's Phase 1: v = I(t; C_d) for every other category d (the
    engines' table, :func:`camcf.batch_counts.lookups_many`), each job's ``(v, rounded v,
    whether d is a candidate, the candidates' positions sorted by rounded v, stable
    descending, the decisions when some job's record keeps them, else None)``, rounded,
    sorted and decided for every job at once."""
    out: list = [(None, None, None, None, None)] * len(jobs)
    todo = [i for i, job in enumerate(jobs) if len(job[2])]
    if not todo:
        return out
    others = [np.asarray(jobs[i][2], dtype=np.int64) for i in todo]
    got = lookups_many([(jobs[i][0], jobs[i][1], o + jobs[i][0].m)
                        for i, o in zip(todo, others, strict=True)])
    sizes = [o.size for o in others]
    mi = np.concatenate(got)
    r = rounded(mi)
    is_cand = r > np.repeat([jobs[i][3] for i in todo], sizes)
    job_of = np.repeat(np.arange(len(todo)), sizes)
    starts = np.cumsum([0] + sizes)
    cand = np.flatnonzero(is_cand)
    # the candidates of every job by rounded v, stable descending: the jobs stay in order
    order = cand[np.lexsort((-r[cand], job_of[cand]))]
    ends = np.searchsorted(job_of[order], np.arange(len(todo)), side="right").tolist()
    # the decisions, for a level that keeps these rows (the full record)
    dec = (decide(is_cand, "candidate", "not-candidate")
           if any(jobs[i][4].keeps("label-mi", "not-candidate") for i in todo) else None)
    lo = 0
    for g, i in enumerate(todo):
        a, b = starts[g], starts[g + 1]
        out[i] = (mi[a:b], r[a:b], is_cand[a:b], order[lo:ends[g]] - a,
                  None if dec is None else dec[a:b])
        lo = ends[g]
    return out


def _skeleton_steps(engine, target: int, others, delta2: float, tb: TraceBuilder,
                    mi=None, r=None, is_cand=None, order=None, dec=None):
    """Phase 1 of one target as a generator: it yields each request ``(pool columns, R as
    pool columns)`` for I(t; C_d | R), is sent the values and their rounded values, and
    returns (R, sorted candidates). It starts from its first step (:func:`_label_mi_many`:
    ``mi``, ``r``, ``is_cand``, ``order``, the decisions ``dec`` when the record may keep
    them; none when there is no other category). A round
    measures the pending candidates in order, in chunks that double (8, 16, …), up to the
    first accepted one: the candidates after it are measured again given the larger R, so
    measuring them now would be wasted; the values and decisions are those of measuring every
    candidate."""
    m = engine.m
    others = np.asarray(others, dtype=np.int64)
    if others.size == 0:
        return [], []
    pool = others + m
    # (the decisions are built only for a level that keeps these rows: the full record)
    kept = tb.keeps("label-mi", "candidate") or tb.keeps("label-mi", "not-candidate")
    tb.add("label-mi", TARGET, pool, [], mi, delta2,
           (decide(is_cand, "candidate", "not-candidate") if dec is None else dec)
           if kept else "candidate")
    if order.size == 0:
        return [], []
    ranked = others[order]
    # the first candidate is accepted without a further test
    first = int(ranked[0])
    tb.add_one("label-cmi", TARGET, first + m, [], float(mi[order[0]]), delta2, "accepted")
    R = [first]
    cond = [first + m]  # R as pool indices
    pending = ranked[1:] + m  # pool indices, in candidate order
    while pending.size:
        parts = []
        start, size, stop = 0, _FIRST_CHUNK, None
        while start < pending.size:
            part, r_part = yield pending[start:start + size], list(cond)  # values, rounded
            parts.append(part)
            hit = np.flatnonzero(r_part > delta2)
            if hit.size:
                stop = start + int(hit[0])
                break
            start += size
            size *= 2
        vals = np.concatenate(parts)
        accepted = stop is not None
        if not accepted:
            stop = pending.size - 1
        decisions = np.full(stop + 1, _REJECTED, dtype=np.int8)
        if accepted:
            decisions[stop] = _ACCEPTED
        tb.add("label-cmi", TARGET, pending[: stop + 1], cond, vals[: stop + 1], delta2,
               decisions)
        if not accepted:
            break
        q = int(pending[stop])
        R.append(q - m)
        cond.append(q)
        pending = pending[stop + 1:]
    return R, ranked.tolist()

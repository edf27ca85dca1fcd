"""Phase 1 — the label skeleton R of a target category (paper, Algorithm 2; SPEC.md).

For the target indicator t = [Y_i == c] and every category d of every *other* label j ≠ i
(whatever its size), v = DCSMI(t; [Y_j == d]) = I(t; C_d). C_d is a candidate when v > δ2.
Candidates are sorted by v (stable, descending: ties keep the flattened order, label by label,
categories ascending). The first is accepted; each later candidate is accepted iff
I(t; C_d | all accepted so far) > δ2. R is the accepted list in acceptance order.
"""

from __future__ import annotations

import numpy as np

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
    m = engine.m
    others = np.asarray(others, dtype=np.int64)
    if others.size == 0:
        return [], []
    pool = others + m
    mi = engine.cmi_many(target, pool, [])
    r = rounded(mi)
    is_cand = r > delta2
    tb.add("label-mi", TARGET, pool, [], mi, delta2, decide(is_cand, "candidate", "not-candidate"))
    cand = np.flatnonzero(is_cand)
    if cand.size == 0:
        return [], []
    order = cand[np.argsort(-r[cand], kind="stable")]
    ranked = others[order]
    # the first candidate is accepted without a further test
    first = int(ranked[0])
    tb.add("label-cmi", TARGET, first + m, [], mi[order[0]], delta2, "accepted")
    R = [first]
    cond = [first + m]  # R as pool indices
    pending = ranked[1:] + m  # pool indices, in candidate order
    while pending.size:
        vals, stop = _until_accepted(engine, target, pending, cond, delta2)
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


_FIRST_CHUNK = 8  # candidates measured in the first chunk of a round (then 16, 32, …)


def _until_accepted(engine, target: int, pending: np.ndarray, cond: list[int], delta2: float
                    ) -> tuple[np.ndarray, int | None]:
    """I(t; C_d | R) for the pending candidates in order, in chunks that double, up to the
    first accepted one; returns the values measured and the accepted one's position (None:
    none). The candidates after it are measured again given the larger R, so measuring them
    now would be wasted: the values and decisions are those of measuring every candidate."""
    parts = []
    start, size = 0, _FIRST_CHUNK
    while start < pending.size:
        part = engine.cmi_many(target, pending[start:start + size], list(cond))
        parts.append(part)
        hit = np.flatnonzero(rounded(part) > delta2)
        if hit.size:
            return np.concatenate(parts), start + int(hit[0])
        start += size
        size *= 2
    return np.concatenate(parts), None

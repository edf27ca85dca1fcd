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
from ..trace import TARGET, TraceBuilder


def label_skeleton(engine, target: int, others: list[int], delta2: float, tb: TraceBuilder
                   ) -> tuple[list[int], list[int]]:
    """Return (R, sorted candidates) as category ids (pool index − m).

    ``others`` lists the categories of the other labels in flattened order.
    """
    m = engine.m
    if not others:
        return [], []
    pool = np.asarray(others, dtype=np.int64) + m
    mi = engine.cmi_many(target, pool, [])
    r = rounded(mi)
    is_cand = r > delta2
    tb.add("label-mi", TARGET, pool, [], mi, delta2,
           np.where(is_cand, "candidate", "not-candidate"))
    cand = np.nonzero(is_cand)[0]
    order = cand[np.argsort(-r[cand], kind="stable")]
    sorted_cands = [int(others[i]) for i in order]
    if not sorted_cands:
        return [], []
    # the first candidate is accepted without a further test
    first = sorted_cands[0]
    tb.add("label-cmi", TARGET, first + m, [], mi[order[0]], delta2, "accepted")
    R = [first]
    pending = sorted_cands[1:]
    while pending:
        cond = [q + m for q in R]
        vals = engine.cmi_many(target, [q + m for q in pending], cond)
        acc = np.nonzero(rounded(vals) > delta2)[0]
        stop = int(acc[0]) if acc.size else len(pending) - 1
        decisions = ["rejected"] * (stop + 1)
        if acc.size:
            decisions[stop] = "accepted"
        tb.add("label-cmi", TARGET, np.asarray(pending[: stop + 1]) + m, cond,
               vals[: stop + 1], delta2, decisions)
        if not acc.size:
            break
        R.append(pending[stop])
        pending = pending[stop + 1:]
    return R, sorted_cands

"""Phase 1 — the label skeleton R of a target category (paper, Algorithm 2; SPEC.md).

For the target indicator t = [Y_i == c] and every category d of every *other* label j ≠ i
(whatever its size), v = DCSMI(t; [Y_j == d]) = I(t; C_d). C_d is a candidate when v > δ2.
Candidates are sorted by v (stable, descending: ties keep the flattened order, label by label,
categories ascending). The first is accepted; each later candidate is accepted iff
I(t; C_d | all accepted so far) > δ2. R is the accepted list in acceptance order.
"""

from __future__ import annotations

import numpy as np

from ..engine import rounded
from ..trace import DECISION_CODE, TARGET, TraceBuilder, decide

_ACCEPTED, _REJECTED = DECISION_CODE["accepted"], DECISION_CODE["rejected"]


def label_skeleton(engine, given, others, delta2: float, tb: TraceBuilder
                   ) -> tuple[list[int], list[int]]:
    """Return (R, sorted candidates) as category ids (pool index − m).

    ``given`` is the target's session (:meth:`camcf.engine.Engine.given`) with an empty set;
    each accepted category is added to it, so that it ends holding R. ``others`` lists the
    categories of the other labels in flattened order.
    """
    m = engine.m
    others = np.asarray(others, dtype=np.int64)
    if others.size == 0:
        return [], []
    pool = others + m
    mi = engine.lookup(given.target, pool)
    r = rounded(mi)
    is_cand = r > delta2
    tb.add("label-mi", TARGET, pool, [], mi, delta2, decide(is_cand, "candidate",
                                                               "not-candidate"))
    cand = np.flatnonzero(is_cand)
    order = cand[np.argsort(-r[cand], kind="stable")]
    if order.size == 0:
        return [], []
    ranked = others[order]
    # the first candidate is accepted without a further test
    tb.add_one("label-cmi", TARGET, int(ranked[0]) + m, [], float(mi[order[0]]), delta2,
               "accepted")
    given.add(int(ranked[0]) + m)
    pending = ranked[1:] + m  # pool indices, in candidate order
    while pending.size:
        # measured in order up to the first one above δ2 (the others wait for the larger R)
        vals = given.values(pending, stop_above=delta2)
        accepted = bool(rounded(float(vals[-1])) > delta2)
        decisions = np.full(vals.size, _REJECTED, dtype=np.int8)
        decisions[-1] = _ACCEPTED if accepted else _REJECTED
        tb.add("label-cmi", TARGET, pending[:vals.size], given.cond, vals, delta2, decisions,
               strata=given.strata())
        if not accepted:
            break
        given.add(int(pending[vals.size - 1]))
        pending = pending[vals.size:]
    return [q - m for q in given.cond], ranked.tolist()

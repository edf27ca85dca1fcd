"""Phase 3 — recovery of features masked by correlated labels (Algorithm 4).

Only when R is not empty. Every member r of R can act as the blocker at most once. For each
feature f outside the blanket CMB = PC ∪ SP, by ascending index: skip f if s_f < δ1/2; else, for
each r of R in R's order and not yet consumed, with S_base = PC ∪ (R − r) (consumed members of
R stay in S_base), compare vf = I(t; X_f | S_base) with vb = I(t; r | S_base). vf > vb appends f
to the blanket as *recovered, blocked by r* and consumes r.

``recovery="first"`` (default: the authors' code) ends the phase after the first recovered
feature; ``recovery="all"`` (the paper's Algorithm 4) goes on with the next feature.
"""

from __future__ import annotations

import numpy as np

from ..engine import rounded
from ..trace import TARGET, TraceBuilder


def recover_blocked(engine, session, s: np.ndarray, pc: list[int], cmb: list[int],
                    R: list[int], delta1: float, recovery: str, tb: TraceBuilder
                    ) -> list[tuple[int, int]]:
    """Return [(recovered feature, blocking category)] in recovery order.

    ``session`` is the target's session holding PC ∪ R (left as it is)."""
    if not R:
        return []
    m = engine.m
    in_cmb = np.zeros(m, dtype=bool)
    in_cmb[np.asarray(cmb, dtype=np.intp)] = True
    outside = np.flatnonzero(~in_cmb)
    elig_mask = ~(rounded(s[outside]) < delta1 / 2)
    eligible = outside[elig_mask]
    if eligible.size == 0:  # every feature outside CMB skipped: nothing is measured
        tb.add("recovery-skip", TARGET, outside, (), s[outside], delta1 / 2, "skipped")
        return []
    base = {}  # r -> S_base as recorded (PC, then R − r), made when r is first reached
    blockers: dict[int, tuple] = {}  # r -> (vb, rounded vb, strata of S_base)
    scores = {r: [np.empty(0), np.empty(0)] for r in R}  # r -> vf, rounded, of eligible[:k]

    def vb(r: int) -> tuple:
        if r not in blockers:  # measured, and recorded, when first reached
            base[r] = np.asarray(list(pc) + [q + m for q in R if q != r], dtype=np.int32)
            b, ns = session.without(r + m)
            blockers[r] = (b, rounded(b), ns)
            tb.add_one("blocker", TARGET, r + m, base[r], b, np.nan, "measured", strata=ns)
        return blockers[r]

    def vf(r: int, i: int) -> tuple[float, float]:
        """vf of the i-th eligible feature against r's S_base (and rounded): measured with
        the next ones, twice as many as last time, as the loop reaches them."""
        done = scores[r]
        k = done[0].size
        if i >= k:
            more, _ = session.values_with(eligible[k:max(i + 1, 2 * k, k + 8)], remove=r + m)
            done[0] = np.concatenate([done[0], more])
            done[1] = np.concatenate([done[1], rounded(more)])
        return float(done[0][i]), float(done[1][i])

    consumed: set[int] = set()
    recovered: list[tuple[int, int]] = []
    at_all = np.flatnonzero(elig_mask)  # the eligible features' positions in ``outside``
    skip_from = 0
    for i, f in enumerate(eligible.tolist()):
        at = int(at_all[i])
        if at > skip_from:  # the skipped features since the last eligible one
            skipped = outside[skip_from:at]
            tb.add("recovery-skip", TARGET, skipped, (), s[skipped], delta1 / 2, "skipped")
        skip_from = at + 1
        for r in R:
            if r in consumed:
                continue
            b, rb, ns = vb(r)
            v, rv = vf(r, i)
            won = rv > rb
            tb.add_one("recovery", TARGET, f, base[r], v, b,
                       "recovered" if won else "lost", r + m, strata=ns)
            if won:
                recovered.append((f, r))
                consumed.add(r)
                break
        if (recovered and recovery == "first") or len(consumed) == len(R):
            return recovered
    skipped = outside[skip_from:]
    tb.add("recovery-skip", TARGET, skipped, (), s[skipped], delta1 / 2, "skipped")
    return recovered

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

from ..info import rounded
from ..trace import TARGET, TraceBuilder


def recover_blocked(engine, target: int, s: np.ndarray, pc: list[int], cmb: list[int],
                    R: list[int], delta1: float, recovery: str, tb: TraceBuilder
                    ) -> list[tuple[int, int]]:
    """Return [(recovered feature, blocking category)] in recovery order."""
    if not R:
        return []
    m = engine.m
    in_cmb = np.zeros(m, dtype=bool)
    in_cmb[np.asarray(cmb, dtype=np.intp)] = True
    outside = np.nonzero(~in_cmb)[0]
    rs = rounded(s)
    eligible = outside[~(rs[outside] < delta1 / 2)]
    base = {r: list(pc) + [q + m for q in R if q != r] for r in R}
    base_arr = {r: np.asarray(b, dtype=np.int32) for r, b in base.items()}  # as recorded
    vf_cache: dict[int, tuple[list[float], list[float]]] = {}
    vb_cache: dict[int, tuple[float, float]] = {}

    def vf(r: int) -> tuple[list[float], list[float]]:
        """I(t; X_f | S_base) of every eligible f, and rounded, for this r."""
        if r not in vf_cache:  # one batched pass: every eligible feature against this S_base
            vals = engine.cmi_many(target, eligible, base[r])
            vf_cache[r] = (vals.tolist(), rounded(vals).tolist())
        return vf_cache[r]

    def vb(r: int) -> tuple[float, float]:
        if r not in vb_cache:
            b = float(engine.cmi_many(target, [r + m], base[r])[0])
            vb_cache[r] = (b, rounded(b))
            tb.add_one("blocker", TARGET, r + m, base_arr[r], b, np.nan, "measured")
        return vb_cache[r]

    consumed: set[int] = set()
    recovered: list[tuple[int, int]] = []
    # the features outside CMB go by ascending index; the skipped ones between two eligible
    # features are recorded as one run of rows
    skip_from = 0
    at_all = np.searchsorted(outside, eligible).tolist()
    for i, f in enumerate(eligible.tolist()):
        at = at_all[i]
        if at > skip_from:
            skipped = outside[skip_from:at]
            tb.add("recovery-skip", TARGET, skipped, (), s[skipped], delta1 / 2, "skipped")
        skip_from = at + 1
        for r in R:
            if r in consumed:
                continue
            b, rb = vb(r)
            vals, rvals = vf(r)
            v = vals[i]
            won = rvals[i] > rb
            tb.add_one("recovery", TARGET, f, base_arr[r], v, b,
                       "recovered" if won else "lost", r + m)
            if won:
                recovered.append((f, r))
                consumed.add(r)
                break
        if (recovered and recovery == "first") or len(consumed) == len(R):
            return recovered
    skipped = outside[skip_from:]
    tb.add("recovery-skip", TARGET, skipped, (), s[skipped], delta1 / 2, "skipped")
    return recovered


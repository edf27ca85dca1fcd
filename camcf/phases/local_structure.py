"""Phase 2 — parents/children (PC) and spouses (SP) of a target category (Algorithm 3).

1. Score every feature, s_f = SCSMI(X_f; t) = I(t; X_f). Candidates: s_f > δ1, sorted by s_f
   (stable, descending); keep the first ⌈k1 × #candidates⌉.
2. Backward elimination over the kept candidates in that order: with S = (PC − f) ∪ R,
   v = I(t; X_f | S) (s_f when S is empty); v ≤ δ1 removes f from PC at once, so later tests
   condition on the smaller PC. With the test-adequacy rule on (``adequacy`` h > 0, off by
   default), a test whose table has fewer than h rows per cell, n / (|X_f| · |t| · strata of
   S) < h, is not trusted: f stays, and the row says "untrusted" (the heuristic power rule of
   Tsamardinos, Brown & Aliferis 2006, MMHC; cells counted over the strata of S that occur, as
   the record's df counts them).
3. Spouses: for x in PC and z ∉ PC, v1 = I(t; X_z | R) (s_z when R is empty). If v1 ≤ δ1,
   v2 = I(t; X_z | {X_x} ∪ R); v2 > δ1 makes z a spouse induced by x (every x is recorded).

Note the estimator: conditioning on many variables splits n samples into many small strata, so
I(·;·|S) falls towards 0 as S grows and backward elimination can prune hard. That is the
published algorithm; it is shown, not corrected.
"""

from __future__ import annotations

import math

import numpy as np

from ..engine import rounded
from ..trace import DECISION_CODE, TARGET, TraceBuilder, decide

_KEPT, _CUT, _BELOW = (DECISION_CODE[d] for d in ("kept", "cut-k1", "below-delta1"))
_RUN = 4  # backward values measured at once after a member stays (then twice as many)


def parents_children(engine, given, s: np.ndarray, delta1: float, k1: float, tb: TraceBuilder,
                     adequacy: float = 0.0):
    """Return (all candidates sorted, kept candidates, PC, the session of PC ∪ R or None when
    no candidate is kept) as feature indices.

    ``given`` is the target's session holding R (Phase 1's); it is left as it is. ``s`` holds
    s_f for every feature (bits); ``adequacy`` is the rows per cell below which a backward test
    is not trusted (0: every test is).
    """
    rs = rounded(s)
    is_cand = rs > delta1
    cand = np.flatnonzero(is_cand)
    order = cand[np.argsort(-rs[cand], kind="stable")]
    n_keep = math.ceil(k1 * order.size)  # ⌈k1·n⌉ in floating point, as the authors' code
    rows = np.concatenate([order, np.flatnonzero(~is_cand)])
    dec = np.full(rows.size, _BELOW, dtype=np.int8)
    dec[:n_keep] = _KEPT
    dec[n_keep:order.size] = _CUT
    tb.add("feature-mi", TARGET, rows, [], s[rows], delta1, dec)
    kept = order[:n_keep].tolist()
    if not kept:
        return order.tolist(), [], [], None
    walk = given.copy()
    walk.add_all(kept)
    levels = engine.levels() if adequacy > 0 else None
    # S = (PC − f) ∪ R as the record keeps it, int32 bytes: the members before f that stayed,
    # the kept candidates after f (none of them tested yet), R
    kept_b = np.asarray(kept, dtype=np.int32).tobytes()
    R_b = np.asarray(given.cond, dtype=np.int32).tobytes()
    stayed_b = b""
    stays = np.ones(len(kept), dtype=bool)
    in_pc, i, run = len(kept), 0, _RUN
    while i < len(kept):
        # the next members measured in one go, each assumed removed for the next ones (most
        # are removed); from the first that stays on, they are put back and measured again
        vals, strata = walk.without_each(kept[i:i + run])
        for k, (v, ns) in enumerate(zip(vals.tolist(), strata.tolist(), strict=True)):
            f = kept[i + k]
            if in_pc == 1 and not R_b:  # S empty: s_f, read from the table
                v, ns = float(engine.lookup(given.target, [f])[0]), 1
            out = rounded(v) <= delta1
            decision = "removed" if out else "stays"
            if levels is not None and engine.n < adequacy * int(levels[f]) * 2 * ns:
                out, decision = False, "untrusted"  # too few rows per cell: f stays
            j = i + k
            tb.add_one("backward", TARGET, f, lambda j=j, b=stayed_b: b + kept_b[4 * j + 4:] + R_b,
                       v, delta1, decision, strata=ns)
            if out:
                stays[j] = False
                in_pc -= 1
                continue
            stayed_b += kept_b[4 * j:4 * j + 4]
            walk.add_all(kept[j:i + run])  # f stays; the ones after it were measured without f
            i, run = j + 1, _RUN
            break
        else:
            i, run = i + run, 2 * run
    return order.tolist(), kept, [f for f, k in zip(kept, stays, strict=True) if k], walk


def spouses(engine, given, s: np.ndarray, pc: list[int], delta1: float, tb: TraceBuilder
            ) -> dict[int, list[int]]:
    """Return {spouse z: [inducing PC members x, in PC order]}, z ascending. ``given`` is the
    target's session holding R (left as it is)."""
    if not pc:
        return {}
    R_pool = list(given.cond)
    outside = np.ones(engine.m, dtype=bool)
    outside[pc] = False
    non_pc = np.flatnonzero(outside)
    v1 = given.values(non_pc) if R_pool else s[non_pc]
    screened_mask = rounded(v1) <= delta1
    tb.add("spouse-screen", TARGET, non_pc, R_pool, v1, delta1,
           decide(screened_mask, "tested", "not-tested"), strata=given.strata())
    screened = non_pc[screened_mask]
    found: dict[int, list[int]] = {}
    if screened.size == 0:
        return found
    for x in pc:
        v2, ns = given.values_with(screened, add=x)
        hit = rounded(v2) > delta1
        tb.add("spouse", TARGET, screened, [x] + R_pool, v2, delta1,
               decide(hit, "spouse", "not-spouse"), x, strata=ns)
        for z in screened[hit].tolist():
            found.setdefault(z, []).append(x)
    return {z: found[z] for z in sorted(found)}

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

from functools import partial

import numpy as np

from ..info import LeaveOneOut, rounded
from ..trace import DECISION_CODE, STEP_CODE, TARGET, TraceBuilder


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
    elig_mask = ~(rs[outside] < delta1 / 2)
    eligible = outside[elig_mask]
    if eligible.size == 0:  # every feature outside CMB skipped: nothing is measured
        tb.add("recovery-skip", TARGET, outside, (), s[outside], delta1 / 2, "skipped")
        return []
    base = {r: list(pc) + [q + m for q in R if q != r] for r in R}
    base_arr = {r: np.asarray(b, dtype=np.int32) for r, b in base.items()}  # as recorded
    vf_cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    vb_cache: dict[int, tuple[float, float]] = {}
    # S_base = PC ∪ (R − r): R's members left out in turn, PC fixed (the engine's session
    # pays from a few members of R on: it hashes PC ∪ R once)
    session = engine.leave_one_out if len(R) >= _SESSION_FROM else partial(LeaveOneOut, engine)
    loo = session(target, [q + m for q in R], list(pc))

    def strata(r: int) -> int:  # of S_base for r, counted with its values
        return loo.strata(r + m)

    def vf(r: int) -> tuple[np.ndarray, np.ndarray]:
        """I(t; X_f | S_base) of every eligible f, and rounded, for this r."""
        if r not in vf_cache:  # one batched pass: every eligible feature against this S_base
            vals = loo.values_given(eligible, r + m)
            vf_cache[r] = (vals, rounded(vals))
        return vf_cache[r]

    def vb(r: int) -> tuple[float, float]:
        if r not in vb_cache:
            b = float(loo.values_given([r + m], r + m)[0])
            vb_cache[r] = (b, rounded(b))
            tb.add_one("blocker", TARGET, r + m, base_arr[r], b, np.nan, "measured",
                       strata=lambda r=r: strata(r))
        return vb_cache[r]

    consumed: set[int] = set()
    recovered: list[tuple[int, int]] = []
    # the features outside CMB go by ascending index; the skipped ones between two eligible
    # features are recorded as one run of rows
    skip_from = 0
    at_all = np.flatnonzero(elig_mask)  # the eligible features' positions in ``outside``
    i, n_elig = 0, eligible.size
    while i < n_elig:
        active = [r for r in R if r not in consumed]
        if (n_elig - i) * len(active) >= _BLOCK_FROM and all(r in vb_cache for r in active):
            # every blocker left is measured: the features from i on, together
            i, won = _block(tb, s, outside, eligible, at_all, i, skip_from, active,
                            [vb_cache[r] for r in active], [vf_cache[r] for r in active],
                            [base_arr[r] for r in active], delta1, m, strata)
            skip_from = int(at_all[i - 1]) + 1
            if won is None:
                break
            recovered.append((int(eligible[i - 1]), won))
            consumed.add(won)
        else:  # one feature: blockers measured (and recorded) as they are first reached
            f, at = int(eligible[i]), int(at_all[i])
            if at > skip_from:
                skipped = outside[skip_from:at]
                tb.add("recovery-skip", TARGET, skipped, (), s[skipped], delta1 / 2, "skipped")
            skip_from = at + 1
            for r in active:
                b, rb = vb(r)
                vals, rvals = vf(r)
                won_r = bool(rvals[i] > rb)
                tb.add_one("recovery", TARGET, f, base_arr[r], float(vals[i]), b,
                           "recovered" if won_r else "lost", r + m, strata=lambda r=r: strata(r))
                if won_r:
                    recovered.append((f, r))
                    consumed.add(r)
                    break
            i += 1
        if (recovered and recovery == "first") or len(consumed) == len(R):
            return recovered
    skipped = outside[skip_from:]
    tb.add("recovery-skip", TARGET, skipped, (), s[skipped], delta1 / 2, "skipped")
    return recovered


_SESSION_FROM = 3  # members of R from which S_base comes from the engine's session
_BLOCK_FROM = 48  # tries left from which they are decided as one block (fewer calls)
_SKIP, _RECOVERY = STEP_CODE["recovery-skip"], STEP_CODE["recovery"]
_SKIPPED, _LOST, _RECOVERED = (DECISION_CODE[d] for d in ("skipped", "lost", "recovered"))


def _block(tb: TraceBuilder, s: np.ndarray, outside: np.ndarray, eligible: np.ndarray,
           at_all: np.ndarray, i: int, skip_from: int, active: list[int], vbs: list, vfs: list,
           conds: list, delta1: float, m: int, strata) -> tuple[int, int | None]:
    """The eligible features from the i-th on, each tried against every blocker of
    ``active`` in order (all measured: ``vbs``, ``vfs``), up to the first recovery: its rows
    and the skipped features' before them recorded as one block, in the order the loop takes
    them. Returns (the index after the last feature tried, the consuming blocker or None)."""
    A = len(active)
    RV = np.stack([v[1][i:] for v in vfs])  # A × features left, rounded
    RB = np.array([b[1] for b in vbs])
    wins = RV > RB[:, None]
    hit = np.flatnonzero(wins.any(axis=0))
    end = eligible.size if hit.size == 0 else i + int(hit[0]) + 1  # features tried: i..end−1
    won = None
    # one entry per position of ``outside`` from skip_from to the last feature tried: a
    # skipped feature gives one row, an eligible one a row per blocker tried
    last = int(at_all[end - 1])
    pos = np.arange(skip_from, last + 1)
    q_of = np.full(pos.size, -1, dtype=np.int64)  # the eligible index at each position
    q_of[at_all[i:end] - skip_from] = np.arange(i, end)
    rep = np.where(q_of >= 0, A, 1)
    if hit.size:
        w = int(np.flatnonzero(wins[:, end - 1 - i])[0])  # the first blocker it beats
        rep[-1] = w + 1
        won = active[w]
    starts = np.cumsum(rep) - rep
    row_pos = np.repeat(np.arange(pos.size), rep)
    rank = np.arange(row_pos.size) - starts[row_pos]  # the blocker's place in ``active``
    q = q_of[row_pos]
    rec = q >= 0
    feat = outside[pos[row_pos]]
    step = np.where(rec, _RECOVERY, _SKIP).astype(np.int8)
    r_idx = np.where(rec, rank, 0)
    V = np.stack([v[0] for v in vfs])
    value = np.where(rec, V[r_idx, np.maximum(q, 0)], s[feat])
    B = np.array([b[0] for b in vbs])
    threshold = np.where(rec, B[r_idx], delta1 / 2)
    decision = np.where(rec, _LOST, _SKIPPED).astype(np.int8)
    if won is not None:
        decision[-1] = _RECOVERED
    aux = np.where(rec, np.asarray(active, dtype=np.int64)[r_idx] + m, -1)
    which = np.where(rec, r_idx + 1, 0)
    tb.add_block(step, TARGET, feat, [(), *conds], which, value, threshold, decision, aux,
                 strata=[1, *(lambda r=r: strata(r) for r in active)])
    return end, won

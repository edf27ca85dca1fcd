"""Phase 4 — symmetry and redundancy pruning of the blanket (Algorithm 5).

1. CMB (sorted PC ∪ SP, then the recovered features in recovery order) is sorted by s_f, stable
   descending; the first ⌈k2 × |CMB|⌉ stay (a share of the blanket, not of all features).
2. Symmetry: every kept f with s_f ≤ δ1 is removed. (A spouse has I(t; z | R) ≤ δ1; with R
   empty that is s_z ≤ δ1, so symmetry always removes such a spouse: the published behaviour.)
3. Redundancy: f is removed if some category d of some other label j ≠ i (all categories) has
   I(X_f; C_d) > γ × s_f; the first such d in flattened order is recorded with both values.

Phase 4 reads unconditional values only (the MI table), so a finished run answers another k2
without Phases 1–3 (:func:`camcf.phases.with_k2`).
"""

from __future__ import annotations

import math

import numpy as np

from ..engine import rounded
from ..trace import TraceBuilder, decide

_BLOCK_CELLS = 1 << 20  # (survivors × other categories) values compared at once
_NONE, _NONE_F = np.empty(0, dtype=np.int64), np.empty(0)


def symmetry_and_redundancy(mi_table: np.ndarray, target: int, s: np.ndarray, cmb: list[int],
                            others, delta1: float, k2: float, gamma: float,
                            tb: TraceBuilder) -> dict:
    """Return the cut, the removals and the final blanket (sorted feature indices).

    Phase 4 reads unconditional values only: ``mi_table`` is I(X_f; C_d) for every feature and
    category (m × C, :meth:`camcf.engine.Engine.mi_table`, or a finished run's
    :attr:`camcf.Result.mi_table`), ``s`` holds s_f = I(t; X_f). ``others`` lists the
    categories of the other labels in flattened order (a list or an integer array)."""
    feats = np.asarray(cmb, dtype=np.int64)
    vals = s[feats]
    rank = np.argsort(-rounded(vals), kind="stable")  # by s_f (rounded), stable descending
    feats, vals = feats[rank], vals[rank]
    b = math.ceil(k2 * feats.size)
    kept, cut = feats[:b], feats[b:]
    last = float(vals[b - 1]) if b else np.nan
    tb.add("k2-cut", -1, kept, [], vals[:b], last, "kept")
    tb.add("k2-cut", -1, cut, [], vals[b:], last, "cut-k2")
    removed = rounded(vals[:b]) <= delta1  # symmetry
    tb.add("symmetry", -1, kept, [], vals[:b], delta1, decide(removed, "removed", "stays"))
    survivors = kept[~removed]
    redundant, final = _redundancy(mi_table, s, survivors, np.asarray(others, dtype=np.int64),
                                   gamma, tb)
    return {"cmb": [int(f) for f in cmb], "after_cut": kept.tolist(), "cut": cut.tolist(),
            "symmetry_removed": sorted(kept[removed].tolist()),
            "after_symmetry": sorted(survivors.tolist()), "redundancy_removed": redundant,
            "blanket": sorted(final)}


def _above(vals: np.ndarray, limits: np.ndarray) -> np.ndarray:
    """``rounded(vals) > rounded(limits)[:, None]``, rounding only the values within 1e-11 of
    their limit (elsewhere rounding to 12 decimals cannot change the comparison)."""
    diff = vals - limits[:, None]
    out = diff > 0
    near = np.nonzero(np.abs(diff) < 1e-11)
    if near[0].size:
        out[near] = rounded(vals[near]) > rounded(limits[near[0]])
    return out


def _redundancy(table: np.ndarray, s: np.ndarray, survivors: np.ndarray, others: np.ndarray,
                gamma: float, tb: TraceBuilder
                ) -> tuple[list[tuple[int, int, float, float]], list[int]]:
    """The redundancy step: (removals (f, d, I(X_f; C_d), s_f), the survivors that stay).

    f's tests go d by d in ``others``' order up to the first d with rounded I(X_f; C_d) >
    rounded γ·s_f (every d when none dominates); they are recorded f by f, a block of survivors
    at a time (at a level that keeps only the dominating rows, those rows and the count)."""
    if others.size == 0 or survivors.size == 0:  # nothing to test against, or no one to test
        return [], survivors.tolist()
    if others.min() < 0 or others.max() >= table.shape[1]:
        raise IndexError(f"category ids out of range 0..{table.shape[1] - 1}")
    m = table.shape[0]
    every_row = tb.keeps("redundancy", "does-not-dominate")
    others_pool = (others + m).astype(np.int32)
    redundant: list[tuple[int, int, float, float]] = []
    final: list[int] = []
    block = max(1, _BLOCK_CELLS // others.size)
    for lo in range(0, survivors.size, block):
        fs = survivors[lo:lo + block]
        limits = gamma * s[fs]
        vals = table[fs][:, others]
        dom = _above(vals, limits)
        hit = dom.any(axis=1)
        upto = np.where(hit, np.argmax(dom, axis=1) + 1, others.size)  # tests made, per f
        h = np.flatnonzero(hit)
        last = upto[h] - 1  # the dominating category of each removed survivor
        removed_vals = vals[h, last]
        if every_row:  # the full record: every test's row, f by f
            rows = np.arange(others.size)[None, :] < upto[:, None]
            tb.add("redundancy", np.repeat(fs, upto),
                   np.broadcast_to(others_pool, dom.shape)[rows], [], vals[rows],
                   np.repeat(limits, upto), decide(dom[rows], "dominates", "does-not-dominate"))
        else:  # only the dominating rows are kept: the last test of each removed survivor
            tb.add("redundancy", fs[h], others[last] + m, [], removed_vals, limits[h],
                   "dominates", at=np.cumsum(upto)[h] - 1, n=int(upto.sum()))
        redundant.extend(zip(fs[h].tolist(), others[last].tolist(), removed_vals.tolist(),
                             s[fs[h]].tolist(), strict=True))
        final.extend(fs[~hit].tolist())
    return redundant, final

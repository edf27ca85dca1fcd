"""Phase 4 — symmetry and redundancy pruning of the blanket (Algorithm 5).

1. CMB (sorted PC ∪ SP, then the recovered features in recovery order) is sorted by s_f, stable
   descending; the first ⌈k2 × |CMB|⌉ stay (a share of the blanket, not of all features).
2. Symmetry: every kept f with s_f ≤ δ1 is removed. (A spouse has I(t; z | R) ≤ δ1; with R
   empty that is s_z ≤ δ1, so symmetry always removes such a spouse: the published behaviour.)
3. Redundancy: f is removed if some category d of some other label j ≠ i (all categories) has
   I(X_f; C_d) > γ × s_f; the first such d in flattened order is recorded with both values.
"""

from __future__ import annotations

import math

import numpy as np

from ..info import rounded
from ..trace import TraceBuilder


def symmetry_and_redundancy(engine, target: int, s: np.ndarray, cmb: list[int],
                            others: list[int], delta1: float, k2: float, gamma: float,
                            tb: TraceBuilder) -> dict:
    """Return the cut, the removals and the final blanket (sorted feature indices)."""
    m = engine.m
    cmb_arr = np.asarray(cmb, dtype=np.int64)
    rs = rounded(s)
    order = cmb_arr[np.argsort(-rs[cmb_arr], kind="stable")] if cmb_arr.size else cmb_arr
    n_keep = math.ceil(k2 * order.size)
    kept, cut = order[:n_keep], order[n_keep:]
    last = float(s[kept[-1]]) if kept.size else np.nan
    tb.add("k2-cut", -1, kept, [], s[kept], last, "kept")
    tb.add("k2-cut", -1, cut, [], s[cut], last, "cut-k2")
    engine.n_tests += 2 * kept.size + cut.size
    engine.n_hits += 2 * kept.size + cut.size

    sym_removed = kept[rs[kept] <= delta1]
    survivors = kept[~(rs[kept] <= delta1)]
    tb.add("symmetry", -1, kept, [], s[kept], delta1,
           np.where(rs[kept] <= delta1, "removed", "stays"))

    table = engine.mi_table()
    others_arr = np.asarray(others, dtype=np.int64)
    redundant: list[tuple[int, int, float, float]] = []
    final: list[int] = []
    for f in survivors:
        f = int(f)
        limit = gamma * float(s[f])
        vals = table[f, others_arr] if others_arr.size else np.empty(0)
        dom = rounded(vals) > rounded(limit)
        upto = int(np.argmax(dom)) + 1 if dom.any() else dom.size
        engine.n_tests += upto
        engine.n_hits += upto
        tb.add("redundancy", f, others_arr[:upto] + m, [], vals[:upto], limit,
               np.where(dom[:upto], "dominates", "does-not-dominate"))
        if dom.any():
            d = int(others_arr[upto - 1])
            redundant.append((f, d, float(vals[upto - 1]), float(s[f])))
        else:
            final.append(f)
    after_symmetry = sorted(int(f) for f in survivors)
    return {
        "cmb": [int(f) for f in cmb],
        "after_cut": [int(f) for f in kept],
        "cut": [int(f) for f in cut],
        "symmetry_removed": sorted(int(f) for f in sym_removed),
        "after_symmetry": after_symmetry,
        "redundancy_removed": redundant,
        "blanket": sorted(final),
    }

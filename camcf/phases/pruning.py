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
from ..trace import TraceBuilder, decide

_BLOCK_CELLS = 1 << 20  # (survivors × other categories) values per block


def symmetry_and_redundancy(mi_table: np.ndarray, target: int, s: np.ndarray, cmb: list[int],
                            others, delta1: float, k2: float, gamma: float,
                            tb: TraceBuilder) -> dict:
    """Return the cut, the removals and the final blanket (sorted feature indices).

    Phase 4 reads unconditional values only: ``mi_table`` is I(X_f; C_d) for every feature and
    category (m × C, :meth:`camcf.info.Engine.mi_table`, or a finished run's
    :attr:`camcf.Result.mi_table`), ``s`` holds s_f = I(t; X_f). ``others`` lists the
    categories of the other labels in flattened order (a list or an integer array)."""
    cmb_arr = np.asarray(cmb, dtype=np.int64)
    rs = rounded(s)
    order = cmb_arr[np.argsort(-rs[cmb_arr], kind="stable")] if cmb_arr.size else cmb_arr
    n_keep = math.ceil(k2 * order.size)
    kept, cut = order[:n_keep], order[n_keep:]
    last = float(s[kept[-1]]) if kept.size else np.nan
    tb.add("k2-cut", -1, kept, [], s[kept], last, "kept")
    tb.add("k2-cut", -1, cut, [], s[cut], last, "cut-k2")

    sym_mask = rs[kept] <= delta1
    sym_removed = kept[sym_mask]
    survivors = kept[~sym_mask]
    tb.add("symmetry", -1, kept, [], s[kept], delta1, decide(sym_mask, "removed", "stays"))

    redundant, final = _redundancy(mi_table, s, survivors, np.asarray(others, dtype=np.int64),
                                   gamma, tb)
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


def _redundancy(table: np.ndarray, s: np.ndarray, survivors: np.ndarray, others: np.ndarray,
                gamma: float, tb: TraceBuilder
                ) -> tuple[list[tuple[int, int, float, float]], list[int]]:
    """The redundancy step: (removals (f, d, I(X_f; C_d), s_f), the survivors that stay).

    Survivors go in blocks of rows: I(X_f; C_d) for every other category d at once. f's tests
    stop at the first dominating d (they cover every d when none dominates); the rows are
    recorded f by f, d in flattened order, as a loop over the survivors would.
    """
    m = table.shape[0]
    n_others = others.size
    if n_others == 0:  # nothing to test against: every survivor stays
        return [], survivors.tolist()
    if others.min() < 0 or others.max() >= table.shape[1]:
        raise IndexError(f"category ids out of range 0..{table.shape[1] - 1}")
    redundant: list[tuple[int, int, float, float]] = []
    final: list[int] = []
    block = max(1, _BLOCK_CELLS // n_others)
    every_row = tb.keeps("redundancy", "does-not-dominate")
    others_pool = (others + m).astype(np.int32)
    for lo in range(0, survivors.size, block):
        fs = survivors[lo:lo + block]
        limits = gamma * s[fs]
        vals = table[fs].take(others, axis=1, mode="clip")  # in range: checked above
        dom = rounded(vals) > rounded(limits)[:, None]
        hit = dom.any(axis=1)
        upto = np.where(hit, np.argmax(dom, axis=1) + 1, n_others)  # tests per survivor
        total = int(upto.sum())
        h = np.flatnonzero(hit)
        last = upto[h] - 1  # the dominating category of each removed survivor
        if every_row and total == dom.size:  # every survivor tested against every category
            tb.add("redundancy", np.repeat(fs, n_others), np.tile(others_pool, fs.size), [],
                   vals.ravel(), np.repeat(limits, n_others), decide(dom.ravel(), "dominates",
                                                                    "does-not-dominate"))
        elif every_row:
            rows = np.arange(n_others)[None, :] < upto[:, None]  # row-major: f by f
            tb.add("redundancy", np.repeat(fs, upto),
                   np.broadcast_to(others_pool, dom.shape)[rows], [], vals[rows],
                   np.repeat(limits, upto), decide(dom[rows], "dominates", "does-not-dominate"))
        else:  # only the dominating rows can be kept: the last test of each removed survivor
            tb.add("redundancy", fs[h], others[last] + m, [], vals[h, last], limits[h],
                   "dominates", at=np.cumsum(upto)[h] - 1, n=total)
        redundant.extend(zip(fs[h].tolist(), others[last].tolist(), vals[h, last].tolist(),
                             s[fs[h]].tolist(), strict=True))
        final.extend(fs[~hit].tolist())
    return redundant, final

"""Counting sparse features against (t, stratum) cells from every stored entry at once.

:meth:`camcf.fast_engine.FastEngine._cmi_given_codes` counts the codes ≥ 1 of sparse features
from their stored entries. When the columns asked hold most of the entries (Phase 3 and the
spouse step ask nearly every feature given a set), gathering their entries column by
column costs more than counting the entries of every feature and keeping the columns asked:
:func:`all_code_counts` does that from :func:`entry_keys` (the entries row after row: each row's
number of entries, each entry's column·K + code; built once for the per-target engines over one
X)."""

from __future__ import annotations

import weakref

import numpy as np

from .info import _CELL_BUDGET, _sum_axes

_MOST = 3  # the columns asked hold at least 1/_MOST of the stored entries: count them all


_BY_X: dict[int, tuple] = {}  # id(X) -> (a weak reference to X, entry_keys): the last X


def entry_keys(eng) -> tuple[np.ndarray, np.ndarray, int]:
    """The stored entries of the engine's sparse X row after row (CSR order): how many each
    row holds (intp), each entry's column·K + code (int64) and K, the largest code bound of
    the features; read-only. Built once per X object while it lives, for every per-target
    engine over it (X is read-only to the engines), and kept by the engine. Row after row, a
    per-row key of every entry is one ``np.repeat`` (no gather by row index)."""
    keys = eng._entry_keys
    if keys is None:
        X = eng.X
        K = int(eng.card[:eng.m].max())
        key = id(X)
        hit = _BY_X.get(key)
        if hit is not None and hit[0]() is X and hit[1][2] == K:
            keys = hit[1]
        else:
            R = X.tocsr()
            code = R.indices.astype(np.int64)
            code *= K
            code += R.data
            lens = np.diff(R.indptr).astype(np.intp)
            lens.flags.writeable = code.flags.writeable = False
            keys = (lens, code, K)
            _BY_X.clear()
            _BY_X[key] = (weakref.ref(X, lambda _: _BY_X.pop(key, None)), keys)
        eng._entry_keys = keys
    return keys


def all_code_counts(eng, cols: np.ndarray, ts_row: np.ndarray, ts_counts: np.ndarray,
                    S: int, K: int) -> np.ndarray | None:
    """Counts (k × K × 2S, int64) of (code, cell) of the sparse features ``cols`` (codes < K),
    each row of the data in cell ``ts_row`` (``ts_counts``: the rows of each of the 2S cells),
    from one ``bincount`` of every stored entry; code 0 is the remainder of each cell. The same
    counts as counting the columns' own entries. None when the columns hold less than a third
    of the entries or the cells of every feature exceed the budget (count their entries
    then)."""
    X = eng.X
    nnz = int(X.indptr[-1])
    if not nnz:
        return None
    lens, code, K_all = entry_keys(eng)
    width = 2 * S
    if eng.m * K_all * width > _CELL_BUDGET:
        return None
    if cols.size < eng.m:
        held = int((X.indptr[cols + 1] - X.indptr[cols]).sum())
        if _MOST * held < nnz:
            return None
    # key cell·(m·K) + column·K + code: the cell's part repeated over each row's entries,
    # the rest stored
    idx = np.repeat(ts_row * (eng.m * K_all), lens)
    idx += code
    c = np.bincount(idx, minlength=eng.m * K_all * width).reshape(width, eng.m, K_all)
    counts = np.empty((cols.size, K, width), dtype=np.int64)
    counts[:, 1:, :] = c[:, cols, 1:K].transpose(1, 2, 0)
    counts[:, 0, :] = ts_counts[None, :] - _sum_axes(counts[:, 1:, :], 1)
    return counts


__all__ = ["all_code_counts", "entry_keys"]

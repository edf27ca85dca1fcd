"""Read-only inputs the fast engine shares between the per-target engines of a run: the row-hash
multipliers, the ``c·log2 c`` table, code cardinalities, the float32 indicators its BLAS
products count with, which categories are their predecessor's complement and the sparse
indicators of the others (:class:`camcf.fast_engine.FastEngine`)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from ._sparse import issparse
from .info import _ELEM_BUDGET, _xlogx

if TYPE_CHECKING:
    import scipy.sparse as sp

_SPARSE_CATEGORIES = 0.1  # share of ones under which the tables count categories sparsely
_SPARSE_CATEGORIES_FROM = 1 << 20  # n × categories from which that pays (and scipy.sparse loads)
_INDICATOR_BYTES = 64 << 20  # float32 code indicators of X kept for BLAS counting, at most
HASH_SEED = 20240611


@functools.lru_cache(maxsize=4)
def hash_multipliers(k: int, seed: int = HASH_SEED) -> np.ndarray:
    """Random odd 64-bit multipliers, one per pool column (row hash Σ_j a_j·x_j mod 2^64).

    Read-only and cached: every per-target engine of a run uses the same ones."""
    rng = np.random.default_rng(seed)
    mult = rng.integers(1, 2**63 - 1, size=k, dtype=np.uint64) * np.uint64(2)
    mult += np.uint64(1)
    mult.flags.writeable = False
    return mult


@functools.lru_cache(maxsize=4)
def xlogx_table(n: int) -> np.ndarray:
    """``c·log2(c)`` for c = 0..n (read-only and cached: every per-target engine of a run with
    n samples reads the same one)."""
    out = _xlogx(np.arange(n + 1))
    out.flags.writeable = False
    return out


def pool_cardinality(X, C: np.ndarray, ones: np.ndarray | None = None) -> np.ndarray:
    """Code upper bounds (max + 1) of every pool column: features of X, then categories of C.
    ``ones``: the ones of each column of C (0/1 indicators) when known: a column's maximum is
    then 1 where it has ones, else 0 (no pass over C)."""
    if X.shape[0] == 0:
        return np.ones(X.shape[1] + C.shape[1], dtype=np.int64)
    if issparse(X):
        fx = np.asarray(X.max(axis=0).todense()).ravel() if X.shape[1] else np.empty(0)
    else:
        fx = X.max(axis=0) if X.shape[1] else np.empty(0)
    if ones is not None:
        fc = np.asarray(ones) > 0
    else:
        fc = C.max(axis=0) if C.shape[1] else np.empty(0)
    return np.concatenate([np.asarray(fx, dtype=np.int64), np.asarray(fc, dtype=np.int64)]) + 1


def feature_indicators(X, card: np.ndarray) -> np.ndarray | None:
    """Float32 indicators ``[X == v]`` for codes v = 1..K−1 of dense features: array
    (K − 1) × n × m for counting by a BLAS product, laid out row by row (a view of one
    C-ordered n × (K − 1) × m array: a row's indicators of every code and column are
    contiguous, so the rows of a set of strata are read by one sparse product, see
    :meth:`FastEngine._counts_rows`); None for sparse X, for codes of one value, for ≥ 2^24 rows
    (float32 counts stop being exact) or when they would take more than 64 MB. Read-only:
    every per-target engine of a run shares it."""
    if issparse(X) or X.ndim != 2 or X.shape[1] == 0 or X.shape[0] >= 2**24:
        return None
    n, m = X.shape
    K = int(np.asarray(card)[:m].max())
    if K < 2 or (K - 1) * n * m * 4 > _INDICATOR_BYTES:
        return None
    out = np.empty((n, K - 1, m), dtype=np.float32)
    block = max(1, _ELEM_BUDGET // max(m, 1))
    for a in range(0, n, block):  # row blocks: no n × m temporary beyond one block
        part = np.asarray(X[a:a + block])
        for v in range(1, K):
            np.equal(part, v, out=out[a:a + block, v - 1], casting="unsafe")
    out = out.transpose(1, 0, 2)
    out.flags.writeable = False
    return out


def indicator_rows(ind: np.ndarray | None) -> np.ndarray | None:
    """The indicators of :func:`feature_indicators` as one n × (K − 1)·m C-ordered array (a
    view: column (v − 1)·m + j is [X_j == v]), or None when they are not laid out row by row."""
    if ind is None:
        return None
    L, n, m = ind.shape
    rows = ind.transpose(1, 0, 2)
    if not rows.flags.c_contiguous:
        return None
    return rows.reshape(n, L * m)


def category_indicators(C: np.ndarray) -> np.ndarray | None:
    """The category indicators as float32 (n × C, column-major) for counting by a BLAS product,
    or None from 2^24 rows or above 64 MB. Read-only and shared like
    :func:`feature_indicators`."""
    n, q = C.shape
    if q == 0 or n >= 2**24 or n * q * 4 > _INDICATOR_BYTES:
        return None
    out = np.asfortranarray(C, dtype=np.float32)
    out.flags.writeable = False
    return out


def complements(C: np.ndarray, ones: np.ndarray, beside=None) -> np.ndarray:
    """Which categories are the complement of the category just before them (the second
    category of a binary label, in flattened order; in a run a, ¬a, a only the middle one):
    their counts follow from their predecessor's, n(¬a, ·) = n(·) − n(a, ·). ``ones``: the
    ones of each column of ``C``; only columns whose ones add up to n with their
    predecessor's are compared. ``beside``: when given, ``beside(fn)`` runs ``fn()`` on
    another thread and returns its ``concurrent.futures.Future``: half the comparisons go
    there (numpy's, without the GIL)."""
    n, Q = C.shape
    comp = np.zeros(Q, dtype=bool)
    if Q < 2:
        return comp
    cand = np.flatnonzero(ones[1:] + ones[:-1] == n) + 1
    step = max(1, _ELEM_BUDGET // max(n, 1))

    def compare(lo: int, hi: int) -> None:  # (candidates lo..hi − 1; their own cells of comp)
        for a in range(lo, hi, step):
            idx = cand[a:min(a + step, hi)]
            comp[idx] = (C[:, idx] != C[:, idx - 1]).all(axis=0)

    _in_halves(compare, cand.size, beside)
    for i in np.flatnonzero(comp[1:] & comp[:-1]).tolist():
        if comp[i]:
            comp[i + 1] = False
    return comp


def _in_halves(fn, k: int, beside=None) -> None:
    """``fn(lo, hi)`` over 0..``k`` − 1: the second half on another thread when ``beside``
    is given (as :func:`complements` takes it), the first here."""
    if beside is None or k < 2:
        fn(0, k)
        return
    half = beside(lambda: fn(k // 2, k))
    fn(0, k // 2)
    half.result()


def sparse_categories(C: np.ndarray, ones: np.ndarray, cols: np.ndarray, beside=None
                      ) -> sp.csc_matrix | None:
    """The category indicators of columns ``cols``, each replaced by its complement where
    that has fewer ones, as a sparse int64 n × len(cols) matrix (indices sorted); None when
    they are not sparse or too small for that to pay (then counting goes through dense
    indicators). Counts from these are exact integers, whatever n. ``ones``: the ones of each
    column of ``C``; ``beside``: as :func:`complements` takes it (half the columns there)."""
    n = C.shape[0]
    cols = np.asarray(cols, dtype=np.int64)
    k = cols.size
    if not k or not n or n * C.shape[1] < _SPARSE_CATEGORIES_FROM:
        return None
    nb = np.asarray(ones)[cols]
    flip = 2 * nb > n
    stored = np.where(flip, n - nb, nb)
    if stored.sum() > _SPARSE_CATEGORIES * n * k:
        return None
    import scipy.sparse as sp

    rows = np.empty(int(stored.sum()), dtype=np.int32 if n < 2**31 else np.int64)
    indptr = np.zeros(k + 1, dtype=np.int64)
    np.cumsum(stored, out=indptr[1:])
    Ct = np.asarray(C).T  # columns as rows: contiguous for column-major C
    block = max(1, _ELEM_BUDGET // n)

    def fill(lo: int, hi: int) -> None:  # (columns lo..hi − 1: their own part of rows)
        for a in range(lo, hi, block):
            b = min(hi, a + block)
            part = Ct[cols[a:b]]  # (b − a) × n, C order
            part ^= flip[a:b, None].astype(part.dtype)
            # indicators are 0/1: numpy finds the non-zeros of a bool array 5-10× faster
            flat = np.flatnonzero(part.view(np.bool_) if part.dtype == np.uint8 else part)
            rows[indptr[a]:indptr[b]] = flat % n

    _in_halves(fill, k, beside)
    return sp.csc_matrix((np.ones(rows.size, dtype=np.int64), rows, indptr), shape=(n, k))

"""Read-only inputs the fast engine shares between the per-target engines of a run: the row-hash
multipliers, the ``c·log2 c`` table, code cardinalities and the float32 indicators its BLAS
products count with (:class:`camcf.fast_engine.FastEngine`)."""

from __future__ import annotations

import functools

import numpy as np

from ._sparse import issparse
from .info import _ELEM_BUDGET, _xlogx

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

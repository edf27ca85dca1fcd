"""Plug-in information measures in bits, straight from their definitions (numpy only).

Every quantity is the plug-in estimate from empirical frequencies; a set of variables is one
joint variable whose states are its distinct rows. With ``S(T) = Σ_cells c·log2(c)`` over a
table T of counts,

    I(A; B | Z) = H(A,Z) + H(B,Z) − H(Z) − H(A,B,Z) = (S(A,B,Z) + S(Z) − S(B,Z) − S(A,Z)) / n

(:func:`cmi_from_counts`). Scores are compared after rounding to :data:`DECIMALS` decimal
places (SPEC.md), see :func:`rounded`.
"""

from __future__ import annotations

import numpy as np

from .._sparse import issparse

DECIMALS = 12
_SCALE = 10.0**DECIMALS
_BLOCK = 1 << 22  # cells of a column block read at once


def rounded(v):
    """Round scores to 12 decimals so that mathematically equal scores tie (SPEC.md).

    Arrays go through ``np.round``; a Python/numpy float takes the same steps (scale by 10^12,
    round half to even, unscale), so both give identical values.
    """
    if isinstance(v, float):
        if v != v or v in (np.inf, -np.inf):
            return v
        return round(v * _SCALE) / _SCALE
    return np.round(v, DECIMALS)


def _xlogx(counts) -> np.ndarray:
    c = np.asarray(counts, dtype=np.float64)
    out = np.zeros_like(c)
    pos = c > 0
    out[pos] = c[pos] * np.log2(c[pos])
    return out


def cmi_from_counts(counts) -> float:
    """I(A; B | Z) in bits from the counts of its contingency table, shape (Z, A, B).

    >>> round(cmi_from_counts(np.array([[[5, 0], [0, 5]]])), 12)  # A = B, one bit
    1.0
    """
    c = np.asarray(counts)
    az, bz = c.sum(axis=2), c.sum(axis=1)
    z = az.sum(axis=1)
    n = z.sum()
    if n == 0:
        return 0.0
    return float((_xlogx(c).sum() + _xlogx(z).sum() - _xlogx(bz).sum() - _xlogx(az).sum()) / n)


def joint_codes(columns: np.ndarray) -> tuple[np.ndarray, int]:
    """Code the distinct rows of ``columns`` (n × k) as 0..ns−1 (``np.unique``, exact)."""
    columns = np.asarray(columns)
    n = columns.shape[0]
    if columns.ndim == 1:
        columns = columns[:, None]
    if columns.shape[1] == 0:
        return np.zeros(n, dtype=np.int64), 1
    if columns.shape[1] == 1:  # one variable: its distinct values (the same codes, faster)
        _, inv = np.unique(columns[:, 0], return_inverse=True)
    else:
        _, inv = np.unique(columns, axis=0, return_inverse=True)
    inv = inv.ravel().astype(np.int64)
    return inv, int(inv.max()) + 1 if n else 0


def contingency(a, b, cond=None) -> np.ndarray:
    """The counts of (stratum of ``cond``, a, b): array (Z, A, B) over the distinct values of
    each (Z = 1 when ``cond`` is None or empty)."""
    a, b = np.asarray(a), np.asarray(b)
    if cond is None or np.asarray(cond).size == 0:
        z, nz = np.zeros(a.shape[0], dtype=np.int64), 1
    else:
        z, nz = joint_codes(np.asarray(cond))
    ia, na = joint_codes(a)
    ib, nb = joint_codes(b)
    return np.bincount((z * na + ia) * nb + ib, minlength=nz * na * nb).reshape(nz, na, nb)


def conditional_mutual_information(a, b, cond=None) -> float:
    """I(A; B | Z) in bits; ``cond`` is None, a 1-D array or an n × k array of variables."""
    if np.asarray(a).shape[0] == 0:
        return 0.0
    return cmi_from_counts(contingency(a, b, cond))


def mutual_information(a, b) -> float:
    """I(A; B) in bits."""
    return conditional_mutual_information(a, b, None)


def entropy(*variables) -> float:
    """Joint plug-in entropy H(A, B, …) in bits of 1-D (or 2-D, one column a variable) arrays."""
    codes, _ = joint_codes(np.column_stack([np.asarray(v) for v in variables]))
    counts = np.bincount(codes)
    return float(np.log2(codes.size) - _xlogx(counts).sum() / codes.size)


def smallest_uint(max_value: int) -> np.dtype:
    """The smallest unsigned integer type holding 0..max_value."""
    for dt in (np.uint8, np.uint16, np.uint32):
        if max_value <= np.iinfo(dt).max:
            return np.dtype(dt)
    return np.dtype(np.uint64)


def pool_levels(X, C: np.ndarray, ones: np.ndarray | None = None) -> np.ndarray:
    """How many distinct values occur in each pool column: the features of X (dense or sparse),
    then the category indicators of C (2, or 1 when constant). ``ones``: the ones of each
    column of C when known (else counted)."""
    n, m = X.shape
    out = np.zeros(m + C.shape[1], dtype=np.int64)
    if n == 0:
        return out
    if issparse(X):
        import scipy.sparse as sp

        Xc = sp.csc_matrix(X)
        data, stored = Xc.data, np.diff(Xc.indptr)
        small = data.dtype.kind in "ub" or (data.dtype.kind == "i" and data.min(initial=0) >= 0)
        top = int(data.max(initial=0)) if small else 0
        if small and (top + 1) * m <= _BLOCK:  # one bincount of (column, code) keys
            key = np.repeat(np.arange(m, dtype=np.int64) * (top + 1), stored) + data
            seen = np.bincount(key, minlength=m * (top + 1)).reshape(m, top + 1) > 0
            out[:m] = seen.sum(axis=1) + ((stored < n) & ~seen[:, 0])
        else:
            for j in range(m):
                col = data[Xc.indptr[j]:Xc.indptr[j + 1]]
                u = np.unique(col)
                out[j] = u.size + bool(col.size < n and not (u == 0).any())
    elif m:
        A = np.asarray(X)
        small = A.dtype.kind in "ub" or (A.dtype.kind == "i" and A.min() >= 0)
        top = int(A.max()) if small else 0
        if small and top < 1 << 16:
            step = max(1, _BLOCK // n)
            for a in range(0, m, step):  # one bincount of offset codes per column block
                part = A[:, a:a + step].astype(np.int64)
                part += np.arange(part.shape[1])[None, :] * (top + 1)
                seen = np.bincount(part.ravel(order="F"), minlength=part.shape[1] * (top + 1))
                out[a:a + part.shape[1]] = np.count_nonzero(seen.reshape(-1, top + 1), axis=1)
        else:
            out[:m] = [np.unique(A[:, j]).size for j in range(m)]
    if ones is None:
        ones = np.asarray(C).sum(axis=0, dtype=np.int64)
    out[m:] = 1 + ((ones > 0) & (ones < n))
    return out

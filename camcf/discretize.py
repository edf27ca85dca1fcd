"""Feature discretisation (SPEC "Discretisation").

A column whose values are all integers with at most 10 distinct values is used as it is (its
values mapped to codes 0..k−1 in ascending order); any other column is binned with
scikit-learn's ``KBinsDiscretizer`` (equal-width bins, 3 by default). A constant column becomes a
single code 0. Labels are never binned.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np

from ._sparse import issparse
from .algorithm_params import DISCRETIZE_PARAMS
from .dataset import code_dtype
from .errors import InvalidDataError
from .params import validate

_DISC = {p.name: p for p in DISCRETIZE_PARAMS}

#: Cells of one column block the dense path works on at a time (its temporaries' size).
_BLOCK_CELLS = 1 << 20

#: Most distinct integer values a column may have to be used as it is.
MAX_AS_IS = 10
#: Most bins a column may be cut into (declared with ``bins``).
MAX_BINS = int(_DISC["bins"].high)


def check_discretization(**settings) -> dict:
    """The discretisation settings (``discretize``, ``bins``, ``strategy``) validated against
    their declarations (:data:`camcf.algorithm_params.DISCRETIZE_PARAMS`); missing ones take
    their defaults. :class:`~camcf.errors.ParameterError` names a bad one."""
    return validate(DISCRETIZE_PARAMS, settings)


def _is_integral(col: np.ndarray) -> bool:
    return bool(np.all(col == np.floor(col)))


def _as_is(col: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    values, codes = np.unique(col, return_inverse=True)
    return codes.astype(np.int64), values


def _value(v: float) -> int | float:
    return int(v) if float(v).is_integer() else float(v)


def _bin(col: np.ndarray, bins: int, strategy: str) -> tuple[np.ndarray, np.ndarray]:
    # A column spanning more than the largest float (e.g. ±1.7e308) would get an infinite width
    # and NaN/inf edges: bin it scaled by a power of two (exact) and scale the edges back.
    with np.errstate(over="ignore"):
        span = float(col.max()) - float(col.min())
    if not np.isfinite(span):
        codes, edges = _bin(col * 0.25, bins, strategy)
        return codes, edges * 4.0
    # imported here: integer codes (the common case on the command line) never need it
    from sklearn.preprocessing import KBinsDiscretizer

    kbd_params = set(inspect.signature(KBinsDiscretizer).parameters)
    kw: dict[str, object] = {"n_bins": bins, "encode": "ordinal", "strategy": strategy}
    if "subsample" in kbd_params:
        kw["subsample"] = None
    if strategy == "quantile" and "quantile_method" in kbd_params:
        kw["quantile_method"] = "averaged_inverted_cdf"
    kbd = KBinsDiscretizer(**kw)  # type: ignore[arg-type]
    with warnings.catch_warnings():
        # "Bins whose width are too small are removed" / constant-feature notices: the
        # resulting edges are reported in ``info`` instead.
        warnings.simplefilter("ignore", UserWarning)
        warnings.simplefilter("ignore", FutureWarning)
        codes = kbd.fit_transform(col.reshape(-1, 1))[:, 0]
    return codes.astype(np.int64), np.asarray(kbd.bin_edges_[0], dtype=float)


def discretize(
    X: np.ndarray,
    *,
    bins: int = 3,
    strategy: str = "uniform",
    discretize: str = "auto",
    names: list[str] | None = None,
) -> tuple[np.ndarray, list[dict]]:
    """Turn a feature matrix into discrete codes.

    The same as ``Discretizer(discretize, bins, strategy).fit(X)``, returning what it learned
    (:class:`Discretizer` keeps it to code other rows the same way).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Raw feature values. NaN or infinite values are rejected.
    bins : int, default 3
        Number of bins for a column that is binned (at least 2).
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width or equal-frequency bins (scikit-learn's ``KBinsDiscretizer``).
    discretize : {"auto", "none"}, default "auto"
        ``"auto"``: a column of integers with at most 10 distinct values is used as it is, any
        other column is binned. ``"none"``: no binning; every column must hold integers, whose
        distinct values are mapped to codes 0..k−1.
    names : list of str, optional
        The feature names, one per column: messages about columns name them (else they give
        column positions).

    Returns
    -------
    codes : ndarray of shape (n_samples, n_features), signed integers
        Codes 0..k−1 per column, in the smallest signed integer type that holds them
        (:func:`camcf.dataset.code_dtype`: int8 up to 127 codes), worked out column block by
        column block (no full-size float or int64 temporary); a ``scipy.sparse`` X gives sparse
        int64 codes when every column's zeros get code 0.
    info : list of dict
        One dict per column: ``{"column": j, "kind": "as-is" | "binned" | "constant",
        "n_codes": k, "edges": list of float or None, "values": list or None}``. ``edges`` are
        the bin edges of a binned column; ``values`` the original value of each code of an
        as-is or constant column.

    Raises
    ------
    camcf.ParameterError
        ``bins`` below 2 or not an integer, unknown ``strategy`` or ``discretize``.
    InvalidDataError
        ``X`` is not 2-D or not numeric, holds NaN/inf, or (``discretize="none"``) non-integers.
    """
    return _fit_codes(X, bins, strategy, discretize, names)


def _fit_codes(X, bins: int, strategy: str, mode: str,
               names: list[str] | None) -> tuple[np.ndarray, list[dict]]:
    """The one implementation of :func:`discretize` and :meth:`Discretizer.fit`."""
    check_discretization(discretize=mode, bins=bins, strategy=strategy)
    if issparse(X):
        out = _discretize_sparse(X, bins, strategy, mode)
        if out is not None:
            return out
        from .limits import check_memory

        check_memory(16 * X.shape[0] * X.shape[1], f"the dense form of X {X.shape}")
        X = X.toarray()
    A = np.asarray(X)
    whole_ints = A.ndim == 2 and (A.dtype.kind == "b" or A.dtype == np.int64 or (
        A.dtype.kind in "iu" and A.dtype.itemsize < 8))  # integers: no NaN, no floor
    if not whole_ints:
        A = _finite_2d(X, names)
    n, m = A.shape
    step = max(1, _BLOCK_CELLS // max(n, 1))  # columns per block: no n × m temporary

    def block(a: int) -> np.ndarray:
        """Columns a.. of the block as rows (contiguous), int64 or float64 as the whole."""
        return np.ascontiguousarray(A[:, a:a + step].T,
                                    dtype=np.int64 if whole_ints else None)

    integral = np.ones(m, dtype=bool)
    constant = np.ones(m, dtype=bool)
    for a in range(0, m, step):
        part = A[:, a:a + step]
        if not whole_ints and n:
            integral[a:a + step] = np.all(part == np.floor(part), axis=0)
        if n:
            constant[a:a + step] = np.all(part == part[:1], axis=0)

    def colname(j: int) -> str:
        return str(names[j]) if names is not None and len(names) == m else str(j)

    if mode == "none" and not integral.all():
        bad = np.flatnonzero(~integral)
        shown = ", ".join(colname(j) for j in bad[:20])
        raise InvalidDataError(
            f"with discretize='none' every value must be an integer code, but column(s) "
            f"{shown} hold non-integer values; use discretize='auto' to bin them",
            problem=f"with discretisation none every value must be an integer code, but "
                    f"column(s) {shown} hold non-integer values", fix="discretize")
    out = np.zeros((n, m), dtype=np.int8)  # widened when a column has more codes
    info: list[dict] = []
    for a in range(0, m, step):
        AT = block(a)  # one column per row: every per-column step reads memory in order
        codes = np.zeros(AT.shape, dtype=np.int64)
        small = _small_integer_codes(AT, integral[a:a + step] & ~constant[a:a + step], codes)
        for i in range(AT.shape[0]):
            j = a + i
            col = AT[i]
            if constant[j]:
                info.append({"column": j, "kind": "constant", "n_codes": 1, "edges": None,
                             "values": [_value(float(col[0]))] if n else []})
                continue
            if i in small:
                c, values = None, small[i]  # codes[i] already written
            elif integral[j]:
                c, values = _as_is(col)
            else:
                c, values = None, None
            if values is not None and (mode == "none" or values.size <= MAX_AS_IS):
                if c is not None:
                    codes[i] = c
                info.append({"column": j, "kind": "as-is", "n_codes": int(values.size),
                             "edges": None, "values": [_value(float(v)) for v in values]})
                continue
            c, edges = _bin(col.astype(float), int(bins), strategy)
            # Bins that received no sample leave gaps; the codes stay the bin numbers so that
            # they match the edges (equal-width bins are the authors' convention).
            codes[i] = c
            info.append({"column": j, "kind": "binned", "n_codes": int(len(edges) - 1),
                         "edges": [float(e) for e in edges], "values": None})
        top = max((info[j]["n_codes"] for j in range(a, a + AT.shape[0])), default=1) - 1
        wider = np.promote_types(code_dtype(0, top), out.dtype)
        if wider != out.dtype:
            out = out.astype(wider)
        out[:, a:a + step] = codes.T
    return out, info


def _finite_2d(X, names: list[str] | None = None) -> np.ndarray:
    """X as a 2-D float array without NaN or infinite values (else a typed error)."""
    try:
        A = np.asarray(X, dtype=float)
    except (TypeError, ValueError):
        raise InvalidDataError(
            "X must hold numbers only; convert text columns to codes first"
        ) from None
    if A.ndim != 2:
        raise InvalidDataError(f"X must be 2-D (samples × features); got shape {A.shape}")

    def colname(j: int) -> str:
        return str(names[j]) if names is not None and len(names) == A.shape[1] else str(j)

    nan_cols = np.flatnonzero(np.isnan(A).any(axis=0))
    if nan_cols.size:
        shown = ", ".join(colname(j) for j in nan_cols[:20]) + (", …" if nan_cols.size > 20 else "")
        raise InvalidDataError(
            f"X has missing values (NaN) in {nan_cols.size} column(s): {shown}; impute the "
            "missing values or remove those columns/rows before discretising",
            problem=f"the features have missing values (NaN) in {nan_cols.size} column(s): "
                    f"{shown}", fix="complete_data")
    inf_cols = np.flatnonzero(np.isinf(A).any(axis=0))
    if inf_cols.size:
        shown = ", ".join(colname(j) for j in inf_cols[:20])
        raise InvalidDataError(
            f"X has infinite values in column(s) {shown}; replace or remove them before "
            "discretising", problem=f"the features have infinite values in column(s) {shown}",
            fix="complete_data")
    return A


#: Widest value range (max − min) of an integer column coded by counting instead of sorting.
_COUNT_RANGE = 1024


def _small_integer_codes(AT: np.ndarray, which: np.ndarray, codes: np.ndarray) -> dict:
    """Write into ``codes`` (columns as rows, like ``AT``) the :func:`_as_is` codes (rank of the
    value among the column's distinct values) of the integer columns in ``which`` whose values
    span at most :data:`_COUNT_RANGE`, found for all of them at once by counting; return
    ``{column: distinct values}`` for those columns."""
    rows = np.flatnonzero(which)
    if rows.size == 0 or AT.shape[1] == 0:
        return {}
    lo = AT[rows].min(axis=1)
    span = AT[rows].max(axis=1) - lo
    rows, lo, span = rows[span <= _COUNT_RANGE], lo[span <= _COUNT_RANGE], span[span <= _COUNT_RANGE]
    out: dict[int, np.ndarray] = {}
    for start in range(0, rows.size, 256):  # bounded memory: 256 columns at a time
        rs, ls = rows[start:start + 256], lo[start:start + 256]
        width = int(span[start:start + 256].max()) + 1
        base = np.arange(rs.size) * width
        shifted = (AT[rs] - ls[:, None]).astype(np.int64) + base[:, None]
        present = np.bincount(shifted.ravel(), minlength=rs.size * width) > 0
        rank = np.cumsum(present) - 1  # over all the block's columns: subtract each one's start
        before = rank[base] + 1 - present[base]
        codes[rs] = rank[shifted] - before[:, None]
        present = present.reshape(rs.size, width)
        for i, j in enumerate(rs):
            out[int(j)] = ls[i] + np.flatnonzero(present[i]).astype(float)
    return out


def _discretize_sparse(X, bins: int, strategy: str, mode: str):
    """The same codes and info as the dense path for a ``scipy.sparse`` X, kept sparse (CSC,
    int64 codes) — or None when some column would give its zeros a non-zero code (then the
    caller densifies). One dense column at a time at most."""
    import scipy.sparse as sp

    A = sp.csc_matrix(X, dtype=float)
    n, m = A.shape
    data = A.data
    bad = np.flatnonzero(np.isnan(data))
    if bad.size:
        cols = np.unique(np.searchsorted(A.indptr, bad, side="right") - 1)
        shown = ", ".join(str(j) for j in cols[:20]) + (", …" if cols.size > 20 else "")
        raise InvalidDataError(
            f"X has missing values (NaN) in {cols.size} column(s): {shown}; impute the "
            "missing values or remove those columns/rows before discretising",
            problem=f"the features have missing values (NaN) in {cols.size} column(s): {shown}",
            fix="complete_data")
    if np.isinf(data).any():
        raise InvalidDataError("X has infinite values; replace or remove them before discretising",
                               problem="the features have infinite values",
                               fix="complete_data")
    out = np.zeros(data.size, dtype=np.int64)
    info: list[dict] = []
    non_integral = []
    for j in range(m):
        a, b = A.indptr[j], A.indptr[j + 1]
        vals = data[a:b]
        has_zero = b - a < n
        distinct = np.unique(np.concatenate([vals, [0.0]]) if has_zero else vals)
        if n == 0 or distinct.size <= 1:
            info.append({"column": j, "kind": "constant", "n_codes": 1, "edges": None,
                         "values": [_value(distinct[0])] if n else []})
            continue
        integral = _is_integral(distinct)
        if mode == "none" and not integral:
            non_integral.append(j)
            continue
        if mode == "none" or (integral and distinct.size <= MAX_AS_IS):
            if has_zero and distinct[0] != 0:
                return None  # the zeros would get a non-zero code
            out[a:b] = np.searchsorted(distinct, vals)
            info.append({"column": j, "kind": "as-is", "n_codes": int(distinct.size),
                         "edges": None, "values": [_value(v) for v in distinct]})
            continue
        col = A[:, [j]].toarray().ravel()
        c, edges = _bin(col, int(bins), strategy)
        if has_zero and c[col == 0][0] != 0:
            return None
        out[a:b] = c[A.indices[a:b]]
        info.append({"column": j, "kind": "binned", "n_codes": int(len(edges) - 1),
                     "edges": [float(e) for e in edges], "values": None})
    if non_integral:
        shown = ", ".join(str(j) for j in non_integral[:20])
        raise InvalidDataError(
            f"with discretize='none' every value must be an integer code, but column(s) "
            f"{shown} hold non-integer values; use discretize='auto' to bin them",
            problem=f"with discretisation none every value must be an integer code, but "
                    f"column(s) {shown} hold non-integer values", fix="discretize"
        )
    codes = sp.csc_matrix((out, A.indices.copy(), A.indptr.copy()), shape=(n, m))
    codes.eliminate_zeros()
    return codes, info


__all__ = ["MAX_AS_IS", "check_discretization", "discretize"]

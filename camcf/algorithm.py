"""Ca-MCF: label-category flattening and the four phases per target category (SPEC.md).

Every label is flattened into its categories (Algorithm 1): for label i in column order and each
distinct value c of Y[:, i] in ascending order, the target is the indicator t = [Y_i == c]. A
target with fewer than ``min_category_size`` positive samples is skipped (and the result says
so). For each remaining target, the phases run in order:

1. :func:`camcf.phases.label_skeleton` — R, the label categories that explain t;
2. :func:`camcf.phases.parents_children` and :func:`camcf.phases.spouses` — PC and SP;
3. :func:`camcf.phases.recover_blocked` — features masked by members of R;
4. :func:`camcf.phases.symmetry_and_redundancy` — the k2 cut, symmetry and redundancy.

The selected features are the sorted union of the final blankets. The two categories of a binary
label are complements and give identical results in every phase: the second is a mirror of the
first (``TargetResult.mirror_of``), with its own trace rows.

Example
-------
>>> import numpy as np, camcf
>>> rng = np.random.default_rng(0)
>>> X = rng.integers(0, 2, size=(200, 4))
>>> Y = np.column_stack([X[:, 0] ^ (rng.random(200) < 0.1), X[:, 1]])
>>> res = camcf.run(X, Y, delta1=0.05, delta2=0.1, k1=0.7, k2=1.0)
>>> res.selected_indices.tolist()
[0, 1]
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable

import numpy as np

from ._sparse import issparse
from .algorithm_params import ALGORITHM_PARAMS, N_JOBS, adequacy_used, significance_used
from .engine import pool_levels
from .errors import CamcfError, InvalidDataError, ParameterError
from .params import defaults as _param_defaults
from .params import validate as _validate_params
from .phases import outcomes as serial_outcomes
from .result import Category, Result, TargetResult
from .tasks import (
    flatten_shared,
    parallel_begin,
    parallel_start,
    target_work,  # noqa: F401 (camcf.algorithm.target_work: the name tests import)
)
from .trace import TRACE_LEVELS, CondSetList, CondSets

#: Ca-MCF's defaults, from the one declaration in :mod:`camcf.algorithm_params`.
DEFAULTS = _param_defaults(ALGORITHM_PARAMS)

Progress = Callable[[int, int, str], None]


class CamcfWarning(UserWarning):
    """Something in the data the user should know about (a label skipped, nothing selected).

    Like :class:`camcf.CamcfError`, a warning may carry structured ``fields`` (``problem``,
    ``fix``) so that another front end can word it itself."""

    def __init__(self, *args, **fields) -> None:
        super().__init__(*args)
        self.fields: dict = dict(fields)


_NAMES = tuple(p.name for p in ALGORITHM_PARAMS)


def check_params(*args, **kwargs) -> dict:
    """Validate Ca-MCF's parameters against :data:`camcf.algorithm_params.ALGORITHM_PARAMS`
    (positional in declaration order — delta1, delta2, k1, k2, gamma, min_category_size,
    recovery, adequacy, significance — or by name; missing ones take the declared defaults) and raise
    :class:`ParameterError` naming the argument, the value and the allowed range.

    Returns the parameters as a run records them before a threshold given as ``"auto"`` is
    resolved: ``significance`` is kept only when delta1 or delta2 is ``"auto"`` (it is not a
    parameter of a run at numeric thresholds), ``adequacy`` only when it is on (> 0).
    """
    if len(args) > len(_NAMES):
        raise TypeError(f"check_params takes at most {len(_NAMES)} positional arguments "
                        f"({', '.join(_NAMES)})")
    values = dict(zip(_NAMES, args, strict=False))
    twice = sorted(set(values) & set(kwargs))
    if twice:
        raise TypeError(f"check_params got {twice[0]!r} twice")
    values.update(kwargs)
    out = _validate_params(ALGORITHM_PARAMS, values)
    if not significance_used(out):
        out.pop("significance")
    if not adequacy_used(out):
        out.pop("adequacy")
    return out


def check_data(X, Y, *, discretize: str = "none", bins: int = 3, strategy: str = "uniform",
               feature_names=None, label_names=None, source: str | None = None) -> None:
    """Raise a :class:`camcf.CamcfError` when Ca-MCF cannot run on ``X`` and ``Y``.

    The one check :func:`run` applies to its input and a caller applies before it replaces a
    working data set (the app's load check): nothing is discretised or copied beyond one
    column block at a time, and a ``scipy.sparse`` X is checked through its stored entries.

    Parameters
    ----------
    X : array (n, m) or scipy.sparse matrix
        The features: integer codes when ``discretize="none"`` (what :func:`run` takes), any
        finite numbers when ``"auto"`` (they will be binned).
    Y : array (n, q) or (n,)
        Label codes: 0/1, −1/+1 or non-negative category codes.
    discretize, bins, strategy
        The discretisation that will be used (:func:`camcf.discretize.discretize`).
    feature_names, label_names : sequence of str, optional
        Checked to have one name per column; used in messages.
    source : str, optional
        Where the data came from (a file name), put at the start of every message.

    Raises
    ------
    ParameterError
        A bad discretisation setting.
    InvalidDataError
        No rows or no feature columns, missing (NaN) or infinite feature values, non-integer
        codes (``discretize="none"``), codes beyond ±2**53, label columns that are missing,
        negative or all constant, row counts or name counts that do not match.
    """
    from .discretize import check_discretization

    check_discretization(discretize=discretize, bins=bins, strategy=strategy)
    pre = f"{source}: " if source else ""
    n, m = _check_features(X, discretize, feature_names, pre)
    if Y is None:
        raise InvalidDataError(f"{pre}Y (the label matrix) is required when X is an array")
    # label codes as they are (no float copy of an integer Y)
    A = Y if isinstance(Y, np.ndarray) and Y.dtype.kind in "iubf" else _as_float(Y, "Y", pre)
    if A.ndim == 1:
        A = A[:, None]
    if A.ndim != 2:
        raise InvalidDataError(f"{pre}Y must be 1-D or 2-D (samples × labels), got shape "
                               f"{A.shape}")
    if A.shape[0] != n:
        raise InvalidDataError(f"{pre}X has {n} rows but Y has {A.shape[0]}; give one label row "
                               f"per sample")
    if A.shape[1] == 0:
        raise InvalidDataError(f"{pre}Y has no label columns; name the label columns of the "
                               f"data")
    if A.dtype.kind == "f":
        _check_codes(A, "Y", 0, pre)
    lo, hi = A.min(axis=0), A.max(axis=0)
    if A.dtype.kind in "iu":
        top = max(abs(int(lo.min())), abs(int(hi.max())))
        if top > 2**53:  # as _check_codes says it of float codes
            raise InvalidDataError(f"{pre}Y holds values beyond ±2**53 ({float(top):.6g}); "
                                   f"codes must be small integers: recode them as 0..k-1")
    for i in np.flatnonzero(lo < 0).tolist():
        vals = np.unique(A[:, i])
        if not (set(vals.tolist()) <= {-1.0, 1.0}):
            raise InvalidDataError(
                f"{pre}label column {i} has negative codes "
                f"{sorted(int(v) for v in vals if v < 0)}; labels must be 0/1, −1/+1 or "
                f"non-negative category codes")
    varying = int(np.count_nonzero(lo != hi))
    if not varying:
        what = "all zero" if not A.any() else "constant"
        problem = (f"{pre}every label column holds a single value ({what}): every label has one "
                   "category only, so there is nothing to explain")
        raise InvalidDataError(
            f"{problem}; check which columns are the labels (labels / --labels) and that the "
            "label values vary — Ca-MCF needs at least one label with two or more categories",
            problem=problem, fix="check_labels")
    if feature_names is not None and len(feature_names) != m:
        raise InvalidDataError(f"{pre}got {len(feature_names)} feature names for {m} columns")
    if label_names is not None and len(label_names) != A.shape[1]:
        raise InvalidDataError(f"{pre}got {len(label_names)} label names for {A.shape[1]} "
                               f"labels")


def _as_float(X, what: str, pre: str = "") -> np.ndarray:
    try:
        return np.asarray(X, dtype=float)
    except (TypeError, ValueError) as e:
        raise InvalidDataError(f"{pre}{what} must be numeric: {e}") from None


def _check_features(X, discretize: str, names, pre: str) -> tuple[int, int]:
    """Shape, finiteness and (``discretize="none"``) integer codes of X, column block by
    column block (sparse: the stored entries); returns (n, m)."""
    if issparse(X):
        import scipy.sparse as sp

        if X.ndim != 2:
            raise InvalidDataError(f"{pre}X must be 2-D, got shape {X.shape}")
        Xc = sp.csc_matrix(X)
        data = Xc.data if Xc.data.dtype.kind in "iub" else _as_float(Xc.data, "X", pre)
        cols = np.repeat(np.arange(Xc.shape[1]), np.diff(Xc.indptr))
        blocks = [(data, cols)]
        n, m = Xc.shape
    else:
        A = X if isinstance(X, np.ndarray) and X.dtype.kind in "iubf" else _as_float(X, "X", pre)
        if A.ndim != 2:
            raise InvalidDataError(f"{pre}X must be a 2-D array (samples × columns), got shape "
                                   f"{A.shape}")
        n, m = A.shape
        step = max(1, (1 << 22) // max(n, 1))
        blocks = ((A[:, a:a + step], a) for a in range(0, m, step))
    if n == 0:
        raise InvalidDataError(f"{pre}the data has no rows; give at least one sample")
    if m == 0:
        raise InvalidDataError(f"{pre}X has no feature columns to select from")
    for block, where in blocks:
        if block.dtype.kind in "iub":
            # only 64-bit integers can pass ±2**53
            if discretize == "none" and block.dtype.itemsize == 8 and block.size and int(
                    np.abs(block.astype(np.int64, copy=False)).max()) > 2**53:
                raise InvalidDataError(f"{pre}X holds values beyond ±2**53; codes must be "
                                       f"small integers: recode them as 0..k-1")
            continue
        bad = ~np.isfinite(block)
        if bad.any():
            if isinstance(where, np.ndarray):  # sparse: column of each stored entry
                bad_cols = np.unique(where[bad])
            else:
                bad_cols = np.flatnonzero(bad.any(axis=0)) + where
            shown = ", ".join(str(names[j]) if names is not None and len(names) == m else str(j)
                              for j in bad_cols[:10]) + (", …" if bad_cols.size > 10 else "")
            problem = (f"{pre}X has {int(bad.sum()):,} empty or non-finite cell(s) (missing "
                       f"values, NaN, or infinite) in feature column(s) {shown}")
            raise InvalidDataError(
                f"{problem}; Ca-MCF needs complete data: impute, fill in or remove those cells, "
                f"rows or columns", problem=problem, fix="complete_data")
        if discretize == "none":
            _check_codes(block if block.ndim == 2 else block[:, None], "X",
                         where if not isinstance(where, np.ndarray) else 0, pre)
    return n, m


def _check_codes(A: np.ndarray, what: str, offset: int = 0, pre: str = "") -> None:
    """Raise if the float block ``A`` (columns from ``offset``) has NaN or non-integer values.

    Each check goes over column blocks of about 2^22 cells (no full-size temporaries), in the
    same order as over the whole block: missing values, then size, then integers."""
    n = A.shape[0] if A.ndim else 1
    step = max(1, (1 << 22) // max(n, 1))
    blocks = [(A[:, a:a + step], a) for a in range(0, A.shape[1], step)] if A.ndim == 2 \
        else [(A, 0)]
    nan_cols: list[int] = []
    for part, a in blocks:
        if np.isnan(part).any():
            nan_cols.extend((np.nonzero(np.isnan(part).any(axis=0))[0] + a).tolist())
            if len(nan_cols) >= 5:
                break
    if nan_cols:
        cols = [c + offset for c in nan_cols[:5]]
        raise InvalidDataError(f"{pre}{what} has missing values (NaN) in column(s) {cols}; impute "
                               f"or drop them first")
    top = max((float(np.abs(part).max()) for part, _ in blocks if part.size), default=0.0)
    if top > 2.0**53:  # int64 would overflow or merge codes
        raise InvalidDataError(f"{pre}{what} holds values beyond ±2**53 "
                               f"({top:.6g}); codes must be small integers: "
                               f"recode them as 0..k-1")
    bad: list[int] = []
    for part, a in blocks:
        off = part != np.round(part)
        if off.any():
            bad.extend((np.nonzero(off.any(axis=0))[0] + a).tolist() if off.ndim == 2 else [0])
            if len(bad) >= 5:
                break
    if bad:
        cols = [c + offset for c in bad[:5]]
        raise InvalidDataError(
            f"{pre}{what} must hold discrete codes; column(s) {cols} have non-integer values: "
            f"discretise first (camcf.discretize) or pass a camcf.Dataset")


def _prepare_labels(Y) -> np.ndarray:
    """Y (checked by :func:`check_data`) as non-negative codes in the smallest unsigned type,
    column-major (one column a label), −1/+1 read as 0/1. Column blocks at a time: no full-size
    float or int64 copy."""
    from .engine import smallest_uint

    A = np.asarray(Y)
    if A.ndim == 1:
        A = A[:, None]
    if A.dtype.kind not in "iubf":
        A = np.asarray(A, dtype=float)
    n, q = A.shape
    if A.size == 0:
        return np.zeros((n, q), dtype=np.uint8, order="F")
    # the codes as int64, as Ca-MCF reads them (float values truncate, as they always have)
    lo = A.min(axis=0).astype(np.int64)
    hi = A.max(axis=0).astype(np.int64)
    flip = np.zeros(q, dtype=bool)
    for i in np.flatnonzero(lo == -1).tolist():
        vals = set(np.unique(A[:, i].astype(np.int64)).tolist())
        flip[i] = vals <= {-1, 1}  # −1/+1 is read as 0/1
    top = int(np.where(flip, 1, hi).max())
    out = np.empty((n, q), dtype=smallest_uint(max(top, 0)), order="F")
    block = max(1, _ELEM_BUDGET // max(n, 1))
    if A.dtype.kind in "iub" and not flip.any() and lo.min() >= 0:
        _copy_into(out, A)  # integer codes ≥ 0: one casting copy
        return out
    for a in range(0, q, block):
        f = flip[a:a + block]
        part = A[:, a:a + block].astype(np.int64)
        if f.any():
            part[:, f] = part[:, f] == 1
        out[:, a:a + block] = part
    return out


_ELEM_BUDGET = 1 << 22  # elements of one n × k block of codes read at once (~32 MB)
_ROW_BLOCK = 256  # rows per step of a row-major to column-major copy


def _copy_into(out: np.ndarray, A: np.ndarray) -> None:
    """``out[...] = A``; a row-major ``A`` into a column-major ``out`` a block of rows at a
    time (the cache holds a block: 4× faster than one copy for 16,000 × 1,000 bytes)."""
    if out.ndim == 2 and A.ndim == 2 and out.flags.f_contiguous and not A.flags.f_contiguous:
        for a in range(0, A.shape[0], _ROW_BLOCK):
            out[a:a + _ROW_BLOCK] = A[a:a + _ROW_BLOCK]
    else:
        out[...] = A


_SPARSE_BELOW = 0.3  # share of non-zero codes under which the engine keeps X sparse
_SPARSE_FROM = 1 << 20  # cells from which dense input that is mostly zeros is made sparse
_MAX_DIRECT_CODE = 64  # codes 0..63 are used as they are; other columns are recoded


def prepare_features(X, *, checked: bool = False):
    """Check the feature codes and put them in the engine's form, without a float copy.

    ``checked=True`` skips the checks of the values (:func:`check_data` made them).

    Returns a dense column-major array of the smallest unsigned type that holds the codes, or a
    ``scipy.sparse`` CSC matrix (same dtype) when X is sparse or when it has at least 2^20 cells
    and fewer than 30 % of its codes are non-zero (below that size dense counting is faster).
    Codes 0..63 are used as they are; a column with other values (negative, large) is recoded
    to 0..k−1 in ascending order of its values. Raises :class:`InvalidDataError` for NaN,
    non-integer values or a wrong shape and :class:`camcf.ResourceLimitError` when the codes
    would not fit in memory.
    """
    from .engine import smallest_uint
    from .limits import check_memory

    if issparse(X):
        import scipy.sparse as sp

        if X.ndim != 2:
            raise InvalidDataError(f"X must be 2-D, got shape {X.shape}")
        X = sp.csc_matrix(X)  # no copy when it is CSC already
        data = np.asarray(X.data)
        if data.dtype.kind not in "iub":
            try:
                data = data.astype(float)
            except (TypeError, ValueError) as e:
                raise InvalidDataError(f"X must be numeric: {e}") from None
            if not checked:
                _check_codes(data[:, None], "X")
        lo = data.min() if data.size else 0
        hi = data.max() if data.size else 0
        if lo < 0 or hi >= _MAX_DIRECT_CODE:
            X = X.toarray()  # recoding can move the zeros: go dense (checked below)
        else:
            dt = smallest_uint(int(hi))
            # stored zeros: eliminate_zeros rewrites indices and indptr in place, so they are
            # copied then (the caller's X must stay as it was); else they are shared
            zeros = not data.all()
            out = sp.csc_matrix((data.astype(dt), X.indices.astype(np.int32, copy=zeros),
                                 X.indptr.astype(np.int64, copy=zeros)), shape=X.shape)
            if zeros:
                out.eliminate_zeros()
            n, m = out.shape
            if out.nnz > _SPARSE_BELOW * n * m:
                check_memory(n * m * dt.itemsize, f"the dense codes of X ({n} × {m})")
                return np.asfortranarray(out.toarray())
            return out
    A = X if isinstance(X, np.ndarray) else None
    if A is None:
        try:
            A = np.asarray(X)
        except (TypeError, ValueError) as e:
            raise InvalidDataError(f"X must be numeric: {e}") from None
    if A.ndim != 2:
        raise InvalidDataError(f"X must be a 2-D array (samples × columns), got shape {A.shape}")
    if A.dtype.kind not in "iubf":
        A = _as_float(A, "X")
    n, m = A.shape
    if n * m == 0:
        return np.zeros((n, m), dtype=np.uint8, order="F")
    block = max(1, (1 << 22) // max(n, 1))
    lo = hi = 0
    if A.dtype.kind in "iub":  # integer codes: min and max need no temporary
        lo, hi = min(0, A.min()), max(0, A.max())
    else:
        for a in range(0, m, block):  # checks in column blocks: no full-size float temporaries
            part = A[:, a:a + block]
            if not checked:
                _check_codes(part, "X", a)
            lo, hi = min(lo, part.min()), max(hi, part.max())
    recode = lo < 0 or hi >= _MAX_DIRECT_CODE
    if recode:
        hi = max(np.unique(A[:, j]).size for j in range(m)) - 1
    dt = smallest_uint(int(hi))
    check_memory(n * m * dt.itemsize, f"the codes of X ({n} × {m})")
    out = np.empty((n, m), dtype=dt, order="F")
    if recode:
        for j in range(m):
            out[:, j] = np.unique(A[:, j], return_inverse=True)[1].ravel()
    else:
        _copy_into(out, A)  # one casting copy (numpy buffers it: no full-size temporary)
    flat = out.ravel(order="F")  # a view: out is column-major
    nnz = int(np.count_nonzero(flat))
    if nnz < _SPARSE_BELOW * n * m and n * m >= _SPARSE_FROM:
        return _csc_of(out, nnz)
    return out


def _csc_of(A: np.ndarray, nnz: int):
    """The column-major dense array ``A`` (with ``nnz`` non-zeros) as a CSC matrix of the same
    dtype, indices sorted: what ``scipy.sparse.csc_matrix(A)`` gives, from one scan of the
    column-major cells (no coordinate lists, no sort)."""
    import scipy.sparse as sp

    n, m = A.shape
    idx = np.int32 if max(n, nnz) < 2**31 else np.int64
    flat = A.ravel(order="F")
    where = np.flatnonzero(flat != 0)  # (the non-zeros of a bool array are found faster)
    indptr = np.searchsorted(where, np.arange(m + 1, dtype=np.int64) * n).astype(idx)
    return sp.csc_matrix((flat[where], (where % n).astype(idx), indptr), shape=(n, m))


def flatten_labels(Y: np.ndarray, label_names: list[str],
                   category_names: list[dict] | None = None) -> list[Category]:
    """Algorithm 1: one :class:`Category` per (label, distinct value), labels in column order."""
    cats = []
    for i, (values, counts) in enumerate(_label_values(np.asarray(Y))):
        for v, k in zip(values.tolist(), counts.tolist(), strict=True):
            name = str(v)
            if category_names is not None and i < len(category_names):
                name = category_names[i].get(int(v), name)
            cats.append(Category(id=len(cats), label_index=i, label=label_names[i],
                                 value=int(v), name=name, size=int(k)))
    return cats


_FEW_VALUES = 4  # label codes up to which categories are counted by comparisons, not bincount


def _label_values(Y: np.ndarray):
    """Per label column: (distinct values ascending, their counts), as ``np.unique`` gives
    them; small non-negative integer codes are counted for a block of columns by one
    ``bincount``."""
    n, q = Y.shape
    small = (Y.dtype.kind in "iub" and Y.size and int(Y.min()) >= 0
             and int(Y.max()) < 1 << 16)
    if not small:
        for i in range(q):
            yield np.unique(Y[:, i], return_counts=True)
        return
    K = int(Y.max()) + 1
    block = max(1, min(_ELEM_BUDGET // max(n, 1), _ELEM_BUDGET // K))
    if K <= _FEW_VALUES:  # one pass per code ≥ 1 over a block of columns (no int64 copy)
        for a in range(0, q, block):
            part = Y[:, a:a + block]
            counts = np.empty((part.shape[1], K), dtype=np.int64)
            if K == 2:  # 0/1 codes: numpy counts a column's non-zero bytes fastest
                counts[:, 1] = [np.count_nonzero(part[:, j]) for j in range(part.shape[1])]
            for v in range(1, K if K > 2 else 1):
                counts[:, v] = np.count_nonzero(part == v, axis=0)
            counts[:, 0] = n - counts[:, 1:].sum(axis=1)
            for row in counts:
                values = np.flatnonzero(row)
                yield values.astype(Y.dtype), row[values]
        return
    for a in range(0, q, block):
        part = Y[:, a:a + block].astype(np.int64)
        part += (np.arange(part.shape[1]) * K)[None, :]
        counts = np.bincount(part.ravel(order="K"), minlength=part.shape[1] * K)
        for row in counts.reshape(-1, K):
            values = np.flatnonzero(row)
            yield values.astype(Y.dtype), row[values]


_D = DEFAULTS


def run(X, Y=None, *, delta1: float | str = _D["delta1"], delta2: float | str = _D["delta2"],
        k1: float = _D["k1"], k2: float = _D["k2"], gamma: float = _D["gamma"],
        min_category_size: int = _D["min_category_size"], recovery: str = _D["recovery"],
        adequacy: float = _D["adequacy"], significance: float = _D["significance"],
        feature_names: list[str] | None = None,
        label_names: list[str] | None = None, category_names: list[dict] | None = None,
        engine: str = "fast", progress: Progress | None = None, n_jobs: int | None = None,
        trace: str = "full") -> Result:
    """Run Ca-MCF and record its decisions.

    The defaults are those declared in :data:`camcf.algorithm_params.ALGORITHM_PARAMS`.

    Parameters
    ----------
    X : array (n_samples, n_features) of non-negative integer codes, a ``scipy.sparse`` matrix
        of them, or a :class:`camcf.Dataset`
        A Dataset is discretised with :func:`camcf.discretize.discretize` defaults and supplies
        ``Y`` and the names. Sparse input stays sparse in the engine.
    Y : array (n_samples, n_labels) of label codes (0/1, −1/+1 or category codes)
    delta1, delta2 : float ≥ 0 or "auto"
        Feature–category and category–category thresholds, in bits. ``"auto"``: the threshold
        a G test at level ``significance`` amounts to on these data
        (:func:`camcf.significance.suggest_thresholds`); the run is then exactly a run at that
        number, which :attr:`Result.params` records (with ``significance``) and
        :attr:`Result.thresholds` explains.
    k1, k2 : float in (0, 1]
        Share of the Phase 2 candidates kept; share of the blanket kept in Phase 4.
    gamma : float > 0
        Redundancy margin (Phase 4).
    min_category_size : int ≥ 1
        Categories with fewer positive samples are skipped.
    recovery : {"first", "all"}
        "first" stops Phase 3 after the first recovered feature (the authors' code), "all"
        tries every feature (the paper's Algorithm 4).
    adequacy : float ≥ 0
        The heuristic power rule (Tsamardinos et al. 2006), off at 0 (the published
        algorithm): a backward-elimination test whose table has fewer than ``adequacy`` rows
        per cell, n / (|X_f| · 2 · strata of S), is not trusted, and the feature stays; the
        record's row says "untrusted" (:mod:`camcf.phases.local_structure`).
    significance : float in (0, 1)
        The level α from which an ``"auto"`` threshold is derived (unused otherwise).
    engine : str
        A name of :data:`camcf.engine.ENGINES`: "fast" (default, compiled) or "reference" (every
        quantity computed separately, both categories of a binary label; slow, for checking
        and benchmarks).
    progress : callable(done, total, message), optional
        Called before each target category is taken (in flattening order) and once at the end.
    n_jobs : int, optional
        Target categories run in parallel through joblib: ``None`` or 1 runs them here, one
        after the other; −1 uses every core (or, inside :func:`camcf.parallel.dask_cluster`,
        every worker thread of the Dask cluster: the tasks are submitted to its client, the
        shared arrays reach each worker once; inside ``joblib.parallel_backend("dask")``
        joblib's own Dask route, slower). In parallel the codes are prepared on a second
        thread while the labels are read; the two unconditional tables are computed in row
        blocks, a block of each per worker (:func:`camcf.tasks.table_blocks`), then the
        targets go per worker in a large part and three smaller ones, balanced by an estimate
        of their cost, in rounds over the targets in order (:func:`camcf.tasks.plan_tasks`);
        workers on this machine map the shared arrays from files
        (:class:`camcf.parallel.SharedArrays`) and run one task each that takes the table
        parts then the target parts (:class:`camcf.tasks.LocalRun`). The result is
        byte-identical for every ``n_jobs``; ``Result.stats["stages"]`` gives the wall seconds
        of the preparation, the tables and the targets, and in parallel
        ``Result.stats["timeline"]`` each task's (sent, started, ended, received).
    trace : {"full", "decisions", "counters"}
        How much of the decision record to keep (:mod:`camcf.trace`); the decisions are the same
        at every level.

    Returns
    -------
    Result
    """
    from .engine import ENGINES

    t_start, c_start = time.perf_counter(), time.process_time()
    params = check_params(delta1, delta2, k1, k2, gamma, min_category_size, recovery,
                          adequacy, significance)
    if engine not in ENGINES:
        raise ParameterError(f"engine must be one of {', '.join(map(repr, ENGINES))}, got "
                             f"{engine!r}", name="engine", value=engine, allowed=list(ENGINES))
    if trace not in TRACE_LEVELS:
        raise ParameterError(f"trace must be one of {', '.join(TRACE_LEVELS)}, got {trace!r}",
                             name="trace", value=trace, allowed=list(TRACE_LEVELS))
    n_jobs = N_JOBS.validate(n_jobs)
    from .dataset import Dataset

    if isinstance(X, Dataset):
        from .discretize import discretize

        ds = X
        codes, _ = discretize(ds.X)
        X, Y = codes, ds.Y
        feature_names = feature_names or list(ds.feature_names)
        label_names = label_names or list(ds.label_names)
        category_names = category_names or ds.category_names
    check_data(X, Y, discretize="none", feature_names=feature_names, label_names=label_names)
    parallel = not (n_jobs is None or n_jobs == 1)
    helper: list = []  # in parallel, the CPU seconds of work done on a second thread
    # (in parallel the codes are prepared on a second thread while the labels are here: the
    # workers' cores are idle until the tables' tasks start)
    codes = _beside(helper, prepare_features, X, checked=True) if parallel else None
    if codes is None:
        X = prepare_features(X, checked=True)
    Y = _prepare_labels(Y)
    label_names = list(label_names) if label_names is not None else [
        f"label{i}" for i in range(Y.shape[1])]

    t0 = time.perf_counter()
    cats = flatten_labels(Y, label_names, category_names)
    if codes is not None:
        X = codes.result()
    n, m = X.shape
    feature_names = list(feature_names) if feature_names is not None else [
        f"f{j}" for j in range(m)]
    _check_working_set(X, len(cats), n_jobs)
    begun = None  # (in parallel: the tasks, sent before their inputs are ready)
    store = None
    try:
        if parallel:  # the indicators go straight into a file that workers map (no copy)
            from .parallel import SharedArrays

            Q = len(cats)  # its files: the indicators, the two tables, at most the codes
            store = SharedArrays(n * Q + 8 * (m + Q) * Q + n * m)
            # the tasks sent now: they reach the workers while this process prepares their
            # inputs (a round trip to a Dask cluster's workers first, to ask where they are)
            begun = parallel_begin(store, n_jobs)
            C = store.empty((n, Q), np.uint8, order="F")
            # half the columns on the second thread (writing a new file's pages is most of it)
            half = _beside(helper, _indicators_into, store.path(C), Y, cats[Q // 2:])
            _indicators_into(store.path(C), Y, cats[:Q // 2])
            half.result()
            C = store.readonly(C)
            codes = _beside(helper, store.share, X)  # (the codes' file, meanwhile)
        else:
            C = np.empty((n, len(cats)), dtype=np.uint8, order="F")
            _indicators(C, Y, cats)
        ones = np.array([c.size for c in cats], dtype=np.int64)  # the ones of each indicator
        levels = pool_levels(X, C, ones)
        thresholds = None
        if "auto" in (params["delta1"], params["delta2"]):
            from .significance import thresholds_from_levels

            sug = thresholds_from_levels(levels[:m], n, params["significance"])
            thresholds = {"significance": sug["significance"], "n": n, "rule": sug["rule"]}
            for name in ("delta1", "delta2"):
                if params[name] == "auto":
                    params[name] = sug[name]
                    thresholds[name] = sug[name]
                    thresholds["df_" + name] = sug["df_" + name]
        Engine = ENGINES[engine]
        # (in parallel half of the work on a second thread)
        shared = Engine.shared(X, C, ones, beside=(lambda fn: _beside(helper, fn)) if parallel
                               else None)

        n_values = np.bincount([c.label_index for c in cats], minlength=Y.shape[1])
        constant = np.flatnonzero(n_values < 2).tolist()
        if constant:
            warnings.warn(
                f"label(s) {[label_names[i] for i in constant]} have one category only and are "
                f"skipped; remove them or check the label columns", CamcfWarning, stacklevel=2)

        t_tables, c_tables = time.perf_counter(), time.process_time()
        cpu: dict = {"prepare": c_tables - c_start, "tables": [], "targets": []}
        if parallel:  # (of which this much on the second thread)
            cpu["prepare_beside"] = sum(helper)
        if not parallel:
            eng = Engine(X, C, **shared)
            tables = (eng.mi_table(), eng.category_mi_table())
            cpu["tables"].append(time.process_time() - c_tables)
        label_of = np.array([c.label_index for c in cats])
        if parallel:  # the two tables in row blocks, written by local workers into shared files
            spec, leaves = flatten_shared(shared)
            inputs = (codes.result(), C, spec, [store.share(a) for a in leaves])
            timeline: list = []
            started = parallel_start(begun, engine, inputs, store, n_jobs, label_of, params,
                                     trace, cpu, timeline)
        # (in parallel this runs while the workers compute the tables)
        plan = _plan(cats, params["min_category_size"], mirror=Engine.mirrors)
        todo = [c for c in cats if plan[c.id] is None]
        if parallel:  # (the tasks wait for these targets once the tables are done)
            tables, outcomes = started.outcomes(todo)
    except BaseException:  # (e.g. KeyboardInterrupt: the tasks waiting for the run's inputs
        if begun is not None:  # or targets give up; the folder goes once they have ended)
            begun.stop()
            store.close_later(after=begun.join)
        elif store is not None:
            store.close()
        raise
    t_targets, c_targets = time.perf_counter(), time.process_time()
    if not parallel:
        outcomes = serial_outcomes(X, C, tables, todo,
                                   (np.flatnonzero(label_of != c.label_index) for c in todo),
                                   params, trace, engine, shared)

    targets: list[TargetResult | None] = [None] * len(cats)
    cond_sets = CondSets()
    cond_sets.id(())  # set 0 is the empty set (Phase 4 rerun from a result relies on it)
    computed = lookups = 0
    total = len(cats)
    for c in cats:
        if progress is not None:
            progress(c.id, total, f"target {c.display}")
        how = plan[c.id]
        if how is None:
            res, local_sets, counters = next(outcomes)
            targets[c.id] = _reintern(res, local_sets, cond_sets)
            computed += counters["computed"]
            lookups += counters["lookups"]
        elif isinstance(how, str):
            targets[c.id] = TargetResult(c, skipped=True, skip_reason=how)
        else:  # complementary category of a binary label: identical decisions (SPEC.md)
            targets[c.id] = _mirror(targets[how], c, how)
    if progress is not None:
        progress(total, total, "done")
    if store is not None:  # the tables as arrays of their own (their files go meanwhile)
        tables = (store.keep(tables[0]), store.keep(tables[1]))
        # (this run's last references to the others; the folder goes once its tasks end)
        store.close_later(C, inputs, after=started.join)
        del C, inputs, started
    t_end = time.perf_counter()
    if not parallel:
        cpu["targets"].append(time.process_time() - c_targets)
    cpu["here"] = time.process_time() - c_start

    final: set[int] = set()
    for t in targets:
        if not t.skipped:
            final.update(t.blanket)
    selected = np.array(sorted(final), dtype=np.int64)
    seconds = time.perf_counter() - t0
    n_tests = int(sum(t.n_tests for t in targets))
    stats = {"tests": n_tests, "computed": computed, "lookups": lookups, "seconds": seconds,
             "engine": engine, "n_jobs": n_jobs, "trace": trace,
             # wall seconds of the steps: checks, labels, indicators, shared inputs; the two
             # tables; the targets (from planning to the last result, mirrors included)
             "stages": {"prepare": t_tables - t_start, "tables": t_targets - t_tables,
                        "targets": t_end - t_targets},
             # CPU seconds: of the preparation (here), of each table task and each targets
             # task (serial: one each, here; parallel: as each worker measured it), and of
             # this process over the whole run
             "cpu": cpu}
    if parallel:  # each task's times, in seconds from the run's start (camcf.tasks._span)
        stats["timeline"] = [{k: v - t_start if k in ("sent", "start", "end", "received")
                              else v for k, v in span.items()} for span in timeline]
    res = Result(
        params=params, feature_names=feature_names, label_names=label_names, categories=cats,
        targets=targets, selected_indices=selected, mi_table=tables[0],
        category_mi=tables[1], cond_sets=cond_sets.freeze(), n_samples=n, stats=stats,
        trace_level=trace, levels=levels, thresholds=thresholds)
    if selected.size == 0:
        warnings.warn(CamcfWarning(
            "Ca-MCF selected no feature with these parameters; try lower delta1 or higher k1/k2",
            problem="Ca-MCF selected no feature with these parameters", fix="thresholds"),
            stacklevel=2)
    return res


def _indicators(C: np.ndarray, Y: np.ndarray, cats: list[Category], first: int = 0) -> None:
    """Fill the columns of ``cats`` in ``C`` (column ``c.id`` − ``first`` for category ``c``)
    with their indicators [Y_label == value] (Y is column-major: each comparison reads and
    writes one column)."""
    for c in cats:
        np.equal(Y[:, c.label_index], c.value, out=C[:, c.id - first].view(np.bool_))


_INDICATOR_STEP = 64  # columns of the indicators written to their shared file at a time


def _indicators_into(path: str, Y: np.ndarray, cats: list[Category]) -> None:
    """:func:`_indicators` of ``cats`` (consecutive ids) into the column-major file ``path``
    of a :class:`camcf.parallel.SharedArrays`, a few columns at a time through one buffer,
    each block written by one call (:func:`camcf.parallel.write_shared`): filled through
    the file's mapping, every new page cost a fault (31.5 MB of delicious's indicators:
    28 ms CPU, now 18)."""
    from .parallel import write_shared

    buf = np.empty((Y.shape[0], min(_INDICATOR_STEP, len(cats))), dtype=np.uint8, order="F")
    for a in range(0, len(cats), _INDICATOR_STEP):
        part = cats[a:a + _INDICATOR_STEP]
        _indicators(buf, Y, part, part[0].id)
        if write_shared(path, buf[:, :len(part)].T, part[0].id) is not None:
            raise CamcfError(f"cannot write the category indicators to {path}")


def _beside(cpu: list, fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` started on a thread of its own: a ``concurrent.futures.Future``
    (``result()`` waits and raises what ``fn`` raised); the thread's CPU seconds are appended
    to ``cpu``. For a parallel run's preparation, whose work is mostly numpy's (the GIL is
    released): the second core is idle until the tables' tasks start."""
    from concurrent.futures import ThreadPoolExecutor

    def timed():
        c0 = time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            cpu.append(time.thread_time() - c0)

    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="camcf-prepare")
    try:
        return pool.submit(timed)
    finally:
        pool.shutdown(wait=False)


def _check_working_set(X, n_categories: int, n_jobs: int | None) -> None:
    """Refuse before allocating when the run would not fit (:func:`camcf.limits.check_memory`).

    The estimate: the indicators (1 byte a cell), the pool of the compiled engine (5 bytes an
    exception, at most one per cell), the two tables and, per parallel worker, a target's
    session (about 40 bytes a row) and the joint counts of a table block (64 MB at most),
    on top of the codes already held.
    """
    import os

    from .limits import check_memory

    n, m = X.shape
    if n_jobs is None or n_jobs == 1:
        workers = 1
    else:
        workers = (os.cpu_count() or 1) if n_jobs < 0 else int(n_jobs)
    stored = X.nnz if hasattr(X, "nnz") else n * m
    pool = 5 * (stored + n * n_categories // 2)
    tables = 8 * (m + n_categories) * n_categories
    per_worker = 40 * n + (64 << 20)
    need = n * n_categories + pool + tables + workers * per_worker
    check_memory(need, f"Ca-MCF on {n} samples × {m} features with {n_categories} label "
                       f"categories ({workers} worker{'s' if workers > 1 else ''})")


def _plan(cats: list[Category], min_size: int, *, mirror: bool) -> list:
    """Per category: None (compute), a skip reason, or the id of the category it mirrors."""
    by_label: dict[int, list[Category]] = {}
    for c in cats:
        by_label.setdefault(c.label_index, []).append(c)
    plan: list = [None] * len(cats)
    for c in cats:
        label_cats = by_label[c.label_index]
        if len(label_cats) < 2:
            plan[c.id] = "its label has one category only"
        elif c.size < min_size:
            plan[c.id] = f"{c.size} positive samples < min_category_size = {min_size}"
        elif mirror and len(label_cats) == 2 and c.id == label_cats[1].id and \
                plan[label_cats[0].id] is None:
            plan[c.id] = label_cats[0].id
    return plan


def _replaced(res: TargetResult, **fields) -> TargetResult:
    """``dataclasses.replace(res, **fields)`` in a tenth of the time (no call of the
    dataclass's ``__init__`` over its twenty fields; TargetResult has no ``__post_init__``):
    a new instance with ``res``'s fields and ``fields`` set, as ``__init__`` sets them on a
    frozen dataclass."""
    out = object.__new__(type(res))
    out.__dict__.update(res.__dict__, **fields)
    return out


def _mirror(res: TargetResult, category: Category, of: int) -> TargetResult:
    """``res`` for its complementary ``category``, ``mirror_of`` set. A run makes one per
    complementary category (about a thousand on delicious's shape)."""
    return _replaced(res, category=category, mirror_of=of)


def _reintern(res: TargetResult, local_sets: CondSetList, cond_sets: CondSets
              ) -> TargetResult:
    """Map a target's own conditioning-set ids onto the run-wide list (flattening order)."""
    if not len(local_sets) or not res.trace or res.trace["cond"].size == 0:
        return res
    ids = cond_sets.merge(local_sets)
    trace = dict(res.trace)
    trace["cond"] = ids[trace["cond"]]
    return _replaced(res, trace=trace)

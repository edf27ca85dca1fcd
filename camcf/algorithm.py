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

import contextlib
import dataclasses
import itertools
import time
import warnings
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed

from .algorithm_params import ALGORITHM_PARAMS, N_JOBS
from .errors import InvalidDataError, ParameterError
from .info import FastEngine, ReferenceEngine, category_indicators, feature_indicators
from .parallel import one_blas_thread
from .params import defaults as _param_defaults
from .params import validate as _validate_params
from .phases import (
    label_skeleton,
    parents_children,
    recover_blocked,
    spouses,
    symmetry_and_redundancy,
)
from .result import Category, Result, TargetResult
from .trace import TRACE_LEVELS, CondSets, TraceBuilder

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


def check_params(delta1, delta2, k1, k2, gamma, min_category_size, recovery) -> dict:
    """Validate parameters against :data:`camcf.algorithm_params.ALGORITHM_PARAMS`; raise
    :class:`ParameterError` naming the argument, the value and the allowed range."""
    return _validate_params(ALGORITHM_PARAMS, {
        "delta1": delta1, "delta2": delta2, "k1": k1, "k2": k2, "gamma": gamma,
        "min_category_size": min_category_size, "recovery": recovery})


def _as_codes(X, what: str = "X") -> np.ndarray:
    try:
        A = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as e:
        raise InvalidDataError(f"{what} must be numeric: {e}") from None
    if A.ndim != 2:
        raise InvalidDataError(f"{what} must be a 2-D array (samples × columns), got shape "
                               f"{A.shape}")
    _check_codes(A, what)
    return A.astype(np.int64)


def _check_codes(A: np.ndarray, what: str, offset: int = 0) -> None:
    """Raise if the float block ``A`` (columns from ``offset``) has NaN or non-integer values."""
    if np.isnan(A).any():
        cols = (np.nonzero(np.isnan(A).any(axis=0))[0][:5] + offset).tolist()
        raise InvalidDataError(f"{what} has missing values (NaN) in column(s) {cols}; impute or "
                               f"drop them first")
    if A.size and float(np.abs(A).max()) > 2.0**53:  # int64 would overflow or merge codes
        raise InvalidDataError(f"{what} holds values beyond ±2**53 ({float(np.abs(A).max()):.6g}); "
                               f"codes must be small integers: recode them as 0..k-1")
    if not np.all(A == np.round(A)):
        cols = (np.nonzero((A != np.round(A)).any(axis=0))[0][:5] + offset).tolist()
        raise InvalidDataError(
            f"{what} must hold discrete codes; column(s) {cols} have non-integer values: "
            f"discretise first (camcf.discretize) or pass a camcf.Dataset")


def _prepare_labels(Y) -> np.ndarray:
    Y = _as_codes(Y, "Y")
    Y = Y.copy()
    for i in range(Y.shape[1]):
        vals = set(np.unique(Y[:, i]).tolist())
        if vals <= {-1, 1} and -1 in vals:
            Y[:, i] = (Y[:, i] == 1).astype(np.int64)  # −1/+1 is read as 0/1
        elif min(vals) < 0:
            raise InvalidDataError(
                f"label column {i} has negative codes {sorted(v for v in vals if v < 0)}; labels "
                f"must be 0/1, −1/+1 or non-negative category codes")
    return Y


_SPARSE_BELOW = 0.3  # share of non-zero codes under which the engine keeps X sparse
_SPARSE_FROM = 1 << 20  # cells from which dense input that is mostly zeros is made sparse
_MAX_DIRECT_CODE = 64  # codes 0..63 are used as they are; other columns are recoded


def prepare_features(X):
    """Check the feature codes and put them in the engine's form, without a float copy.

    Returns a dense column-major array of the smallest unsigned type that holds the codes, or a
    ``scipy.sparse`` CSC matrix (same dtype) when X is sparse or when it has at least 2^20 cells
    and fewer than 30 % of its codes are non-zero (below that size dense counting is faster).
    Codes 0..63 are used as they are; a column with other values (negative, large) is recoded
    to 0..k−1 in ascending order of its values. Raises :class:`InvalidDataError` for NaN,
    non-integer values or a wrong shape and :class:`camcf.ResourceLimitError` when the codes
    would not fit in memory.
    """
    from .info import smallest_uint
    from .limits import check_memory

    if sp.issparse(X):
        if X.ndim != 2:
            raise InvalidDataError(f"X must be 2-D, got shape {X.shape}")
        X = sp.csc_matrix(X)  # no copy when it is CSC already
        data = np.asarray(X.data)
        if data.dtype.kind not in "iub":
            try:
                data = data.astype(float)
            except (TypeError, ValueError) as e:
                raise InvalidDataError(f"X must be numeric: {e}") from None
            _check_codes(data[:, None], "X")
        lo = data.min() if data.size else 0
        hi = data.max() if data.size else 0
        if lo < 0 or hi >= _MAX_DIRECT_CODE:
            X = X.toarray()  # recoding can move the zeros: go dense (checked below)
        else:
            dt = smallest_uint(int(hi))
            out = sp.csc_matrix((data.astype(dt), X.indices.astype(np.int32, copy=False),
                                 X.indptr.astype(np.int64, copy=False)), shape=X.shape)
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
        A = _as_codes(A, "X")
    n, m = A.shape
    if n * m == 0:
        return np.zeros((n, m), dtype=np.uint8, order="F")
    block = max(1, (1 << 22) // max(n, 1))
    lo = hi = 0
    for a in range(0, m, block):  # checks in column blocks: no full-size float temporaries
        part = A[:, a:a + block]
        if A.dtype.kind == "f":
            _check_codes(part, "X", a)
        lo, hi = min(lo, part.min()), max(hi, part.max())
    recode = lo < 0 or hi >= _MAX_DIRECT_CODE
    if recode:
        hi = max(np.unique(A[:, j]).size for j in range(m)) - 1
    dt = smallest_uint(int(hi))
    check_memory(n * m * dt.itemsize, f"the codes of X ({n} × {m})")
    out = np.empty((n, m), dtype=dt, order="F")
    nnz = 0
    for a in range(0, m, block):
        part = A[:, a:a + block]
        if recode:
            for j in range(part.shape[1]):
                out[:, a + j] = np.unique(part[:, j], return_inverse=True)[1].ravel()
        else:
            out[:, a:a + block] = part
        nnz += int(np.count_nonzero(out[:, a:a + block]))
    if nnz < _SPARSE_BELOW * n * m and n * m >= _SPARSE_FROM:
        return sp.csc_matrix(out)
    return out


def flatten_labels(Y: np.ndarray, label_names: list[str],
                   category_names: list[dict] | None = None) -> list[Category]:
    """Algorithm 1: one :class:`Category` per (label, distinct value), labels in column order."""
    cats = []
    for i in range(Y.shape[1]):
        values, counts = np.unique(Y[:, i], return_counts=True)
        for v, k in zip(values, counts, strict=True):
            name = str(v)
            if category_names is not None and i < len(category_names):
                name = category_names[i].get(int(v), name)
            cats.append(Category(id=len(cats), label_index=i, label=label_names[i],
                                 value=int(v), name=name, size=int(k)))
    return cats


def run(X, Y=None, *, delta1: float = 0.05, delta2: float = 0.1, k1: float = 0.7,
        k2: float = 1.0, gamma: float = 1.2, min_category_size: int = 5,
        recovery: str = "first", feature_names: list[str] | None = None,
        label_names: list[str] | None = None, category_names: list[dict] | None = None,
        engine: str = "fast", progress: Progress | None = None, n_jobs: int | None = None,
        trace: str = "full") -> Result:
    """Run Ca-MCF and record its decisions.

    Parameters
    ----------
    X : array (n_samples, n_features) of non-negative integer codes, a ``scipy.sparse`` matrix
        of them, or a :class:`camcf.Dataset`
        A Dataset is discretised with :func:`camcf.discretize.discretize` defaults and supplies
        ``Y`` and the names. Sparse input stays sparse in the engine.
    Y : array (n_samples, n_labels) of label codes (0/1, −1/+1 or category codes)
    delta1, delta2 : float ≥ 0
        Feature–category and category–category thresholds, in bits.
    k1, k2 : float in (0, 1]
        Share of the Phase 2 candidates kept; share of the blanket kept in Phase 4.
    gamma : float > 0
        Redundancy margin (Phase 4).
    min_category_size : int ≥ 1
        Categories with fewer positive samples are skipped.
    recovery : {"first", "all"}
        "first" stops Phase 3 after the first recovered feature (the authors' code), "all"
        tries every feature (the paper's Algorithm 4).
    engine : {"fast", "reference"}
        "reference" computes every quantity separately and both categories of a binary label
        (the straightforward implementation; slow, for checking and benchmarks).
    progress : callable(done, total, message), optional
        Called before each target category is taken (in flattening order) and once at the end.
    n_jobs : int, optional
        Target categories run in parallel through joblib: ``None`` or 1 runs them here, one
        after the other; −1 uses every core (or, inside ``joblib.parallel_backend("dask")``,
        every worker of the connected Dask cluster: the data is scattered to the workers once).
        The result is byte-identical for every ``n_jobs``.
    trace : {"full", "decisions", "counters"}
        How much of the decision record to keep (:mod:`camcf.trace`); the decisions are the same
        at every level.

    Returns
    -------
    Result
    """
    params = check_params(delta1, delta2, k1, k2, gamma, min_category_size, recovery)
    if engine not in ("fast", "reference"):
        raise ParameterError(f"engine must be 'fast' or 'reference', got {engine!r}")
    if trace not in TRACE_LEVELS:
        raise ParameterError(f"trace must be one of {', '.join(TRACE_LEVELS)}, got {trace!r}")
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
    if Y is None:
        raise InvalidDataError("Y (the label matrix) is required when X is an array")
    X = prepare_features(X)
    if X.shape[0] == 0 or np.shape(Y)[:1] == (0,):  # before the labels are inspected
        raise InvalidDataError("the data has no rows; give at least one sample")
    Y = _prepare_labels(Y)
    if Y.ndim == 1:
        Y = Y[:, None]
    n, m = X.shape
    if Y.shape[0] != n:
        raise InvalidDataError(f"X has {n} rows but Y has {Y.shape[0]}; give one label row per "
                               f"sample")
    if n == 0:
        raise InvalidDataError("the data has no rows")
    if Y.shape[1] == 0:
        raise InvalidDataError("Y has no label columns; name the label columns of the data")
    feature_names = list(feature_names) if feature_names is not None else [
        f"f{j}" for j in range(m)]
    label_names = list(label_names) if label_names is not None else [
        f"label{i}" for i in range(Y.shape[1])]
    if len(feature_names) != m or len(label_names) != Y.shape[1]:
        raise InvalidDataError(
            f"got {len(feature_names)} feature names for {m} columns and {len(label_names)} "
            f"label names for {Y.shape[1]} labels")

    t0 = time.perf_counter()
    cats = flatten_labels(Y, label_names, category_names)
    _check_working_set(X, len(cats), n_jobs)
    C = np.empty((n, len(cats)), dtype=np.uint8, order="F")
    for c in cats:
        C[:, c.id] = Y[:, c.label_index] == c.value
    Engine = ReferenceEngine if engine == "reference" else FastEngine
    eng = Engine(X, C)

    constant = [i for i in range(Y.shape[1]) if np.unique(Y[:, i]).size < 2]
    if len(constant) == Y.shape[1]:
        raise InvalidDataError(
            "every label has one category only (each label column is constant); Ca-MCF needs at "
            "least one label with two or more categories")
    if constant:
        warnings.warn(
            f"label(s) {[label_names[i] for i in constant]} have one category only and are "
            f"skipped; remove them or check the label columns", CamcfWarning, stacklevel=2)

    mi = eng.mi_table()
    cat_mi = eng.category_mi_table()
    card = eng.card if engine == "fast" else None
    ind = ((feature_indicators(X, card), category_indicators(C)) if engine == "fast"
           else None)
    plan = _plan(cats, params["min_category_size"], mirror=engine == "fast")
    todo = [c for c in cats if plan[c.id] is None]

    label_of = np.array([c.label_index for c in cats])

    def others(c: Category) -> np.ndarray:  # categories of the other labels, flattened order
        return np.flatnonzero(label_of != c.label_index)

    if n_jobs is None or n_jobs == 1:
        outcomes = (target_work(X, C, card, mi, cat_mi, c, others(c), params, trace, engine,
                                ind) for c in todo)
    else:
        # every shared array above 64 kB goes to the workers once, as a memory map (joblib's
        # default, 1 MB, would pickle the smaller tables and indicators again for every task)
        outcomes = Parallel(n_jobs=n_jobs, return_as="generator", max_nbytes="64K")(
            delayed(_target_work_packed)(X, C, card, mi, cat_mi, c, others(c), params, trace,
                                         engine, ind) for c in todo)

    targets: list[TargetResult | None] = [None] * len(cats)
    cond_sets = CondSets()
    tests = hits = 0
    total = len(cats)
    with one_blas_thread() if ind is not None and any(a is not None for a in ind) \
            else contextlib.nullcontext():
        for c in cats:
            if progress is not None:
                progress(c.id, total, f"target {c.display}")
            how = plan[c.id]
            if how is None:
                res, local_sets, (n_t, n_h) = next(outcomes)
                if isinstance(local_sets, tuple):  # from a worker: (values, lengths)
                    local_sets = _unpack_sets(*local_sets)
                targets[c.id] = _reintern(res, local_sets, cond_sets)
                tests += n_t
                hits += n_h
            elif isinstance(how, str):
                targets[c.id] = TargetResult(c, skipped=True, skip_reason=how)
            else:  # complementary category of a binary label: identical decisions (SPEC.md)
                targets[c.id] = dataclasses.replace(targets[how], category=c, mirror_of=how)
    if progress is not None:
        progress(total, total, "done")

    final: set[int] = set()
    for t in targets:
        if not t.skipped:
            final.update(t.blanket)
    selected = np.array(sorted(final), dtype=np.int64)
    seconds = time.perf_counter() - t0
    stats = {"tests": tests, "cache_hits": hits, "hit_rate": hits / tests if tests else 0.0,
             "seconds": seconds, "engine": engine, "n_jobs": n_jobs, "trace": trace}
    res = Result(
        params=params, feature_names=feature_names, label_names=label_names, categories=cats,
        targets=targets, selected_indices=selected, mi_table=mi, category_mi=cat_mi,
        cond_sets=cond_sets.sets, n_samples=n, stats=stats, trace_level=trace)
    if selected.size == 0:
        warnings.warn(CamcfWarning(
            "Ca-MCF selected no feature with these parameters; try lower delta1 or higher k1/k2",
            problem="Ca-MCF selected no feature with these parameters", fix="thresholds"),
            stacklevel=2)
    return res


def _check_working_set(X, n_categories: int, n_jobs: int | None) -> None:
    """Refuse before allocating when the run would not fit (:func:`camcf.limits.check_memory`).

    The estimate: the indicators (1 byte a cell), the shared tables (and at most 2 × 64 MB of
    float32 indicators for BLAS counting) and, per parallel worker,
    the per-target working set — a few n-length int64/uint64 vectors, the bounded count blocks
    and the joint-code cache — on top of the codes already held.
    """
    import os

    from .info import _CELL_BUDGET, _ELEM_BUDGET, _INDICATOR_BYTES, _JOINT_CACHE_BYTES
    from .limits import check_memory

    n, m = X.shape
    if n_jobs is None or n_jobs == 1:
        workers = 1
    else:
        workers = (os.cpu_count() or 1) if n_jobs < 0 else int(n_jobs)
    per_worker = 12 * 8 * n + 8 * (_CELL_BUDGET + 2 * _ELEM_BUDGET) + _JOINT_CACHE_BYTES
    tables = 8 * (m + n_categories) * n_categories + 4 * n * n_categories + 2 * _INDICATOR_BYTES
    need = n * n_categories + tables + workers * per_worker
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


def _reintern(res: TargetResult, local_sets: list[tuple[int, ...]], cond_sets: CondSets
              ) -> TargetResult:
    """Map a target's own conditioning-set ids onto the run-wide list (flattening order)."""
    if not local_sets or not res.trace or res.trace["cond"].size == 0:
        return res
    ids = cond_sets.merge(local_sets)
    trace = dict(res.trace)
    trace["cond"] = ids[trace["cond"]]
    return dataclasses.replace(res, trace=trace)


def target_work(X, C: np.ndarray, card: np.ndarray | None, mi: np.ndarray, cat_mi: np.ndarray,
                category: Category, others, params: dict, trace: str = "full",
                engine: str = "fast", indicators: tuple | None = None
                ) -> tuple[TargetResult, list[tuple[int, ...]], tuple[int, int]]:
    """One target category's whole run, as a pure function of read-only inputs.

    ``X`` (codes, n × m, dense or sparse), ``C`` (indicators, n × C), ``card`` (code bounds of
    the pool), ``mi`` (m × C) and ``cat_mi`` (C × C) are shared and never written. Returns the
    target's result (its trace's conditioning-set ids refer to the returned list of sets), the
    sets, and (tests, cache hits). ``indicators`` (:func:`camcf.info.feature_indicators` and
    :func:`camcf.info.category_indicators`, shared too) lets the engine count by BLAS
    products. This is what :func:`run` hands to joblib workers.
    """
    if engine == "reference":
        eng = ReferenceEngine(X, C, tables=(mi, cat_mi))
    else:
        eng = FastEngine(X, C, card=card, tables=(mi, cat_mi), indicators=indicators)
    cond_sets = CondSets()
    res = _run_target(eng, category, others, mi[:, category.id], params, cond_sets, trace)
    return res, cond_sets.sets, (eng.n_tests, eng.n_hits)


def _target_work_packed(*args):
    """:func:`target_work` for a worker process: the conditioning sets travel back as two
    int32 arrays (their values, their lengths), not as Python tuples (pickling ~10^6 ints
    cost more than the work on Enron)."""
    res, sets, counts = target_work(*args)
    lengths = np.fromiter(map(len, sets), dtype=np.int32, count=len(sets))
    values = np.fromiter(itertools.chain.from_iterable(sets), dtype=np.int32,
                         count=int(lengths.sum()))
    return res, (values, lengths), counts


def _unpack_sets(values: np.ndarray, lengths: np.ndarray) -> list[tuple[int, ...]]:
    flat = values.tolist()
    ends = np.cumsum(lengths).tolist()
    return [tuple(flat[e - k:e]) for e, k in zip(ends, lengths.tolist(), strict=True)]


def _run_target(eng, c: Category, others, s: np.ndarray, params: dict,
                cond_sets: CondSets, trace: str = "full") -> TargetResult:
    tb = TraceBuilder(cond_sets, trace)
    d1, d2 = params["delta1"], params["delta2"]
    R, sk_cands = label_skeleton(eng, c.id, others, d2, tb)
    cands_all, kept, pc = parents_children(eng, c.id, s, R, d1, params["k1"], tb)
    sp_ = spouses(eng, c.id, s, pc, R, d1, tb)
    cmb = sorted(set(pc) | set(sp_))
    rec = recover_blocked(eng, c.id, s, pc, cmb, R, d1, params["recovery"], tb)
    cmb_full = cmb + [f for f, _ in rec]
    p4 = symmetry_and_redundancy(eng, c.id, s, cmb_full, others, d1, params["k2"],
                                 params["gamma"], tb)
    return TargetResult(
        category=c,
        skeleton=tuple(R),
        skeleton_candidates=tuple(sk_cands),
        candidates_all=tuple(cands_all),
        candidates=tuple(kept),
        pc=tuple(pc),
        spouses={z: tuple(xs) for z, xs in sp_.items()},
        recovered=tuple(rec),
        cmb=tuple(p4["cmb"]),
        after_cut=tuple(p4["after_cut"]),
        cut=tuple(p4["cut"]),
        symmetry_removed=tuple(p4["symmetry_removed"]),
        after_symmetry=tuple(p4["after_symmetry"]),
        redundancy_removed=tuple(p4["redundancy_removed"]),
        blanket=tuple(p4["blanket"]),
        trace=tb.freeze(),
        test_counts=tb.counts,
    )

"""Studies on fixed splits: ablation by phase and parameter sensitivity (the paper's figures).

Everything here works on a list of :class:`Fold` objects: the training and test part of one
split, already discretised, with the label codes for selection and binary label columns for
ML-kNN. Build them with :func:`make_folds` (random splits of one data set, or a given pair);
discretisation is fitted **on the training part of each split only** and applied to its test
part (:class:`Discretizer`), so neither the bin edges nor the selection see a test row.

* :func:`ablation` — on the same folds, ML-kNN on all features, on the union of the per-category
  feature sets after Phase 2, Phase 3 and Phase 4, and on Ca-MCF's selection (the paper's
  ablation figure; Phase 1 selects no feature, it builds the label skeleton R that Phases 2–4
  condition on, so "all features" stands in for the starting point).
* :func:`sensitivity` — a grid of parameter values (for instance δ1 × k1 and δ2 × k2) and every
  metric (the paper's sensitivity figure); :func:`sensitivity_summary` averages over folds and
  :func:`sensitivity_matrix` pivots one metric into a heatmap matrix.

Reuse: identical parameter sets are selected once per fold, and ML-kNN is run once per
(fold, feature subset, classifier settings) — a :class:`KnnCache` may be shared between calls
(the "all features" baseline and the many grid points that end in the same subset are then
classified once). ``n_jobs > 1`` runs the selections and then the classifications in a process
pool.

Frames are tidy (one row per observation): see :data:`ABLATION_COLUMNS` and
:func:`sensitivity`.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InvalidDataError, NotFittedError, ParameterError
from .metrics import METRICS, evaluate_all
from .mlknn import MLkNN
from .protocols import (
    COLUMNS,
    binarize_labels,
    kfold_splits,
    mean_sd,
    repeated_holdout_splits,
)

__all__ = [
    "ABLATION_COLUMNS",
    "ABLATION_SETS",
    "Discretizer",
    "Fold",
    "KnnCache",
    "ablation",
    "evaluate_feature_sets",
    "evaluate_per_fold",
    "make_folds",
    "make_splits",
    "select_on_folds",
    "sensitivity",
    "sensitivity_matrix",
    "sensitivity_summary",
]

#: ``progress(done, total, message)``.
Progress = Callable[[int, int, str], None]

#: Feature sets of :func:`ablation`, in the order of the paper's figure.
ABLATION_SETS = ("all", "phase2", "phase3", "phase4", "camcf")

#: Columns of an :func:`ablation` frame (those of the protocol frames, so that
#: :func:`camcf.evaluation.summarise` applies).
ABLATION_COLUMNS = list(COLUMNS)

_RESULT_COLUMNS = ("split", "metric", "value", "n_features", "seconds")


# ---------------------------------------------------------------------------- discretising
class Discretizer:
    """:func:`camcf.discretize.discretize` fitted on one part of the rows, applied to others.

    ``fit`` runs ``discretize`` on the training rows and keeps, per column, what it decided
    (as-is values, bin edges, or a constant). ``transform`` maps new rows the same way:

    * an as-is column: a value seen in training gets its training code; an unseen value gets
      the code ``n_codes`` (it matches no training row, which is what ML-kNN's Hamming distance
      makes of it anyway);
    * a binned column: the training bin edges, values below the first / above the last edge go
      to the first / last bin (as scikit-learn's ``KBinsDiscretizer.transform`` does);
    * a constant column: 0 for the training value, 1 for anything else.

    ``transform`` of the training rows gives exactly the codes ``fit`` produced.

    Parameters
    ----------
    bins : int, default 3
    strategy : {"uniform", "quantile"}, default "uniform"
    mode : {"auto", "none"}, default "auto"
        As for :func:`camcf.discretize.discretize`.
    """

    def __init__(self, bins: int = 3, strategy: str = "uniform", mode: str = "auto") -> None:
        self.bins = bins
        self.strategy = strategy
        self.mode = mode

    def fit(self, X: np.ndarray) -> Discretizer:
        from ..discretize import discretize

        self.codes_, self.info_ = discretize(
            X, bins=self.bins, strategy=self.strategy, mode=self.mode
        )
        return self

    def fit_transform(self, X: np.ndarray) -> np.ndarray:
        return self.fit(X).codes_

    def transform(self, X: np.ndarray) -> np.ndarray:
        if not hasattr(self, "info_"):
            raise NotFittedError("this Discretizer is not fitted yet; call fit(X_train) first")
        try:
            A = np.asarray(X, dtype=float)
        except (TypeError, ValueError):
            raise InvalidDataError("X must hold numbers only") from None
        if A.ndim != 2 or A.shape[1] != len(self.info_):
            raise InvalidDataError(
                f"X must be 2-D with {len(self.info_)} columns (as fitted); got shape {A.shape}"
            )
        if not np.all(np.isfinite(A)):
            raise InvalidDataError(
                "X has missing (NaN) or infinite values; impute or remove them first"
            )
        out = np.empty(A.shape, dtype=np.int64)
        for j, info in enumerate(self.info_):
            col = A[:, j]
            if info["kind"] == "constant":
                value = info["values"][0] if info["values"] else math.nan
                out[:, j] = (col != value).astype(np.int64)
            elif info["kind"] == "as-is":
                values = np.asarray(info["values"], dtype=float)
                pos = np.minimum(np.searchsorted(values, col), len(values) - 1)
                out[:, j] = np.where(values[pos] == col, pos, len(values))
            else:
                edges = np.asarray(info["edges"], dtype=float)
                codes = np.searchsorted(edges[1:-1], col, side="right")
                out[:, j] = np.clip(codes, 0, len(edges) - 2)
        return out

    def describe(self) -> dict[str, Any]:
        """Settings and, if fitted, how many columns were used as-is / binned / constant."""
        out: dict[str, Any] = {"bins": self.bins, "strategy": self.strategy, "mode": self.mode}
        if hasattr(self, "info_"):
            kinds = [i["kind"] for i in self.info_]
            out["columns"] = {k: kinds.count(k) for k in ("as-is", "binned", "constant")}
        return out


# ---------------------------------------------------------------------------- folds
@dataclass(frozen=True, eq=False)
class Fold:
    """One train/test split, ready for selection and classification.

    Attributes
    ----------
    split : int
        Split number (0-based).
    protocol : str
        ``"holdout"``, ``"repeated_holdout"`` or ``"kfold"``.
    train, test : ndarray of int
        Row indices into the data the folds were made from (for a given train/test pair: the
        rows of the two files one after the other).
    X_train, X_test : ndarray of int64
        Discrete codes (the test part coded with the training part's bins).
    Y_train : ndarray
        Label codes of the training rows, as selection needs them (multi-class labels kept).
    Yb_train, Yb_test : ndarray of int64
        Binary label columns (:func:`binarize_labels`, fixed on all rows) for ML-kNN.
    """

    split: int
    protocol: str
    train: np.ndarray
    test: np.ndarray
    X_train: np.ndarray
    X_test: np.ndarray
    Y_train: np.ndarray
    Yb_train: np.ndarray
    Yb_test: np.ndarray
    key: str = field(default="", repr=False)

    @property
    def n_features(self) -> int:
        return int(self.X_train.shape[1])


def _fold_key(*arrays: np.ndarray) -> str:
    h = hashlib.sha1()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str((a.shape, a.dtype.str)).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def make_splits(
    n: int,
    protocol: str = "repeated",
    *,
    n_repeats: int = 5,
    test_size: float = 0.3,
    n_folds: int = 5,
    seed: int = 0,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Row splits of one data set.

    Parameters
    ----------
    n : int
        Number of rows.
    protocol : {"repeated", "kfold", "holdout"}
        ``"repeated"``: :func:`repeated_holdout_splits` (``n_repeats`` × ``test_size``);
        ``"kfold"``: :func:`kfold_splits` (``n_folds``); ``"holdout"``: one seeded random
        split of ``test_size``.

    Returns
    -------
    list of (train, test) index arrays
    """
    if protocol == "repeated":
        return repeated_holdout_splits(n, n_repeats, test_size, seed)
    if protocol == "kfold":
        return kfold_splits(n, n_folds, seed)
    if protocol == "holdout":
        return repeated_holdout_splits(n, 1, test_size, seed)
    raise ParameterError(
        f"protocol must be 'repeated', 'kfold' or 'holdout'; got protocol={protocol!r}"
    )


_PROTOCOL_NAMES = {"repeated": "repeated_holdout", "kfold": "kfold", "holdout": "holdout"}


def make_folds(
    X: np.ndarray,
    Y: np.ndarray,
    splits: Sequence[tuple[np.ndarray, np.ndarray]] | None = None,
    *,
    X_test: np.ndarray | None = None,
    Y_test: np.ndarray | None = None,
    protocol: str = "repeated",
    discretize: str | None = "auto",
    bins: int = 3,
    strategy: str = "uniform",
) -> list[Fold]:
    """Cut the data into folds and discretise each fold on its training rows.

    Either give ``splits`` (``(train, test)`` row indices into ``X``), or a second part
    ``X_test``/``Y_test`` (a fixed train/test pair: one fold, ``protocol = "holdout"``).

    Parameters
    ----------
    X : array-like of shape (n, m)
        Raw feature values (``discretize="auto"`` or ``"none"``) or codes (``discretize=None``:
        used as they are).
    Y : array-like of shape (n, q)
        Label codes.
    splits : list of (train, test), optional
        E.g. from :func:`make_splits`.
    X_test, Y_test : array-like, optional
        The test part of a fixed split (then ``X``, ``Y`` are the training part).
    protocol : str, default "repeated"
        Stored on the folds (``"repeated"``, ``"kfold"``, ``"holdout"``).
    discretize : {"auto", "none"} or None, default "auto"
        Mode of :class:`Discretizer`, fitted on each fold's training rows; ``None`` = ``X``
        already holds codes.
    bins, strategy
        As for :func:`camcf.discretize.discretize`.

    Returns
    -------
    list of Fold
    """
    X = np.asarray(X.to_numpy() if isinstance(X, pd.DataFrame) else X)
    Y = np.asarray(Y.to_numpy() if isinstance(Y, pd.DataFrame) else Y)
    if Y.ndim == 1:
        Y = Y[:, None]
    if X.ndim != 2 or Y.ndim != 2 or X.shape[0] != Y.shape[0]:
        raise InvalidDataError(
            f"X and Y must be 2-D with the same number of rows; got {X.shape} and {Y.shape}"
        )
    if X_test is not None or Y_test is not None:
        if X_test is None or Y_test is None or splits is not None:
            raise ParameterError("give either splits, or both X_test and Y_test")
        X_test = np.asarray(X_test)
        Y_test = np.asarray(Y_test)
        if Y_test.ndim == 1:
            Y_test = Y_test[:, None]
        if X_test.ndim != 2 or X_test.shape[1] != X.shape[1] or Y_test.shape[1] != Y.shape[1]:
            raise InvalidDataError(
                f"train and test must have the same columns; got X {X.shape} / X_test "
                f"{X_test.shape}, Y {Y.shape} / Y_test {Y_test.shape}"
            )
        n = X.shape[0]
        splits = [(np.arange(n), np.arange(n, n + X_test.shape[0]))]
        X = np.concatenate([X, X_test])
        Y = np.concatenate([Y, Y_test])
        protocol = "holdout"
    if splits is None:
        raise ParameterError("give splits (e.g. make_splits(n)) or X_test and Y_test")
    if discretize not in (None, "auto", "none"):
        raise ParameterError(
            f"discretize must be 'auto', 'none' or None; got discretize={discretize!r}"
        )
    Ybin, _ = binarize_labels(Y)
    name = _PROTOCOL_NAMES.get(protocol, protocol)
    folds = []
    for i, (train, test) in enumerate(splits):
        train = np.asarray(train, dtype=np.int64)
        test = np.asarray(test, dtype=np.int64)
        if np.intersect1d(train, test).size:
            raise InvalidDataError(f"split {i}: a row is both a training and a test row")
        if discretize is None:
            X_tr = np.asarray(X[train], dtype=np.int64)
            X_te = np.asarray(X[test], dtype=np.int64)
        else:
            disc = Discretizer(bins=bins, strategy=strategy, mode=discretize)
            X_tr = disc.fit_transform(X[train])
            X_te = disc.transform(X[test])
        fold = Fold(
            split=i,
            protocol=name,
            train=train,
            test=test,
            X_train=X_tr,
            X_test=X_te,
            Y_train=Y[train],
            Yb_train=Ybin[train],
            Yb_test=Ybin[test],
        )
        key = _fold_key(X_tr, X_te, fold.Y_train, fold.Yb_train, fold.Yb_test)
        folds.append(
            Fold(**{**{f: getattr(fold, f) for f in fold.__dataclass_fields__}, "key": key})
        )
    return folds


# ---------------------------------------------------------------------------- workers
# Folds are handed to pool workers once (initializer), not with every task.
_WORKER_FOLDS: list[Fold] = []


def _init_worker(folds: list[Fold]) -> None:
    global _WORKER_FOLDS
    _WORKER_FOLDS = folds


def _select(fold: Fold, params: Mapping[str, Any]) -> tuple[dict[str, tuple[int, ...]], float]:
    """Run Ca-MCF on the fold's training rows: feature sets after each phase, and seconds."""
    from ..algorithm import CamcfWarning, run

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CamcfWarning)
        result = run(fold.X_train, fold.Y_train, **params)
    seconds = time.perf_counter() - t0
    sets = {
        "camcf": tuple(int(f) for f in result.selected_indices),
        **{
            p: tuple(int(f) for f in result.selected_after(p))
            for p in ("phase2", "phase3", "phase4")
        },
    }
    return sets, seconds


def _select_task(args: tuple[int, dict[str, Any]]) -> tuple[dict[str, tuple[int, ...]], float]:
    i, params = args
    return _select(_WORKER_FOLDS[i], params)


def _classify(fold: Fold, features: tuple[int, ...], knn: Mapping[str, Any]) -> dict[str, float]:
    if not features:
        return {m: math.nan for m in METRICS}
    idx = np.asarray(features, dtype=np.int64)
    model = MLkNN(**knn).fit(fold.X_train[:, idx], fold.Yb_train)
    scores = model.predict_proba(fold.X_test[:, idx])
    return evaluate_all(fold.Yb_test, (scores > 0.5).astype(np.int64), scores)


def _classify_task(args: tuple[int, tuple[int, ...], dict[str, Any]]) -> dict[str, float]:
    i, features, knn = args
    return _classify(_WORKER_FOLDS[i], features, knn)


def _map(
    fn: Callable, local: Callable, tasks: list, folds: list[Fold], n_jobs: int, tick: Callable
) -> list:
    """Run ``tasks`` in order (``local``) or in a process pool (``fn``); call ``tick`` per task."""
    results: list[Any] = [None] * len(tasks)
    if n_jobs == 1 or len(tasks) <= 1:
        for i, task in enumerate(tasks):
            results[i] = local(task)
            tick(task)
        return results
    from concurrent.futures import ProcessPoolExecutor, as_completed

    with ProcessPoolExecutor(
        max_workers=min(n_jobs, len(tasks)), initializer=_init_worker, initargs=(folds,)
    ) as pool:
        futures = {pool.submit(fn, task): i for i, task in enumerate(tasks)}
        for future in as_completed(futures):
            i = futures[future]
            results[i] = future.result()
            tick(tasks[i])
    return results


# ---------------------------------------------------------------------------- caching
class KnnCache:
    """Metric values per (fold, feature subset, ML-kNN settings); share it between calls.

    Keys use the fold's content hash (:attr:`Fold.key`), so one cache serves every call on
    the same folds and never mixes up different data. ``hits`` and ``misses`` count look-ups.
    """

    def __init__(self) -> None:
        self._values: dict[tuple, dict[str, float]] = {}
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(fold: Fold, features: tuple[int, ...], knn: Mapping[str, Any]) -> tuple:
        return (fold.key or id(fold), tuple(features), tuple(sorted(knn.items())))

    def get(self, key: tuple) -> dict[str, float] | None:
        value = self._values.get(key)
        if value is None:
            self.misses += 1
        else:
            self.hits += 1
        return value

    def put(self, key: tuple, value: dict[str, float]) -> None:
        self._values[key] = value

    def __len__(self) -> int:
        return len(self._values)


def _knn_settings(k: int, s: float, distance: str, neighbours: str) -> dict[str, Any]:
    MLkNN(k=k, s=s, distance=distance, neighbours=neighbours)  # validates early
    return {"k": int(k), "s": float(s), "distance": distance, "neighbours": neighbours}


def _check_common(folds: Sequence[Fold], n_jobs: int) -> list[Fold]:
    folds = list(folds)
    if not folds or not all(isinstance(f, Fold) for f in folds):
        raise ParameterError("folds must be a non-empty list of Fold (see make_folds)")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
        raise ParameterError(f"n_jobs must be an integer >= 1; got n_jobs={n_jobs!r}")
    return folds


def _check_params(params: Mapping[str, Any]) -> dict[str, Any]:
    from ..algorithm import DEFAULTS, check_params

    full = {**DEFAULTS, **params}
    unknown = set(full) - set(DEFAULTS)
    if unknown:
        raise ParameterError(
            f"unknown Ca-MCF parameter(s) {sorted(unknown)}; known: {list(DEFAULTS)}"
        )
    check_params(**full)
    return dict(params)


class _Progress:
    """Monotone progress over two stages whose second size is known only after the first."""

    def __init__(self, progress: Progress | None, n_select: int, per_select: int) -> None:
        self.progress = progress
        self.done = 0
        self.total = n_select + n_select * per_select  # upper bound until stage 2 is known

    def stage2(self, n_classify: int) -> None:
        self.total = self.done + n_classify
        self.report("classifying")

    def report(self, message: str) -> None:
        if self.progress is not None:
            self.progress(self.done, max(self.total, self.done), message)

    def tick(self, message: str) -> None:
        self.done += 1
        self.report(message)


# ---------------------------------------------------------------------------- core
def select_on_folds(
    folds: Sequence[Fold],
    param_sets: Sequence[Mapping[str, Any]],
    *,
    n_jobs: int = 1,
    progress: Progress | None = None,
) -> dict[tuple[int, int], tuple[dict[str, tuple[int, ...]], float]]:
    """Run Ca-MCF for every (parameter set, fold) on the training rows only.

    Returns
    -------
    dict
        ``(parameter set number, fold number) -> ({"camcf", "phase2", "phase3", "phase4":
        feature tuple}, seconds)``. Identical parameter sets are run once.
    """
    folds = _check_common(folds, n_jobs)
    return _select_all(folds, param_sets, n_jobs, _Progress(progress, 0, 0))


def _select_all(
    folds: list[Fold],
    param_sets: Sequence[Mapping[str, Any]],
    n_jobs: int,
    prog: _Progress,
) -> dict[tuple[int, int], tuple[dict[str, tuple[int, ...]], float]]:
    distinct: dict[tuple, int] = {}
    which: list[int] = []
    unique_params: list[dict[str, Any]] = []
    for params in param_sets:
        key = tuple(sorted(params.items()))
        if key not in distinct:
            distinct[key] = len(unique_params)
            unique_params.append(dict(params))
        which.append(distinct[key])
    tasks = [(fi, p) for p in unique_params for fi in range(len(folds))]

    def tick(task: tuple[int, dict[str, Any]]) -> None:
        fi, p = task
        shown = ", ".join(f"{k}={v}" for k, v in p.items()) or "default parameters"
        prog.tick(f"selecting on split {fi + 1}/{len(folds)} ({shown})")

    results = _map(_select_task, lambda t: _select(folds[t[0]], t[1]), tasks, folds, n_jobs, tick)
    return {
        (pi, fi): results[u * len(folds) + fi]
        for pi, u in enumerate(which)
        for fi in range(len(folds))
    }


def _classify_all(
    folds: list[Fold],
    wanted: list[tuple[int, tuple[int, ...]]],
    knn: dict[str, Any],
    cache: KnnCache,
    n_jobs: int,
    prog: _Progress,
) -> dict[tuple[int, tuple[int, ...]], dict[str, float]]:
    out: dict[tuple[int, tuple[int, ...]], dict[str, float]] = {}
    todo: list[tuple[int, tuple[int, ...], dict[str, Any]]] = []
    for fi, features in dict.fromkeys(wanted):
        hit = cache.get(KnnCache.key(folds[fi], features, knn))
        if hit is not None:
            out[(fi, features)] = hit
        else:
            todo.append((fi, features, knn))
    prog.stage2(len(todo))

    def tick(task: tuple[int, tuple[int, ...], dict[str, Any]]) -> None:
        prog.tick(f"ML-kNN on split {task[0] + 1}/{len(folds)} ({len(task[1])} features)")

    results = _map(
        _classify_task, lambda t: _classify(folds[t[0]], t[1], t[2]), todo, folds, n_jobs, tick
    )
    for (fi, features, _), values in zip(todo, results, strict=True):
        cache.put(KnnCache.key(folds[fi], features, knn), values)
        out[(fi, features)] = values
    return out


def evaluate_per_fold(
    folds: Sequence[Fold],
    feature_sets: Sequence[Mapping[str, Sequence[int]]],
    seconds: Sequence[Mapping[str, float]] | None = None,
    *,
    k: int = 10,
    s: float = 1.0,
    distance: str = "hamming",
    neighbours: str = "strict",
    cache: KnnCache | None = None,
    n_jobs: int = 1,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """ML-kNN on named feature subsets that may differ from fold to fold: a protocol frame.

    Parameters
    ----------
    folds : list of Fold
    feature_sets : list of dict, one per fold
        ``{name: feature indices}`` for fold ``i`` (e.g. the selection made on its training
        rows).
    seconds : list of dict, optional
        ``{name: seconds}`` per fold, copied into the ``seconds`` column (default 0).

    Returns
    -------
    DataFrame
        Columns :data:`ABLATION_COLUMNS`, one row per (fold, feature set, metric).
    """
    folds = _check_common(folds, n_jobs)
    if len(feature_sets) != len(folds):
        raise ParameterError(
            f"give one dict of feature sets per fold: {len(feature_sets)} for {len(folds)} folds"
        )
    knn = _knn_settings(k, s, distance, neighbours)
    per_fold: list[dict[str, tuple[int, ...]]] = []
    for fold, sets in zip(folds, feature_sets, strict=True):
        m = fold.n_features
        named: dict[str, tuple[int, ...]] = {}
        for name, idx in sets.items():
            idx = np.unique(np.asarray(list(idx), dtype=np.int64).ravel())
            if idx.size and (idx[0] < 0 or idx[-1] >= m):
                raise ParameterError(
                    f"feature set {name!r} holds indices outside 0..{m - 1}: {idx.tolist()}"
                )
            named[str(name)] = tuple(int(i) for i in idx)
        per_fold.append(named)
    cache = cache if cache is not None else KnnCache()
    prog = _Progress(progress, 0, 0)
    wanted = [(fi, f) for fi, named in enumerate(per_fold) for f in named.values()]
    values = _classify_all(folds, wanted, knn, cache, n_jobs, prog)
    return _frame(folds, per_fold, values, seconds)


def _frame(
    folds: list[Fold],
    per_fold: list[dict[str, tuple[int, ...]]],
    values: Mapping[tuple[int, tuple[int, ...]], Mapping[str, float]],
    seconds: Sequence[Mapping[str, float]] | None,
) -> pd.DataFrame:
    rows = []
    for fi, named in enumerate(per_fold):
        for name, features in named.items():
            secs = float(seconds[fi].get(name, 0.0)) if seconds is not None else 0.0
            for metric, value in values[(fi, features)].items():
                rows.append(
                    {
                        "protocol": folds[fi].protocol,
                        "split": folds[fi].split,
                        "feature_set": name,
                        "n_features": len(features),
                        "metric": metric,
                        "value": float(value),
                        "seconds": secs,
                    }
                )
    return pd.DataFrame(rows, columns=ABLATION_COLUMNS)


def evaluate_feature_sets(
    folds: Sequence[Fold],
    feature_sets: Mapping[str, Sequence[int]],
    **kwargs: Any,
) -> pd.DataFrame:
    """ML-kNN on fixed feature subsets, the same on every fold (``seconds`` = 0).

    Keyword arguments are those of :func:`evaluate_per_fold`.
    """
    folds = list(folds)
    return evaluate_per_fold(folds, [feature_sets] * len(folds), **kwargs)


def ablation(
    folds: Sequence[Fold],
    params: Mapping[str, Any] | None = None,
    *,
    feature_sets: Sequence[str] = ABLATION_SETS,
    k: int = 10,
    s: float = 1.0,
    distance: str = "hamming",
    neighbours: str = "strict",
    cache: KnnCache | None = None,
    n_jobs: int = 1,
    progress: Progress | None = None,
    selections: list | None = None,
) -> pd.DataFrame:
    """All features vs the feature sets after Phases 2, 3, 4 vs Ca-MCF, on the same folds.

    Ca-MCF runs once per fold on the training rows with ``params``; the union over categories
    of the feature set after each phase (:meth:`camcf.Result.selected_after`) and the final
    selection are classified with ML-kNN on the fold's test rows.

    Parameters
    ----------
    folds : list of Fold
        From :func:`make_folds`.
    params : dict, optional
        Ca-MCF parameters (``delta1``, ``delta2``, ``k1``, ``k2``, ``gamma``,
        ``min_category_size``, ``recovery``); defaults for the rest.
    feature_sets : sequence of str, default :data:`ABLATION_SETS`
        Which of ``"all", "phase2", "phase3", "phase4", "camcf"`` to evaluate, in this order.
    k, s, distance, neighbours
        ML-kNN settings (:class:`MLkNN`).
    cache : KnnCache, optional
        Shared ML-kNN results (e.g. with :func:`sensitivity` on the same folds).
    n_jobs : int, default 1
        Process pool size for the selections and the classifications.
    progress : callable, optional
        ``progress(done, total, message)``; ``done/total`` never decreases.
    selections : list, optional
        If given, filled with one dict per fold: ``{feature set: tuple of feature indices}``
        (the selections behind the frame's rows).

    Returns
    -------
    DataFrame
        Columns :data:`ABLATION_COLUMNS` (``protocol, split, feature_set, n_features, metric,
        value, seconds``), one row per (fold, feature set, metric); ``seconds`` is Ca-MCF's
        run time on that fold (0 for ``"all"``). Summarise with
        :func:`camcf.evaluation.summarise`. An empty feature set gives NaN values.
    """
    folds = _check_common(folds, n_jobs)
    params = _check_params(params or {})
    unknown = [f for f in feature_sets if f not in ABLATION_SETS]
    if unknown or not feature_sets:
        raise ParameterError(
            f"feature_sets must be among {list(ABLATION_SETS)}; got {list(feature_sets)}"
        )
    knn = _knn_settings(k, s, distance, neighbours)
    cache = cache if cache is not None else KnnCache()
    prog = _Progress(progress, len(folds), len(feature_sets))
    selected = _select_all(folds, [params], n_jobs, prog)
    all_features = tuple(range(folds[0].n_features))
    per_fold: list[dict[str, tuple[int, ...]]] = []
    seconds: list[dict[str, float]] = []
    for fi in range(len(folds)):
        sets, secs = selected[(0, fi)]
        per_fold.append(
            {name: all_features if name == "all" else sets[name] for name in feature_sets}
        )
        seconds.append({name: 0.0 if name == "all" else secs for name in feature_sets})
    wanted = [(fi, f) for fi, named in enumerate(per_fold) for f in named.values()]
    values = _classify_all(folds, wanted, knn, cache, n_jobs, prog)
    if selections is not None:
        selections.extend(dict(named) for named in per_fold)
    return _frame(folds, per_fold, values, seconds)


def sensitivity(
    folds: Sequence[Fold],
    grid: Mapping[str, Sequence[Any]],
    base_params: Mapping[str, Any] | None = None,
    *,
    metrics: str | Sequence[str] | None = None,
    feature_set: str = "camcf",
    k: int = 10,
    s: float = 1.0,
    distance: str = "hamming",
    neighbours: str = "strict",
    cache: KnnCache | None = None,
    n_jobs: int = 1,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Every combination of a parameter grid on every fold (the paper's sensitivity figure).

    For each combination (``itertools.product`` over ``grid`` in key order) the parameters are
    ``{**base_params, **combination}``; Ca-MCF selects on each fold's training rows and
    ``feature_set`` is classified on its test rows. Identical parameter sets are selected once;
    identical feature subsets on a fold are classified once.

    Parameters
    ----------
    folds : list of Fold
    grid : dict of str to list
        E.g. ``{"delta1": [0.01, 0.05, 0.1], "k1": [0.3, 0.7, 1.0]}``.
    base_params : dict, optional
        Parameters fixed for every grid point.
    metrics : str or sequence of str, optional
        Metric name(s) of :data:`METRICS` to keep; all seven by default.
    feature_set : {"camcf", "phase2", "phase3", "phase4"}, default "camcf"
    k, s, distance, neighbours, cache, n_jobs, progress
        As for :func:`ablation`.

    Returns
    -------
    DataFrame
        Columns: one per grid parameter, then ``split, metric, value, n_features, seconds``;
        one row per (grid point, fold, metric). ``seconds`` is Ca-MCF's run time.
    """
    folds = _check_common(folds, n_jobs)
    if metrics is None:
        metrics = list(METRICS)
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    unknown = [m for m in metrics if m not in METRICS]
    if unknown or not metrics:
        raise ParameterError(f"metrics must be among {list(METRICS)}; got {metrics!r}")
    if not grid:
        raise ParameterError("grid must name at least one parameter with a list of values")
    for name, values in grid.items():
        if name in _RESULT_COLUMNS:
            raise ParameterError(f"grid parameter name {name!r} clashes with a result column")
        if len(values) == 0:
            raise ParameterError(f"grid[{name!r}] is empty; give at least one value")
    if feature_set not in ABLATION_SETS or feature_set == "all":
        raise ParameterError(
            f"feature_set must be 'camcf', 'phase2', 'phase3' or 'phase4'; got {feature_set!r}"
        )
    keys = list(grid)
    combos = [dict(zip(keys, c, strict=True)) for c in itertools.product(*grid.values())]
    param_sets = [_check_params({**(base_params or {}), **c}) for c in combos]
    knn = _knn_settings(k, s, distance, neighbours)
    cache = cache if cache is not None else KnnCache()
    prog = _Progress(progress, len(param_sets) * len(folds), 1)
    selected = _select_all(folds, param_sets, n_jobs, prog)
    wanted = [
        (fi, selected[(pi, fi)][0][feature_set])
        for pi in range(len(param_sets))
        for fi in range(len(folds))
    ]
    values = _classify_all(folds, wanted, knn, cache, n_jobs, prog)
    rows = []
    for pi, combo in enumerate(combos):
        for fi, fold in enumerate(folds):
            sets, seconds = selected[(pi, fi)]
            features = sets[feature_set]
            got = values[(fi, features)]
            for metric in metrics:
                rows.append(
                    {
                        **combo,
                        "split": fold.split,
                        "metric": metric,
                        "value": float(got[metric]),
                        "n_features": len(features),
                        "seconds": seconds,
                    }
                )
    return pd.DataFrame(rows, columns=[*keys, *_RESULT_COLUMNS])


def _grid_keys(frame: pd.DataFrame) -> list[str]:
    keys = [c for c in frame.columns if c not in _RESULT_COLUMNS]
    if not keys or any(c not in frame.columns for c in _RESULT_COLUMNS):
        raise InvalidDataError("not a sensitivity frame (see camcf.evaluation.study.sensitivity)")
    return keys


def sensitivity_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean and sample SD over folds per (grid point, metric).

    Returns
    -------
    DataFrame
        Grid columns, then ``metric, mean, sd, n, n_features, seconds`` (``n``: folds with a
        value; ``n_features`` and ``seconds``: means over folds). Grid order is kept.
    """
    keys = _grid_keys(frame)
    return mean_sd(frame, [*keys, "metric"])


def sensitivity_matrix(
    frame: pd.DataFrame, metric: str, rows: str, columns: str, *, value: str = "mean"
) -> pd.DataFrame:
    """One metric's fold mean (or ``"n_features"``) as a ``rows`` × ``columns`` matrix.

    ``frame`` is a :func:`sensitivity` frame with exactly the two grid parameters ``rows`` and
    ``columns`` (for a larger grid, filter it first).
    """
    keys = _grid_keys(frame)
    if sorted(keys) != sorted([rows, columns]):
        raise ParameterError(
            f"the frame's grid parameters are {keys}; pass rows and columns naming two of them "
            "(filter the frame down to two grid parameters first)"
        )
    if metric not in set(frame["metric"]):
        raise ParameterError(f"metric {metric!r} is not in this frame")
    summary = sensitivity_summary(frame[frame["metric"] == metric])
    return summary.pivot(index=rows, columns=columns, values=value)

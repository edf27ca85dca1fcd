"""One evaluation framework for every feature selector: splits, per-split discretisation,
selection on the training part, ML-kNN on the test part, the paper's seven metrics.

A *method* is any scikit-learn feature selector (``fit(X, Y)`` + ``get_support``; the camcf
ones are in :mod:`camcf.methods`): a **subset** method's selection is used as it is; a
**ranking** method (``ranking_``, every feature best first) is cut at k (see
:func:`feature_sets`). Everything runs through the same three steps:

1. :func:`make_splits` + :func:`make_folds` — the protocol's row splits, each discretised on its
   training rows only (:class:`Discretizer`); the test rows are coded with the training part's
   bin edges, so no test row influences the codes, the selection or the classifier.
2. :func:`select_on_folds` — each method is cloned and fitted on each fold's training codes
   (Ca-MCF gets the label codes, other methods the binary label columns; a selector with its
   own ``discretize`` parameter is told ``"none"``: the fold already holds codes). A method
   that fails on a split with a :class:`camcf.CamcfError` is recorded as failed there.
3. :func:`evaluate_selections` — ML-kNN (:class:`MLkNN`) on each selected feature set, scored
   on the test rows; identical (fold, feature set, settings) are classified once
   (:class:`KnnCache`).

Protocols (:func:`make_splits`):

``holdout``
    One seeded random split: ``ceil(test_size · n)`` test rows (or a given train/test pair:
    :func:`make_folds` with ``X_test``/``Y_test``).
``repeated``
    ``n_repeats`` independent seeded random hold-out splits (one generator, one permutation per
    repeat); test parts may overlap between repeats.
``kfold``
    The rows shuffled once and cut into ``n_folds`` near-equal folds; every row is a test row
    exactly once.

Built on these: :func:`compare` (several methods on the same splits), :func:`ablation` (Ca-MCF's
feature sets after each phase) and :func:`sensitivity` (a parameter grid). ``n_jobs`` runs the
selections and the classifications with joblib.

Frames are tidy, one row per (split, feature set, metric), columns :data:`COLUMNS`:
``protocol, split, feature_set, n_features, metric, value, seconds`` (``feature_set``: the
method's name, or an ablation stage). An empty feature set (a method that selected nothing on a
split) cannot be classified: ``n_features = 0`` and ``value = NaN``; :func:`summarise` counts
those splits (``n_empty``) instead of hiding them, and says over how many splits each mean was
taken (``n`` of ``n_splits``).
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

from ..errors import CamcfError, InvalidDataError, NotFittedError, ParameterError
from .metrics import METRICS, evaluate_all
from .mlknn import MLkNN

__all__ = [
    "ABLATION_SETS",
    "COLUMNS",
    "KNN_DEFAULTS",
    "PROTOCOLS",
    "Discretizer",
    "Fold",
    "KnnCache",
    "Comparison",
    "Selection",
    "ablation",
    "binarize_labels",
    "compare",
    "compare_data_sets",
    "evaluate_feature_sets",
    "evaluate_per_fold",
    "evaluate_selections",
    "feature_sets",
    "folds_for",
    "friedman_over_data_sets",
    "kfold_splits",
    "make_folds",
    "make_splits",
    "mean_sd",
    "mean_table",
    "repeated_holdout_splits",
    "select_on_folds",
    "sensitivity",
    "sensitivity_matrix",
    "sensitivity_summary",
    "summarise",
]

#: ``progress(done, total, message)``; ``done/total`` never decreases.
Progress = Callable[[int, int, str], None]

#: Columns of every evaluation frame.
COLUMNS = ["protocol", "split", "feature_set", "n_features", "metric", "value", "seconds"]
#: Protocol names of :func:`make_splits` and their display names.
PROTOCOLS = {"holdout": "one random hold-out", "repeated": "repeated hold-out",
             "kfold": "k-fold cross-validation"}
#: Feature sets of :func:`ablation`, in the order of the paper's figure.
ABLATION_SETS = ("all", "phase2", "phase3", "phase4", "camcf")
ABLATION_COLUMNS = list(COLUMNS)
_RESULT_COLUMNS = ("split", "metric", "value", "n_features", "seconds")
KNN_DEFAULTS = {"k": 10, "s": 1.0, "distance": "hamming", "neighbours": "strict"}


# ---------------------------------------------------------------------------- labels
def binarize_labels(
    Y: np.ndarray | pd.DataFrame, names: Sequence[str] | None = None
) -> tuple[np.ndarray, list[str]]:
    """Turn label codes into binary 0/1 columns for ML-kNN and the metrics.

    A label whose values are all in {0, 1} stays one column; a label with values {−1, +1} is
    read as 0/1 (+1 → 1). Any other label is multi-class: it becomes one binary column per
    distinct value, in ascending order of the value (one-hot), named ``"<label>=<value>"``.

    Parameters
    ----------
    Y : array-like of shape (n, q) or DataFrame
        Label codes, one column per label (a 1-D array is one label).
    names : sequence of str, optional
        Label names; by default the DataFrame's column names, else ``y0, y1, ...``.

    Returns
    -------
    Ybin : ndarray of shape (n, q_bin), int64
        Binary labels.
    names : list of str
        Name of each binary column.
    """
    if isinstance(Y, pd.DataFrame):
        if names is None:
            names = [str(c) for c in Y.columns]
        Y = Y.to_numpy()
    Y = np.asarray(Y)
    if Y.ndim == 1:
        Y = Y[:, None]
    if Y.ndim != 2:
        raise InvalidDataError(f"Y must be 2-D (n_samples x n_labels); got shape {Y.shape}")
    if names is None:
        names = [f"y{i}" for i in range(Y.shape[1])]
    if len(names) != Y.shape[1]:
        raise InvalidDataError(f"{len(names)} label names for {Y.shape[1]} label columns")
    columns: list[np.ndarray] = []
    out_names: list[str] = []
    for i in range(Y.shape[1]):
        col = Y[:, i]
        values = np.unique(col)
        if np.isin(values, (0, 1)).all():
            columns.append(col.astype(np.int64))
            out_names.append(str(names[i]))
        elif set(values.tolist()) == {-1, 1}:
            columns.append((col == 1).astype(np.int64))
            out_names.append(str(names[i]))
        else:
            for v in values:
                columns.append((col == v).astype(np.int64))
                shown = int(v) if float(v).is_integer() else v
                out_names.append(f"{names[i]}={shown}")
    Ybin = np.column_stack(columns) if columns else np.zeros((Y.shape[0], 0), dtype=np.int64)
    return Ybin, out_names



# ---------------------------------------------------------------------------- splits
def repeated_holdout_splits(
    n: int, n_repeats: int = 5, test_size: float = 0.3, seed: int = 0
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The ``(train, test)`` row indices :func:`repeated_holdout` uses.

    One generator ``numpy.random.default_rng(seed)`` draws a permutation per repeat; the first
    ``ceil(test_size * n)`` permuted rows are the test part. Both parts are sorted ascending.

    Parameters
    ----------
    n : int
        Number of rows.
    n_repeats : int, default 5
    test_size : float, default 0.3
        In (0, 1).
    seed : int, default 0

    Returns
    -------
    list of (ndarray, ndarray)
    """
    if isinstance(n_repeats, bool) or not isinstance(n_repeats, int) or n_repeats < 1:
        raise ParameterError(f"n_repeats must be an integer >= 1; got n_repeats={n_repeats!r}")
    if not 0 < test_size < 1:
        raise ParameterError(f"test_size must be in (0, 1); got test_size={test_size!r}")
    n_test = math.ceil(test_size * n)
    if n_test >= n:
        raise ParameterError(f"test_size={test_size} leaves no training rows out of {n}")
    rng = np.random.default_rng(seed)
    splits = []
    for _ in range(n_repeats):
        perm = rng.permutation(n)
        splits.append((np.sort(perm[n_test:]), np.sort(perm[:n_test])))
    return splits


def kfold_splits(n: int, n_splits: int = 5, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """The ``(train, test)`` row indices :func:`kfold` uses.

    The rows are permuted with ``numpy.random.default_rng(seed)`` and cut into ``n_splits``
    folds of near-equal size (``numpy.array_split``); fold ``i`` is the test part of split
    ``i``. Both parts are sorted ascending. Every row is a test row exactly once.

    Parameters
    ----------
    n : int
    n_splits : int, default 5
        Between 2 and ``n``.
    seed : int, default 0

    Returns
    -------
    list of (ndarray, ndarray)
    """
    if isinstance(n_splits, bool) or not isinstance(n_splits, int) or not 2 <= n_splits <= n:
        raise ParameterError(
            f"n_splits must be an integer between 2 and the number of rows ({n}); "
            f"got n_splits={n_splits!r}"
        )
    perm = np.random.default_rng(seed).permutation(n)
    folds = np.array_split(perm, n_splits)
    splits = []
    for i, fold in enumerate(folds):
        train = np.concatenate([f for j, f in enumerate(folds) if j != i])
        splits.append((np.sort(train), np.sort(fold)))
    return splits


def make_splits(
    n: int,
    protocol: str = "repeated",
    *,
    n_repeats: int = 5,
    test_size: float = 0.3,
    n_folds: int = 5,
    seed: int = 0,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Row splits of one data set for a protocol of :data:`PROTOCOLS`.

    ``"repeated"``: :func:`repeated_holdout_splits` (``n_repeats`` × ``test_size``);
    ``"kfold"``: :func:`kfold_splits` (``n_folds``); ``"holdout"``: one seeded random split of
    ``test_size`` (the first split of ``"repeated"`` with the same seed).

    Returns
    -------
    list of (train, test) index arrays, each sorted ascending
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
    discretize : {"auto", "none"}, default "auto"
        As for :func:`camcf.discretize.discretize`.
    """

    def __init__(self, bins: int = 3, strategy: str = "uniform",
                 discretize: str = "auto") -> None:
        self.bins = bins
        self.strategy = strategy
        self.discretize = discretize

    def fit(self, X: np.ndarray) -> Discretizer:
        from ..discretize import discretize

        self.codes_, self.info_ = discretize(
            X, bins=self.bins, strategy=self.strategy, discretize=self.discretize
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
        out: dict[str, Any] = {"bins": self.bins, "strategy": self.strategy,
                                 "discretize": self.discretize}
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
    X = _dense(X.to_numpy() if isinstance(X, pd.DataFrame) else X)
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
        X_test = _dense(X_test)
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
            disc = Discretizer(bins=bins, strategy=strategy, discretize=discretize)
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


def _knn_settings(k: int = 10, s: float = 1.0, distance: str = "hamming",
                  neighbours: str = "strict") -> dict[str, Any]:
    MLkNN(k=k, s=s, distance=distance, neighbours=neighbours)  # validates early
    return {"k": int(k), "s": float(s), "distance": distance, "neighbours": neighbours}


def _check_common(folds: Sequence[Fold], n_jobs: int) -> list[Fold]:
    folds = list(folds)
    if not folds or not all(isinstance(f, Fold) for f in folds):
        raise ParameterError("folds must be a non-empty list of Fold (see make_folds)")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
        raise ParameterError(f"n_jobs must be an integer >= 1; got n_jobs={n_jobs!r}")
    return folds


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


def _run_tasks(fn: Callable, tasks: list, n_jobs: int, tick: Callable) -> list:
    """``fn(*task)`` for every task, in order; serial, or with joblib's process pool."""
    if n_jobs == 1 or len(tasks) <= 1:
        out = []
        for task in tasks:
            out.append(fn(*task))
            tick(task)
        return out
    from joblib import Parallel, delayed

    out = []
    gen = Parallel(n_jobs=min(n_jobs, len(tasks)), return_as="generator")(
        delayed(fn)(*task) for task in tasks)
    for task, value in zip(tasks, gen, strict=True):
        out.append(value)
        tick(task)
    return out


# ---------------------------------------------------------------------------- selection
@dataclass(frozen=True)
class Selection:
    """What one method did on one fold's training rows.

    ``kind``: ``"subset"`` or ``"ranking"``. ``support``: the selected feature indices (sorted;
    for a ranking method the estimator's own cut). ``ranking``: every feature, best first
    (ranking methods only). ``extra``: further named feature sets (Ca-MCF: the sets after
    Phases 2, 3 and 4). ``error``: the message when the method failed on this split (then the
    sets are empty). ``seconds``: wall-clock time of ``fit``.
    """

    kind: str
    support: tuple[int, ...]
    seconds: float
    ranking: tuple[int, ...] | None = None
    extra: dict[str, tuple[int, ...]] = field(default_factory=dict)
    error: str | None = None


def _prepare(estimator):
    """A fresh clone; a selector with its own ``discretize`` parameter is given codes as
    they are."""
    from sklearn.base import clone

    est = clone(estimator)
    if "discretize" in est.get_params(deep=False):
        est.set_params(discretize="none")
    return est


def _fit_one(fold: Fold, estimator, extras: bool) -> Selection:
    est = _prepare(estimator)
    Y = fold.Y_train if getattr(est, "accepts_label_codes", False) else fold.Yb_train
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(fold.X_train, Y)
            support = tuple(int(i) for i in np.flatnonzero(est.get_support()))
    except CamcfError as e:
        return Selection(kind=getattr(est, "kind", "subset"), support=(),
                         seconds=time.perf_counter() - t0, error=str(e))
    seconds = time.perf_counter() - t0
    ranking = getattr(est, "ranking_", None)
    kind = "ranking" if ranking is not None else "subset"
    extra: dict[str, tuple[int, ...]] = {}
    result = getattr(est, "result_", None)
    if extras and result is not None:
        extra = {p: tuple(int(f) for f in result.selected_after(p))
                 for p in ("phase2", "phase3", "phase4")}
    return Selection(kind=kind, support=support, seconds=seconds,
                     ranking=None if ranking is None else tuple(int(i) for i in ranking),
                     extra=extra)


def _as_methods(methods) -> dict[str, Any]:
    if isinstance(methods, Mapping):
        out = dict(methods)
    else:
        from .. import methods as registry

        out = {name: registry.make(name) for name in methods}
    if not out:
        raise ParameterError("give at least one method")
    for name, est in out.items():
        if not (hasattr(est, "fit") and hasattr(est, "get_support") and hasattr(est,
                                                                                 "get_params")):
            raise ParameterError(f"method {name!r} is not a scikit-learn feature selector "
                                 f"(needs fit, get_support, get_params); got {est!r}")
    return out


def select_on_folds(
    folds: Sequence[Fold],
    methods: Mapping[str, Any] | Sequence[str],
    *,
    extras: bool = False,
    n_jobs: int = 1,
    progress: Progress | None = None,
) -> dict[tuple[str, int], Selection]:
    """Fit every method on every fold's training rows.

    Parameters
    ----------
    folds : list of Fold
    methods : dict of name to selector, or registry names (:mod:`camcf.methods`)
        Each selector is cloned per fold (the given objects stay unfitted).
    extras : bool, default False
        Also keep Ca-MCF's feature sets after Phases 2–4 (``Selection.extra``).
    n_jobs : int, default 1
        joblib processes.
    progress : callable, optional

    Returns
    -------
    dict
        ``(method name, fold number) -> Selection``. Methods with identical parameters
        (``get_params``) and class are fitted once per fold.
    """
    folds = _check_common(folds, n_jobs)
    return _select_all(folds, _as_methods(methods), extras, n_jobs, _Progress(progress, 0, 0))


def _est_key(est) -> tuple:
    return (type(est).__module__, type(est).__qualname__,
            tuple(sorted((k, repr(v)) for k, v in est.get_params(deep=False).items())))


def _select_all(folds: list[Fold], methods: dict[str, Any], extras: bool, n_jobs: int,
                prog: _Progress) -> dict[tuple[str, int], Selection]:
    distinct: dict[tuple, str] = {}
    for name, est in methods.items():
        distinct.setdefault(_est_key(est), name)
    tasks = [(folds[fi], methods[name], extras) for name in dict.fromkeys(distinct.values())
             for fi in range(len(folds))]
    names = [name for name in dict.fromkeys(distinct.values()) for _ in folds]
    prog.total = max(prog.total, len(tasks))
    counter = iter(names)

    def tick(task) -> None:
        prog.tick(f"{next(counter)}: selected on split {task[0].split + 1}/{len(folds)}")

    results = _run_tasks(_fit_one, tasks, n_jobs, tick)
    by_first = {(names[i], tasks[i][0].split): r for i, r in enumerate(results)}
    fi_of = {f.split: fi for fi, f in enumerate(folds)}
    out = {}
    for name, est in methods.items():
        first = distinct[_est_key(est)]
        for f in folds:
            out[(name, fi_of[f.split])] = by_first[(first, f.split)]
    return out


def _cut(ranking: tuple[int, ...], k: int) -> tuple[int, ...]:
    return tuple(sorted(ranking[:k]))


def _n_of(n_features: int | float, m: int) -> int:
    if isinstance(n_features, float) and 0 < n_features <= 1:
        return min(m, math.ceil(n_features * m))
    return min(m, int(n_features))


def feature_sets(
    selections: Mapping[tuple[str, int], Selection],
    n_folds: int,
    n_total: int,
    *,
    n_features: int | float | str | None = "match",
    reference: str = "camcf",
) -> list[dict[str, tuple[int, ...]]]:
    """The feature set each method contributes on each fold: ``[{method: indices}]`` per fold.

    A subset method: its selection. A ranking method: its ranking cut at k, where k is

    * ``n_features="match"`` (default): the size of ``reference``'s selection on the same fold
      (the paper's protocol: the baselines keep as many features as Ca-MCF selected); when
      ``reference`` is not among the methods, the estimator's own cut;
    * an int ≥ 1: that many; a float in (0, 1]: that share of the ``n_total`` features;
    * None: the estimator's own cut (its ``n_features_to_select``).
    """
    names = list(dict.fromkeys(name for name, _ in selections))
    if isinstance(n_features, str) and n_features != "match":
        raise ParameterError(f"n_features must be 'match', a number or None; got {n_features!r}")
    if isinstance(n_features, bool) or (isinstance(n_features, int | float)
                                        and not isinstance(n_features, str)
                                        and n_features <= 0):
        raise ParameterError(f"n_features must be ≥ 1 (or a share in (0, 1]); got {n_features!r}")
    out: list[dict[str, tuple[int, ...]]] = []
    for fi in range(n_folds):
        ref = selections.get((reference, fi))
        sets: dict[str, tuple[int, ...]] = {}
        for name in names:
            sel = selections[(name, fi)]
            if sel.ranking is None or sel.error is not None:
                sets[name] = sel.support
            elif n_features == "match":
                sets[name] = (_cut(sel.ranking, len(ref.support)) if ref is not None
                              and name != reference else sel.support)
            elif n_features is None:
                sets[name] = sel.support
            else:
                sets[name] = _cut(sel.ranking, _n_of(n_features, n_total))
        out.append(sets)
    return out


# ---------------------------------------------------------------------------- classifying
def _classify(fold: Fold, features: tuple[int, ...], knn: Mapping[str, Any]) -> dict[str, float]:
    if not features:
        return {m: math.nan for m in METRICS}
    idx = np.asarray(features, dtype=np.int64)
    model = MLkNN(**knn).fit(fold.X_train[:, idx], fold.Yb_train)
    scores = model.predict_proba(fold.X_test[:, idx])
    return evaluate_all(fold.Yb_test, (scores > 0.5).astype(np.int64), scores)


def _classify_all(
    folds: list[Fold],
    wanted: list[tuple[int, tuple[int, ...]]],
    knn: dict[str, Any],
    cache: KnnCache,
    n_jobs: int,
    prog: _Progress,
) -> dict[tuple[int, tuple[int, ...]], dict[str, float]]:
    out: dict[tuple[int, tuple[int, ...]], dict[str, float]] = {}
    todo: list[tuple[Fold, tuple[int, ...], dict[str, Any]]] = []
    index: list[int] = []
    for fi, features in dict.fromkeys(wanted):
        hit = cache.get(KnnCache.key(folds[fi], features, knn))
        if hit is not None:
            out[(fi, features)] = hit
        else:
            todo.append((folds[fi], features, knn))
            index.append(fi)
    prog.stage2(len(todo))

    def tick(task) -> None:
        prog.tick(f"ML-kNN on split {task[0].split + 1}/{len(folds)} ({len(task[1])} features)")

    results = _run_tasks(_classify, todo, n_jobs, tick)
    for fi, (fold, features, _), values in zip(index, todo, results, strict=True):
        cache.put(KnnCache.key(fold, features, knn), values)
        out[(fi, features)] = values
    return out


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
                rows.append({"protocol": folds[fi].protocol, "split": folds[fi].split,
                             "feature_set": name, "n_features": len(features), "metric": metric,
                             "value": float(value), "seconds": secs})
    return pd.DataFrame(rows, columns=COLUMNS)


def _checked_sets(folds: list[Fold], feature_sets: Sequence[Mapping[str, Sequence[int]]]
                  ) -> list[dict[str, tuple[int, ...]]]:
    if len(feature_sets) != len(folds):
        raise ParameterError(
            f"give one dict of feature sets per fold: {len(feature_sets)} for {len(folds)} folds"
        )
    per_fold = []
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
    return per_fold


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
    """ML-kNN on named feature subsets that may differ from fold to fold.

    ``feature_sets[i]`` is ``{name: feature indices}`` for fold ``i``; ``seconds[i]`` (optional)
    ``{name: seconds}``, copied into the ``seconds`` column (default 0). Returns a frame with
    columns :data:`COLUMNS`.
    """
    folds = _check_common(folds, n_jobs)
    knn = _knn_settings(k, s, distance, neighbours)
    per_fold = _checked_sets(folds, feature_sets)
    cache = cache if cache is not None else KnnCache()
    wanted = [(fi, f) for fi, named in enumerate(per_fold) for f in named.values()]
    values = _classify_all(folds, wanted, knn, cache, n_jobs, _Progress(progress, 0, 0))
    return _frame(folds, per_fold, values, seconds)


def evaluate_feature_sets(folds: Sequence[Fold], feature_sets: Mapping[str, Sequence[int]],
                          **kwargs: Any) -> pd.DataFrame:
    """ML-kNN on fixed feature subsets, the same on every fold (``seconds`` = 0); keyword
    arguments as :func:`evaluate_per_fold`."""
    folds = list(folds)
    return evaluate_per_fold(folds, [feature_sets] * len(folds), **kwargs)


def evaluate_selections(
    folds: Sequence[Fold],
    selections: Mapping[tuple[str, int], Selection],
    *,
    n_features: int | float | str | None = "match",
    reference: str = "camcf",
    k: int = 10,
    s: float = 1.0,
    distance: str = "hamming",
    neighbours: str = "strict",
    cache: KnnCache | None = None,
    n_jobs: int = 1,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """ML-kNN on the selections of :func:`select_on_folds` (rankings cut as
    :func:`feature_sets` says); ``seconds`` is each method's fit time on that split."""
    folds = _check_common(folds, n_jobs)
    sets = feature_sets(selections, len(folds), folds[0].n_features, n_features=n_features,
                        reference=reference)
    seconds = [{name: selections[(name, fi)].seconds for name in named}
               for fi, named in enumerate(sets)]
    return evaluate_per_fold(folds, sets, seconds, k=k, s=s, distance=distance,
                             neighbours=neighbours, cache=cache, n_jobs=n_jobs,
                             progress=progress)


# ---------------------------------------------------------------------------- comparison
@dataclass
class Comparison:
    """The outcome of :func:`compare`.

    ``frame``: tidy, :data:`COLUMNS` (``feature_set`` = method name). ``summary``:
    :func:`summarise` of it. ``sets``: per fold ``{method: feature indices}``. ``failures``:
    ``{method: [(split, message)]}`` for splits where a method raised a CamcfError.
    ``kinds``: ``{method: "subset" | "ranking"}``.
    """

    frame: pd.DataFrame
    summary: pd.DataFrame
    sets: list[dict[str, tuple[int, ...]]]
    kinds: dict[str, str]
    failures: dict[str, list[tuple[int, str]]]
    settings: dict[str, Any]

    def split_ranks(self, metric: str) -> pd.DataFrame:
        """Per split, the methods ranked on ``metric`` (1 = best, ties averaged; a method
        without a value on a split — it selected nothing or failed — ranks last there)."""
        from ..stats import rank_scores

        wide = self.frame[self.frame["metric"] == metric].pivot(
            index="split", columns="feature_set", values="value")
        wide = wide[list(self.kinds)]
        lower = not METRICS[metric]["higher_is_better"]
        worst = np.inf if lower else -np.inf
        filled = wide.to_numpy(dtype=float)
        filled = np.where(np.isnan(filled), np.nan_to_num(worst, posinf=1e300, neginf=-1e300),
                          filled)
        ranks = rank_scores(filled, lower_is_better=lower)
        return pd.DataFrame(ranks, index=wide.index, columns=wide.columns)

    def friedman_over_splits(self, metric: str, alpha: float = 0.05):
        """The Friedman test with the splits as blocks (one data set). Indicative only: the
        splits share rows (they are not independent data sets, as the test assumes), so the
        paper's analysis over data sets (:func:`friedman_over_data_sets`) is the sound one."""
        from ..stats import friedman

        ranks = self.split_ranks(metric)
        return friedman(ranks.to_numpy(), lower_is_better=True, alpha=alpha)


def compare(
    folds: Sequence[Fold],
    methods: Mapping[str, Any] | Sequence[str],
    *,
    n_features: int | float | str | None = "match",
    reference: str = "camcf",
    k: int = 10,
    s: float = 1.0,
    distance: str = "hamming",
    neighbours: str = "strict",
    cache: KnnCache | None = None,
    n_jobs: int = 1,
    progress: Progress | None = None,
) -> Comparison:
    """Every method on the same folds: select on each training part, classify each test part.

    Parameters
    ----------
    folds : list of Fold
    methods : dict of name to selector, or registry names (:mod:`camcf.methods`)
    n_features, reference
        How ranking methods are cut (:func:`feature_sets`): by default to the size of
        ``reference``'s (Ca-MCF's) selection on the same split.
    k, s, distance, neighbours
        ML-kNN settings.
    cache, n_jobs, progress
        As for :func:`select_on_folds` and :func:`evaluate_per_fold`.
    """
    folds = _check_common(folds, n_jobs)
    knn = _knn_settings(k, s, distance, neighbours)
    methods = _as_methods(methods)
    prog = _Progress(progress, len(folds) * len(methods), 1)
    selections = _select_all(folds, methods, False, n_jobs, prog)
    sets = feature_sets(selections, len(folds), folds[0].n_features, n_features=n_features,
                        reference=reference)
    seconds = [{name: selections[(name, fi)].seconds for name in named}
               for fi, named in enumerate(sets)]
    cache = cache if cache is not None else KnnCache()
    wanted = [(fi, f) for fi, named in enumerate(sets) for f in named.values()]
    values = _classify_all(folds, wanted, knn, cache, n_jobs, prog)
    frame = _frame(folds, sets, values, seconds)
    failures: dict[str, list[tuple[int, str]]] = {}
    for (name, fi), sel in selections.items():
        if sel.error is not None:
            failures.setdefault(name, []).append((folds[fi].split, sel.error))
    kinds = {name: selections[(name, 0)].kind for name in methods}
    settings = {"n_features": n_features, "reference": reference, **knn,
                "protocol": folds[0].protocol, "n_splits": len(folds)}
    return Comparison(frame=frame, summary=summarise(frame), sets=sets, kinds=kinds,
                      failures=failures, settings=settings)


# ---------------------------------------------------------------------------- summaries
def mean_sd(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per group of ``keys`` (in order of appearance): mean, sample SD and count of ``value``
    (NaN skipped), ``n_splits`` (rows in the group), ``n_empty`` (rows with
    ``n_features = 0``) and the means of ``n_features`` and ``seconds``."""
    f = frame.assign(_empty=(frame["n_features"] == 0).astype(int))
    return (
        f.groupby(keys, sort=False)
        .agg(mean=("value", "mean"), sd=("value", "std"), n=("value", "count"),
             n_splits=("value", "size"), n_empty=("_empty", "sum"),
             n_features=("n_features", "mean"), seconds=("seconds", "mean"))
        .reset_index()
    )


def summarise(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean and sample SD over splits per (feature set, metric).

    Returns
    -------
    DataFrame
        Columns ``feature_set, metric, mean, sd, n, n_splits, n_empty, n_features, seconds``:
        ``sd`` is the sample SD (ddof = 1; NaN with one value); ``n`` the splits with a value,
        ``n_splits`` all splits, ``n_empty`` the splits where the set was empty (no value: the
        mean is over ``n`` of ``n_splits`` splits); ``n_features`` and ``seconds`` means over
        all splits. Feature sets keep their order of appearance, metrics that of
        :data:`METRICS`.
    """
    missing = set(COLUMNS) - set(frame.columns)
    if missing:
        raise InvalidDataError(f"not an evaluation frame: missing columns {sorted(missing)}")
    out = mean_sd(frame, ["feature_set", "metric"])
    set_order = {name: i for i, name in enumerate(dict.fromkeys(frame["feature_set"]))}
    metric_order = {name: i for i, name in enumerate(METRICS)}
    out = out.sort_values(
        ["feature_set", "metric"],
        key=lambda col: col.map(set_order if col.name == "feature_set" else metric_order),
        kind="stable",
    )
    return out.reset_index(drop=True)


# ---------------------------------------------------------------------------- Ca-MCF studies
def _camcf(params: Mapping[str, Any] | None):
    from ..estimator import CaMCF

    est = CaMCF()
    params = dict(params or {})
    known = set(est.get_params())
    unknown = sorted(set(params) - known)
    if unknown:
        raise ParameterError(f"unknown Ca-MCF parameter(s) {unknown}; known: {sorted(known)}")
    est.set_params(**params)
    est._checked_params()
    return est


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

    Ca-MCF (:class:`camcf.CaMCF` with ``params``) is fitted once per fold on the training
    rows; the union over categories of the features present after each phase
    (:meth:`camcf.Result.selected_after`) and the final selection are classified on the test
    rows (the paper's ablation figure; Phase 1 selects no feature, so "all features" stands in
    for the start). ``selections``, if given, is filled with one dict per fold
    ``{feature set: indices}``. ``seconds`` is Ca-MCF's fit time (0 for ``"all"``).
    """
    folds = _check_common(folds, n_jobs)
    est = _camcf(params)
    unknown = [f for f in feature_sets if f not in ABLATION_SETS]
    if unknown or not feature_sets:
        raise ParameterError(
            f"feature_sets must be among {list(ABLATION_SETS)}; got {list(feature_sets)}"
        )
    knn = _knn_settings(k, s, distance, neighbours)
    cache = cache if cache is not None else KnnCache()
    prog = _Progress(progress, len(folds), len(feature_sets))
    selected = _select_all(folds, {"camcf": est}, True, n_jobs, prog)
    all_features = tuple(range(folds[0].n_features))
    per_fold: list[dict[str, tuple[int, ...]]] = []
    seconds: list[dict[str, float]] = []
    for fi in range(len(folds)):
        sel = selected[("camcf", fi)]
        if sel.error is not None:
            raise CamcfError(f"Ca-MCF failed on split {fi + 1}: {sel.error}")
        sets = {"camcf": sel.support, **sel.extra, "all": all_features}
        per_fold.append({name: sets[name] for name in feature_sets})
        seconds.append({name: 0.0 if name == "all" else sel.seconds for name in feature_sets})
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
    """Every combination of a Ca-MCF parameter grid on every fold (the sensitivity figure).

    For each combination (``itertools.product`` over ``grid`` in key order) the parameters are
    ``{**base_params, **combination}``; Ca-MCF selects on each fold's training rows and
    ``feature_set`` (``"camcf"`` or ``"phase2"``–``"phase4"``) is classified on its test rows.
    Identical parameter sets are fitted once per fold; identical feature subsets on a fold are
    classified once.

    Returns
    -------
    DataFrame
        Columns: one per grid parameter, then ``split, metric, value, n_features, seconds``.
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
    ests = {f"g{i}": _camcf({**(base_params or {}), **c}) for i, c in enumerate(combos)}
    knn = _knn_settings(k, s, distance, neighbours)
    cache = cache if cache is not None else KnnCache()
    prog = _Progress(progress, len(ests) * len(folds), 1)
    selected = _select_all(folds, ests, feature_set != "camcf", n_jobs, prog)

    def features_of(sel: Selection) -> tuple[int, ...]:
        return sel.support if feature_set == "camcf" else sel.extra.get(feature_set, ())

    wanted = [(fi, features_of(selected[(g, fi)])) for g in ests for fi in range(len(folds))]
    values = _classify_all(folds, wanted, knn, cache, n_jobs, prog)
    rows = []
    for g, combo in zip(ests, combos, strict=True):
        for fi, fold in enumerate(folds):
            sel = selected[(g, fi)]
            features = features_of(sel)
            got = values[(fi, features)]
            for metric in metrics:
                rows.append({**combo, "split": fold.split, "metric": metric,
                             "value": float(got[metric]), "n_features": len(features),
                             "seconds": sel.seconds})
    return pd.DataFrame(rows, columns=[*keys, *_RESULT_COLUMNS])


def _grid_keys(frame: pd.DataFrame) -> list[str]:
    keys = [c for c in frame.columns if c not in _RESULT_COLUMNS]
    if not keys or any(c not in frame.columns for c in _RESULT_COLUMNS):
        raise InvalidDataError("not a sensitivity frame (see camcf.evaluation.sensitivity)")
    return keys


def sensitivity_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean and sample SD over folds per (grid point, metric): grid columns, then
    ``metric, mean, sd, n, n_splits, n_empty, n_features, seconds`` (grid order kept)."""
    keys = _grid_keys(frame)
    return mean_sd(frame, [*keys, "metric"])


def sensitivity_matrix(
    frame: pd.DataFrame, metric: str, rows: str, columns: str, *, value: str = "mean"
) -> pd.DataFrame:
    """One metric's fold mean (or ``"n_features"``) as a ``rows`` × ``columns`` matrix of a
    :func:`sensitivity` frame with exactly those two grid parameters."""
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


# ---------------------------------------------------------------------------- whole data sets
def _dense(X) -> np.ndarray:
    """X as a dense array. The folds hold each split's discretised rows densely (every method
    and ML-kNN read them so), so a sparse X is made dense here, after a memory check
    (:class:`camcf.ResourceLimitError` names the size when it does not fit)."""
    import scipy.sparse as sp

    if sp.issparse(X):
        from ..limits import check_memory

        n, m = X.shape
        check_memory(n * m * 8, f"the evaluation's dense copy of the sparse X ({n} × {m}); "
                                f"camcf.run and `camcf select` keep it sparse")
        return X.toarray()
    return np.asarray(X)


def folds_for(
    X,
    Y,
    *,
    protocol: str = "repeated",
    n_repeats: int = 5,
    test_size: float = 0.3,
    n_folds: int = 5,
    seed: int = 0,
    X_test=None,
    Y_test=None,
    discretize: str | None = "auto",
    bins: int = 3,
    strategy: str = "uniform",
) -> list[Fold]:
    """:func:`make_splits` + :func:`make_folds` in one call: the protocol's folds of one data
    set (or of a given train/test pair: ``X_test``/``Y_test``, one ``holdout`` fold), each
    discretised on its training rows (``discretize=None``: X holds codes, used as they are)."""
    if X_test is not None or Y_test is not None:
        if protocol not in ("holdout", None):
            raise ParameterError(f"protocol {protocol!r} resamples one data set; a given "
                                 "train/test pair is the 'holdout' protocol")
        return make_folds(X, Y, X_test=X_test, Y_test=Y_test, discretize=discretize,
                          bins=bins, strategy=strategy)
    n = int(X.shape[0] if hasattr(X, "shape") else len(X))
    splits = make_splits(n, protocol, n_repeats=n_repeats, test_size=test_size,
                         n_folds=n_folds, seed=seed)
    return make_folds(X, Y, splits, protocol=protocol, discretize=discretize, bins=bins,
                      strategy=strategy)


def mean_table(comparisons: Mapping[str, Comparison], metric: str) -> pd.DataFrame:
    """Data sets × methods: each method's mean ``metric`` over the splits of each data set
    (NaN where it had no value on any split)."""
    rows = {}
    for name, cmp in comparisons.items():
        s = cmp.summary[cmp.summary["metric"] == metric].set_index("feature_set")["mean"]
        rows[name] = s
    return pd.DataFrame(rows).T


def friedman_over_data_sets(
    comparisons: Mapping[str, Comparison],
    *,
    alpha: float = 0.05,
    test: str = "bonferroni-dunn",
) -> pd.DataFrame:
    """Friedman / Iman–Davenport and the CD per metric over data sets (the paper's analysis).

    The score of a method on a data set is its mean over that data set's splits. A method
    without a value on a data set (it selected nothing or failed on every split) is ranked last
    there; ``filled`` counts such cells. Needs the same methods on every data set and ≥ 2 data
    sets.

    Returns
    -------
    DataFrame
        One row per metric: ``metric, chi2, iman_davenport, critical_value, p_value,
        significant, cd, filled`` and one ``rank:<method>`` column per method.
    """
    from .. import stats

    if len(comparisons) < 2:
        raise ParameterError("the Friedman test over data sets needs at least 2 data sets; "
                             "on one data set compare the per-split ranks instead")
    method_sets = {tuple(c.kinds) for c in comparisons.values()}
    if len(method_sets) != 1:
        raise ParameterError("every data set must be compared with the same methods")
    names = list(next(iter(method_sets)))
    rows = []
    for metric, info in METRICS.items():
        table = mean_table(comparisons, metric)[names].to_numpy(dtype=float)
        lower = not info["higher_is_better"]
        filled = int(np.isnan(table).sum())
        table = np.where(np.isnan(table), np.inf if lower else -np.inf, table)
        table = np.nan_to_num(table, posinf=1e300, neginf=-1e300)
        fr = stats.friedman(table, lower_is_better=lower, alpha=alpha)
        cd = stats.critical_difference(len(names), len(comparisons), alpha, test)
        rows.append({"metric": metric, "chi2": fr.chi2, "iman_davenport": fr.iman_davenport,
                     "critical_value": fr.critical_value, "p_value": fr.p_value,
                     "significant": fr.significant, "cd": cd, "filled": filled,
                     **{f"rank:{n}": r for n, r in zip(names, fr.average_ranks, strict=True)}})
    return pd.DataFrame(rows)


def compare_data_sets(
    data: Mapping[str, tuple],
    methods: Mapping[str, Any] | Sequence[str],
    *,
    protocol: str = "repeated",
    n_repeats: int = 5,
    test_size: float = 0.3,
    n_folds: int = 5,
    seed: int = 0,
    discretize: str | None = "auto",
    bins: int = 3,
    strategy: str = "uniform",
    n_features: int | float | str | None = "match",
    reference: str = "camcf",
    k: int = 10,
    neighbours: str = "strict",
    n_jobs: int = 1,
    progress: Progress | None = None,
) -> dict[str, Comparison]:
    """:func:`compare` on each data set: ``data`` is ``{name: (X, Y)}`` or ``{name: (X, Y,
    X_test, Y_test)}`` (a fixed split). Folds as :func:`folds_for`. ``progress`` messages are
    prefixed with the data set's name; ``done/total`` counts data sets' work in turn."""
    out: dict[str, Comparison] = {}
    names = list(data)
    for i, name in enumerate(names):
        X, Y, *rest = data[name]
        X_test, Y_test = (rest + [None, None])[:2]
        folds = folds_for(X, Y, protocol=protocol, n_repeats=n_repeats, test_size=test_size,
                          n_folds=n_folds, seed=seed, X_test=X_test, Y_test=Y_test,
                          discretize=discretize, bins=bins, strategy=strategy)

        def prog(done: int, total: int, msg: str, _i=i, _name=name) -> None:
            if progress is not None:
                progress(_i * total + done, len(names) * total, f"{_name}: {msg}")

        out[name] = compare(folds, methods, n_features=n_features, reference=reference, k=k,
                            neighbours=neighbours, n_jobs=n_jobs, progress=prog)
    return out

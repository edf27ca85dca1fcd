"""Evaluation protocols: select features on the training rows, classify with ML-kNN, score.

Every protocol takes a *selector*, a callable ``select(X_train, Y_train) -> {name: indices}``
that returns one or more named feature sets (for example ``{"all": arange(m), "camcf": ...}``).
The selector is only ever given the training rows of a split; the test rows are used for
classification and scoring alone. :func:`camcf_selector` builds the selector that runs Ca-MCF.

``X`` is expected to hold already-discretised codes. Discretising is the caller's job; the
paper's protocol discretises the whole set once (the bin edges then see the test rows, but the
selection does not).

Labels: ``Y`` holds label codes as :class:`camcf.Dataset` does (0/1 for a binary label, integer
codes for a multi-class label). The selector receives those codes unchanged. ML-kNN needs binary
labels, so for classification and scoring every label is passed through :func:`binarize_labels`:
a 0/1 (or −1/+1) label stays one column, and a multi-class label becomes one binary column per
category (one-hot). The binarisation is fixed on all rows (training and test) of the data given,
so every split scores the same label columns.

Frames returned by :func:`holdout`, :func:`repeated_holdout` and :func:`kfold` are tidy, one row
per (split, feature set, metric), with the columns of :data:`COLUMNS`:

``protocol``
    ``"holdout"``, ``"repeated_holdout"`` or ``"kfold"``.
``split``
    Split number (0-based).
``feature_set``
    Name given by the selector.
``n_features``
    Size of that feature set on that split.
``metric``, ``value``
    A key of :data:`camcf.evaluation.METRICS` and its value. An empty feature set cannot be
    classified: its rows have ``n_features = 0`` and ``value = NaN``.
``seconds``
    Wall-clock time of the selector call of that split (shared by every feature set it
    returned; ML-kNN time is not included).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InvalidDataError, ParameterError
from .metrics import METRICS, evaluate_all
from .mlknn import MLkNN

__all__ = [
    "COLUMNS",
    "CamcfSelector",
    "Progress",
    "Selector",
    "binarize_labels",
    "camcf_selector",
    "holdout",
    "kfold",
    "kfold_splits",
    "parameter_grid",
    "repeated_holdout",
    "repeated_holdout_splits",
    "summarise",
]

#: ``select(X_train, Y_train) -> {feature set name: feature indices}``.
Selector = Callable[[np.ndarray, np.ndarray], Mapping[str, Any]]
#: ``progress(done, total, message)``.
Progress = Callable[[int, int, str], None]

#: Columns of every protocol frame.
COLUMNS = ["protocol", "split", "feature_set", "n_features", "metric", "value", "seconds"]


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


# ---------------------------------------------------------------------------- selectors
class CamcfSelector:
    """Selector that runs :func:`camcf.run` with fixed parameters (picklable, for processes).

    Calling it returns ``{"all", "camcf", "phase2", "phase3", "phase4"}``: every feature, the
    final selection, and the union of the per-category feature sets after Phases 2, 3 and 4.

    Parameters
    ----------
    **params
        Keyword arguments of :func:`camcf.run` (``delta1``, ``delta2``, ``k1``, ``k2``, ...).
    """

    def __init__(self, **params: Any) -> None:
        self.params = dict(params)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"CamcfSelector({inner})"

    def __call__(self, X: np.ndarray, Y: np.ndarray) -> dict[str, np.ndarray]:
        import camcf  # lazy: the algorithm module is not needed to import the evaluation

        run = getattr(camcf, "run", None)
        if run is None:
            from camcf.algorithm import run
        result = run(X, Y, **self.params)
        return {
            "all": np.arange(np.asarray(X).shape[1]),
            "camcf": np.asarray(result.selected_indices, dtype=np.int64),
            "phase2": np.asarray(result.selected_after("phase2"), dtype=np.int64),
            "phase3": np.asarray(result.selected_after("phase3"), dtype=np.int64),
            "phase4": np.asarray(result.selected_after("phase4"), dtype=np.int64),
        }


def camcf_selector(**params: Any) -> CamcfSelector:
    """Selector running Ca-MCF: ``camcf_selector(delta1=0.05, delta2=0.1, k1=0.7, k2=1.0)``.

    Parameters
    ----------
    **params
        Keyword arguments passed to :func:`camcf.run` on every call.

    Returns
    -------
    CamcfSelector
        Callable ``(X_train, Y_train) -> {"all", "camcf", "phase2", "phase3", "phase4"}``.
    """
    return CamcfSelector(**params)


# ---------------------------------------------------------------------------- helpers
def _as_arrays(X: Any, Y: Any) -> tuple[np.ndarray, np.ndarray]:
    X = np.asarray(X.to_numpy() if isinstance(X, pd.DataFrame) else X)
    Y = np.asarray(Y.to_numpy() if isinstance(Y, pd.DataFrame) else Y)
    if Y.ndim == 1:
        Y = Y[:, None]
    if X.ndim != 2 or Y.ndim != 2:
        raise InvalidDataError(f"X and Y must be 2-D; got shapes {X.shape} and {Y.shape}")
    if X.shape[0] != Y.shape[0]:
        raise InvalidDataError(f"X has {X.shape[0]} rows but Y has {Y.shape[0]}")
    return X, Y


def _feature_sets(sets: Mapping[str, Any], m: int) -> dict[str, np.ndarray]:
    if not isinstance(sets, Mapping) or not sets:
        raise InvalidDataError(
            "the selector must return a non-empty dict {feature set name: feature indices}"
        )
    out: dict[str, np.ndarray] = {}
    for name, idx in sets.items():
        idx = np.unique(np.asarray(idx, dtype=np.int64).ravel())
        if idx.size and (idx[0] < 0 or idx[-1] >= m):
            raise InvalidDataError(
                f"feature set {name!r} holds indices outside 0..{m - 1}: {idx.tolist()}"
            )
        out[str(name)] = idx
    return out


def _classify(
    X_tr: np.ndarray,
    Yb_tr: np.ndarray,
    X_te: np.ndarray,
    Yb_te: np.ndarray,
    features: np.ndarray,
    knn: Mapping[str, Any],
) -> dict[str, float]:
    if features.size == 0:
        return {name: math.nan for name in METRICS}
    model = MLkNN(**knn).fit(X_tr[:, features], Yb_tr)
    scores = model.predict_proba(X_te[:, features])
    return evaluate_all(Yb_te, (scores > 0.5).astype(np.int64), scores)


def _run_split(
    protocol: str,
    split: int,
    X: np.ndarray,
    Y: np.ndarray,
    Ybin: np.ndarray,
    train: np.ndarray,
    test: np.ndarray,
    select: Selector,
    knn: Mapping[str, Any],
) -> list[dict[str, Any]]:
    """Select on the training rows, classify the test rows with every feature set."""
    X_tr, X_te = X[train], X[test]
    t0 = time.perf_counter()
    sets = _feature_sets(select(X_tr, Y[train]), X.shape[1])
    seconds = time.perf_counter() - t0
    rows: list[dict[str, Any]] = []
    for name, features in sets.items():
        values = _classify(X_tr, Ybin[train], X_te, Ybin[test], features, knn)
        for metric, value in values.items():
            rows.append(
                {
                    "protocol": protocol,
                    "split": split,
                    "feature_set": name,
                    "n_features": int(features.size),
                    "metric": metric,
                    "value": float(value),
                    "seconds": seconds,
                }
            )
    return rows


def _run_split_packed(args: tuple) -> list[dict[str, Any]]:
    return _run_split(*args)


def _knn_params(k: int, s: float, distance: str, neighbours: str) -> dict[str, Any]:
    MLkNN(k=k, s=s, distance=distance, neighbours=neighbours)  # validates early
    return {"k": k, "s": s, "distance": distance, "neighbours": neighbours}


def _run_splits(
    protocol: str,
    X: np.ndarray,
    Y: np.ndarray,
    splits: list[tuple[np.ndarray, np.ndarray]],
    select: Selector,
    knn: Mapping[str, Any],
    progress: Progress | None,
    n_jobs: int,
) -> pd.DataFrame:
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
        raise ParameterError(f"n_jobs must be an integer >= 1; got n_jobs={n_jobs!r}")
    if n_jobs > 1:
        import pickle

        try:
            pickle.dumps(select)
        except Exception as exc:
            raise ParameterError(
                f"n_jobs={n_jobs} runs splits in other processes, which needs a picklable "
                f"selector (a module-level function or class instance, not a lambda or closure); "
                f"got {select!r} ({exc}). Use n_jobs=1 or camcf_selector(...)"
            ) from exc
    Ybin, _ = binarize_labels(Y)
    total = len(splits)
    jobs = [
        (protocol, i, X, Y, Ybin, train, test, select, knn)
        for i, (train, test) in enumerate(splits)
    ]
    results: list[list[dict[str, Any]] | None] = [None] * total
    if progress is not None:
        progress(0, total, f"{protocol}: {total} split(s) to run")
    if n_jobs == 1:
        for i, job in enumerate(jobs):
            if progress is not None:
                progress(i, total, f"{protocol}: split {i + 1}/{total}: selecting and classifying")
            results[i] = _run_split_packed(job)
            if progress is not None:
                progress(i + 1, total, f"{protocol}: split {i + 1}/{total} done")
    else:
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(max_workers=n_jobs) as pool:
            futures = {pool.submit(_run_split_packed, job): i for i, job in enumerate(jobs)}
            done = 0
            for future in as_completed(futures):
                i = futures[future]
                results[i] = future.result()
                done += 1
                if progress is not None:
                    progress(done, total, f"{protocol}: split {i + 1}/{total} done")
    rows = [row for part in results if part is not None for row in part]
    return pd.DataFrame(rows, columns=COLUMNS)


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


# ---------------------------------------------------------------------------- protocols
def holdout(
    X: np.ndarray,
    Y: np.ndarray,
    X_test: np.ndarray,
    Y_test: np.ndarray,
    select: Selector,
    *,
    k: int = 10,
    s: float = 1.0,
    distance: str = "hamming",
    neighbours: str = "strict",
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Evaluate on a given train/test pair (e.g. a data set's published split).

    Parameters
    ----------
    X, Y : array-like of shape (n_train, m) and (n_train, q)
        Training codes and label codes; the selector sees only these.
    X_test, Y_test : array-like of shape (n_test, m) and (n_test, q)
        Test codes and label codes.
    select : Selector
        ``select(X_train, Y_train) -> {name: feature indices}``.
    k, s, distance, neighbours
        ML-kNN settings (see :class:`MLkNN`).
    progress : callable, optional
        ``progress(done, total, message)``.

    Returns
    -------
    DataFrame
        Columns :data:`COLUMNS`; ``protocol = "holdout"``, ``split = 0``. ``seconds`` is the
        wall-clock time of the selector call (shared by every feature set it returned). A feature
        set with no features gets ``n_features = 0`` and NaN metric values.
    """
    X, Y = _as_arrays(X, Y)
    X_test, Y_test = _as_arrays(X_test, Y_test)
    if X.shape[1] != X_test.shape[1] or Y.shape[1] != Y_test.shape[1]:
        raise InvalidDataError(
            f"train and test must have the same columns; got X {X.shape} / X_test "
            f"{X_test.shape}, Y {Y.shape} / Y_test {Y_test.shape}"
        )
    knn = _knn_params(k, s, distance, neighbours)
    n = X.shape[0]
    X_all = np.concatenate([X, X_test])
    Y_all = np.concatenate([Y, Y_test])
    split = (np.arange(n), np.arange(n, n + X_test.shape[0]))
    return _run_splits("holdout", X_all, Y_all, [split], select, knn, progress, 1)


def repeated_holdout(
    X: np.ndarray,
    Y: np.ndarray,
    select: Selector,
    n_repeats: int = 5,
    test_size: float = 0.3,
    seed: int = 0,
    *,
    k: int = 10,
    s: float = 1.0,
    distance: str = "hamming",
    neighbours: str = "strict",
    progress: Progress | None = None,
    n_jobs: int = 1,
) -> pd.DataFrame:
    """Repeated random train/test splits.

    The splits are those of :func:`repeated_holdout_splits`: each repeat draws a random
    permutation (``numpy.random.default_rng(seed)``, one generator for all repeats) and puts
    ``ceil(test_size * n)`` rows in the test part.

    Parameters
    ----------
    X, Y : array-like of shape (n, m) and (n, q)
        Codes and label codes.
    select : Selector
        ``select(X_train, Y_train) -> {name: feature indices}``; must be picklable if
        ``n_jobs > 1``.
    n_repeats : int, default 5
    test_size : float, default 0.3
        Share of rows in the test part, in (0, 1).
    seed : int, default 0
    k, s, distance, neighbours
        ML-kNN settings (see :class:`MLkNN`).
    progress : callable, optional
        ``progress(done, total, message)``; ``total`` is the number of splits.
    n_jobs : int, default 1
        Splits run in a process pool when > 1.

    Returns
    -------
    DataFrame
        Columns :data:`COLUMNS`; ``protocol = "repeated_holdout"``, ``split = 0..n_repeats-1``.
    """
    X, Y = _as_arrays(X, Y)
    knn = _knn_params(k, s, distance, neighbours)
    splits = repeated_holdout_splits(X.shape[0], n_repeats, test_size, seed)
    return _run_splits("repeated_holdout", X, Y, splits, select, knn, progress, n_jobs)


def kfold(
    X: np.ndarray,
    Y: np.ndarray,
    select: Selector,
    n_splits: int = 5,
    seed: int = 0,
    *,
    k: int = 10,
    s: float = 1.0,
    distance: str = "hamming",
    neighbours: str = "strict",
    progress: Progress | None = None,
    n_jobs: int = 1,
) -> pd.DataFrame:
    """Shuffled k-fold cross-validation: every row is a test row exactly once.

    The splits are those of :func:`kfold_splits`.

    Parameters
    ----------
    X, Y : array-like of shape (n, m) and (n, q)
    select : Selector
        Must be picklable if ``n_jobs > 1``.
    n_splits : int, default 5
        At least 2 and at most ``n``.
    seed : int, default 0
    k, s, distance, neighbours
        ML-kNN settings (see :class:`MLkNN`).
    progress : callable, optional
        ``progress(done, total, message)``.
    n_jobs : int, default 1

    Returns
    -------
    DataFrame
        Columns :data:`COLUMNS`; ``protocol = "kfold"``, ``split`` = fold number.
    """
    X, Y = _as_arrays(X, Y)
    knn = _knn_params(k, s, distance, neighbours)
    splits = kfold_splits(X.shape[0], n_splits, seed)
    return _run_splits("kfold", X, Y, splits, select, knn, progress, n_jobs)


def mean_sd(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Mean, sample SD and count of ``value`` and the means of ``n_features`` and ``seconds``
    per group of ``keys`` (groups in order of appearance)."""
    return (
        frame.groupby(keys, sort=False)
        .agg(
            mean=("value", "mean"),
            sd=("value", "std"),
            n=("value", "count"),
            n_features=("n_features", "mean"),
            seconds=("seconds", "mean"),
        )
        .reset_index()
    )


def summarise(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard deviation over splits per (feature set, metric).

    Parameters
    ----------
    frame : DataFrame
        A protocol frame (columns :data:`COLUMNS`).

    Returns
    -------
    DataFrame
        Columns ``feature_set, metric, mean, sd, n, n_features, seconds``: ``sd`` is the sample
        standard deviation (ddof = 1; NaN with one split), ``n`` the number of splits with a
        value (NaN values — empty feature sets — are skipped), ``n_features`` and ``seconds``
        the means over splits. Feature sets keep their order of appearance, metrics the order
        of :data:`METRICS`.
    """
    missing = set(COLUMNS) - set(frame.columns)
    if missing:
        raise InvalidDataError(f"not a protocol frame: missing columns {sorted(missing)}")
    out = mean_sd(frame, ["feature_set", "metric"])
    set_order = {name: i for i, name in enumerate(dict.fromkeys(frame["feature_set"]))}
    metric_order = {name: i for i, name in enumerate(METRICS)}
    out = out.sort_values(
        ["feature_set", "metric"],
        key=lambda col: col.map(set_order if col.name == "feature_set" else metric_order),
        kind="stable",
    )
    return out.reset_index(drop=True)


# ---------------------------------------------------------------------------- sensitivity
def parameter_grid(
    X_tr: np.ndarray,
    Y_tr: np.ndarray,
    X_te: np.ndarray,
    Y_te: np.ndarray,
    grid: Mapping[str, Sequence[Any]],
    base_params: Mapping[str, Any] | None = None,
    metric: str | Sequence[str] = "hamming_loss",
    *,
    feature_set: str = "camcf",
    selector_factory: Callable[..., Selector] = camcf_selector,
    k: int = 10,
    s: float = 1.0,
    distance: str = "hamming",
    neighbours: str = "strict",
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Run the selector for every combination of the grid (the paper's sensitivity figure).

    For each combination (``itertools.product`` over ``grid`` in key order), the parameters are
    ``{**base_params, **combination}``; ``selector_factory(**params)`` is called on the training
    rows, the feature set ``feature_set`` is classified with ML-kNN and scored on the test rows.

    Parameters
    ----------
    X_tr, Y_tr, X_te, Y_te : array-like
        Training and test codes / label codes.
    grid : dict of str to list
        Values to try per parameter, e.g. ``{"delta1": [0.01, 0.05], "k1": [0.3, 0.7]}``.
    base_params : dict, optional
        Parameters fixed for every run (e.g. ``delta2``, ``k2``).
    metric : str or sequence of str, default "hamming_loss"
        Metric name(s) from :data:`METRICS`.
    feature_set : str, default "camcf"
        Which set of the selector's output to evaluate.
    selector_factory : callable, default :func:`camcf_selector`
        ``selector_factory(**params) -> select``.
    k, s, distance, neighbours
        ML-kNN settings.
    progress : callable, optional
        ``progress(done, total, message)``, once per combination.

    Returns
    -------
    DataFrame
        Columns: one per grid parameter, then ``metric, value, n_features, seconds`` (one row per
        combination and metric). ``seconds`` is the selector's wall-clock time; an empty
        selection gives ``n_features = 0`` and a NaN value.
    """
    metrics = [metric] if isinstance(metric, str) else list(metric)
    unknown = [m for m in metrics if m not in METRICS]
    if unknown or not metrics:
        raise ParameterError(f"metric must be among {list(METRICS)}; got metric={metric!r}")
    if not grid:
        raise ParameterError("grid must name at least one parameter with a list of values")
    for name, values in grid.items():
        if name in ("metric", "value", "n_features", "seconds"):
            raise ParameterError(f"grid parameter name {name!r} clashes with a result column")
        if len(values) == 0:
            raise ParameterError(f"grid[{name!r}] is empty; give at least one value")
    knn = _knn_params(k, s, distance, neighbours)
    X_tr, Y_tr = _as_arrays(X_tr, Y_tr)
    X_te, Y_te = _as_arrays(X_te, Y_te)
    Ybin, _ = binarize_labels(np.concatenate([Y_tr, Y_te]))
    Yb_tr, Yb_te = Ybin[: X_tr.shape[0]], Ybin[X_tr.shape[0] :]
    keys = list(grid)
    combos = list(itertools.product(*(grid[key] for key in keys)))
    total = len(combos)
    rows: list[dict[str, Any]] = []
    if progress is not None:
        progress(0, total, f"parameter grid: {total} combination(s)")
    for done, combo in enumerate(combos, start=1):
        setting = dict(zip(keys, combo, strict=True))
        params = {**(base_params or {}), **setting}
        t0 = time.perf_counter()
        sets = _feature_sets(selector_factory(**params)(X_tr, Y_tr), X_tr.shape[1])
        seconds = time.perf_counter() - t0
        if feature_set not in sets:
            raise InvalidDataError(
                f"the selector returned no feature set named {feature_set!r}; it returned "
                f"{list(sets)}"
            )
        features = sets[feature_set]
        values = _classify(X_tr, Yb_tr, X_te, Yb_te, features, knn)
        for m in metrics:
            rows.append(
                {
                    **setting,
                    "metric": m,
                    "value": values[m],
                    "n_features": int(features.size),
                    "seconds": seconds,
                }
            )
        if progress is not None:
            shown = ", ".join(f"{key}={val}" for key, val in setting.items())
            progress(done, total, f"parameter grid: {shown} ({features.size} features)")
    return pd.DataFrame(rows, columns=[*keys, "metric", "value", "n_features", "seconds"])

"""The app's studies as jobs: what each one runs in its worker, and what it will cost.

A study here is a module-level function (so a :class:`camcf.jobs.JobRunner` worker can run
it) that takes the data, the settings and ``progress`` and returns plain data. Its estimate
(:class:`camcf.estimates.Estimate`) is computed before it starts from measured per-run times — the
current Ca-MCF run's seconds, and ML-kNN timed on a sample of the data
(:func:`measure_classification`) — and from the study's size (splits × grid points × methods).

These functions are the only calls from the study pages into the evaluation framework and the
landscape (kept few and in one place):

* :func:`run_evaluation` — ``make_splitter``, ``make_folds``, ``ablation``, ``evaluate``
* :func:`run_sensitivity` — ``make_splitter``, ``make_folds``, ``sensitivity``
* :func:`run_compare` — ``compare_data_sets`` (and ``catalog.load_shared`` for shared sets)
* :func:`run_landscape` — ``camcf.landscape.landscape``
* :func:`run_tune` — ``camcf.tuning.tune`` on :func:`tune_splitter`'s training part

**Settings.** Every study takes one mapping ``settings`` named as the evaluation declares its
settings: the protocol's (:data:`camcf.evaluation.settings.EVAL_PARAMS`: ``protocol,
n_repeats, n_folds, test_size, seed``) and ML-kNN's (:data:`~camcf.evaluation.settings.
KNN_PARAMS`: ``k, s, distance, neighbours``); a missing one takes its declared default, an
unknown one or a bad value is a :class:`camcf.ParameterError`. The Compare page's also has
``n_features`` (how ranking methods are cut).

**Memory.** The estimates name what dominates the worker's peak memory:

* the folds: every split is discretised up front and each keeps its training and test codes
  (n × m int64) and three label matrices (training labels, their binary columns, the test's
  binary columns: about 2·n_train + n_test rows × q_bin int64);
* one ML-kNN classification: its label counts gather the k neighbours' label rows at once
  (n_train × k × q_bin int64: 0.9 GB at delicious's 11,274 training rows × 10 × 983), plus the
  one-hot training matrix and a block of distances;
* the worker's copy of the data and the Python process itself (numpy, pandas, scikit-learn).

At delicious's size (16,105 × 500, 983 labels; 5 repeats × 30 % test) the folds take about
1.4 GB and one classification about 1.2 GB: the 4.2 GB the server reached is these two plus the
server's own run and data.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .estimates import (
    CLASSIFY_COST,
    OVERHEAD,
    TUNE_POINT_COST,
    Estimate,
    Progress,
    Stage,
    format_seconds,
    selection_seconds,
)
from .evaluation.settings import KNN_DEFAULTS

__all__ = [
    "ClassifyTimes",
    "compare_costs",
    "compare_estimate",
    "compare_order",
    "evaluation_estimate",
    "landscape_estimate",
    "measure_classification",
    "method_seconds",
    "reproduction_estimate",
    "run_compare",
    "run_evaluation",
    "run_landscape",
    "run_selection",
    "run_sensitivity",
    "run_tune",
    "selection_seconds",
    "sensitivity_estimate",
    "tune_estimate",
    "tune_splitter",
    "tune_study_estimate",
]

#: the largest first sample ML-kNN is timed on (see measure_classification)
PROBE_ROWS = 2000
#: the memory of a fresh worker process with numpy, pandas, scipy and scikit-learn imported
#: (measured on Linux, CPython 3.11: about 0.25 GB resident)
WORKER_BASE = 250_000_000
#: methods that select without computing (all features, a seeded random subset)
_REFERENCES = ("all", "random")
#: ablation feature sets besides "all" (the current run's sizes stand in for each split's)
_PHASES = ("phase2", "phase3", "phase4")


# ------------------------------------------------------------------------------------------------
# Studies (run in a worker)
# ------------------------------------------------------------------------------------------------
class _Parts:
    """One progress over a study made of parts run one after another: each part reports its
    own ``done/total``; ``after`` units are planned after the current part."""

    def __init__(self, progress: Progress | None) -> None:
        self.progress = progress
        self.before = 0
        self._last = 0

    def part(self, after: int = 0, prefix: str = "") -> Progress:
        self.before += self._last
        self._last = 0

        def report(done: int, total: int, message: str) -> None:
            self._last = max(self._last, int(done))
            if self.progress is not None:
                self.progress(self.before + done, self.before + total + after,
                              prefix + message)

        return report


def _split_settings(settings: Mapping[str, Any]) -> tuple[dict, dict]:
    """``settings`` as the protocol's (validated :data:`EVAL_PARAMS`) and ML-kNN's (validated
    :data:`KNN_PARAMS`); ``n_features`` is the Compare study's own."""
    from .errors import ParameterError
    from .evaluation.settings import EVAL_PARAMS, KNN_PARAMS, check_eval, check_knn

    names = {p.name for p in (*EVAL_PARAMS, *KNN_PARAMS)} | {"n_features"}
    unknown = sorted(set(settings) - names)
    if unknown:
        raise ParameterError(f"unknown evaluation setting(s) {unknown}; known: {sorted(names)}",
                             name=unknown[0], value=settings[unknown[0]], allowed=sorted(names))
    protocol = check_eval(**{p.name: settings[p.name] for p in EVAL_PARAMS if p.name in settings})
    knn = check_knn({p.name: settings[p.name] for p in KNN_PARAMS if p.name in settings})
    return protocol, knn


def _splitter(settings: Mapping[str, Any]):
    from .evaluation import make_splitter

    return make_splitter(**_split_settings(settings)[0])


def _disc(disc: Mapping[str, Any]) -> dict:
    return {"discretize": disc["discretize"], "bins": int(disc["bins"]),
            "strategy": disc["strategy"]}


def _folds(X, Y, disc: Mapping[str, Any], settings: Mapping[str, Any]):
    from .evaluation import make_folds

    return make_folds(X, Y, _splitter(settings), **_disc(disc))


def _prepare(X, Y, disc, settings, parts: _Parts, after: int = 0):
    """The protocol's splits, each discretised on its training rows: the study's first unit."""
    report = parts.part(after)
    report(0, 0, "discretising each split on its training rows")
    folds = _folds(X, Y, disc, settings)
    report(1, 1, f"{len(folds)} split(s) discretised")
    return folds


def run_selection(X, Y, *, params: Mapping[str, Any], feature_names: Sequence[str] | None = None,
                  label_names: Sequence[str] | None = None,
                  category_names: Sequence[Mapping] | None = None,
                  progress: Progress | None = None) -> dict:
    """The explorer's main run: :func:`camcf.run` on feature codes ``X`` and labels ``Y`` with
    Ca-MCF parameters ``params``, its :class:`camcf.CamcfWarning` s caught. Its units are the
    target categories (``progress`` before each, as :func:`camcf.run` reports). Returns
    ``result`` (the :class:`camcf.Result`) and ``warnings`` (the warnings, in order, repeats
    left out)."""
    import warnings

    import camcf

    from .algorithm import CamcfWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CamcfWarning)
        res = camcf.run(
            X, Y, feature_names=None if feature_names is None else list(feature_names),
            label_names=None if label_names is None else list(label_names),
            category_names=category_names, progress=progress, **dict(params))
    seen: dict[str, Warning] = {}
    for w in caught:
        if issubclass(w.category, CamcfWarning):
            seen.setdefault(str(w.message), w.message)
    return {"result": res, "warnings": list(seen.values())}


def run_evaluation(X, Y, *, disc: Mapping[str, Any], params: Mapping[str, Any],
                   settings: Mapping[str, Any], current: Sequence[int] = (), cache=None,
                   resume: Mapping[str, Any] | None = None,
                   progress: Progress | None = None) -> dict:
    """The Evaluation page's study: the ablation (all features, the sets after Phases 2–4,
    Ca-MCF re-selected per split) and the current selection as is, on the protocol's splits,
    one split after another.

    ``settings``: the protocol's and ML-kNN's (see the module). ``cache``: a
    :class:`camcf.evaluation.KnnCache` to reuse (returned, filled, under ``"cache"``).
    Returns ``frame, summary, seconds, n_splits, n_test, cache``, and ``splits_done`` (the
    splits in ``frame``) and ``partial`` (False). After each split the same (without the
    cache; ``partial`` True until every split is done) goes to
    :func:`camcf.jobs.checkpoint`; given back as ``resume``, its splits are not done again.
    """
    import pandas as pd

    from .evaluation import KnnCache, ablation, evaluate, summarise
    from .jobs import PartProgress, checkpoint

    t0 = time.perf_counter()
    knn = _split_settings(settings)[1]
    current = tuple(int(i) for i in current)
    n_splits = _n_splits(settings)
    extra = evaluate.plan(1, sets={"current": current}).units if current else 0
    each = ablation.plan(1, dict(params)).units + extra
    total = 1 + n_splits * each
    done = list(resume["splits_done"]) if resume else []
    frames = [resume["frame"]] if resume else []

    def at(offset: int, prefix: str = "", units: int = 0) -> PartProgress:
        """(``units``: the split's last part's units: a stop at its last one is held until
        the split is kept)"""
        return PartProgress(progress, offset=offset, total=total, units=units or total + 1,
                            prefix=prefix)

    at(0)(0, total, "discretising each split on its training rows")
    folds = _folds(X, Y, disc, settings)
    at(0)(1, total, f"{len(folds)} split(s) discretised")
    cache = cache if cache is not None else KnnCache()

    def outcome(partial: bool) -> dict:
        frame = pd.concat(frames, ignore_index=True)
        return {"frame": frame, "summary": summarise(frame),
                "seconds": time.perf_counter() - t0 + (resume or {}).get("seconds", 0.0),
                "n_splits": len(folds), "n_test": int(np.mean([f.test.size for f in folds])),
                "splits_done": list(done), "partial": partial}

    for fold in folds:
        if fold.split in done:
            continue
        offset = 1 + len(done) * each
        where = f"split {fold.split + 1}/{len(folds)}: "
        last = at(offset, where, 0 if current else each)
        frames.append(ablation([fold], dict(params), knn=knn, cache=cache,
                               progress=last).frame)
        if current:
            last = at(offset + each - extra, "current selection: " + where, extra)
            frames.append(evaluate([fold], sets={"current": current}, knn=knn, cache=cache,
                                   progress=last).frame)
        done.append(fold.split)
        if len(done) < len(folds):
            checkpoint(progress, outcome(partial=True))
        last.release()  # a stop asked for during the split's last unit: after keeping it
    return {**outcome(partial=False), "cache": cache}


def run_sensitivity(X, Y, *, disc: Mapping[str, Any], params: Mapping[str, Any],
                    settings: Mapping[str, Any], grids: Mapping[str, Mapping[str, Sequence]],
                    cache=None, resume: Mapping[str, Any] | None = None,
                    progress: Progress | None = None) -> dict:
    """The sensitivity grids (e.g. δ1 × k1 and δ2 × k2) on the protocol's splits, the other
    parameters fixed at ``params``, one grid point after another. Returns ``{grid name: tidy
    frame, "seconds": …, "cache": …, "partial": False}``. After each grid point the grids'
    rows so far (``partial`` True, without the cache; a grid not started is absent) go to
    :func:`camcf.jobs.checkpoint`; given back as ``resume``, their points are not done again.
    """
    from .evaluation import KnnCache, sensitivity
    from .jobs import checkpoint

    t0 = time.perf_counter()
    knn = _split_settings(settings)[1]
    n_splits = _n_splits(settings)
    fixed = {name: {k: v for k, v in params.items() if k not in grid}
             for name, grid in grids.items()}
    plans = [sensitivity.plan(n_splits, {k: list(v) for k, v in grid.items()},
                              fixed[name]).units for name, grid in grids.items()]
    parts = _Parts(progress)
    folds = _prepare(X, Y, disc, settings, parts, after=sum(plans))
    cache = cache if cache is not None else KnnCache()
    out: dict[str, Any] = {}
    before = (resume or {}).get("seconds", 0.0)

    def keep(name: str, rows) -> None:
        checkpoint(progress, {**out, name: rows, "partial": True,
                              "seconds": time.perf_counter() - t0 + before})

    for i, (name, grid) in enumerate(grids.items()):
        out[name] = sensitivity(folds, {k: list(v) for k, v in grid.items()}, fixed[name],
                                knn=knn, cache=cache,
                                progress=parts.part(sum(plans[i + 1:]), f"grid {name}: "),
                                done=(resume or {}).get(name),
                                keep=lambda rows, _n=name: keep(_n, rows))
    out["seconds"] = time.perf_counter() - t0 + before
    out["cache"] = cache
    out["partial"] = False
    return out


def run_landscape(dataset, *, x: str, x_values: Sequence[float], y: str,
                  y_values: Sequence[float], params: Mapping[str, Any],
                  disc: Mapping[str, Any], metric: str | None = None, resume=None,
                  progress: Progress | None = None):
    """The Threshold landscape page's study: :func:`camcf.landscape.landscape`. Its units are
    the grid points; with a metric, the metric part (which reports nothing until it ends) is
    one more unit. After each grid point the landscape of the cells done so far goes to
    :func:`camcf.jobs.checkpoint`; given back as ``resume``, its cells are not run again."""
    from .jobs import checkpoint
    from .landscape import landscape

    report = progress
    if metric is not None and progress is not None:
        def report(done: int, total: int, message: str) -> None:
            progress(done, total + 1, message)

    return landscape(dataset, x, x_values, y, y_values, dict(params), disc=dict(disc),
                     metric=metric, progress=report, done=resume,
                     keep=lambda part: checkpoint(progress, part))


def tune_splitter(seed: int = 0):
    """The outer split of the Threshold landscape's "Tune": one seeded 70/30 hold-out split —
    the split the landscape's ML-kNN metric uses (:func:`camcf.landscape.landscape`). The
    tuner scores every grid point on :data:`camcf.tuning.INNER_FOLDS` inner folds of its 70 %
    training part; the 30 % held-out rows are not read."""
    from .evaluation import make_splitter

    return make_splitter("holdout", seed=seed)


def _tune_params(params: Mapping[str, Any], grid: Mapping[str, Sequence]) -> dict:
    """The current run's Ca-MCF parameters that the grid does not vary (fixed while tuning)."""
    from .algorithm_params import ALGORITHM_PARAMS

    names = {p.name for p in ALGORITHM_PARAMS}
    return {k: v for k, v in params.items() if k in names and k not in grid}


def run_tune(dataset, *, grid: Mapping[str, Sequence], params: Mapping[str, Any],
             disc: Mapping[str, Any], metric: str, resume=None,
             progress: Progress | None = None):
    """The Threshold landscape page's "Tune": :func:`camcf.tuning.tune` over ``grid`` (e.g.
    ``{"delta1": [...], "k1": [...]}``), the current run's other parameters fixed, scored by
    ``metric`` on the inner folds of :func:`tune_splitter`'s training part. Returns the
    :class:`camcf.tuning.TuneResult`; on data with a known truth (``dataset.truth``) its grid
    has a column ``truth_f1``: each point's F1 against the truth (Ca-MCF on all rows at that
    point, :func:`run_landscape` of the same grid). After each grid point the partial result
    goes to :func:`camcf.jobs.checkpoint`; given back as ``resume``, its points are not done
    again."""
    from .jobs import checkpoint
    from .tuning import tune

    grid = {k: list(v) for k, v in grid.items()}
    got = tune(dataset.X, dataset.Y, grid, metric=metric, params=_tune_params(params, grid),
               cv=tune_splitter(), **_disc(disc), progress=progress, done=resume,
               keep=lambda part: checkpoint(progress, part))
    if dataset.truth is not None and len(grid) == 2:
        # beside the tuner's score: each point's F1 against the truth, from the landscape of
        # the same grid (Ca-MCF on all rows at that point, scored by camcf.truth)
        (x, xs), (y, ys) = grid.items()
        L = run_landscape(dataset, x=x, x_values=xs, y=y, y_values=ys, params=params,
                          disc=disc)
        f1 = {(float(a), float(b)): float(L.truth_f1[i, j]) for i, b in enumerate(L.y_values)
              for j, a in enumerate(L.x_values)}
        got.grid["truth_f1"] = [f1[(float(r[x]), float(r[y]))] for _, r in got.grid.iterrows()]
    return got


def tune_study_estimate(X, Y, *, grid: Mapping[str, Sequence], run_seconds: float,
                        n_selected: int, times: ClassifyTimes,
                        cost: Callable[[Mapping[str, Any]], float] | None = None) -> Estimate:
    """What :func:`run_tune` will cost (:func:`tune_estimate` with its splitter)."""
    return tune_estimate(X, Y, {k: list(v) for k, v in grid.items()}, run_seconds=run_seconds,
                         n_selected=n_selected, times=times, cv=tune_splitter(),
                         k=KNN_DEFAULTS["k"], cost=cost)


def run_compare(data: Mapping[str, Any], *, methods: Sequence[str],
                ca_params: Mapping[str, Any], settings: Mapping[str, Any],
                disc: Mapping[str, Any], budgets: Mapping[str, float] | None = None,
                resume: Mapping[str, Any] | None = None,
                progress: Progress | None = None) -> dict:
    """The Compare page's study: every method on the same splits of each data set, one method
    after another (:func:`camcf.evaluation.compare_data_sets`).

    ``data``: ``{name: (X, Y)}``, or ``{name: None}`` for a data set of the shared folder (read
    here, in the worker). ``settings``: the protocol's and ML-kNN's (see the module) and
    ``n_features`` (default ``"match"``). ``budgets``: ``{method: seconds}`` for methods with a
    ``max_seconds`` parameter (a split past its budget is recorded as failed). Returns
    ``comparisons`` (``{name: Comparison}``), ``used`` (the estimators), ``seconds`` and
    ``partial`` (False). After each method on a data set, and each selection, ``comparisons``
    (each data set's finished methods), ``selections`` (every selection made, as a plain
    dict), ``used``, ``seconds`` and ``partial`` (True) go to :func:`camcf.jobs.checkpoint`;
    given back as ``resume``, its methods and selections are not done again.
    """
    from . import catalog
    from . import methods as registry
    from .evaluation import SelectionCache, compare_data_sets
    from .evaluation.reports import method_table
    from .jobs import checkpoint

    t0 = time.perf_counter()
    before = (resume or {}).get("seconds", 0.0)
    arrays = {}
    for name, value in data.items():
        if value is None:
            sds = catalog.load_shared(name)
            arrays[name] = (sds.X, sds.Y)
        else:
            arrays[name] = value
    budgeted = {name: {"max_seconds": float(secs)} for name, secs in (budgets or {}).items()
                if name in methods and any(p.name == "max_seconds"
                                           for p in registry.params(name))}
    used = method_table(list(methods), dict(ca_params), budgeted)
    knn = _split_settings(settings)[1]
    finished = dict((resume or {}).get("comparisons", {}))

    def keep(_cache=None) -> None:
        checkpoint(progress, {"comparisons": dict(finished), "selections": made.values(),
                              "used": used, "partial": True,
                              "seconds": time.perf_counter() - t0 + before})

    def kept(name: str, comparison) -> None:
        finished[name] = comparison
        keep()

    made = SelectionCache((resume or {}).get("selections"), on_put=keep)
    comparisons = compare_data_sets(
        arrays, used, _splitter(settings), **_disc(disc),
        n_features=settings.get("n_features", "match"), knn=knn, selections=made,
        progress=progress, done=finished, keep=kept)
    return {"comparisons": comparisons, "used": used, "partial": False,
            "seconds": time.perf_counter() - t0 + before}


# ------------------------------------------------------------------------------------------------
# Estimates (before a study starts)
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ClassifyTimes:
    """ML-kNN timed on samples of the data, extrapolated to other sizes.

    ``rows``: the two sample sizes (70 % training, 30 % test rows); ``seconds_all``: one fit +
    predict with all ``m`` features on each; ``seconds_few``: with ``few`` features (timed on
    the smaller sample, scaled to the larger one). ``discretize_per_row``: seconds per row to
    build and discretise a split (as the study's splits are built). :meth:`seconds` fits t(n) = a·n + b·n²·log₂n through the two all-feature points
    (the linear part: encoding, label counts; the other: every row's distances to every
    training row, and their sort) and scales by the share of the time the features take
    (interpolated between ``few`` and ``m`` features). Expect it within about a factor 2.
    """

    rows: tuple[int, int]
    seconds_all: tuple[float, float]
    m: int
    few: int
    seconds_few: float
    discretize_per_row: float = 0.0

    def _coefficients(self) -> tuple[float, float]:
        (n1, n2), (t1, t2) = self.rows, self.seconds_all
        q1, q2 = n1 * n1 * math.log2(max(n1, 2)), n2 * n2 * math.log2(max(n2, 2))
        det = n1 * q2 - n2 * q1
        b = max(0.0, (n1 * t2 - n2 * t1) / det) if det else 0.0
        a = max(0.0, (t1 - b * q1) / n1)
        if a == 0.0 and b == 0.0:
            b = t2 / q2
        return a, b

    def seconds(self, n_train: int, n_test: int, n_features: int) -> float:
        if n_features <= 0:
            return 0.0
        n = n_train + n_test
        a, b = self._coefficients()
        t = a * n + b * n * n * math.log2(max(n, 2))
        if self.m > self.few and self.seconds_all[1] > 0:
            low = self.seconds_few / self.seconds_all[1]
            share = (min(n_features, self.m) - self.few) / (self.m - self.few)
            t *= min(1.0, low + (1.0 - low) * max(0.0, share))
        return t


def measure_classification(X, Y, *, disc: Mapping[str, Any], k: int = KNN_DEFAULTS["k"],
                           neighbours: str = KNN_DEFAULTS["neighbours"], few: int = 20,
                           enough: float = 0.25, most: int = PROBE_ROWS,
                           seed: int = 0) -> ClassifyTimes:
    """Time a hold-out split of a seeded sample (built and discretised as a study builds its
    splits) and ML-kNN on it (fit on its 70 %, predict its 30 %): on samples of doubling size
    from 500 rows until the classification takes ``enough`` seconds or the sample has ``most``
    rows, then on twice that; with all features, and with ``few`` on the smaller sample. Takes
    about a second on an idle machine."""
    from .evaluation import MLkNN, make_folds, make_splitter

    n, m = X.shape
    r = np.random.default_rng(seed)
    order = r.permutation(n)
    few = max(1, min(few, m))
    few_cols = np.sort(r.choice(m, size=few, replace=False))
    prepare: dict[int, float] = {}

    def one(size: int, cols: np.ndarray | None = None) -> float:
        idx = np.sort(order[:size])
        t0 = time.perf_counter()
        fold = make_folds(X[idx], np.asarray(Y)[idx],
                          make_splitter("holdout", test_size=0.3, seed=seed), **_disc(disc))[0]
        prepare[size] = (time.perf_counter() - t0) / size
        X_tr, X_te = fold.X_train, fold.X_test
        if cols is not None:
            X_tr, X_te = X_tr[:, cols], X_te[:, cols]
        t0 = time.perf_counter()
        model = MLkNN(k=min(k, X_tr.shape[0] - 1), neighbours=neighbours).fit(X_tr,
                                                                             fold.Yb_train)
        model.predict_proba(X_te)
        return time.perf_counter() - t0

    n1 = min(n // 2, 500)
    t1 = one(n1)
    while t1 < enough and 2 * n1 <= min(most, n // 2):
        n1 *= 2
        t1 = one(n1)
    n2 = min(n, 2 * n1)
    t2 = one(n2)
    t_few = one(n1, few_cols) if few < m else t1
    return ClassifyTimes(rows=(n1, n2), seconds_all=(t1, t2), m=m, few=few,
                         seconds_few=t_few * t2 / t1 if t1 > 0 else t2,
                         discretize_per_row=prepare[n2])


def _n_splits(settings: Mapping[str, Any]) -> int:
    return int(_splitter(settings).get_n_splits())


def _split_sizes(n: int, settings: Mapping[str, Any]) -> tuple[int, int]:
    protocol = _split_settings(settings)[0]
    if protocol["protocol"] == "kfold":
        n_test = math.ceil(n / protocol["n_folds"])
    else:
        n_test = math.ceil(protocol["test_size"] * n)
    return n - n_test, n_test


def _grid_points(grid: Mapping[str, Sequence]) -> int:
    return math.prod(len(v) for v in grid.values())


def _memory_folds(n: int, m: int, q_bin: int, q: int, n_splits: int, n_train: int) -> int:
    n_test = n - n_train
    per = n * m * 8 + n_train * q * 8 + (n_train + n_test) * q_bin * 8
    return n_splits * per


def _memory_classification(n_train: int, n_test: int, q_bin: int, width: int, k: int) -> int:
    gather = max(n_train, n_test) * k * q_bin * 8  # the neighbours' label rows at once
    counts = max(n_train, n_test) * q_bin * 8 * 2
    onehot = n_train * width * 4
    block = 1024 * n_train * (4 + 2 + 8)  # one block of distances and its sort order
    return gather + counts + onehot + block


def _data_bytes(X, Y) -> int:
    """The data as the worker holds it (a sparse X is also made dense for the splits)."""
    if hasattr(X, "toarray"):
        x = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes + X.shape[0] * X.shape[1] * 8
    else:
        x = int(getattr(X, "nbytes", 0) or 0)
    return int(x) + int(np.asarray(Y).nbytes)


def _q_bin(Y) -> int:
    Y = np.asarray(Y)
    out = 0
    for j in range(Y.shape[1]):
        vals = np.unique(Y[:, j])
        out += 1 if (np.isin(vals, (0, 1)).all() or np.isin(vals, (-1, 1)).all()) else vals.size
    return out


def _discretising(n: int, n_splits: int, times: ClassifyTimes) -> Stage:
    return Stage("building and discretising the splits", 1,
                 times.discretize_per_row * n * n_splits)


def evaluation_estimate(X, Y, *, settings: Mapping[str, Any], run_seconds: float,
                        feature_sets: Mapping[str, Sequence[int]], times: ClassifyTimes,
                        current: int = 0) -> Estimate:
    """What :func:`run_evaluation` will cost.

    ``run_seconds``: the current Ca-MCF run's seconds on all n rows (a split's selection is
    assumed to take that × n_train / n). ``feature_sets``: the current run's features after
    Phases 2, 3, 4 and at the end (``phase2``, ``phase3``, ``phase4``, ``camcf``), standing in
    for each split's (identical sets, empty ones included, are one classification, as the
    study counts them). ``current``: the size of the current selection (0: not evaluated).
    """
    n, m = X.shape
    q = np.asarray(Y).shape[1]
    q_bin = _q_bin(Y)
    n_splits = _n_splits(settings)
    n_train, n_test = _split_sizes(n, settings)
    k = _split_settings(settings)[1]["k"]
    select = run_seconds * n_train / n
    sets = [tuple(range(m))] + [tuple(sorted(int(i) for i in feature_sets.get(p, ())))
                                for p in (*_PHASES, "camcf")]
    distinct = [len(s) for s in dict.fromkeys(sets)]  # identical sets: classified once
    per_split = sum(times.seconds(n_train, n_test, s) for s in distinct)
    stages = [_discretising(n, n_splits, times),
              Stage("Ca-MCF selections", n_splits, select),
              Stage("ML-kNN classifications", n_splits * len(distinct),
                    per_split / max(1, len(distinct)))]
    if current:
        stages.append(Stage("classifications of the current selection", n_splits,
                            times.seconds(n_train, n_test, current)))
    memory = {
        "the splits' codes and labels": _memory_folds(n, m, q_bin, q, n_splits, n_train),
        "one ML-kNN classification (all features)": _memory_classification(
            n_train, n_test, q_bin, 2 * m, k),
        "the worker's copy of the data": _data_bytes(X, Y),
        "the worker process": WORKER_BASE,
    }
    notes = (f"A split's Ca-MCF run is assumed to take the current run's {run_seconds:.1f} s × "
             f"{n_train:,}/{n:,} rows; ML-kNN was timed on samples of {times.rows[0]:,} and "
             f"{times.rows[1]:,} rows and extrapolated (the neighbour search grows as n²·log n); "
             "expect the classification figures within about a factor 2.",
             "The current run's feature sets after each phase stand in for each split's "
             "(identical sets are classified once).")
    return Estimate.of(stages, memory, notes)


def sensitivity_estimate(X, Y, *, settings: Mapping[str, Any],
                         grids: Mapping[str, Mapping[str, Sequence]], run_seconds: float,
                         n_selected: int, times: ClassifyTimes) -> Estimate:
    """What :func:`run_sensitivity` will cost: per grid, a Ca-MCF run per point and split
    (each assumed to cost the current run's time × n_train / n) and a classification of each
    point's selection (assumed the current selection's size)."""
    n, m = X.shape
    q = np.asarray(Y).shape[1]
    q_bin = _q_bin(Y)
    n_splits = _n_splits(settings)
    n_train, n_test = _split_sizes(n, settings)
    stages = [_discretising(n, n_splits, times)]
    for name, grid in grids.items():
        points = _grid_points(grid)
        stages.append(Stage(f"Ca-MCF selections ({name})", points * n_splits,
                            run_seconds * n_train / n))
        stages.append(Stage(f"ML-kNN classifications ({name})", points * n_splits,
                            times.seconds(n_train, n_test, max(1, n_selected))))
    memory = {
        "the splits' codes and labels": _memory_folds(n, m, q_bin, q, n_splits, n_train),
        "one ML-kNN classification": _memory_classification(
            n_train, n_test, q_bin, 2 * max(1, n_selected), _split_settings(settings)[1]["k"]),
        "the worker's copy of the data": _data_bytes(X, Y),
        "the worker process": WORKER_BASE,
    }
    notes = (f"Each grid point's Ca-MCF run is assumed to take as long as the current run "
             f"({run_seconds:.1f} s on all rows, × {n_train:,}/{n:,} per split); low "
             "thresholds keep more candidates and take longer.",)
    return Estimate.of(stages, memory, notes)


def landscape_estimate(X, Y, *, x: str, x_values: Sequence, y: str, y_values: Sequence,
                       run_seconds: float, metric: str | None, n_selected: int,
                       times: ClassifyTimes | None,
                       cost: Callable[[Mapping[str, Any]], float] | None = None) -> Estimate:
    """What :func:`run_landscape` will cost, in grid points, in the order it runs them: at
    most one full Ca-MCF run per point (one per value of the other axis when k2 is an axis: k2
    only re-runs Phase 4; points whose k1 keeps the same number of candidates share a run);
    with a metric, one more unit: a selection on a 70 % training part and a classification per
    point (ML-kNN with its declared defaults, as the landscape runs it).

    ``cost(point)``: the seconds of a run at a grid point (``{x: value, y: value}``), e.g.
    :func:`camcf.estimates.run_cost` of the current run — lower thresholds cost more; without
    it every run is assumed to take ``run_seconds``."""
    n, m = X.shape
    xs, ys = list(x_values), list(y_values)
    cells = len(xs) * len(ys)

    def at(point: Mapping[str, Any]) -> float:
        return run_seconds if cost is None else float(cost(point))

    from .algorithm_params import by_name
    from .landscape import axis_order

    stages: list[Stage] = []
    per = None
    if "k2" in (x, y):
        other, values, k2s = (y, ys, xs) if x == "k2" else (x, xs, ys)
        for i in axis_order(other, values):  # one run answers every k2 (Phase 4 again only)
            v = values[i]
            stages.append(Stage(f"{other} = {v:g}", len(k2s), at({other: v}) / len(k2s),
                                kind="grid point"))
        how = f"{len(values)} full Ca-MCF runs, each answering every k2 value"
        per = (other, len(k2s))
    elif "k1" in (x, y):
        other, values, k1s = (y, ys, xs) if x == "k1" else (x, xs, ys)
        for i in axis_order(other, values):  # (through k1 for each value of the other axis)
            v = values[i]
            stages.append(Stage(f"{other} = {v:g}", len(k1s),
                                sum(at({other: v, "k1": k}) for k in k1s) / len(k1s),
                                kind="grid point"))
        how = "a Ca-MCF run each at most; points with the same ⌈k1·n⌉ share one"
        per = (other, len(k1s))
    else:
        for yv in ys:
            for xv in xs:
                stages.append(Stage(f"{x} = {xv:g}, {y} = {yv:g}", 1, at({x: xv, y: yv}),
                                    kind="grid point"))
        how = "a Ca-MCF run each"
    runs = [s.seconds for s in stages]
    summary = f"{cells} grid points, {how}"
    if cost is not None and per is not None and len(runs) > 1:
        symbol = by_name()[per[0]].label
        summary += (f"; the {per[1]} points of one {symbol} from "
                    f"{format_seconds(min(runs))} to {format_seconds(max(runs))}: lower "
                    "thresholds cost more, so they come last")
    memory = {"the worker's copy of the data": 2 * _data_bytes(X, Y),
              "the worker process": WORKER_BASE}
    notes = [f"Each run is assumed to take as long as the current run ({run_seconds:.1f} s)."
             if cost is None else
             "Each grid point's run is estimated from the current run: its candidates counted "
             "at that point's thresholds from the current run's scores, the model scaled by "
             f"the current run's {format_seconds(run_seconds)}."]
    if metric is not None:
        n_train = n - math.ceil(0.3 * n)
        each = sum(runs) / cells * n_train / n
        if times is not None:
            each += times.seconds(n_train, n - n_train, max(1, n_selected))
            memory["one ML-kNN classification"] = _memory_classification(
                n_train, n - n_train, _q_bin(Y), 2 * max(1, n_selected), KNN_DEFAULTS["k"])
        stages.append(Stage(f"the metric ({cells} selections on a 70 % training part and "
                            "classifications)", 1, cells * each))
        summary += "; then the metric"
        notes.append("The metric part reports no progress until it ends.")
    return Estimate.of(stages, memory, notes, summary=summary)


def _display(method: str) -> str:
    """A method's name as the pages show it (its registry name when it is not registered)."""
    from .methods import METHODS

    spec = METHODS.get(method)
    return spec.display if spec is not None else method


def compare_order(methods: Sequence[str], n_features: Any = "match",
                  reference: str = "camcf") -> list[str]:
    """The order in which :func:`camcf.evaluation.compare` does ``methods``: the reference
    first when ranking methods are cut to its selections' sizes."""
    methods = list(methods)
    if n_features == "match" and reference in methods and len(methods) > 1:
        return [reference] + [m for m in methods if m != reference]
    return methods


def method_seconds(method: str, shape: tuple[int, int, int], *, settings: Mapping[str, Any],
                   run_seconds: float | None, n_selected: int, times: ClassifyTimes | None,
                   budget: float | None = None) -> tuple[float, float | None]:
    """One split's ``(selection, classification)`` seconds of ``method`` on a data set of
    ``shape`` (n, m, q_bin) under the protocol ``settings``: Ca-MCF's selection from
    ``run_seconds`` (a run on all n rows) × n_train / n; a baseline's from its cost model
    (:data:`camcf.estimates.SELECTION_COST`, at most ``budget``); a reference's 0. The
    classification (None: ``times`` unknown) is ML-kNN on the method's features (all ``m`` for
    "all", else ``n_selected``)."""
    n, m, q_bin = shape
    n_train, n_test = _split_sizes(n, settings)
    if method in _REFERENCES:
        select = 0.0
    elif method == "camcf" and run_seconds is not None:
        select = run_seconds * n_train / n
    else:
        select = selection_seconds(method, n_train, m, q_bin)
        if budget is not None:
            select = min(select, float(budget))
    width = m if method == "all" else max(1, n_selected)
    classify = None if times is None else times.seconds(n_train, n_test, width)
    return select, classify


def compare_costs(shape: tuple[int, int, int], methods: Sequence[str], *,
                  settings: Mapping[str, Any], run_seconds: float | None, n_selected: int,
                  times: ClassifyTimes | None,
                  budgets: Mapping[str, float] | None = None) -> dict[str, float]:
    """``{method: seconds}`` each method would take in a comparison on a data set of ``shape``
    (every split: selections and classifications, :func:`method_seconds`) — what a page needs
    to say which methods would take minutes before they start."""
    n_splits = _n_splits(settings)
    out = {}
    for method in methods:
        select, classify = method_seconds(method, shape, settings=settings,
                                          run_seconds=run_seconds, n_selected=n_selected,
                                          times=times, budget=(budgets or {}).get(method))
        out[method] = n_splits * (select + (classify or 0.0))
    return out


def compare_estimate(shapes: Mapping[str, tuple[int, int, int]], *, methods: Sequence[str],
                     settings: Mapping[str, Any], run_seconds: Mapping[str, float],
                     n_selected: int, times: Mapping[str, ClassifyTimes],
                     budgets: Mapping[str, float] | None = None) -> Estimate:
    """What :func:`run_compare` will cost, in the order it runs: per data set, each method in
    turn (:func:`compare_order`) selected on every split, then classified on every split, each
    estimated by :func:`method_seconds` (a baseline from its measured cost model, Ca-MCF from
    ``run_seconds[data set]``). ``shapes``: ``{data set: (n, m, q_bin)}``. The stages carry
    kinds (``"selection:METHOD"``, ``"classification"``): while the study runs, what is left is
    corrected by how far off the finished units of the same kind were
    (:func:`camcf.estimates.remaining_seconds`)."""
    budgets = dict(budgets or {})
    stages: list[Stage] = []
    memory: dict[str, int] = {}
    notes: list[str] = []
    n_splits = _n_splits(settings)
    order = compare_order(methods, settings.get("n_features", "match"))
    for name, shape in shapes.items():
        n, m, q_bin = shape
        n_train, n_test = _split_sizes(n, settings)
        for method in order:
            select, classify = method_seconds(
                method, shape, settings=settings, run_seconds=run_seconds.get(name),
                n_selected=n_selected, times=times.get(name), budget=budgets.get(method))
            if method in _REFERENCES:
                stages.append(Stage(f"{_display(method)} (a reference, nothing to select)",
                                    n_splits, 0.0, group=name))
            else:
                stages.append(Stage(f"{_display(method)} selections", n_splits, select,
                                    kind=f"selection:{method}", group=name))
            stages.append(Stage(f"{_display(method)}: ML-kNN classifications", n_splits,
                                classify, kind="classification", group=name))
        folds = _memory_folds(n, m, q_bin, q_bin, n_splits, n_train)
        memory[f"{name}: the splits' codes and labels"] = folds
        memory[f"{name}: one ML-kNN classification"] = _memory_classification(
            n_train, n_test, q_bin, 2 * max(1, n_selected), _split_settings(settings)[1]["k"])
    # data sets are compared one after another: the peak is the largest one's
    if memory:
        by_set: dict[str, int] = {}
        for key, v in memory.items():
            by_set[key.split(":")[0]] = by_set.get(key.split(":")[0], 0) + v
        biggest = max(by_set, key=by_set.get)
        memory = {k: v for k, v in memory.items() if k.startswith(f"{biggest}:")}
    memory["the worker process"] = WORKER_BASE
    baselines = [m for m in methods if m != "camcf" and m not in _REFERENCES]
    if baselines:
        notes.append("A baseline's selection is estimated from its cost model, measured on "
                     "synthetic data of delicious's kind and a reproduction of the paper "
                     "(benchmarks/bench_selection_cost.py; n, m and labels): expect it within a "
                     "factor 3; while the comparison runs, the time left is corrected by the "
                     "finished splits.")
    for method, secs in budgets.items():
        if method in methods:
            notes.append(f"{method} stops after {secs:g} s on a split (its time budget); "
                         "that split is then recorded as failed.")
    return Estimate.of(stages, memory, notes)


def tune_estimate(X, Y, grid: Mapping[str, Sequence[Any]], *, run_seconds: float,
                  n_selected: int, times: Any, cv: Any = None, inner: Any = None,
                  held_out: bool = False, k: int = 10,
                  cost: Callable[[Mapping[str, Any]], float] | None = None) -> Any:
    """What :func:`camcf.tuning.tune` with these data, grid and splitters will cost, before it
    starts (:class:`camcf.estimates.Estimate`).

    Its stages count the units ``tune``'s progress counts: one per outer split (cutting and
    discretising its inner folds), a Ca-MCF selection and an ML-kNN classification per grid
    point and inner split (each selection assumed to take ``run_seconds`` × its training rows
    / n, each classification ``times.seconds`` at ``n_selected`` features), and with
    ``held_out`` two selections and two classifications per outer split. Memory: all inner
    folds at once, one classification, the data and the worker process.

    Parameters
    ----------
    X, Y : the data (as for :func:`camcf.tuning.tune`)
    grid : dict
        As for :func:`camcf.tuning.tune` (validated).
    run_seconds : float
        Seconds of one Ca-MCF run on all rows (e.g. the current run's).
    n_selected : int
        Features a selection is assumed to keep (e.g. the current run's).
    times : camcf.studies.ClassifyTimes
        ML-kNN timed on samples of these data (:func:`camcf.studies.measure_classification`).
    cv, inner, held_out
        As for :func:`camcf.tuning.tune`.
    k : int, default 10
        ML-kNN's neighbours.
    cost : callable, optional
        ``cost(point)``: seconds of a run on all rows at a grid point (e.g.
        :func:`camcf.estimates.run_cost` of the current run); then the points are estimated
        one by one, in the order :func:`camcf.tuning.tune` does them (each point's selections
        on every inner fold, then their classifications).

    Returns
    -------
    camcf.estimates.Estimate
    """
    from .tuning import _splitters, check_grid

    grid = check_grid(grid)
    cv, inner = _splitters(cv, inner)
    n, m = X.shape
    q = np.asarray(Y).shape[1] if np.ndim(Y) == 2 else 1
    q_bin = _q_bin(np.asarray(Y).reshape(n, q))
    n_outer, n_inner = int(cv.get_n_splits(X)), int(inner.get_n_splits())
    train, test = next(iter(cv.split(n)))
    itrain, itest = next(iter(inner.split(len(train))))
    points = math.prod(len(v) for v in grid.values())
    splits = n_outer * n_inner
    width = max(1, int(n_selected))
    prep = Stage("cutting each training part into inner folds and discretising them", n_outer,
                 times.discretize_per_row * len(train) * n_inner)
    classify = times.seconds(len(itrain), len(itest), width)
    summary = None
    if cost is None:
        stages = [prep,
                  Stage("Ca-MCF selections on the inner folds", points * splits,
                        run_seconds * len(itrain) / n),
                  Stage("ML-kNN classifications on the inner folds", points * splits,
                        classify)]
    else:
        import itertools

        stages = [prep]
        selections = []
        for combo in itertools.product(*grid.values()):
            point = dict(zip(grid, combo, strict=True))
            each = float(cost(point)) * len(itrain) / n
            selections.append(each)
            words = ", ".join(f"{k} = {v:g}" for k, v in point.items())
            stages += [Stage(f"{words}: Ca-MCF selections", splits, each, kind="selection"),
                       Stage(f"{words}: ML-kNN classifications", splits, classify,
                             kind="classification")]
        summary = (f"{points} grid point(s) × {splits} inner fold(s): a Ca-MCF selection from "
                   f"{format_seconds(min(selections))} to {format_seconds(max(selections))} "
                   f"(lower thresholds cost more) and an ML-kNN classification "
                   f"{format_seconds(classify)} each")
    if held_out:
        stages += [
            Stage("held-out estimate: Ca-MCF selections (tuned, defaults)", 2 * n_outer,
                  run_seconds * len(train) / n),
            Stage("held-out estimate: ML-kNN classifications", 2 * n_outer,
                  times.seconds(len(train), len(test), width)),
        ]
    memory = {
        "the inner folds' codes and labels": _memory_folds(len(train), m, q_bin, q, splits,
                                                           len(itrain)),
        "one ML-kNN classification": _memory_classification(len(itrain), len(itest), q_bin,
                                                             2 * width, k),
        "the worker's copy of the data": _data_bytes(X, Y),
        "the worker process": WORKER_BASE,
    }
    notes = (f"{points} grid point(s) × {n_outer} training part(s) × {n_inner} inner folds; "
             + (f"each Ca-MCF run is assumed to take as long as a run on all rows "
                f"({run_seconds:.1f} s) × its {len(itrain):,}/{n:,} rows" if cost is None else
                f"each point's Ca-MCF run is estimated from the current run (its candidates "
                f"at that point's thresholds, scaled by its {run_seconds:.1f} s) × "
                f"{len(itrain):,}/{n:,} rows")
             + f", and to keep {width} features; low thresholds keep more candidates and take "
               "longer.",)
    if summary is not None and held_out:
        summary += "; then the held-out estimate"
    return Estimate.of(stages, memory, notes, summary=summary)


# ------------------------------------------------------------------------------------------------
# The paper's reproduction (camcf reproduce): a cost model from the data sets' shapes
# ------------------------------------------------------------------------------------------------
def reproduction_estimate(shapes: Mapping[str, tuple[int, int, int, int]], *,
                          tune_cells: Mapping[str, int], tune_units: int, grid_points: int,
                          inner_folds: int, selections: Mapping[str, Mapping[str, int]],
                          classifications: Mapping[str, int], n_jobs: int = 1) -> Estimate:
    """What :func:`camcf.evaluation.reproduce` will cost, in the order it runs its units.

    Parameters
    ----------
    shapes : dict
        ``{data set: (n_train, n_test, m, q)}`` (a split's rows, features, labels).
    tune_cells : dict
        ``{data set: tuning cells to compute}``; each reports ``tune_units`` units and costs
        ``grid_points × inner_folds`` tuning points (:data:`TUNE_POINT_COST`).
    selections : dict
        ``{data set: {method: selections to compute}}`` in the order they run
        (:func:`selection_seconds`).
    classifications : dict
        ``{data set: classification tasks}`` (:data:`CLASSIFY_COST`).
    n_jobs : int, default 1
        Workers: with more than one, a tuning point costs the larger fixed part.

    Returns
    -------
    camcf.estimates.Estimate
        One stage per data set and kind (kinds ``"tuning"``, ``"selection:METHOD"``,
        ``"classification"``: a stage not started is corrected by its kind's measured /
        estimated ratio, :func:`camcf.estimates.remaining_seconds`).
    """
    b, alone, shipped = TUNE_POINT_COST
    fixed = alone if n_jobs == 1 else shipped
    stages: list[Stage] = []
    for name, cells in tune_cells.items():
        n, _, m, q = shapes[name]
        if cells and tune_units:
            cell = grid_points * inner_folds * (fixed + b * n * n * math.sqrt(m * q))
            stages.append(Stage("tuning", cells * tune_units, cell / tune_units,
                                kind="tuning", group=name))
    for name, per_method in selections.items():
        n, _, m, q = shapes[name]
        for method, count in per_method.items():
            if count:
                stages.append(Stage(f"{_display(method)} selections", count,
                                    selection_seconds(method, n, m, q),
                                    kind=f"selection:{method}", group=name))
    for name, count in classifications.items():
        n, n_test, _, _ = shapes[name]
        if count:
            stages.append(Stage("ML-kNN classifications", count,
                                OVERHEAD + CLASSIFY_COST * n * n_test, kind="classification",
                                group=name))
    notes = ("Each unit's cost is predicted from the data set's shape (rows, features, labels) "
             "by a model fitted to one earlier reproduction, and corrected by the measured "
             "times of the units of its kind as they finish.",)
    return Estimate.of(stages, notes=notes)

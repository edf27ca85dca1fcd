"""The paper's comparison in one call: every method on the same splits of the shared data sets,
Ca-MCF tuned as the paper says and at its defaults, beside the paper's published values.

:func:`reproduce` runs, per data set and split (the protocol of
:data:`camcf.evaluation.settings.EVAL_PARAMS`, discretisation fitted on each training part):

1. **tuning** — Ca-MCF's grid (default :data:`PAPER_GRID`: k1, k2 in [0.1, 1]; δ1, δ2
   ``"auto"`` from the data, :data:`PAPER_PARAMS`) scored by :func:`camcf.tuning.tune` on the
   split's *training rows only* (inner folds of that part; no test row is handed over);
2. **selection** — every method on the training part: Ca-MCF with the tuned point (row
   ``camcf``), Ca-MCF at its defaults (row ``camcf-defaults``) and every other method at its
   published defaults (:mod:`camcf.methods`);
3. **classification** — ML-kNN (default :data:`PAPER_KNN`: k = 10, the authors' neighbours) on
   each method's features on the test part; ranking methods are cut at the tuned Ca-MCF's
   selection size on that split (:func:`camcf.evaluation.evaluate`'s ``"match"``).

The result is the JSON document of ``camcf compare``
(:func:`camcf.evaluation.reports.comparison_payload`) plus the tuning per split, the paper's
values beside ours with the differences (:mod:`camcf.evaluation.paper`) and the Friedman /
Iman–Davenport test over the paper's methods. :func:`reproduction_table`,
:func:`reproduction_markdown` and :func:`reproduction_html` render it; :func:`write_reproduction`
writes all four files atomically.

**Resumable.** Every finished cell — a tuning (data, split, grid), a selection (data, split,
method, parameters), a classification (data, split, feature set, ML-kNN settings) — is written
at once to ``cache_dir`` as one small JSON file named by the SHA-256 of its key
(:class:`CellStore`); a stopped run started again reads them back and computes only the rest.
A keyed JSON store rather than ``joblib.Memory``: the values are a few numbers and index lists
(no pickles to trust across versions), the key says exactly what a cell depends on (the data's
content hash, not a hash of pickled fold objects or of the function's source), and each cell
is one atomic file written as soon as it is done, also when the work runs on Dask workers.

**Parallel.** Units of work are (method, data set, split) selections, (data set, split, grid
point, inner fold) tuning fits and (data set, split) classifications, run with joblib
(``n_jobs`` processes; inside :func:`camcf.parallel.dask_cluster` on the Dask workers). Each
unit is deterministic, so the result equals the serial run's (timings aside).

**Progress.** The units differ in cost by orders of magnitude (a selection on Flags takes a
tenth of a second, MI-MCF on Enron minutes), so ``progress`` is told work weighted by cost
rather than a count of units: :func:`camcf.studies.reproduction_estimate` predicts each unit
from its data set's shape and the grid, :class:`camcf.estimates.CostProgress` corrects each kind of
unit by the measured times of its finished ones, and ``done / total`` is the share of the
expected time (``benchmarks/bench_eta.py`` replays a finished run to measure the estimate).
"""

from __future__ import annotations

import dataclasses
import hashlib
import html
import json
import math
import time
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..algorithm_params import DISCRETIZE_PARAMS
from ..errors import CamcfError, ParameterError
from ..estimates import CostProgress, Progress
from ..params import defaults
from .metrics import METRICS
from .paper import (
    DEFAULTS_ROW,
    PAPER_CRITICAL_VALUE,
    PAPER_DATA_SETS,
    PAPER_FRIEDMAN,
    PAPER_GRID,
    PAPER_KNN,
    PAPER_PARAMS,
    TUNE_METRIC,
    paper_column,
    paper_value,
)
from .settings import EVAL_DEFAULTS as _E

__all__ = ["DEFAULTS_ROW", "PAPER_DATA_SETS", "PAPER_GRID", "PAPER_KNN", "PAPER_PARAMS",
           "CellStore", "on_cluster", "reproduce", "reproduction_html", "reproduction_markdown",
           "reproduction_table", "untimed", "write_reproduction"]

_D = defaults(DISCRETIZE_PARAMS)



# ---------------------------------------------------------------------------- the cell store
class CellStore:
    """Finished cells, one JSON file each under ``folder`` (None: in memory only).

    ``key(**parts)`` is the SHA-256 of the parts as canonical JSON; :meth:`get` returns the
    stored value or None; :meth:`put` writes ``{"key": parts, "value": value}`` atomically
    (:func:`camcf.output.write_json`). ``computed`` and ``reused`` count puts and hits
    (:meth:`has` counts nothing).
    """

    def __init__(self, folder: str | Path | None = None) -> None:
        self.folder = None if folder is None else Path(folder)
        self._memory: dict[str, Any] = {}
        self.computed = 0
        self.reused = 0

    @staticmethod
    def key(**parts: Any) -> str:
        text = json.dumps(parts, sort_keys=True, default=repr, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        assert self.folder is not None
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> Any | None:
        if key in self._memory:
            self.reused += 1
            return self._memory[key]
        if self.folder is not None:
            path = self._path(key)
            try:
                value = json.loads(path.read_text(encoding="utf-8"))["value"]
            except (OSError, ValueError, KeyError):  # absent, or a torn file: compute again
                return None
            self._memory[key] = value
            self.reused += 1
            return value
        return None

    def has(self, key: str) -> bool:
        """Whether the cell is stored (without reading it or counting it as reused)."""
        return key in self._memory or (self.folder is not None and self._path(key).is_file())

    def put(self, key: str, parts: Mapping[str, Any], value: Any) -> None:
        self._memory[key] = value
        self.computed += 1
        if self.folder is not None:
            from ..output import write_json

            path = self._path(key)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_json(path, {"key": dict(parts), "value": value}, indent=None)


def on_cluster(study, first: Any, kwargs: dict, scheduler: str, timeout: float) -> Any:
    """``study(first, **kwargs)`` with its units on the Dask cluster at ``scheduler``
    (:func:`camcf.parallel.dask_cluster`; ``n_jobs`` 1 becomes every worker thread); an
    address where no scheduler answers within ``timeout`` seconds is a
    :class:`camcf.CamcfError` naming it."""
    from ..parallel import dask_cluster

    with dask_cluster(scheduler, timeout=timeout) as client:
        if kwargs.get("n_jobs", 1) == 1:
            kwargs["n_jobs"] = max(1, sum(client.nthreads().values()))
        return study(first, **kwargs)


# ---------------------------------------------------------------------------- inputs
def _load(names: Sequence[str], protocol: str) -> tuple[dict[str, tuple], dict[str, dict]]:
    """Shared data set names → ``({name: (X, Y[, X_test, Y_test])}, {name: about})``."""
    from .. import catalog
    from .reports import data_about

    data, about = {}, {}
    for name in names:
        got = catalog.load_shared(name, split=protocol == "holdout")  # unknown: DataFormatError
        train, test = got if isinstance(got, tuple) else (got, None)
        data[name] = (train.X, train.Y) if test is None else (train.X, train.Y, test.X, test.Y)
        about[name] = data_about(train, test)
    return data, about


def _data_hash(parts: Sequence[Any]) -> str:
    """The content hash of a data set's arrays (X dense or sparse, Y; a fixed split's test)."""
    import scipy.sparse as sp

    h = hashlib.sha256()
    for a in parts:
        if a is None:
            continue
        if sp.issparse(a):
            a = a.tocsr()
            arrays = (a.data, a.indices, a.indptr, np.asarray(a.shape))
        else:
            arrays = (np.asarray(a.to_numpy() if hasattr(a, "to_numpy") else a),)
        for x in arrays:
            x = np.ascontiguousarray(x)
            h.update(str((x.shape, x.dtype.str)).encode())
            h.update(x.tobytes())
    return h.hexdigest()


def _methods(names: Sequence[str] | None) -> list[str]:
    from .. import methods

    names = methods.check_names(names)
    if "camcf" not in names:
        raise ParameterError("the reproduction compares with Ca-MCF: include 'camcf' in methods",
                             name="methods", value=names)
    return names


class _AllRows:
    """The tuner's outer "splitter" here: the split's training part is all it sees."""

    protocol = "the outer split's training rows"

    def get_n_splits(self, X=None, y=None, groups=None) -> int:
        return 1

    def split(self, X, y=None, groups=None):
        n = X.shape[0]
        yield np.arange(n), np.arange(0)


# ---------------------------------------------------------------------------- the run
def reproduce(
    data: Sequence[str] | Mapping[str, tuple] | None = None,
    *,
    methods: Sequence[str] | None = None,
    protocol: str = _E["protocol"],
    n_repeats: int = _E["n_repeats"],
    n_folds: int = _E["n_folds"],
    test_size: float = _E["test_size"],
    seed: int = _E["seed"],
    discretize: str = _D["discretize"],
    bins: int = _D["bins"],
    strategy: str = _D["strategy"],
    knn: Mapping[str, Any] | None = None,
    grid: Mapping[str, Sequence[Any]] | None = None,
    params: Mapping[str, Any] | None = None,
    metric: str = TUNE_METRIC,
    inner_folds: int = 3,
    cache_dir: str | Path | None = None,
    progress: Progress | None = None,
    n_jobs: int = 1,
    scheduler: str | None = None,
    scheduler_timeout: float = 20.0,
    about: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The paper's comparison (see the module docstring), as a strict-JSON-ready payload.

    Parameters
    ----------
    data : sequence of shared data set names, or dict, optional
        Names of :data:`camcf.catalog.CATALOG` (default: those of :data:`PAPER_DATA_SETS` found
        in ``$CAMCF_DATA_DIR``), or ``{name: (X, Y)}`` / ``{name: (X, Y, X_test, Y_test)}``
        (a fixed split, used under ``protocol="holdout"``).
    methods : sequence of str, optional
        Registry names (:mod:`camcf.methods`); default every available one. Must include
        ``"camcf"``; the defaults row :data:`DEFAULTS_ROW` is added.
    protocol, n_repeats, n_folds, test_size, seed
        The splits (:data:`camcf.evaluation.settings.EVAL_PARAMS`).
    discretize, bins, strategy
        Fitted on each training part (``discretize="none"``: X holds integer codes).
    knn : dict, optional
        ML-kNN settings over :data:`PAPER_KNN`.
    grid : dict, optional
        Ca-MCF's tuning grid (default :data:`PAPER_GRID`), checked by
        :func:`camcf.tuning.check_grid`.
    params : dict, optional
        Ca-MCF's fixed parameters while tuning (default :data:`PAPER_PARAMS`).
    metric : str, default "micro_f1"
        What the tuner scores; ``inner_folds``: shuffled folds of each training part (seed 0).
    cache_dir : path, optional
        Where finished cells are kept (:class:`CellStore`); None: no resuming.
    progress : callable, optional
        ``progress(done, total, message)`` after every unit; may raise
        :class:`camcf.jobs.Cancelled` (what finished stays in ``cache_dir``). ``done`` and
        ``total`` are work units weighted by cost (:class:`camcf.estimates.CostProgress` over
        :func:`camcf.studies.reproduction_estimate`): ``done / total`` is the share of the
        expected time that has passed, and ``elapsed × (total − done) / done`` the time left
        as predicted from the data sets' shapes, corrected by the measured units of each kind.
    n_jobs : int, default 1
        joblib processes (inside :func:`camcf.parallel.dask_cluster`: Dask tasks).
    scheduler : str, optional
        A Dask scheduler's address (``tcp://HOST:PORT``): the units run on its workers
        (``n_jobs`` 1 → every worker thread). Unreachable within ``scheduler_timeout`` seconds:
        a :class:`camcf.CamcfError` naming the address.
    about : dict, optional
        What the caller knows about each data set (copied under ``data``).

    Returns
    -------
    dict
        :func:`camcf.evaluation.reports.comparison_payload`'s document plus ``tuning``
        (per data set and split: the chosen point), ``paper`` (one row per data set, method
        and metric: ``mean``, ``sd``, ``paper``, ``difference`` = ours − paper, ``better``),
        ``friedman_paper_methods`` (over the paper's methods only, beside the paper's F_F)
        and ``cache`` (cells computed and reused).

    Raises
    ------
    camcf.CamcfError
        An unknown data set or method, a bad grid or setting (:class:`camcf.ParameterError`
        naming it), no shared data set found.
    """
    if scheduler is not None:
        kwargs = {k: v for k, v in locals().items() if k not in ("data", "scheduler")}
        return on_cluster(reproduce, data, kwargs, scheduler, scheduler_timeout)
    from .. import catalog
    from .. import methods as registry
    from ..studies import reproduction_estimate
    from ..tuning import check_grid
    from .folds import make_folds
    from .running import Evaluation, _resolve, _run_tasks
    from .settings import check_eval, check_knn
    from .splits import make_splitter

    t0 = time.perf_counter()
    names = _methods(methods)
    knn = check_knn({**PAPER_KNN, **dict(knn or {})})
    params = dict(PAPER_PARAMS if params is None else params)
    grid = check_grid(PAPER_GRID if grid is None else grid, params)
    if metric not in METRICS:
        raise ParameterError(f"metric must be one of {list(METRICS)}; got {metric!r}",
                             name="metric", value=metric, allowed=list(METRICS))
    if isinstance(inner_folds, bool) or not isinstance(inner_folds, int) or inner_folds < 2:
        raise ParameterError(f"inner_folds must be an integer >= 2; got {inner_folds!r}",
                             name="inner_folds", value=inner_folds)
    proto = check_eval(protocol=protocol, n_repeats=n_repeats, n_folds=n_folds,
                       test_size=test_size, seed=seed)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
        raise ParameterError(f"n_jobs must be an integer >= 1; got n_jobs={n_jobs!r}",
                             name="n_jobs", value=n_jobs, allowed="an integer >= 1")
    disc = {"discretize": discretize, "bins": bins, "strategy": strategy}
    about = {k: dict(v) for k, v in dict(about or {}).items()}
    if data is None:
        data = [n for n in PAPER_DATA_SETS if n in catalog.available()]
        if not data:
            raise CamcfError(f"none of the paper's data sets ({', '.join(PAPER_DATA_SETS)}) is "
                             f"in {catalog.data_dir()}; set {catalog.ENV_VAR} to the folder "
                             "holding them, or give data sets")
    if not isinstance(data, Mapping):
        data, loaded_about = _load(list(data), proto["protocol"])
        about = {**loaded_about, **about}
    if not data:
        raise ParameterError("give at least one data set", name="data")
    cv = make_splitter(**proto)
    fold_disc = {**disc, "discretize": None if discretize == "none" else discretize}

    # the folds of every data set, and the raw training rows the tuner sees
    folds_of: dict[str, list] = {}
    raw_train: dict[str, list[tuple[Any, Any]]] = {}
    hashes: dict[str, str] = {}
    for ds, parts in data.items():
        X, Y, *rest = parts
        X_test, Y_test = (list(rest) + [None, None])[:2]
        if X_test is not None:
            if proto["protocol"] != "holdout":
                raise ParameterError(f"{ds} comes with a fixed train/test split (the 'holdout' "
                                     f"protocol); protocol={proto['protocol']!r} resamples one "
                                     "data set", name="protocol", value=proto["protocol"])
            folds_of[ds] = make_folds(X, Y, X_test=X_test, Y_test=Y_test, **fold_disc)
            raw_train[ds] = [(X, Y)]
        else:
            folds_of[ds] = make_folds(X, Y, cv, **fold_disc)
            rows = [f.train for f in folds_of[ds]]
            Yn = np.asarray(Y)
            raw_train[ds] = [(X[r], Yn[r]) for r in rows]
        if knn["k"] >= min(f.X_train.shape[0] for f in folds_of[ds]):
            raise ParameterError(f"{ds}: k = {knn['k']} neighbours must be smaller than the "
                                 "number of training rows", name="k", value=knn["k"])
        hashes[ds] = _data_hash(parts)
        about.setdefault(ds, {})["paper_column"] = paper_column(ds)

    store = CellStore(cache_dir)
    common = {"protocol": proto, "discretization": disc}

    def cell(kind: str, ds: str, split: int, **parts: Any) -> tuple[str, dict]:
        key_parts = {"kind": kind, "data": hashes[ds], "split": split, **common, **parts}
        return store.key(**key_parts), key_parts

    # ------------------------------------------------ stage 1: tuning on training rows only
    from .studies import sensitivity

    tune_cells = {(ds, s): cell("tune", ds, s, grid=grid, params=params, metric=metric,
                                inner_folds=inner_folds, knn=knn)
                  for ds, folds in folds_of.items() for s in range(len(folds))}
    tuned = {c: store.get(k) for c, (k, _) in tune_cells.items()}
    tune_units = 1 + sensitivity.plan(inner_folds, grid, params).units
    todo_tune = [c for c, v in tuned.items() if v is None]
    estimators = {n: registry.make(n) for n in names}
    estimators[DEFAULTS_ROW] = registry.make("camcf")

    def selector(name: str, ds: str, s: int):
        if name == "camcf":
            return registry.make("camcf", **tuned[(ds, s)]["best"])
        return estimators[name]

    def select_cell(name: str, ds: str, s: int) -> tuple[str, dict]:
        return cell("select", ds, s, method=name, estimator=_est_key(selector(name, ds, s)))

    # the plan, in the order the units run: a selection whose tuning is still to come counts
    # as work (its key is known only then); every split as one classification task
    shapes = {ds: (f[0].X_train.shape[0], f[0].X_test.shape[0], f[0].n_features,
                   np.shape(f[0].Y_train)[1] if np.ndim(f[0].Y_train) == 2 else 1)
              for ds, f in folds_of.items()}
    plan = {"shapes": shapes, "tune_units": tune_units, "inner_folds": inner_folds,
            "n_jobs": n_jobs,
            "grid_points": math.prod(len(v) for v in grid.values()),
            "tune_cells": {ds: sum(1 for c in todo_tune if c[0] == ds) for ds in folds_of}}
    planned_selections = {ds: {name: sum(1 for s in range(len(folds))
                                         if tuned[(ds, s)] is None and name == "camcf"
                                         or not store.has(select_cell(name, ds, s)[0]))
                               for name in estimators} for ds, folds in folds_of.items()}
    tracker = CostProgress(progress, reproduction_estimate(
        **plan, selections=planned_selections,
        classifications={ds: len(folds) for ds, folds in folds_of.items()}), start=t0)
    tracker.report("starting")
    for ds, s in todo_tune:
        tuned[(ds, s)] = _tune_cell(raw_train[ds][s], grid, params, metric, inner_folds, disc,
                                    knn, n_jobs, tracker, tune_units,
                                    f"{ds} split {s + 1}: tuning")
        store.put(*tune_cells[(ds, s)], tuned[(ds, s)])

    # ------------------------------------------------ stage 2: every selection
    # per data set one method after another (its splits together: a stage of like units)
    selections: dict[str, dict[tuple[str, int], Any]] = {ds: {} for ds in folds_of}
    tasks, where = [], []
    counts: dict[str, dict[str, int]] = {ds: {} for ds in folds_of}
    for ds, folds in folds_of.items():
        for name in estimators:
            for s, fold in enumerate(folds):
                key, parts = select_cell(name, ds, s)
                hit = store.get(key)
                if hit is not None:
                    selections[ds][(name, s)] = _selection(hit)
                    continue
                tasks.append((fold, selector(name, ds, s), False))
                where.append((ds, s, name, key, parts))
                counts[ds][name] = counts[ds].get(name, 0) + 1
    tracker.replan(reproduction_estimate(  # the same tuning stages, the selections known now
        **plan, selections=counts,
        classifications={ds: len(folds) for ds, folds in folds_of.items()}))
    marks = iter(where)

    def selected(_task, value) -> None:
        ds, s, name, key, parts = next(marks)
        selections[ds][(name, s)] = value
        store.put(key, parts, dataclasses.asdict(value))
        tracker.tick(f"{ds} split {s + 1}: {name} selected")

    from .running import _fit_one

    _run_tasks(_fit_one, tasks, n_jobs, selected)
    selections = {ds: {(name, s): sel[(name, s)] for s in range(len(folds_of[ds]))
                       for name in estimators} for ds, sel in selections.items()}

    # ------------------------------------------------ stage 3: classification
    from .running import FeatureSet, _classify_fold, _frame

    specs = {name: FeatureSet(name) for name in estimators}
    per_ds: dict[str, tuple] = {}
    values: dict[str, dict] = {ds: {} for ds in folds_of}
    ctasks, cwhere = [], []
    for ds, folds in folds_of.items():
        m = folds[0].n_features
        sets, seconds = _resolve(specs, selections[ds], len(folds), "match", "camcf", m)
        per_ds[ds] = (sets, seconds)
        for s, named in enumerate(sets):
            todo = []
            for features in dict.fromkeys(named.values()):
                if not features:
                    values[ds][(s, features)] = {k: math.nan for k in METRICS}
                    continue
                key, parts = cell("classify", ds, s, features=list(features), knn=knn)
                hit = store.get(key)
                if hit is None:
                    todo.append((features, key, parts))
                else:
                    values[ds][(s, features)] = {k: _num(v) for k, v in hit.items()}
            if todo:
                ctasks.append((folds[s], [f for f, _, _ in todo], knn))
                cwhere.append((ds, s, todo))
    tracker.replan(reproduction_estimate(
        **plan, selections=counts,
        classifications={ds: sum(1 for w in cwhere if w[0] == ds) for ds in folds_of}))
    tracker.report("classifying")
    cmarks = iter(cwhere)

    def classified(_task, results) -> None:
        ds, s, todo = next(cmarks)
        for (features, key, parts), v in zip(todo, results, strict=True):
            values[ds][(s, features)] = v
            store.put(key, parts, v)
        tracker.tick(f"{ds} split {s + 1}: ML-kNN on {len(todo)} feature set(s)")

    _run_tasks(_classify_fold, ctasks, n_jobs, classified)

    comparisons = {}
    for ds, folds in folds_of.items():
        sets, seconds = per_ds[ds]
        sel = selections[ds]
        failures: dict[str, list[tuple[int, str]]] = {}
        for (name, s), got in sel.items():
            if got.error is not None:
                failures.setdefault(name, []).append((folds[s].split, got.error))
        comparisons[ds] = Evaluation(
            frame=_frame(folds, sets, values[ds], seconds), sets=sets, selections=sel,
            kinds={name: sel[(name, 0)].kind for name in estimators}, failures=failures,
            settings={"n_features": "match", "reference": "camcf", **knn,
                      "protocol": folds[0].protocol, "n_splits": len(folds)})
    return _payload(comparisons, estimators, tuned, folds_of, store, about, proto, disc, knn,
                    grid, params, metric, inner_folds, n_jobs, time.perf_counter() - t0)


def _num(v: Any) -> float:
    return math.nan if v is None else float(v)


def _est_key(est) -> list:
    from .running import _est_key as key

    module, name, items = key(est)
    return [module, name, [list(i) for i in items]]


def _selection(d: Mapping[str, Any]):
    from .running import Selection, _per_label

    return Selection(kind=d["kind"], support=tuple(d["support"]), seconds=float(d["seconds"]),
                     ranking=None if d["ranking"] is None else tuple(d["ranking"]),
                     extra={k: tuple(v) for k, v in d.get("extra", {}).items()},
                     error=d.get("error"), blankets=_per_label(d.get("blankets")),
                     label_blankets=_per_label(d.get("label_blankets")))


def _tune_cell(train: tuple[Any, Any], grid, params, metric: str, inner_folds: int,
               disc: dict, knn: dict, n_jobs: int, tracker: CostProgress, units: int,
               label: str) -> dict:
    """:func:`camcf.tuning.tune` on one split's training rows (they are all it is given);
    ``tracker`` is told of each of tune's units, and of ``units`` in all once it is done (tune
    counts fewer when grid points select the same features)."""
    from ..tuning import tune
    from .splits import make_splitter

    X, Y = train
    ticked = [0]

    def report(done: int, _total: int, message: str) -> None:
        new = min(int(done), units) - ticked[0]
        ticked[0] += max(0, new)
        tracker.tick(f"{label}: {message}", max(0, new))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = tune(X, Y, grid, metric=metric, params=params, cv=_AllRows(),
                   inner=make_splitter("kfold", n_folds=inner_folds, seed=0),
                   discretize=None if disc["discretize"] == "none" else disc["discretize"],
                   bins=disc["bins"], strategy=disc["strategy"], knn=knn, n_jobs=n_jobs,
                   progress=report)
    tracker.tick(f"{label}: done", units - ticked[0])
    row = res.grid.loc[res.best_index]
    from ..output import json_safe

    return json_safe({"best": dict(res.best), "auto": res.settings["auto"],
                      "score": float(row["score"]), "n_rows": int(np.shape(Y)[0]),
                      "seconds": res.settings["seconds"]})


# ---------------------------------------------------------------------------- the payload
def _paper_rows(comparisons: Mapping[str, Any], about: Mapping[str, Any]) -> list[dict]:
    from .. import methods

    rows = []
    for ds, cmp in comparisons.items():
        column = about.get(ds, {}).get("paper_column")
        summary = cmp.summary.set_index(["feature_set", "metric"])
        for name in cmp.kinds:
            ref = "camcf" if name == DEFAULTS_ROW else name
            for metric, info in METRICS.items():
                mean, sd = summary.loc[(name, metric), ["mean", "sd"]]
                paper = None if column is None else paper_value(metric, ref, column)
                diff = None if paper is None or math.isnan(mean) else float(mean) - paper
                better = None if diff is None else (
                    diff > 0 if info["higher_is_better"] else diff < 0)
                rows.append({"data_set": ds, "paper_column": column, "method": name,
                             "method_name": (methods.display(name) if name in methods.METHODS
                                             else "Ca-MCF (defaults)"),
                             "metric": metric, "mean": float(mean), "sd": float(sd),
                             "paper": paper, "difference": diff, "ours_better": better})
    return rows


def _payload(comparisons, estimators, tuned, folds_of, store, about, proto, disc, knn, grid,
             params, metric, inner_folds, n_jobs, seconds) -> dict:
    from .. import methods
    from ..output import json_safe
    from .reports import comparison_payload
    from .summaries import friedman_over_data_sets

    settings = {
        "protocol": {"name": proto["protocol"], "seed": proto["seed"], **(
            {"folds": proto["n_folds"]} if proto["protocol"] == "kfold" else
            {"repeats": proto["n_repeats"], "test_size": proto["test_size"]}
            if proto["protocol"] == "repeated" else {"test_size": proto["test_size"]})},
        "n_features": "match",
        "classifier": {"name": "ML-kNN", **knn},
        "discretization": {**disc, "fitted_on": "the training part of each split"},
        "tuning": {"grid": grid, "params": params, "metric": metric,
                   "inner": f"{inner_folds} shuffled folds of each training part, seed 0",
                   "rows": "the training part of each split only"},
        "rows": {"camcf": "Ca-MCF tuned on each split's training rows",
                 DEFAULTS_ROW: "Ca-MCF at its declared defaults"},
        "n_jobs": n_jobs,
        "seconds_total": seconds,
    }
    payload = comparison_payload(comparisons, estimators, settings, about)
    for row in payload["methods"]:  # the tuned row has no single parameter set
        if row["name"] == "camcf":
            row["params"] = {**row["params"], **params, **{k: "tuned per split (see tuning)"
                                                           for k in grid}}
    payload["tuning"] = {ds: [{"split": s, **tuned[(ds, s)]} for s in range(len(folds))]
                         for ds, folds in folds_of.items()}
    payload["paper"] = json_safe(_paper_rows(comparisons, about))
    paper_methods = [n for n in estimators if n in methods.PAPER_METHODS]
    if len(comparisons) >= 2 and len(paper_methods) >= 2:
        restricted = {ds: dataclasses.replace(
            cmp, frame=cmp.frame[cmp.frame["feature_set"].isin(paper_methods)],
            kinds={n: cmp.kinds[n] for n in paper_methods}) for ds, cmp in comparisons.items()}
        table = friedman_over_data_sets(restricted)
        table["paper_iman_davenport"] = table["metric"].map(PAPER_FRIEDMAN)
        payload["friedman_paper_methods"] = json_safe(table.to_dict("records"))
        payload["paper_critical_value"] = PAPER_CRITICAL_VALUE
    payload["cache"] = {"computed": store.computed, "reused": store.reused,
                        "folder": None if store.folder is None else str(store.folder)}
    return payload


# ---------------------------------------------------------------------------- rendering
def reproduction_table(payload: Mapping[str, Any]) -> pd.DataFrame:
    """One row per data set × method × metric: ``data_set, paper_column, method,
    method_name, metric, mean, sd, paper, difference, ours_better`` (the CSV)."""
    return pd.DataFrame(payload["paper"])


def _fmt(v: Any, digits: int = 4) -> str:
    if _missing(v):
        return "–"
    return f"{v:.{digits}f}"


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _cell(r: Mapping[str, Any]) -> str:
    text = f"{_fmt(r['mean'])} ± {_fmt(r['sd'])}"
    if not _missing(r["paper"]):
        text += (f" ({_fmt(r['paper'])})" if _missing(r["difference"])
                 else f" ({_fmt(r['paper'])}; {r['difference']:+.4f})")
    return text


def _metric_tables(payload: Mapping[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    """Per metric: (title, header, rows) — methods × data sets."""
    frame = reproduction_table(payload)
    data_sets = list(dict.fromkeys(frame["data_set"]))
    out = []
    for metric, info in METRICS.items():
        part = frame[frame["metric"] == metric]
        header = ["method", *data_sets]
        rows = []
        for _method, rows_m in part.groupby("method", sort=False):
            by = {r["data_set"]: r for r in rows_m.to_dict("records")}
            rows.append([rows_m["method_name"].iloc[0],
                         *[_cell(by[d]) if d in by else "–" for d in data_sets]])
        arrow = "↑" if info["higher_is_better"] else "↓"
        out.append((f"{info['name']} {arrow}", header, rows))
    return out


def _friedman_rows(payload: Mapping[str, Any]) -> tuple[list[str], list[list[str]]] | None:
    from .. import methods

    rows = payload.get("friedman_paper_methods")
    if not rows:
        return None
    header = ["metric", "F_F (ours)", "critical value", "F_F (paper)", "CD (Bonferroni–Dunn)",
              "average ranks (ours)"]
    out = []
    for r in rows:
        ranks = sorted(((k[5:], v) for k, v in r.items() if k.startswith("rank:")),
                       key=lambda kv: kv[1])
        out.append([METRICS[r["metric"]]["name"], _fmt(r["iman_davenport"]),
                    _fmt(r["critical_value"]), _fmt(r["paper_iman_davenport"]), _fmt(r["cd"], 3),
                    ", ".join(f"{methods.display(n)} {v:.2f}" for n, v in ranks)])
    return header, out


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *["| " + " | ".join(r) + " |" for r in rows]]


def _protocol_lines(payload: Mapping[str, Any]) -> list[str]:
    s = payload["settings"]
    t = s["tuning"]
    grid = ", ".join(f"{k} ∈ {v}" for k, v in t["grid"].items())
    fixed = ", ".join(f"{k} = {v}" for k, v in t["params"].items()) or "none"
    knn = s["classifier"]
    return [
        f"- Splits: {json.dumps(s['protocol'])}; discretisation "
        f"{json.dumps({k: v for k, v in s['discretization'].items() if k != 'fitted_on'})}, "
        "fitted on each training part.",
        f"- Ca-MCF (row *Ca-MCF*): tuned per split on that split's training rows only "
        f"({t['inner']}; scored by {t['metric']}): grid {grid}; fixed {fixed}. Row *Ca-MCF "
        "(defaults)*: the declared defaults.",
        "- Baselines: their published defaults; ranking methods cut at the tuned Ca-MCF's "
        "selection size on the same split.",
        f"- Classifier: ML-kNN k = {knn['k']}, s = {knn['s']}, {knn['distance']} distance, "
        f"{knn['neighbours']} neighbours.",
        "- Cells: ours mean ± SD over splits (paper's value; ours − paper).",
    ]


def reproduction_markdown(payload: Mapping[str, Any]) -> str:
    """The report as Markdown: protocol, the seven metric tables beside the paper, the tuning,
    the Friedman test over the paper's methods (figures: in the HTML report)."""
    lines = ["# Reproduction of the Ca-MCF paper's comparison", "",
             f"Wall time {payload['settings']['seconds_total']:.0f} s, n_jobs = "
             f"{payload['settings']['n_jobs']}; cells computed {payload['cache']['computed']}, "
             f"reused from the cache {payload['cache']['reused']}.", "", "## Protocol", "",
             *_protocol_lines(payload), ""]
    for title, header, rows in _metric_tables(payload):
        lines += [f"## {title}", "", *_md_table(header, rows), ""]
    lines += ["## Tuned parameters per split", ""]
    tune_rows = [[ds, str(t["split"] + 1), ", ".join(f"{k} = {v:g}" if isinstance(v, float)
                                                     else f"{k} = {v}"
                                                     for k, v in t["best"].items()),
                  _fmt(t["score"])] for ds, ts in payload["tuning"].items() for t in ts]
    lines += [*_md_table(["data set", "split", "chosen", "inner score"], tune_rows), ""]
    fr = _friedman_rows(payload)
    if fr is not None:
        lines += ["## Friedman / Iman–Davenport over data sets (the paper's methods)", "",
                  *_md_table(*fr), ""]
    return "\n".join(lines) + "\n"


def _figures(payload: Mapping[str, Any]) -> list[tuple[str, Any]]:
    from .. import methods
    from ..viz.comparison import cd_diagram, normalised_radar

    figs = []
    for r in payload.get("friedman_paper_methods") or []:
        ranks = {methods.display(k[5:]): v for k, v in r.items() if k.startswith("rank:")}
        figs.append((f"CD diagram: {METRICS[r['metric']]['name']}",
                     cd_diagram(ranks, r["cd"], control="Ca-MCF",
                                title=METRICS[r["metric"]]["name"])))
    frame = reproduction_table(payload)
    for ds, part in frame.groupby("data_set", sort=False):
        means = part.pivot_table(index="method_name", columns="metric", values="mean",
                                 sort=False)
        figs.append((f"Normalised radar: {ds}",
                     normalised_radar(means, highlight="Ca-MCF", title=ds)))
    return figs


def reproduction_html(payload: Mapping[str, Any]) -> str:
    """The report as one HTML page: the Markdown report's tables plus the CD diagrams and the
    normalised radars (plotly; its JavaScript inlined once, so the page works offline)."""
    def table(header: list[str], rows: list[list[str]]) -> str:
        head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>"
                       for r in rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'>",
             "<title>Ca-MCF reproduction</title><style>body{font-family:sans-serif;margin:2em}"
             "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;"
             "padding:3px 6px;font-size:13px}</style></head><body>",
             "<h1>Reproduction of the Ca-MCF paper's comparison</h1><ul>",
             *[f"<li>{html.escape(line[2:])}</li>" for line in _protocol_lines(payload)], "</ul>"]
    for title, header, rows in _metric_tables(payload):
        parts += [f"<h2>{html.escape(title)}</h2>", table(header, rows)]
    fr = _friedman_rows(payload)
    if fr is not None:
        parts += ["<h2>Friedman / Iman–Davenport over data sets (the paper's methods)</h2>",
                  table(*fr)]
    for i, (title, fig) in enumerate(_figures(payload)):
        parts += [f"<h2>{html.escape(title)}</h2>",
                  fig.to_html(full_html=False, include_plotlyjs=i == 0)]
    parts.append("</body></html>")
    return "\n".join(parts)


def write_reproduction(payload: Mapping[str, Any], output: str | Path) -> list[Path]:
    """Write ``OUT.json``, ``OUT.csv``, ``OUT.md`` and ``OUT.html`` (``output`` with any
    suffix replaced; its folder made if missing), each atomically (:mod:`camcf.output`);
    returns the paths."""
    from ..output import write_json, write_text

    out = Path(output)
    out.parent.mkdir(parents=True, exist_ok=True)
    paths = [write_json(out.with_suffix(".json"), payload),
             write_text(out.with_suffix(".csv"), reproduction_table(payload).to_csv(index=False)),
             write_text(out.with_suffix(".md"), reproduction_markdown(payload)),
             write_text(out.with_suffix(".html"), reproduction_html(payload))]
    return paths


def untimed(payload: Mapping[str, Any]) -> dict:
    """A copy of :func:`reproduce`'s payload without what depends on the clock, the workers or
    the cache's history (``settings.seconds_total``, ``settings.n_jobs``, ``cache``, every
    ``seconds``): two runs of the same reproduction compare equal on it."""
    d = json.loads(json.dumps(payload))
    for key in ("seconds_total", "n_jobs"):
        d["settings"].pop(key)
    d.pop("cache")
    for v in d["data_sets"].values():
        for row in v["splits"] + v["summary"]:
            row.pop("seconds")
    for rows in d["tuning"].values():
        for row in rows:
            row.pop("seconds")
    return d

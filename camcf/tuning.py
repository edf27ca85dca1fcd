"""The tuner: Ca-MCF's parameters chosen by inner cross-validation on training rows only.

:func:`tune` scores every point of a grid of Ca-MCF parameters (e.g. δ1 × k1) by the ML-kNN
metric of its selection, and returns the best point and the whole grid
(:class:`TuneResult`). The scoring is nested, so that no held-out row is ever read:

1. the outer splitter ``cv`` (default: the declared protocol, 5 × 70/30 repeated hold-out,
   :func:`camcf.evaluation.make_splitter`) cuts the rows into training and held-out parts;
2. each outer training part alone is cut again by the inner splitter ``inner`` (default: 3
   shuffled folds, seed 0) and made into folds (:func:`camcf.evaluation.make_folds`: the
   rows, labels and discretisation of that training part only — the held-out rows are not
   even handed over);
3. every grid point is evaluated on all these inner folds by
   :func:`camcf.evaluation.sensitivity` (one call: identical parameter sets are fitted once
   per fold, identical feature subsets classified once).

A point's ``score`` is the mean over all inner splits of the chosen metric oriented so that
lower is better (``1 − value`` for a metric where higher is better — F1, subset accuracy,
average precision —, the value itself for a loss: Hamming loss, ranking loss, coverage), its
``sd`` the sample SD over the same splits. ``best`` is the point of least score among the
points whose selection was never empty (an empty selection cannot be classified: its split has
no value); if every point was empty somewhere, among those empty on the fewest splits.

The held-out rows of ``cv`` are left for an honest estimate of the tuned point (e.g.
``camcf evaluate`` with ``best``'s parameters and the same protocol compares it with the
defaults on those rows).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .algorithm_params import ALGORITHM_PARAMS, DISCRETIZE_PARAMS, by_name
from .errors import InvalidDataError, ParameterError
from .jobs import Progress

__all__ = ["GRID_COLUMNS", "INNER_FOLDS", "THRESHOLDS", "TuneResult", "check_grid", "on_edge",
           "oriented", "tune"]

#: The parameters every grid row and ``best`` name (the paper's four).
THRESHOLDS = ("delta1", "delta2", "k1", "k2")
#: The columns of :attr:`TuneResult.grid` after the parameters.
GRID_COLUMNS = ("score", "sd", "value", "n_features", "n_splits", "n_empty")
#: Folds of the default inner splitter.
INNER_FOLDS = 3

_ALGO = by_name(ALGORITHM_PARAMS)
_DISC = by_name(DISCRETIZE_PARAMS)


@dataclass(frozen=True, eq=False)
class TuneResult:
    """What :func:`tune` found.

    Attributes
    ----------
    best : dict
        ``delta1, delta2, k1, k2`` (and any other tuned parameter) of the best grid point, as
        a run uses them: numbers, an ``"auto"`` threshold resolved on all rows
        (:func:`camcf.significance.suggest_thresholds`).
    grid : DataFrame
        One row per grid point (in ``itertools.product`` order of the grid's keys):
        ``delta1, delta2, k1, k2`` (the fixed or default value where the grid does not vary
        it; ``"auto"`` as given), any other tuned parameter, then :data:`GRID_COLUMNS` —
        ``score`` (mean oriented metric, lower is better), ``sd`` (its sample SD over the
        inner splits), ``value`` (mean of the metric as the metric reads), ``n_features``
        (mean selection size), ``n_splits`` (inner splits in all), ``n_empty`` (splits where
        the selection was empty; they have no value).
    best_index : int or None
        Row of ``grid`` that is ``best`` (None only in a partial result none of whose finished
        points could be scored).
    frame : DataFrame
        Tidy: the grid's parameters, ``outer`` and ``inner`` split numbers, ``split`` (the
        inner fold's number over all of them), ``value``,
        ``score``, ``n_features``, ``seconds`` (one row per grid point and inner split).
    settings : dict
        ``metric``, ``higher_is_better``, ``params`` (the fixed parameters), the outer and
        inner protocols and their numbers of splits, the discretisation, ``knn``, ``auto``
        (how an ``"auto"`` in ``best`` was resolved, or None), ``seconds``, ``partial`` (not
        every grid point is done: see :func:`tune`'s ``keep``) and ``points_done``.
    held_out : DataFrame or None
        With ``tune(..., held_out=True)``: the nested estimate. Per outer split, the point of
        least score on that split's inner folds (``"tuned"``; ``point`` its row of ``grid``)
        and the fixed/default parameters (``"defaults"``), each selected on the outer training
        rows and classified on the held-out rows: columns ``outer, set, point,`` the
        parameters, ``metric, value, n_features`` (every metric).
    """

    best: dict[str, Any]
    grid: pd.DataFrame
    best_index: int
    frame: pd.DataFrame
    settings: dict[str, Any]
    held_out: pd.DataFrame | None = None

    def held_out_summary(self) -> pd.DataFrame | None:
        """Mean and sample SD over the outer splits of :attr:`held_out`, per set and metric
        (``set, metric, mean, sd, n, n_empty, n_features``: ``n`` splits with a value,
        ``n_empty`` splits where the selection was empty and has none), or None."""
        if self.held_out is None or self.held_out.empty:
            return None
        h = self.held_out.assign(_empty=(self.held_out["n_features"] == 0).astype(int))
        return (h.groupby(["set", "metric"], sort=False)
                .agg(mean=("value", "mean"), sd=("value", "std"), n=("value", "count"),
                     n_empty=("_empty", "sum"), n_features=("n_features", "mean"))
                .reset_index())

    def landscape(self, x: str, y: str):
        """The grid over ``x × y`` as a :class:`camcf.landscape.Landscape` (to draw it as the
        Threshold landscape draws its cells): ``counts`` the mean selection size of each
        point, ``metric_values`` its ``score`` (NaN where no inner split had a value),
        ``metric`` the score's name (e.g. ``"1 - micro_f1"``), ``filled`` the points done (a
        partial result's). The grid must vary ``x`` and ``y`` and nothing else;
        ``base_params`` are the fixed parameters.

        Returns
        -------
        (Landscape, (row, column) of ``best`` in it, or None when there is none yet)
        """
        from .landscape import Landscape

        tuned = list(self.settings["grid"])
        if sorted(tuned) != sorted({x, y}) or x == y:
            raise ParameterError(f"this tuning varied {tuned}; it cannot be drawn over "
                                 f"{x} × {y}", name="grid", value=tuned)
        xs = tuple(self.settings["grid"][x])
        ys = tuple(self.settings["grid"][y])
        counts = np.full((len(ys), len(xs)), np.nan)
        scores = np.full((len(ys), len(xs)), np.nan)
        known = "truth_f1" in self.grid.columns
        f1 = np.full((len(ys), len(xs)), np.nan)
        for r in self.grid.itertuples(index=True):
            i, j = ys.index(getattr(r, y)), xs.index(getattr(r, x))
            counts[i, j] = r.n_features
            scores[i, j] = r.score
            if known:
                f1[i, j] = r.truth_f1
        best = None if self.best_index is None else (
            ys.index(self.grid.at[self.best_index, y]), xs.index(self.grid.at[self.best_index, x]))
        filled = np.zeros((len(ys), len(xs)), dtype=bool)
        for r in self.grid.itertuples(index=True):
            filled[ys.index(getattr(r, y)), xs.index(getattr(r, x))] = not pd.isna(r.n_splits)
        L = Landscape(x=x, y=y, x_values=xs, y_values=ys, counts=counts,
                      base_params=dict(self.settings["params"]), metric=self.settings["score"],
                      metric_values=scores, seconds=float(self.settings["seconds"]),
                      truth_f1=f1 if known else None, filled=None if filled.all() else filled)
        return L, best

    def to_dict(self) -> dict[str, Any]:
        """``best``, ``grid`` (a list of row dicts), ``best_index`` and ``settings``, ready for
        strict JSON (NaN as None)."""
        def clean(v: Any) -> Any:
            if isinstance(v, np.generic):
                v = v.item()
            if isinstance(v, float) and not math.isfinite(v):
                return None
            return v

        def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
            return [{k: clean(v) for k, v in row.items()}
                    for row in frame.to_dict(orient="records")]

        out = {"best": {k: clean(v) for k, v in self.best.items()},
               "best_index": int(self.best_index), "grid": records(self.grid),
               "settings": self.settings}
        if self.held_out is not None:
            summary = self.held_out_summary()
            out["held_out"] = {"summary": [] if summary is None else records(summary),
                               "splits": records(self.held_out)}
        return out


def on_edge(result: TuneResult) -> list[dict[str, Any]]:
    """The tuned parameters whose best value is the lowest or highest of its grid axis (of at
    least two values) while the parameter's declared range goes beyond it: a better point may
    lie outside the grid. Each ``{"name", "value", "side"}`` (side ``"lowest"`` or
    ``"highest"``); empty when the best point is inside the grid (or there is none)."""
    if result.best_index is None:
        return []
    out = []
    for name, values in result.settings["grid"].items():
        numbers = [v for v in values if not isinstance(v, str)]
        value = result.grid.at[result.best_index, name]
        if len(numbers) < 2 or isinstance(value, str):
            continue
        decl = _ALGO[name]
        if value == min(numbers) and (decl.low is None or value > decl.low):
            out.append({"name": name, "value": value, "side": "lowest"})
        elif value == max(numbers) and (decl.high is None or value < decl.high):
            out.append({"name": name, "value": value, "side": "highest"})
    return out


def oriented(metric: str, values):
    """``values`` of ``metric`` turned so that lower is better: ``1 − value`` when higher is
    better (:data:`camcf.evaluation.METRICS`), the values as they are for a loss.

    >>> float(oriented("micro_f1", 0.75)), float(oriented("hamming_loss", 0.2))
    (0.25, 0.2)
    """
    from .evaluation.metrics import METRICS

    if metric not in METRICS:
        raise ParameterError(f"metric must be one of {list(METRICS)}; got {metric!r}",
                             name="metric", value=metric, allowed=list(METRICS))
    values = np.asarray(values, dtype=float)
    return 1.0 - values if METRICS[metric]["higher_is_better"] else values


# ---------------------------------------------------------------------------- checks
def check_grid(grid: Mapping[str, Sequence[Any]],
               params: Mapping[str, Any] | None = None) -> dict[str, list[Any]]:
    """The grid validated against :data:`camcf.algorithm_params.ALGORITHM_PARAMS`: each name
    a Ca-MCF parameter, not also fixed in ``params``, with a non-empty list of distinct
    allowed values (converted as the declaration says). A bad name or value is a
    :class:`camcf.ParameterError` naming it."""
    if not isinstance(grid, Mapping) or not grid:
        raise ParameterError("the grid must name at least one Ca-MCF parameter with a list of "
                             f"values, e.g. {{'delta1': [0.01, 0.05]}}; got {grid!r}",
                             name="grid", value=grid, allowed=sorted(_ALGO))
    out: dict[str, list[Any]] = {}
    for name, values in grid.items():
        if name not in _ALGO:
            raise ParameterError(
                f"grid: unknown parameter {name!r}; Ca-MCF's parameters are "
                f"{', '.join(_ALGO)}", name=name, value=values, allowed=sorted(_ALGO))
        if params and name in params:
            raise ParameterError(
                f"{name} is both fixed ({params[name]!r}) and in the grid; give it once",
                name=name, value=params[name])
        if isinstance(values, str) or not isinstance(values, Sequence | np.ndarray):
            values = [values]
        checked = [_ALGO[name].validate(v.item() if isinstance(v, np.generic) else v)
                   for v in values]
        if not checked:
            raise ParameterError(f"grid[{name!r}] is empty; give at least one value",
                                 name=name, value=list(values), allowed=_ALGO[name].describe())
        seen = [v for i, v in enumerate(checked) if v in checked[:i]]
        if seen:
            raise ParameterError(f"grid[{name!r}] repeats {seen[0]!r}; give each value once",
                                 name=name, value=seen[0], allowed=_ALGO[name].describe())
        out[str(name)] = checked
    return out


def _check_params(params: Mapping[str, Any] | None) -> dict[str, Any]:
    params = dict(params or {})
    for name, value in params.items():
        if name not in _ALGO:
            raise ParameterError(
                f"unknown Ca-MCF parameter {name!r}; known: {', '.join(_ALGO)}", name=name,
                value=value, allowed=sorted(_ALGO))
        params[name] = _ALGO[name].validate(value)
    return params


# ---------------------------------------------------------------------------- folds
def _inner_folds(X, Y, cv, inner, disc: dict[str, Any], tick=None):
    """The inner folds of every outer training part (numbered 0.. over all of them) and, per
    fold, its outer and inner split numbers. Only the outer training rows are handed to
    make_folds. ``tick(o)`` after each outer split."""
    from .evaluation.folds import _dense, _labels_2d, make_folds

    X, Y = _dense(X), _labels_2d(Y)
    if X.ndim != 2 or Y.ndim != 2 or X.shape[0] != Y.shape[0]:
        raise InvalidDataError(
            f"X and Y must be 2-D with the same number of rows; got {X.shape} and {Y.shape}")
    folds, outer_of, inner_of = [], [], []
    for o, (train, _held_out) in enumerate(cv.split(X)):
        train = np.asarray(train)
        Xt, Yt = X[train], Y[train]
        for i, fold in enumerate(make_folds(Xt, Yt, inner, **disc)):
            folds.append(dataclasses.replace(fold, split=len(folds)))
            outer_of.append(o)
            inner_of.append(i)
        if tick is not None:
            tick(o)
    if not folds:
        raise ParameterError(f"the splitter {cv!r} made no splits")
    return folds, outer_of, inner_of


def _resolve_auto(best: dict[str, Any], X, Y, disc: dict[str, Any], params: Mapping[str, Any]
                  ) -> dict[str, Any] | None:
    """Replace an ``"auto"`` threshold in ``best`` by the number a run on all rows uses."""
    if "auto" not in (best["delta1"], best["delta2"]):
        return None
    from .discretize import discretize
    from .evaluation.folds import _dense, _labels_2d
    from .significance import suggest_thresholds

    X, Y = _dense(X), _labels_2d(Y)
    if disc["discretize"] is None:
        codes = np.asarray(X).astype(np.int64)
    else:
        codes, _ = discretize(X, **disc)
    level = best.get("significance", params.get("significance", _ALGO["significance"].default))
    sug = suggest_thresholds(codes, Y, significance=level)
    auto = {"significance": sug["significance"], "n": sug["n"], "rule": sug["rule"]}
    for name in ("delta1", "delta2"):
        if best[name] == "auto":
            best[name] = float(sug[name])
            auto[name] = {"df": int(sug[f"df_{name}"]), "value": float(sug[name])}
    return auto


# ---------------------------------------------------------------------------- the tuner
def _summary(frame: pd.DataFrame, n_points: int) -> pd.DataFrame:
    """Per grid point (``_point``), in point order: :data:`GRID_COLUMNS`."""
    f = frame.assign(_empty=(frame["n_features"] == 0).astype(int))
    agg = (f.groupby("_point", sort=True)
           .agg(score=("score", "mean"), sd=("score", "std"), value=("value", "mean"),
                n_features=("n_features", "mean"), n_splits=("value", "size"),
                n_empty=("_empty", "sum"))
           .reindex(range(n_points)))
    return agg.reset_index(drop=True)


def _pick(grid: pd.DataFrame) -> int:
    """The row of least score among those empty on the fewest splits (first on ties)."""
    scored = grid[grid["score"].notna()]
    if scored.empty:
        raise ParameterError(
            "every grid point selected nothing on every inner split, so none could be "
            "scored; try lower thresholds (delta1, delta2) or delta1/delta2 'auto'",
            name="grid")
    fewest = scored[scored["n_empty"] == scored["n_empty"].min()]
    return int(fewest["score"].idxmin())


def tune(
    X,
    Y,
    grid: Mapping[str, Sequence[Any]],
    *,
    metric: str = "micro_f1",
    params: Mapping[str, Any] | None = None,
    cv: Any = None,
    inner: Any = None,
    held_out: bool = False,
    discretize: str | None = _DISC["discretize"].default,
    bins: int = _DISC["bins"].default,
    strategy: str = _DISC["strategy"].default,
    knn: Mapping[str, Any] | None = None,
    n_jobs: int = 1,
    progress: Progress | None = None,
    done: TuneResult | None = None,
    keep: Callable[[TuneResult], None] | None = None,
) -> TuneResult:
    """Choose Ca-MCF's parameters from a grid by inner cross-validation on training rows.

    Parameters
    ----------
    X : array-like of shape (n, m), or scipy.sparse
        Raw feature values (``discretize="auto"``/``"none"``) or codes (``discretize=None``).
    Y : array-like of shape (n, q)
        Label codes.
    grid : dict of name to list of values
        Ca-MCF parameters (:data:`camcf.algorithm_params.ALGORITHM_PARAMS`, e.g. ``delta1``,
        ``k1``; thresholds may be ``"auto"``) and the values to try; every combination is a
        grid point.
    metric : str, default "micro_f1"
        One of :data:`camcf.evaluation.METRICS`; scores are oriented so that lower is better.
    params : dict, optional
        Fixed Ca-MCF parameters for every point (not also in ``grid``); defaults for the rest.
    cv : splitter, optional
        The outer splitter (:func:`camcf.evaluation.make_splitter`, or any scikit-learn
        splitter); its held-out rows are never read. Default: the declared protocol.
    inner : splitter, optional
        Applied to each outer training part. Default: ``make_splitter("kfold",
        n_folds=3, seed=0)``.
    held_out : bool, default False
        Also estimate the tuning honestly (nested cross-validation, :attr:`TuneResult.held_out`):
        per outer split, the point best on its training rows and the defaults are classified
        on its held-out rows. Only this estimate reads the held-out rows; the scores and
        ``best`` never do.
    discretize, bins, strategy
        Discretisation, fitted on each inner training part (as
        :func:`camcf.evaluation.make_folds`).
    knn : dict, optional
        ML-kNN settings (:func:`camcf.evaluation.check_knn`).
    n_jobs : int, default 1
        joblib processes for the selections and classifications.
    progress : callable, optional
        ``progress(done, total, message)`` (:mod:`camcf.jobs`): one unit per outer split
        discretised, then :func:`camcf.evaluation.sensitivity`'s units (and, with
        ``held_out``, two selections and classifications per outer split); it may raise
        :class:`camcf.jobs.Cancelled`, which stops the tuning (nothing is returned).
    done : TuneResult, optional
        A partial result of this tuning (same data, grid, metric and splitters; e.g. what a
        stopped run handed to ``keep``): its finished grid points are taken as they are.
    keep : callable, optional
        Called after each grid point with the :class:`TuneResult` of the points finished so
        far (``settings["partial"]`` True until every point is done; the points not yet done
        have no score, ``best_index`` is None while no finished point could be scored).

    Returns
    -------
    TuneResult

    Raises
    ------
    camcf.ParameterError
        A bad grid name or value, metric, fixed parameter or ML-kNN setting (named); or no
        grid point could be scored (every selection empty).
    """
    from .evaluation.metrics import METRICS
    from .evaluation.settings import check_knn
    from .evaluation.splits import protocol_of
    from .evaluation.studies import sensitivity

    t0 = time.perf_counter()
    params = _check_params(params)
    grid = check_grid(grid, params)
    oriented(metric, 0.0)  # checks the name
    knn = check_knn(knn)
    disc = {"discretize": discretize, "bins": bins, "strategy": strategy}
    if discretize is not None:
        from .discretize import check_discretization

        check_discretization(**disc)
    cv, inner = _splitters(cv, inner)

    n_outer = int(cv.get_n_splits(X))
    n_inner = int(inner.get_n_splits())
    total_prep = n_outer
    planned = sensitivity.plan(n_outer * n_inner, grid, params).units
    later = 4 * n_outer if held_out else 0

    def prep_progress(done: int, message: str) -> None:
        if progress is not None:
            progress(done, total_prep + planned + later, message)

    prep_progress(0, "cutting each training part into inner folds")
    folds, outer_of, inner_of = _inner_folds(
        X, Y, cv, inner, disc,
        lambda o: prep_progress(o + 1, f"training part {o + 1}/{n_outer} cut into inner "
                                       "folds and discretised"))

    reached = [planned]  # what sensitivity counted to (fewer units when sets coincide)

    def run_progress(done: int, total: int, message: str) -> None:
        reached[0] = total
        if progress is not None:
            progress(total_prep + done, total_prep + total + later, message)

    keys = list(grid)
    combos = _combos(grid)
    defaults = {name: params.get(name, _ALGO[name].default) for name in THRESHOLDS}
    points = pd.DataFrame([{**defaults, **c} for c in combos],
                          columns=[*THRESHOLDS, *[k for k in keys if k not in THRESHOLDS]])
    settings = {
        "metric": metric,
        "higher_is_better": bool(METRICS[metric]["higher_is_better"]),
        "score": (f"1 - {metric}" if METRICS[metric]["higher_is_better"] else metric),
        "params": params,
        "grid": grid,
        "protocol": protocol_of(cv), "n_outer": n_outer,
        "inner": protocol_of(inner), "n_inner": n_inner,
        "n_splits": len(folds),
        **disc,
        "knn": knn,
        "auto": None,
    }

    def result(tidy: pd.DataFrame, partial: bool) -> tuple[TuneResult, pd.DataFrame]:
        point = tidy[keys].apply(tuple, axis=1).map({tuple(c.values()): i
                                                     for i, c in enumerate(combos)})
        split = tidy["split"].to_numpy(dtype=int)
        frame = pd.DataFrame({
            **{k: tidy[k] for k in keys},
            "outer": np.asarray(outer_of, dtype=int)[split],
            "inner": np.asarray(inner_of, dtype=int)[split], "split": split,
            "value": tidy["value"].astype(float),
            "score": oriented(metric, tidy["value"]),
            "n_features": tidy["n_features"].astype(int),
            "seconds": tidy["seconds"].astype(float),
            "_point": point.to_numpy(dtype=int)})
        table = pd.concat([points, _summary(frame, len(combos))], axis=1)
        try:
            best_index = _pick(table)
        except ParameterError:
            if not partial:
                raise
            best_index = None  # no finished point could be scored yet
        best = {} if best_index is None else {
            k: (v.item() if isinstance(v, np.generic) else v)
            for k, v in table.loc[best_index, points.columns].items()}
        done_points = int(frame["_point"].nunique())
        out = TuneResult(best=best, grid=table, best_index=best_index,
                         frame=frame.drop(columns="_point"),
                         settings={**settings, "partial": partial, "points_done": done_points,
                                   "seconds": time.perf_counter() - t0})
        return out, frame

    finished = None
    if done is not None:
        if done.settings.get("grid") != grid or done.settings.get("metric") != metric:
            raise ParameterError("done: a tuning of another grid or metric cannot be continued "
                                 "here; start it anew", name="done")
        finished = done.frame[[*keys, "split", "value", "n_features", "seconds"]].assign(
            metric=metric)

    def keep_partial(tidy: pd.DataFrame) -> None:
        if keep is not None:
            keep(result(tidy, partial=len(tidy[keys].drop_duplicates()) < len(combos))[0])

    tidy = sensitivity(folds, grid, params, metrics=metric, knn=knn, n_jobs=n_jobs,
                       progress=run_progress, done=finished, keep=keep_partial)
    out, frame = result(tidy, partial=False)
    auto = _resolve_auto(out.best, X, Y, disc, params)
    nested = None
    if held_out:
        start = total_prep + reached[0]
        nested = _held_out(X, Y, cv, disc, knn, frame, points, params, n_jobs, progress,
                           start, start + later)
    return dataclasses.replace(out, held_out=nested, settings={
        **out.settings, "auto": auto, "seconds": time.perf_counter() - t0})


def _held_out(X, Y, cv, disc, knn, frame: pd.DataFrame, points: pd.DataFrame,
              params: dict[str, Any], n_jobs: int, progress: Progress | None, start: int,
              total: int) -> pd.DataFrame:
    """The nested estimate (see :func:`tune`'s ``held_out``)."""
    from .evaluation.folds import make_folds
    from .evaluation.running import evaluate
    from .evaluation.studies import _camcf

    outer = make_folds(X, Y, cv, **disc)
    rows = []
    done = start
    for o, fold in enumerate(outer):
        fold = dataclasses.replace(fold, split=0)
        part = _summary(frame[frame["outer"] == o], len(points))
        try:
            i = _pick(pd.concat([points, part], axis=1))
        except ParameterError:  # nothing selected on any inner fold: no tuned point here
            done += 4
            continue
        chosen = {k: v.item() if isinstance(v, np.generic) else v
                  for k, v in points.loc[i].items()}
        sets = {"tuned": _camcf({**params, **chosen}), "defaults": _camcf(params)}

        def report(d: int, t: int, message: str, _o=o, _base=done) -> None:
            if progress is not None:
                progress(_base + d, max(total, _base + t),
                         f"held-out split {_o + 1}/{len(outer)}: {message}")

        ev = evaluate([fold], sets, knn=knn, n_jobs=n_jobs, progress=report)
        done += 4
        defaults = {k: params.get(k, _ALGO[k].default) for k in points.columns}
        for r in ev.frame.itertuples(index=False):
            tuned = r.feature_set == "tuned"
            rows.append({"outer": o, "set": r.feature_set, "point": i if tuned else None,
                         **(chosen if tuned else defaults), "metric": r.metric,
                         "value": float(r.value), "n_features": int(r.n_features)})
    out = pd.DataFrame(rows)
    if rows:
        out["point"] = pd.Series([r["point"] for r in rows], dtype=object)
    return out


def _combos(grid: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    import itertools

    keys = list(grid)
    return [dict(zip(keys, c, strict=True)) for c in itertools.product(*grid.values())]


def _splitters(cv: Any, inner: Any) -> tuple[Any, Any]:
    from .evaluation.splits import make_splitter

    return (make_splitter() if cv is None else cv,
            make_splitter("kfold", n_folds=INNER_FOLDS, seed=0) if inner is None else inner)

"""The studies: several methods on the same splits (:func:`compare`), Ca-MCF's feature sets
after each phase (:func:`ablation`), a parameter grid (:func:`sensitivity`), several data sets
(:func:`compare_data_sets`). Each says which selectors and which feature sets, and calls
:func:`camcf.evaluation.evaluate`.

Every study reports ``progress(done, total, message)`` after each unit of work (a selection on
one split, one classification) and stops when ``progress`` raises
:class:`camcf.jobs.Cancelled` (nothing is returned, a given cache is left as it was). Its plan —
how many selections and classifications it will do — is ``<study>.plan(...)`` with the same
arguments (e.g. ``ablation.plan(folds, params)``), before anything runs.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from ..algorithm_params import DISCRETIZE_PARAMS, by_name
from ..errors import ParameterError
from ..jobs import PartProgress, Progress
from .folds import Fold, make_folds
from .metrics import METRICS
from .running import (
    Evaluation,
    FeatureSet,
    KnnCache,
    Plan,
    SelectionCache,
    _as_methods,
    _check_folds,
    evaluate,
    plan_evaluate,
)
from .summaries import RESULT_COLUMNS  # the columns after the grid parameters

_DISC = by_name(DISCRETIZE_PARAMS)

__all__ = ["ABLATION_SETS", "RESULT_COLUMNS", "Comparison", "ablation", "compare",
           "compare_data_sets", "sensitivity"]

#: Feature sets of :func:`ablation`, in the order of the paper's figure.
ABLATION_SETS = ("all", "phase2", "phase3", "phase4", "camcf")
#: Alias: :func:`compare` returns an :class:`Evaluation`.
Comparison = Evaluation


def _camcf(params: Mapping[str, Any] | None):
    from ..estimator import CaMCF

    est = CaMCF()
    params = dict(params or {})
    known = set(est.get_params())
    unknown = sorted(set(params) - known)
    if unknown:
        raise ParameterError(f"unknown Ca-MCF parameter(s) {unknown}; known: {sorted(known)}",
                             name=unknown[0], value=params[unknown[0]], allowed=sorted(known))
    est.set_params(**params)
    est._checked_params()
    return est


# ---------------------------------------------------------------------------- compare
def compare(
    folds: Sequence[Fold],
    methods: Mapping[str, Any] | Sequence[str],
    *,
    n_features: int | float | str | None = "match",
    reference: str = "camcf",
    knn: Mapping[str, Any] | None = None,
    cache: KnnCache | None = None,
    selections: SelectionCache | None = None,
    n_jobs: int = 1,
    progress: Progress | None = None,
    done: Evaluation | None = None,
    keep: Callable[[Evaluation], None] | None = None,
) -> Evaluation:
    """Every method on the same folds: select on each training part, classify each test part.

    The methods are done one after another (the reference first when ranking methods are cut
    to its selections' sizes), each selected on every fold and then classified, so a
    comparison stopped part way has its finished methods (``keep``) and its finished
    selections (``selections``) and can go on from them (``done``, ``selections``).

    Parameters
    ----------
    folds : list of Fold
    methods : dict of name to selector, or registry names (:mod:`camcf.methods`)
    n_features, reference
        How ranking methods are cut (:func:`evaluate`): by default to the size of
        ``reference``'s (Ca-MCF's) selection on the same split.
    knn, cache, selections, n_jobs
        As for :func:`evaluate` (``cache`` and ``selections`` are shared by the methods).
    progress : callable, optional
        As for :func:`evaluate`; the total is the plan's (:func:`compare.plan`) from start to
        end, each message begins with the method's name and place (``"mi-mcf (method 2 of
        5): …"``).
    done : Evaluation, optional
        A partial comparison on these folds (what ``keep`` was given): its methods are taken
        as they are and their units count as done.
    keep : callable, optional
        Called after each method with the comparison of the methods finished so far.

    Returns
    -------
    Evaluation
        ``feature_set`` = method name; ``sets``, ``kinds`` and ``failures`` per method.
    """
    if not methods:
        raise ParameterError("give at least one method")
    methods = _as_methods(methods)
    folds = list(folds)
    n = len(folds)
    cache = cache if cache is not None else KnnCache()
    selections = selections if selections is not None else SelectionCache()
    names = list(methods)
    needs_ref = n_features == "match" and reference in methods and any(
        m != reference for m in names)
    order = ([reference] if needs_ref else []) + [m for m in names
                                                 if not (needs_ref and m == reference)]
    finished = {} if done is None else {
        m: _only(done, m) for m in order if m in done.kinds}
    total = 2 * n * len(order)
    parts: dict[str, Evaluation] = {}
    for k, name in enumerate(order):
        offset = 2 * n * k
        if name in finished:
            parts[name] = finished[name]
            continue
        chosen = {name: methods[name]}
        if needs_ref and name != reference:
            chosen[reference] = methods[reference]  # (selected already: from the cache)
        own = evaluate.plan(folds, {name: methods[name]}, sets={name: FeatureSet(name)})
        fits_left = sum(selections.get(SelectionCache.key(f, methods[name], False)) is None
                        for f in folds)
        report = PartProgress(progress, offset=offset + own.selections - fits_left, total=total,
                              units=fits_left + own.classifications,
                              prefix=f"{name} (method {k + 1} of {len(order)}): ")
        ev = evaluate(folds, chosen, sets={name: FeatureSet(name)}, n_features=n_features,
                      reference=reference, knn=knn, cache=cache, selections=selections,
                      n_jobs=n_jobs, progress=report)
        parts[name] = _only(ev, name)
        if keep is not None:
            keep(Evaluation.combine(list(parts.values()), order=names))
        report.release()  # a stop asked for during the method's last unit: after keeping it
    return Evaluation.combine([parts[m] for m in order], order=names)


def _only(ev: Evaluation, name: str) -> Evaluation:
    """``ev``'s part of method ``name`` (its set, selections, kind and failures)."""
    return Evaluation(frame=ev.frame[ev.frame["feature_set"] == name].reset_index(drop=True),
                      sets=[{name: s[name]} for s in ev.sets],
                      selections={k: v for k, v in ev.selections.items() if k[0] == name},
                      kinds={name: ev.kinds[name]},
                      failures={name: ev.failures[name]} if name in ev.failures else {},
                      settings=dict(ev.settings))


def _plan_compare(folds: Sequence[Fold] | int, methods: Mapping[str, Any] | Sequence[str],
                  **_ignored: Any) -> Plan:
    """A selection and a classification per method and split (:func:`compare`'s units; a
    method identical to another, or already selected, counts as done at once)."""
    n = len(folds) if not isinstance(folds, int) else int(folds)
    k = len(_as_methods(methods))
    return Plan(n_splits=n, selections=k * n, classifications=k * n)


compare.plan = _plan_compare  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------- ablation
def _ablation_specs(params, sets: Sequence[str], m: int | None):
    unknown = [f for f in sets if f not in ABLATION_SETS]
    if unknown or not sets:
        raise ParameterError(
            f"sets must be among {list(ABLATION_SETS)}; got {list(sets)}")
    est = _camcf(params)
    specs: dict[str, Any] = {}
    for name in sets:
        if name == "all":
            specs[name] = range(m) if m is not None else range(1)
        else:
            specs[name] = FeatureSet("camcf", "support" if name == "camcf" else name)
    return {"camcf": est}, specs


def ablation(
    folds: Sequence[Fold],
    params: Mapping[str, Any] | None = None,
    *,
    sets: Sequence[str] = ABLATION_SETS,
    knn: Mapping[str, Any] | None = None,
    cache: KnnCache | None = None,
    n_jobs: int = 1,
    progress: Progress | None = None,
) -> Evaluation:
    """All features vs the feature sets after Phases 2, 3, 4 vs Ca-MCF, on the same folds.

    Ca-MCF (:class:`camcf.CaMCF` with ``params``) is fitted once per fold on the training
    rows; the union over categories of the features present after each phase
    (:meth:`camcf.Result.selected_after`) and the final selection are classified on the test
    rows (the paper's ablation figure; Phase 1 selects no feature, so "all features" stands in
    for the start). ``seconds`` is Ca-MCF's fit time (0 for ``"all"``). A failure of Ca-MCF on a
    split is raised (:class:`camcf.CamcfError`).

    Parameters
    ----------
    folds : list of Fold
    params : dict, optional
        Ca-MCF's parameters (defaults for the others).
    sets : sequence of str, default :data:`ABLATION_SETS`
        Which of ``"all"``, ``"phase2"``, ``"phase3"``, ``"phase4"``, ``"camcf"``, in this order.
    knn, cache, n_jobs, progress
        As for :func:`evaluate`.

    Returns
    -------
    Evaluation
        ``frame`` (``feature_set`` = the names of ``sets``) and ``sets`` (per fold, the
        indices of each).
    """
    folds = _check_folds(folds, n_jobs)
    selectors, specs = _ablation_specs(params, sets, folds[0].n_features)
    return evaluate(folds, selectors, sets=specs, knn=knn, on_failure="raise", cache=cache,
                    n_jobs=n_jobs, progress=progress)


def _plan_ablation(folds: Sequence[Fold] | int, params: Mapping[str, Any] | None = None, *,
                   sets: Sequence[str] = ABLATION_SETS, **_ignored: Any) -> Plan:
    selectors, specs = _ablation_specs(params, sets, None)
    return plan_evaluate(folds, selectors, sets=specs)


ablation.plan = _plan_ablation  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------- sensitivity
def _grid_specs(grid: Mapping[str, Sequence[Any]], base_params, feature_set: str):
    if not grid:
        raise ParameterError("grid must name at least one parameter with a list of values")
    for name, values in grid.items():
        if name in RESULT_COLUMNS:
            raise ParameterError(f"grid parameter name {name!r} clashes with a result column")
        if len(values) == 0:
            raise ParameterError(f"grid[{name!r}] is empty; give at least one value")
    if feature_set not in ABLATION_SETS or feature_set == "all":
        raise ParameterError(
            f"feature_set must be 'camcf', 'phase2', 'phase3' or 'phase4'; got {feature_set!r}")
    keys = list(grid)
    combos = [dict(zip(keys, c, strict=True)) for c in itertools.product(*grid.values())]
    selectors = {f"g{i}": _camcf({**(base_params or {}), **c}) for i, c in enumerate(combos)}
    part = "support" if feature_set == "camcf" else feature_set
    return combos, selectors, {g: FeatureSet(g, part) for g in selectors}


def _metrics(metrics) -> list[str]:
    metrics = list(METRICS) if metrics is None else (
        [metrics] if isinstance(metrics, str) else list(metrics))
    unknown = [m for m in metrics if m not in METRICS]
    if unknown or not metrics:
        raise ParameterError(f"metrics must be among {list(METRICS)}; got {metrics!r}",
                             name="metrics", value=metrics, allowed=list(METRICS))
    return metrics


def sensitivity(
    folds: Sequence[Fold],
    grid: Mapping[str, Sequence[Any]],
    base_params: Mapping[str, Any] | None = None,
    *,
    metrics: str | Sequence[str] | None = None,
    feature_set: str = "camcf",
    knn: Mapping[str, Any] | None = None,
    cache: KnnCache | None = None,
    n_jobs: int = 1,
    progress: Progress | None = None,
    done: pd.DataFrame | None = None,
    keep: Callable[[pd.DataFrame], None] | None = None,
) -> pd.DataFrame:
    """Every combination of a Ca-MCF parameter grid on every fold (the sensitivity figure).

    For each combination (``itertools.product`` over ``grid`` in key order) the parameters are
    ``{**base_params, **combination}``; Ca-MCF selects on each fold's training rows and
    ``feature_set`` (``"camcf"`` or ``"phase2"``–``"phase4"``) is classified on its test rows.
    The grid points are done one after another (each on every fold); identical feature subsets
    on a fold are classified once (``cache``, shared by the points).

    ``done``: rows of this function's output for grid points already finished (e.g. by a
    stopped run: they are taken as they are, not computed again, and their units count as
    done). ``keep``: called after each grid point with the rows of every point finished so
    far (what ``done`` takes back).

    Returns
    -------
    DataFrame
        Tidy: one column per grid parameter, then ``split, metric, value, n_features,
        seconds`` (:data:`RESULT_COLUMNS`), one row per (grid point, split, metric).
    """
    metrics = _metrics(metrics)
    combos, selectors, specs = _grid_specs(grid, base_params, feature_set)
    keys = list(grid)
    cache = cache if cache is not None else KnnCache()
    units = [plan_evaluate(folds, {g: sel}, sets={g: specs[g]}).units
             for g, sel in selectors.items()]
    total = sum(units)
    finished = {} if done is None else {
        tuple(point): rows for point, rows in done.groupby(keys, sort=False)}
    parts: list[pd.DataFrame] = []
    offset = 0
    for (g, sel), combo, n_units in zip(selectors.items(), combos, units, strict=True):
        point = tuple(combo[k] for k in keys)
        if point in finished:
            parts.append(finished[point][[*keys, *RESULT_COLUMNS]])
            offset += n_units
            if progress is not None:
                progress(offset, total, f"{dict(zip(keys, point, strict=True))}: done before")
            continue

        report = PartProgress(progress, offset=offset, total=total, units=n_units)
        ev = evaluate(folds, {g: sel}, sets={g: specs[g]}, knn=knn, cache=cache,
                      n_jobs=n_jobs, progress=report)
        frame = ev.frame[ev.frame["metric"].isin(metrics)]
        parts.append(pd.DataFrame([combo] * len(frame), columns=keys)
                     .join(frame[list(RESULT_COLUMNS)].reset_index(drop=True)))
        offset += n_units
        if keep is not None:
            keep(pd.concat(parts, ignore_index=True))
        report.release()  # a stop asked for during the point's last unit: after keeping it
    return pd.concat(parts, ignore_index=True)[[*keys, *RESULT_COLUMNS]]


def _plan_sensitivity(folds: Sequence[Fold] | int, grid: Mapping[str, Sequence[Any]],
                      base_params: Mapping[str, Any] | None = None, *,
                      feature_set: str = "camcf", **_ignored: Any) -> Plan:
    _, selectors, specs = _grid_specs(grid, base_params, feature_set)
    return plan_evaluate(folds, selectors, sets=specs)


sensitivity.plan = _plan_sensitivity  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------- data sets
def _data_folds(X, Y, X_test, Y_test, cv, disc: dict) -> list[Fold]:
    if X_test is not None or Y_test is not None:
        if getattr(cv, "protocol", None) != "holdout":
            raise ParameterError(
                f"this data set comes with a fixed train/test split (the 'holdout' protocol); "
                f"{cv!r} resamples one data set: use make_splitter('holdout')")
        return make_folds(X, Y, X_test=X_test, Y_test=Y_test, **disc)
    return make_folds(X, Y, cv, **disc)


def compare_data_sets(
    data: Mapping[str, tuple],
    methods: Mapping[str, Any] | Sequence[str],
    cv: Any = None,
    *,
    discretize: str | None = _DISC["discretize"].default,
    bins: int = _DISC["bins"].default,
    strategy: str = _DISC["strategy"].default,
    n_features: int | float | str | None = "match",
    reference: str = "camcf",
    knn: Mapping[str, Any] | None = None,
    selections: SelectionCache | None = None,
    n_jobs: int = 1,
    progress: Progress | None = None,
    done: Mapping[str, Evaluation] | None = None,
    keep: Callable[[str, Evaluation], None] | None = None,
) -> dict[str, Evaluation]:
    """:func:`compare` on each data set.

    Parameters
    ----------
    data : dict
        ``{name: (X, Y)}``, or ``{name: (X, Y, X_test, Y_test)}`` for a data set with a fixed
        split (used as one hold-out fold; then ``cv`` must be a hold-out splitter or None).
    methods : dict of name to selector, or registry names
    cv : splitter, optional
        How each data set is split (:func:`camcf.evaluation.make_splitter`; default: the
        default protocol, 5 × 70/30 repeated hold-out, seed 0).
    discretize, bins, strategy
        As for :func:`camcf.evaluation.make_folds`.
    n_features, reference, knn, selections, n_jobs
        As for :func:`compare` (``selections`` shared by the data sets: its keys are the folds'
        content).
    progress : callable, optional
        Messages are prefixed with the data set's name; ``done``/``total`` count all the data
        sets' units (the total is the plan's from the start to the end).
    done : dict, optional
        ``{name: partial comparison}`` (what ``keep`` was given): each is continued
        (:func:`compare`'s ``done``); a data set done with every method is not split again.
    keep : callable, optional
        ``keep(name, comparison)`` after each method on each data set (the comparison of that
        data set's methods finished so far).

    Returns
    -------
    dict of name to Evaluation
    """
    from .splits import make_splitter

    cv = make_splitter() if cv is None else cv
    disc = {"discretize": discretize, "bins": bins, "strategy": strategy}
    plans = _data_plans(data, methods, cv)
    offsets = [sum(p.units for p in plans[:i]) for i in range(len(plans))]
    names = list(_as_methods(methods))
    done = dict(done or {})
    out: dict[str, Evaluation] = {}
    for i, name in enumerate(data):
        if name in done and set(names) <= set(done[name].kinds):
            out[name] = done[name]  # finished before: nothing to do
            continue
        X, Y, *rest = data[name]
        X_test, Y_test = (rest + [None, None])[:2]
        folds = _data_folds(X, Y, X_test, Y_test, cv, disc)
        later = sum(p.units for p in plans[i + 1:])

        def prog(done: int, total: int, msg: str, _o=offsets[i], _later=later,
                 _name=name) -> None:
            if progress is not None:
                progress(_o + done, _o + total + _later, f"{_name}: {msg}")

        out[name] = compare(folds, methods, n_features=n_features, reference=reference,
                            knn=knn, selections=selections, n_jobs=n_jobs, progress=prog,
                            done=done.get(name),
                            keep=None if keep is None else (lambda ev, _n=name: keep(_n, ev)))
    return out


def _data_plans(data: Mapping[str, tuple], methods, cv) -> list[Plan]:
    plans = []
    for parts in data.values():
        n = 1 if len(parts) > 2 and parts[2] is not None else cv.get_n_splits()
        plans.append(_plan_compare(n, methods))
    return plans


def _plan_compare_data_sets(data: Mapping[str, tuple], methods, cv: Any = None,
                            **_ignored: Any) -> Plan:
    from .splits import make_splitter

    plans = _data_plans(data, methods, make_splitter() if cv is None else cv)
    return Plan(n_splits=sum(p.n_splits for p in plans),
                selections=sum(p.selections for p in plans),
                classifications=sum(p.classifications for p in plans))


compare_data_sets.plan = _plan_compare_data_sets  # type: ignore[attr-defined]


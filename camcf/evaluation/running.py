"""The evaluation core: select on every fold's training rows, classify every feature set on its
test rows, one tidy frame out.

:func:`evaluate` is the one place where selection and classification are wired; the studies
(:mod:`camcf.evaluation.studies`: ``compare``, ``ablation``, ``sensitivity``) only say which
selectors and which feature sets. Two stages, each a sequence of units of work that report
``progress(done, total, message)`` (:mod:`camcf.jobs`) and may be stopped by it:

1. **Selection** — every selector is cloned and fitted on every fold's training codes (Ca-MCF
   gets the label codes, other methods the binary label columns; a selector with its own
   ``discretize`` parameter is told ``"none"``: the fold already holds codes). Selectors with
   the same class and parameters are fitted once per fold. A method that fails on a split with
   a :class:`camcf.CamcfError` is recorded as failed there (its sets are empty).
2. **Classification** — ML-kNN (:class:`camcf.evaluation.MLkNN`) on each distinct non-empty
   feature set of each fold, scored on the test rows with the seven metrics. One
   :class:`~camcf.evaluation.neighbours.NeighbourIndex` per fold serves all its feature sets;
   results are kept in a :class:`KnnCache` by (fold content, feature set, ML-kNN settings).

Frames are tidy, one row per (split, feature set, metric), columns :data:`COLUMNS`. An empty
feature set cannot be classified: ``n_features = 0`` and ``value = NaN``.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ..errors import CamcfError, ParameterError
from ..jobs import Cancelled, Progress
from .folds import Fold
from .metrics import METRICS, evaluate_all
from .mlknn import MLkNN
from .neighbours import NeighbourIndex
from .settings import check_knn
from .summaries import COLUMNS, summarise

__all__ = [
    "COLUMNS",
    "Evaluation",
    "FeatureSet",
    "KnnCache",
    "Plan",
    "Selection",
    "SelectionCache",
    "evaluate",
    "select_on_folds",
]

#: What a :class:`FeatureSet` may take of a selection.
PARTS = ("support", "phase2", "phase3", "phase4")


class FeatureSet(NamedTuple):
    """A feature set taken from a selector's result on each fold.

    ``part``: ``"support"`` — the selection (a ranking method's ranking cut as
    :func:`evaluate`'s ``n_features`` says); ``"phase2"``, ``"phase3"``, ``"phase4"`` — Ca-MCF's
    features after that phase (:meth:`camcf.Result.selected_after`).
    """

    selector: str
    part: str = "support"


@dataclass(frozen=True)
class Selection:
    """What one method did on one fold's training rows.

    ``kind``: ``"subset"`` or ``"ranking"``. ``support``: the selected feature indices (sorted;
    for a ranking method the estimator's own cut). ``ranking``: every feature, best first
    (ranking methods only). ``extra``: further named feature sets (Ca-MCF: the sets after
    Phases 2, 3 and 4, when asked for). ``error``: the message when the method failed on this
    split (then the sets are empty). ``seconds``: wall-clock time of ``fit``. ``blankets``
    and ``label_blankets``: per label column the method was given, the features and the
    labels it found for that label, when the method says (its ``blankets_`` and
    ``label_blankets_``: Ca-MCF, MI-MCF, PC); what :mod:`camcf.truth` scores per label.
    """

    kind: str
    support: tuple[int, ...]
    seconds: float
    ranking: tuple[int, ...] | None = None
    extra: dict[str, tuple[int, ...]] = field(default_factory=dict)
    error: str | None = None
    blankets: tuple[tuple[int, ...], ...] | None = None
    label_blankets: tuple[tuple[int, ...], ...] | None = None


@dataclass(frozen=True)
class Plan:
    """The work a study will do, known before it runs.

    ``selections``: selector fits (one per distinct selector and split). ``classifications``:
    ML-kNN runs at most (one per distinct feature set and split; fewer when sets coincide, are
    empty, or are already in the cache). A job runner estimates the cost as ``selections ×``
    seconds per selection ``+ classifications ×`` seconds per classification; ``units`` is what
    ``progress`` counts to.
    """

    n_splits: int
    selections: int
    classifications: int

    @property
    def units(self) -> int:
        return self.selections + self.classifications


class KnnCache:
    """Metric values per (fold, feature subset, ML-kNN settings); share it between calls.

    Keys use the fold's content hash (:attr:`Fold.key`), so one cache serves every call on
    the same folds and never mixes up different data. ``hits`` and ``misses`` count look-ups.
    A study adds its values only when it finishes (a stopped study leaves the cache as it was).
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


class SelectionCache:
    """Selections per (fold, selector and its parameters, extras); share it between calls.

    Unlike :class:`KnnCache` it is filled as each selection finishes, so a stopped study's
    finished selections are kept: the same study started again with this cache (e.g. handed
    back from a stopped job) fits only what is missing. Keys use the fold's content hash."""

    def __init__(self, values: Mapping[tuple, Selection] | None = None,
                 on_put: Callable[[SelectionCache], None] | None = None) -> None:
        self._values: dict[tuple, Selection] = dict(values or {})
        #: called after each new selection (e.g. to hand the cache's content over)
        self.on_put = on_put

    @staticmethod
    def key(fold: Fold, estimator, extras: bool) -> tuple:
        return (fold.key or id(fold), _est_key(estimator), bool(extras))

    def get(self, key: tuple) -> Selection | None:
        return self._values.get(key)

    def put(self, key: tuple, value: Selection) -> None:
        self._values[key] = value
        if self.on_put is not None:
            self.on_put(self)

    def values(self) -> dict[tuple, Selection]:
        """The cache's content as a plain dict (``SelectionCache(values)`` takes it back)."""
        return dict(self._values)

    def __len__(self) -> int:
        return len(self._values)


@dataclass(frozen=True, eq=False)
class Evaluation:
    """The outcome of :func:`evaluate` (and of ``compare`` and ``ablation``).

    Attributes
    ----------
    frame : DataFrame
        Tidy, :data:`COLUMNS`: one row per (split, feature set, metric); ``seconds`` is the
        fit time of the selector the set came from (0 for a fixed set).
    sets : list of dict
        Per fold, ``{feature set name: feature indices}``.
    selections : dict
        ``(selector name, fold number) -> Selection``.
    kinds : dict
        ``{selector: "subset" | "ranking"}``.
    failures : dict
        ``{selector: [(split, message)]}`` for splits where a selector raised a CamcfError.
    settings : dict
        The ML-kNN settings, ``n_features``, ``reference``, ``protocol``, ``n_splits``.
    """

    frame: pd.DataFrame
    sets: list[dict[str, tuple[int, ...]]]
    selections: dict[tuple[str, int], Selection]
    kinds: dict[str, str]
    failures: dict[str, list[tuple[int, str]]]
    settings: dict[str, Any]

    @cached_property
    def summary(self) -> pd.DataFrame:
        """:func:`camcf.evaluation.summarise` of :attr:`frame`."""
        return summarise(self.frame)

    def split_ranks(self, metric: str) -> pd.DataFrame:
        """Per split, the feature sets ranked on ``metric`` (1 = best, ties averaged; a set
        without a value on a split — empty, or its method failed — ranks last there)."""
        from ..stats import rank_scores

        wide = self.frame[self.frame["metric"] == metric].pivot(
            index="split", columns="feature_set", values="value")
        wide = wide[list(dict.fromkeys(self.frame["feature_set"]))]
        lower = not METRICS[metric]["higher_is_better"]
        worst = np.inf if lower else -np.inf
        filled = wide.to_numpy(dtype=float)
        filled = np.where(np.isnan(filled), np.nan_to_num(worst, posinf=1e300, neginf=-1e300),
                          filled)
        ranks = rank_scores(filled, lower_is_better=lower)
        return pd.DataFrame(ranks, index=wide.index, columns=wide.columns)

    @classmethod
    def combine(cls, parts: Sequence[Evaluation], order: Sequence[str] | None = None
                ) -> Evaluation:
        """One evaluation of the feature sets of ``parts`` (evaluations on the same folds, each
        of other sets: e.g. a comparison run one method at a time): rows in fold order, each
        fold's sets in ``order`` (default: the parts' order), ``kinds`` likewise; the settings
        of the first part."""
        if not parts:
            raise ParameterError("combine needs at least one evaluation")
        n = len(parts[0].sets)
        frame = pd.concat([p.frame for p in parts], ignore_index=True)
        names = list(dict.fromkeys([*(order or ()),
                                    *(k for p in parts for k in p.frame["feature_set"])]))
        order = {name: i for i, name in enumerate(names)}
        frame = (frame.assign(_o=frame["feature_set"].map(order), _r=range(len(frame)))
                 .sort_values(["split", "_o", "_r"], kind="stable")
                 .drop(columns=["_o", "_r"]).reset_index(drop=True))
        sets = [{k: v for p in parts for k, v in p.sets[fi].items()} for fi in range(n)]
        sets = [dict(sorted(d.items(), key=lambda kv: order.get(kv[0], len(order))))
                for d in sets]
        failures: dict[str, list[tuple[int, str]]] = {}
        for p in parts:
            for name, fails in p.failures.items():
                failures.setdefault(name, fails)
        kinds = {k: v for p in parts for k, v in p.kinds.items()}
        return cls(frame=frame, sets=sets,
                   selections={k: v for p in parts for k, v in p.selections.items()},
                   kinds=dict(sorted(kinds.items(), key=lambda kv: order.get(kv[0], 0))),
                   failures=failures, settings=dict(parts[0].settings))

    def friedman_over_splits(self, metric: str, alpha: float = 0.05):
        """The Friedman test with the splits as blocks (one data set). Indicative only: the
        splits share rows (they are not independent data sets, as the test assumes), so the
        paper's analysis over data sets (:func:`camcf.evaluation.friedman_over_data_sets`) is
        the sound one."""
        from ..stats import friedman

        ranks = self.split_ranks(metric)
        return friedman(ranks.to_numpy(), lower_is_better=True, alpha=alpha)


# ---------------------------------------------------------------------------- checks
def _check_folds(folds: Sequence[Fold], n_jobs: int) -> list[Fold]:
    folds = list(folds)
    if not folds or not all(isinstance(f, Fold) for f in folds):
        raise ParameterError("folds must be a non-empty list of Fold (see make_folds)")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
        raise ParameterError(f"n_jobs must be an integer >= 1; got n_jobs={n_jobs!r}",
                             name="n_jobs", value=n_jobs, allowed="an integer >= 1")
    return folds


def _as_methods(methods) -> dict[str, Any]:
    if methods is None:
        return {}
    if isinstance(methods, Mapping):
        out = dict(methods)
    else:
        from .. import methods as registry

        out = {name: registry.make(name) for name in methods}
    for name, est in out.items():
        if not (hasattr(est, "fit") and hasattr(est, "get_support")
                and hasattr(est, "get_params")):
            raise ParameterError(f"method {name!r} is not a scikit-learn feature selector "
                                 f"(needs fit, get_support, get_params); got {est!r}")
    return out


def _check_sets(sets: Mapping[str, Any] | None, methods: Mapping[str, Any], m: int | None
                ) -> dict[str, FeatureSet | tuple[int, ...]]:
    """``{name: FeatureSet or fixed sorted indices}``; default: every selector's support."""
    if sets is None:
        if not methods:
            raise ParameterError("give selectors, or feature sets to classify (sets=...)")
        return {name: FeatureSet(name) for name in methods}
    out: dict[str, FeatureSet | tuple[int, ...]] = {}
    for name, spec in sets.items():
        if isinstance(spec, FeatureSet):
            if spec.selector not in methods:
                raise ParameterError(f"feature set {name!r} takes from selector "
                                     f"{spec.selector!r}, which is not among the selectors "
                                     f"{list(methods)}")
            if spec.part not in PARTS:
                raise ParameterError(f"feature set {name!r}: part must be one of {PARTS}; got "
                                     f"{spec.part!r}")
            out[str(name)] = spec
            continue
        idx = np.unique(np.asarray(list(spec), dtype=np.int64).ravel())
        if idx.size and (idx[0] < 0 or (m is not None and idx[-1] >= m)):
            raise ParameterError(
                f"feature set {name!r} holds indices outside 0..{(m or 1) - 1}: {idx.tolist()}")
        out[str(name)] = tuple(int(i) for i in idx)
    if not out:
        raise ParameterError("give at least one feature set")
    return out


def _n_of(n_features: int | float, m: int) -> int:
    if isinstance(n_features, float) and 0 < n_features <= 1:
        return min(m, math.ceil(n_features * m))
    return min(m, int(n_features))


def _check_n_features(n_features) -> None:
    if isinstance(n_features, str) and n_features != "match":
        raise ParameterError(f"n_features must be 'match', a number or None; got {n_features!r}",
                             name="n_features", value=n_features,
                             allowed="'match', a number > 0 or None")
    if isinstance(n_features, bool) or (isinstance(n_features, int | float)
                                        and not isinstance(n_features, str)
                                        and n_features <= 0):
        raise ParameterError(f"n_features must be ≥ 1 (or a share in (0, 1]); got {n_features!r}",
                             name="n_features", value=n_features,
                             allowed="'match', a number > 0 or None")


# ---------------------------------------------------------------------------- progress
class _Progress:
    """Monotone progress over the two stages; the total is exact once selection is done."""

    def __init__(self, progress: Progress | None, plan: Plan) -> None:
        self.progress = progress
        self.done = 0
        self.total = plan.units

    def classify(self, n: int) -> None:
        """``n`` classifications are to run: the planned ones beyond them (identical, empty or
        cached feature sets) count as done at once, so the total stays the planned one."""
        skipped = self.total - self.done - n
        if skipped > 0:
            self.done += skipped
        else:
            self.total = self.done + n
        self.report("classifying")

    def report(self, message: str) -> None:
        if self.progress is not None:
            self.progress(self.done, max(self.total, self.done), message)

    def tick(self, message: str, units: int = 1) -> None:
        self.done += units
        self.report(message)


def _run_tasks(fn: Callable, tasks: list, n_jobs: int, tick: Callable) -> list:
    """``fn(*task)`` for every task, in order; serial, or with joblib's process pool. ``tick``
    is called after each task (in this process) and may raise to stop."""
    if n_jobs == 1 or len(tasks) <= 1:
        out = []
        for task in tasks:
            out.append(fn(*task))
            tick(task, out[-1])
        return out
    from joblib import Parallel, delayed

    out = []
    gen = Parallel(n_jobs=min(n_jobs, len(tasks)), return_as="generator")(
        delayed(fn)(*task) for task in tasks)
    try:
        for task, value in zip(tasks, gen, strict=True):
            out.append(value)
            tick(task, value)
    finally:
        with warnings.catch_warnings():  # "tasks ... have been cancelled": that is the point
            warnings.simplefilter("ignore", UserWarning)
            gen.close()  # a stop (or an error) abandons the tasks not yet collected
    return out


# ---------------------------------------------------------------------------- selection
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
    except Cancelled:
        raise
    except CamcfError as e:
        return Selection(kind=getattr(est, "kind", "subset"), support=(),
                         seconds=time.perf_counter() - t0, error=str(e))
    seconds = time.perf_counter() - t0
    ranking = getattr(est, "ranking_", None)
    kind = "ranking" if ranking is not None else "subset"
    extra: dict[str, tuple[int, ...]] = {}
    result = getattr(est, "result_", None)
    if extras and result is not None:
        extra = {p: tuple(int(f) for f in result.selected_after(p)) for p in PARTS[1:]}
    return Selection(kind=kind, support=support, seconds=seconds,
                     ranking=None if ranking is None else tuple(int(i) for i in ranking),
                     extra=extra, blankets=_per_label(getattr(est, "blankets_", None)),
                     label_blankets=_per_label(getattr(est, "label_blankets_", None)))


def _per_label(sets) -> tuple[tuple[int, ...], ...] | None:
    """A selector's per-label sets as tuples of ints (None when it has none)."""
    return None if sets is None else tuple(tuple(int(f) for f in v) for v in sets)


def _est_key(est) -> tuple:
    return (type(est).__module__, type(est).__qualname__,
            tuple(sorted((k, repr(v)) for k, v in est.get_params(deep=False).items())))


def _distinct(methods: Mapping[str, Any]) -> dict[tuple, str]:
    """``{estimator key: first name}``: selectors with equal class and parameters fit once."""
    distinct: dict[tuple, str] = {}
    for name, est in methods.items():
        distinct.setdefault(_est_key(est), name)
    return distinct


def _selection_tasks(folds: list[Fold], methods: dict[str, Any], extras: set[str],
                     cache: SelectionCache | None) -> tuple[list, list, dict]:
    """The fits to run — ``(fold, selector, extras)`` tasks and their selectors' names — and
    the selections ``cache`` already holds, by (name, id of fold)."""
    distinct = _distinct(methods)
    firsts = list(dict.fromkeys(distinct.values()))
    wants_extras = {distinct[_est_key(methods[n])] for n in extras}
    tasks, names, cached = [], [], {}
    for name in firsts:
        for fold in folds:
            task = (fold, methods[name], name in wants_extras)
            hit = None if cache is None else cache.get(SelectionCache.key(*task))
            if hit is not None:
                cached[(name, id(fold))] = hit
            else:
                tasks.append(task)
                names.append(name)
    return tasks, names, cached


def _select_all(folds: list[Fold], methods: dict[str, Any], extras: set[str], n_jobs: int,
                prog: _Progress, cache: SelectionCache | None = None
                ) -> dict[tuple[str, int], Selection]:
    distinct = _distinct(methods)
    tasks, names, by_first = _selection_tasks(folds, methods, extras, cache)
    counter = iter(names)

    def tick(task, value) -> None:
        if cache is not None:  # kept as soon as it is done (a stop keeps it)
            cache.put(SelectionCache.key(*task), value)
        prog.tick(f"{next(counter)}: selected on split {task[0].split + 1}/{len(folds)}")

    results = _run_tasks(_fit_one, tasks, n_jobs, tick)
    by_first.update({(names[i], id(tasks[i][0])): r for i, r in enumerate(results)})
    out = {}
    for name, est in methods.items():
        first = distinct[_est_key(est)]
        for fi, fold in enumerate(folds):
            out[(name, fi)] = by_first[(first, id(fold))]
    return out


def select_on_folds(
    folds: Sequence[Fold],
    methods: Mapping[str, Any] | Sequence[str],
    *,
    extras: bool = False,
    n_jobs: int = 1,
    progress: Progress | None = None,
) -> dict[tuple[str, int], Selection]:
    """Fit every method on every fold's training rows (the first stage of :func:`evaluate`).

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
        ``progress(done, total, message)`` after each fit; may raise
        :class:`camcf.jobs.Cancelled` to stop.

    Returns
    -------
    dict
        ``(method name, fold number) -> Selection``. Methods with identical parameters
        (``get_params``) and class are fitted once per fold.
    """
    folds = _check_folds(folds, n_jobs)
    methods = _as_methods(methods)
    if not methods:
        raise ParameterError("give at least one method")
    n = len(_distinct(methods)) * len(folds)
    prog = _Progress(progress, Plan(len(folds), n, 0))
    return _select_all(folds, methods, set(methods) if extras else set(), n_jobs, prog)


# ---------------------------------------------------------------------------- feature sets
def _cut(ranking: tuple[int, ...], k: int) -> tuple[int, ...]:
    return tuple(sorted(ranking[:k]))


def _support(selections, name: str, fi: int, n_features, reference: str,
             m: int) -> tuple[int, ...]:
    """A selector's feature set on one fold: a subset method's selection; a ranking method's
    ranking cut at ``reference``'s selection size (``"match"``; the estimator's own cut when
    there is no reference), at ``n_features`` (a number or share), or at its own cut (None)."""
    sel = selections[(name, fi)]
    if sel.ranking is None or sel.error is not None or n_features is None:
        return sel.support
    if n_features == "match":
        ref = selections.get((reference, fi))
        return sel.support if ref is None or name == reference else _cut(sel.ranking,
                                                                           len(ref.support))
    return _cut(sel.ranking, _n_of(n_features, m))


def _resolve(specs: Mapping[str, FeatureSet | tuple[int, ...]], selections, n_folds: int,
             n_features, reference: str, m: int
             ) -> tuple[list[dict[str, tuple[int, ...]]], list[dict[str, float]]]:
    """Per fold: ``{name: indices}`` and ``{name: seconds}``."""
    sets, seconds = [], []
    for fi in range(n_folds):
        named: dict[str, tuple[int, ...]] = {}
        secs: dict[str, float] = {}
        for name, spec in specs.items():
            if isinstance(spec, FeatureSet):
                sel = selections[(spec.selector, fi)]
                named[name] = (_support(selections, spec.selector, fi, n_features, reference, m)
                               if spec.part == "support" else sel.extra.get(spec.part, ()))
                secs[name] = sel.seconds
            else:
                named[name], secs[name] = spec, 0.0
        sets.append(named)
        seconds.append(secs)
    return sets, seconds


# ---------------------------------------------------------------------------- classifying
def _score(fold: Fold, index: NeighbourIndex, queries: np.ndarray, features: tuple[int, ...],
           knn: dict[str, Any]) -> dict[str, float]:
    if not features:
        return {m: math.nan for m in METRICS}
    model = MLkNN(**knn)._fit_index(index, np.asarray(features, dtype=np.int64),
                                    fold.Yb_train, knn)
    scores = model._posterior(queries)
    return evaluate_all(fold.Yb_test, (scores > 0.5).astype(np.int64), scores)


def _classify_fold(fold: Fold, features: list[tuple[int, ...]], knn: dict[str, Any],
                   tick: Callable[[tuple[int, ...]], None] | None = None
                   ) -> list[dict[str, float]]:
    """The metrics of each feature set on one fold: one neighbour index for all of them."""
    index = NeighbourIndex(fold.X_train, knn["distance"])
    queries = index.encode(fold.X_test)
    out = []
    for f in features:
        out.append(_score(fold, index, queries, f, knn))
        if tick is not None:
            tick(f)
    return out


def _classify_all(folds: list[Fold], wanted: list[tuple[int, tuple[int, ...]]],
                  knn: dict[str, Any], cache: KnnCache, n_jobs: int, prog: _Progress
                  ) -> dict[tuple[int, tuple[int, ...]], dict[str, float]]:
    out: dict[tuple[int, tuple[int, ...]], dict[str, float]] = {}
    todo: dict[int, list[tuple[int, ...]]] = {}
    for fi, features in dict.fromkeys(wanted):
        if not features:
            out[(fi, features)] = {m: math.nan for m in METRICS}
            continue
        hit = cache.get(KnnCache.key(folds[fi], features, knn))
        if hit is not None:
            out[(fi, features)] = hit
        else:
            todo.setdefault(fi, []).append(features)
    prog.classify(sum(len(v) for v in todo.values()))

    def message(fi: int, features: tuple[int, ...]) -> str:
        return f"ML-kNN on split {folds[fi].split + 1}/{len(folds)} ({len(features)} features)"

    fresh: dict[tuple[int, tuple[int, ...]], dict[str, float]] = {}
    if n_jobs == 1 or len(todo) <= 1:
        for fi, sets in todo.items():
            values = _classify_fold(folds[fi], sets, knn,
                                    lambda f, _fi=fi: prog.tick(message(_fi, f)))
            fresh.update({(fi, f): v for f, v in zip(sets, values, strict=True)})
    else:
        tasks = [(folds[fi], sets, knn) for fi, sets in todo.items()]
        order = list(todo)
        fis = iter(order)

        def tick(task, _values) -> None:
            fi = next(fis)
            prog.tick(message(fi, task[1][-1]), units=len(task[1]))

        results = _run_tasks(_classify_fold, tasks, n_jobs, tick)
        for fi, (_, sets, _), values in zip(order, tasks, results, strict=True):
            fresh.update({(fi, f): v for f, v in zip(sets, values, strict=True)})
    for (fi, features), values in fresh.items():  # only a finished study fills the cache
        cache.put(KnnCache.key(folds[fi], features, knn), values)
    out.update(fresh)
    return out


def _frame(folds: list[Fold], sets: list[dict[str, tuple[int, ...]]],
           values: Mapping[tuple[int, tuple[int, ...]], Mapping[str, float]],
           seconds: Sequence[Mapping[str, float]]) -> pd.DataFrame:
    rows = []
    for fi, named in enumerate(sets):
        for name, features in named.items():
            secs = float(seconds[fi].get(name, 0.0))
            for metric, value in values[(fi, features)].items():
                rows.append((folds[fi].protocol, folds[fi].split, name, len(features), metric,
                             float(value), secs))
    return pd.DataFrame(rows, columns=COLUMNS)


# ---------------------------------------------------------------------------- the core
def _plan(n_splits: int, methods: Mapping[str, Any],
          specs: Mapping[str, FeatureSet | tuple[int, ...]]) -> Plan:
    from_selectors = sum(isinstance(s, FeatureSet) for s in specs.values())
    fixed = {s for s in specs.values() if not isinstance(s, FeatureSet) and s}
    return Plan(n_splits=n_splits, selections=len(_distinct(methods)) * n_splits,
                classifications=(from_selectors + len(fixed)) * n_splits)


def _n_splits(folds) -> int:
    return int(folds) if isinstance(folds, int | np.integer) else len(list(folds))


def evaluate(
    folds: Sequence[Fold],
    selectors: Mapping[str, Any] | Sequence[str] | None = None,
    *,
    sets: Mapping[str, FeatureSet | Sequence[int]] | None = None,
    n_features: int | float | str | None = "match",
    reference: str = "camcf",
    knn: Mapping[str, Any] | None = None,
    on_failure: str = "record",
    cache: KnnCache | None = None,
    selections: SelectionCache | None = None,
    n_jobs: int = 1,
    progress: Progress | None = None,
) -> Evaluation:
    """Select with every selector on every fold's training rows, then classify every feature
    set on the test rows with ML-kNN.

    Parameters
    ----------
    folds : list of Fold
        From :func:`camcf.evaluation.make_folds`.
    selectors : dict of name to selector, or registry names (:mod:`camcf.methods`), optional
        Scikit-learn feature selectors; each is cloned per fold (the given objects stay
        unfitted).
    sets : dict of name to FeatureSet or indices, optional
        What to classify, in this order: a :class:`FeatureSet` takes a part of a selector's
        result on each fold; a sequence of indices is a fixed set (the same on every fold,
        ``seconds`` 0). Default: every selector's support, under the selector's name.
    n_features, reference
        How a ranking method's support is cut: ``"match"`` (default) to the size of
        ``reference``'s selection on the same fold (the paper's protocol; the estimator's own
        cut when ``reference`` is not a selector); an int ≥ 1: that many; a float in (0, 1]:
        that share of the features; None: the estimator's own cut.
    knn : dict, optional
        ML-kNN settings (:data:`camcf.evaluation.settings.KNN_PARAMS`; missing ones default).
    on_failure : {"record", "raise"}, default "record"
        A selector failing on a split (a CamcfError): recorded in ``failures`` (its sets are
        empty there), or raised before anything is classified.
    cache : KnnCache, optional
        Shared between calls on the same folds: identical classifications run once.
    selections : SelectionCache, optional
        Selections already made (not fitted again, not counted as units), and where each new
        one goes as soon as it is made (also when the study is stopped afterwards).
    n_jobs : int, default 1
        joblib processes for the selections and the classifications (one task per fold).
    progress : callable, optional
        ``progress(done, total, message)`` after every selection and every classification;
        it may raise :class:`camcf.jobs.Cancelled`, which stops the study (nothing returned,
        the KNN cache unchanged). The plan is :func:`evaluate.plan <plan_evaluate>` (less the
        selections ``selections`` holds); the total stays the plan's (classifications that
        are not needed count as done when the classifying starts).

    Returns
    -------
    Evaluation
    """
    folds = _check_folds(folds, n_jobs)
    knn = check_knn(knn)
    _check_n_features(n_features)
    if on_failure not in ("record", "raise"):
        raise ParameterError(f"on_failure must be 'record' or 'raise'; got {on_failure!r}")
    methods = _as_methods(selectors)
    m = folds[0].n_features
    specs = _check_sets(sets, methods, m)
    extras = {s.selector for s in specs.values()
              if isinstance(s, FeatureSet) and s.part != "support"}
    plan = _plan(len(folds), methods, specs)
    if selections is not None and methods:
        plan = Plan(plan.n_splits, len(_selection_tasks(folds, methods, extras, selections)[0]),
                    plan.classifications)
    prog = _Progress(progress, plan)
    selections = (_select_all(folds, methods, extras, n_jobs, prog, selections)  # the fits
                  if methods else {})
    failures: dict[str, list[tuple[int, str]]] = {}
    for (name, fi), sel in selections.items():
        if sel.error is not None:
            failures.setdefault(name, []).append((folds[fi].split, sel.error))
    if failures and on_failure == "raise":
        name, ((split, message), *_) = next(iter(failures.items()))
        raise CamcfError(f"{name} failed on split {split + 1}: {message}")
    per_fold, seconds = _resolve(specs, selections, len(folds), n_features, reference, m)
    wanted = [(fi, f) for fi, named in enumerate(per_fold) for f in named.values()]
    values = _classify_all(folds, wanted, knn, cache if cache is not None else KnnCache(),
                           n_jobs, prog)
    kinds = {name: selections[(name, 0)].kind for name in methods}
    settings = {"n_features": n_features, "reference": reference, **knn,
                "protocol": folds[0].protocol, "n_splits": len(folds)}
    return Evaluation(frame=_frame(folds, per_fold, values, seconds), sets=per_fold,
                      selections=selections, kinds=kinds, failures=failures, settings=settings)


def plan_evaluate(folds: Sequence[Fold] | int,
                  selectors: Mapping[str, Any] | Sequence[str] | None = None, *,
                  sets: Mapping[str, FeatureSet | Sequence[int]] | None = None,
                  **_ignored: Any) -> Plan:
    """The :class:`Plan` of :func:`evaluate` with these arguments (``folds``: the folds, or
    their number); the other arguments of :func:`evaluate` are accepted and ignored."""
    methods = _as_methods(selectors)
    return _plan(_n_splits(folds), methods, _check_sets(sets, methods, None))


evaluate.plan = plan_evaluate  # type: ignore[attr-defined]

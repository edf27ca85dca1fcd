"""The threshold landscape: how many features Ca-MCF selects over a grid of two parameters.

:func:`landscape` runs Ca-MCF at every point of an ``x × y`` grid (for instance δ1 × k1 or
δ2 × k2), the other parameters fixed, and returns the number of selected features per cell
(and, on request, one ML-kNN metric per cell).

A threshold axis is run from its highest value down (the cheapest runs first: fewer
candidates), so that the first cells come soon and a stop keeps as many as it can.

Reuse, only where the decisions are provably identical: **k2 is read by Phase 4 alone**
(:func:`camcf.phases.run_target` passes it to :func:`camcf.phases.symmetry_and_redundancy`
and nowhere else; skipping and mirroring do not depend on it). Grid points that differ only in
k2 therefore share Phases 1–3: one full run per distinct value of the other parameters, then
Phase 4 once per k2 value by :func:`camcf.phases.with_k2` (the library's Phase 4 on each
target's blanket CMB and the run's MI table). **k1 is read by Phase 2 only through n_keep = ⌈k1 × #candidates⌉** per target (the
candidates themselves depend on δ1, not k1): two k1 values that give the same n_keep for every
target that ran take identical decisions, so one run answers both. Every other change is run
in full (``n_jobs`` spreads those runs over processes with joblib; the k1 reuse is sequential).

The metric, when asked for, comes from the evaluation package's public entry points
(:func:`camcf.evaluation.make_folds` and :func:`camcf.evaluation.sensitivity`) in one place,
:func:`_metric_grid`: Ca-MCF selects on the training part of a seeded hold-out split and ML-kNN
is scored on its test part — a different run from the counts, which use all rows.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .algorithm import DEFAULTS, run
from .dataset import Dataset
from .discretize import discretize
from .errors import ParameterError
from .phases import with_k2
from .result import Result

__all__ = ["GRID_PARAMS", "PRESETS", "SPAN", "THRESHOLDS", "Landscape", "axis_order",
           "default_values", "grid_values", "landscape"]

#: the parameters a landscape axis may vary
GRID_PARAMS = ("delta1", "delta2", "k1", "k2")
#: the thresholds: their axes are log-spaced (a threshold's effect is on a log scale: at n =
#: 16,000 rows the suggested δ1 is 0.0003 bits, at n = 200 about 0.02)
THRESHOLDS = ("delta1", "delta2")
#: (x, y) pairs offered by the app
PRESETS = (("delta1", "k1"), ("delta2", "k2"))
#: range of each parameter for default grids when no current value is given (low, high)
_RANGES = {"delta1": (0.02, 0.1), "delta2": (0.02, 0.3), "k1": (0.2, 1.0), "k2": (0.2, 1.0)}
#: a default threshold axis around a current value spans that value ÷ SPAN[0] to × SPAN[1]:
#: one doubling below it (thresholds below a significance-derived one mostly add noise, and
#: cost most), three above
SPAN = (2.0, 8.0)

Progress = Callable[[int, int, str], None]


@dataclass(frozen=True, eq=False)
class Landscape:
    """Counts (and optionally a metric) over an ``x × y`` grid.

    ``counts[i, j]`` is the number of selected features at ``y = y_values[i]`` and
    ``x = x_values[j]``; ``metric_values`` has the same shape (NaN where nothing was selected).
    """

    x: str
    y: str
    x_values: tuple[float, ...]
    y_values: tuple[float, ...]
    counts: np.ndarray
    base_params: dict
    metric: str | None = None
    metric_values: np.ndarray | None = None
    seconds: float = 0.0
    full_runs: int = 0  # Ca-MCF runs with all four phases
    phase4_only: int = 0  # grid points answered by re-running Phase 4 only
    k1_reused: int = 0  # grid points answered by a run with the same ⌈k1·n⌉ everywhere
    #: on data with a known truth (``Dataset.truth``): each cell's F1 against it, the mean over
    #: labels of the label's found blanket against its true one (:mod:`camcf.truth`)
    truth_f1: np.ndarray | None = None
    #: cells computed (a stopped landscape's finished ones); None: every cell
    filled: np.ndarray | None = None

    @property
    def partial(self) -> bool:
        """Not every cell is computed (or the metric is asked for and not there yet)."""
        return self.n_filled < self.counts.size

    @property
    def n_filled(self) -> int:
        return int(self.counts.size if self.filled is None else np.count_nonzero(self.filled))

    def is_filled(self, i: int, j: int) -> bool:
        return self.filled is None or bool(self.filled[i, j])

    def params_at(self, i: int, j: int) -> dict:
        """The full parameter set of cell (row ``i``, column ``j``)."""
        return {**self.base_params, self.x: self.x_values[j], self.y: self.y_values[i]}

    def to_frame(self) -> pd.DataFrame:
        """One row per computed cell: x, y, ``n_selected`` and the metric column when
        computed."""
        rows = []
        for i, yv in enumerate(self.y_values):
            for j, xv in enumerate(self.x_values):
                if not self.is_filled(i, j):
                    continue
                row = {self.x: xv, self.y: yv, "n_selected": int(self.counts[i, j])}
                if self.metric_values is not None:
                    row[self.metric] = float(self.metric_values[i, j])
                if self.truth_f1 is not None:
                    row["truth_f1"] = float(self.truth_f1[i, j])
                rows.append(row)
        return pd.DataFrame(rows)


def default_values(name: str, size: int = 5, around: float | None = None
                   ) -> tuple[float, ...]:
    """The default values of a grid axis of ``name``: a threshold's ``size`` log-spaced values
    from ``around`` ÷ ``SPAN[0]`` to ``around`` × ``SPAN[1]`` (:data:`SPAN`; with 5 values,
    ``around`` is the second: the current point is on the grid), clipped to the range every
    widget offers; without ``around`` (or 0), or for a share (k1, k2), the usual range
    (:data:`_RANGES`). See :func:`grid_values`.

    >>> default_values("delta1", 5, around=0.0003)
    (0.00015, 0.0003, 0.0006, 0.0012, 0.0024)
    >>> default_values("k1", 5)
    (0.2, 0.4, 0.6, 0.8, 1.0)
    """
    if name not in _RANGES:
        raise ParameterError(f"a landscape axis must be one of {GRID_PARAMS}, got {name!r}")
    if size < 1:
        raise ParameterError(f"the grid needs at least one value per axis, got size={size}")
    lo, hi = _RANGES[name]
    if name in THRESHOLDS and around is not None and around > 0:
        from .algorithm_params import by_name

        top = by_name()[name].ui_range()[1]
        lo, hi = around / SPAN[0], min(top, around * SPAN[1])
    return grid_values(name, lo, hi, size)


def grid_values(name: str, lo: float, hi: float, steps: int,
                current: float | None = None) -> tuple[float, ...]:
    """``steps`` values of ``name`` from ``lo`` to ``hi``: log-spaced for a threshold (when
    ``lo`` > 0), evenly spaced for a share; each rounded to
    :data:`camcf.params.SIGNIFICANT` significant digits. ``current`` (the current run's value)
    is added when it lies within [lo, hi] and is not on the grid already, so that the current
    point is a cell of the grid — except on an axis of one value (``steps`` 1), which is
    ``lo`` alone as asked.

    >>> grid_values("delta1", 0.001, 0.1, 3)
    (0.001, 0.01, 0.1)
    >>> grid_values("k1", 0.2, 1.0, 3, current=0.7)
    (0.2, 0.6, 0.7, 1.0)
    >>> grid_values("delta1", 0.0001496, 0.002393, 5, current=0.0002991)
    (0.0001496, 0.0002991, 0.0005983, 0.001197, 0.002393)
    """
    from .params import round_sig

    lo, hi, steps = float(lo), float(hi), int(steps)
    if steps <= 1 or hi <= lo:
        return (round_sig(lo),)
    if name in THRESHOLDS and lo > 0:
        values = list(np.geomspace(lo, hi, steps))
    else:
        values = list(np.linspace(lo, hi, steps))
    values = [round_sig(float(v)) for v in values]
    if current is not None and lo <= float(current) <= hi:
        here = round_sig(float(current))
        # a value that rounding alone set apart from the current one is the current one
        # (0.0002992 from ends typed with four digits around 0.0002991)
        values = [here if abs(v - here) <= 1e-3 * abs(here) else v for v in values]
        values.append(here)
    return tuple(sorted(set(values)))


def _runs_for_k2(result: Result, k2_values: Sequence[float]) -> list[Result]:
    """``result``'s run with k2 replaced by each value: Phases 1–3 taken from ``result`` (k2
    does not enter them), Phase 4 run again by :func:`camcf.phases.with_k2`."""
    return [with_k2(result, float(k2), trace="counters") for k2 in k2_values]


def _truth_f1(ds: Dataset, result: Result) -> float:
    """The run's F1 against the data's truth: the mean over labels of each label's found
    blanket against its true feature blanket (:func:`camcf.truth.score_selection`)."""
    from .truth import found_indices, score_selection

    feats, labs = found_indices(result)
    got = score_selection(ds.truth, ds.feature_names, ds.label_names,
                          selection=result.selected_indices.tolist(), blankets=feats,
                          label_blankets=labs)
    return float(got["mean"]["f1"])


def _n_kept(k1: float, n_candidates: int) -> int:
    """⌈k1·n⌉ in floating point — the number of Phase 2 candidates kept, computed exactly as
    :func:`camcf.phases.parents_children` computes it."""
    return math.ceil(k1 * n_candidates)


def axis_order(name: str, values: Sequence[float]) -> list[int]:
    """The order in which the values of the axis ``name`` are run: a threshold's from the
    highest (the cheapest run: fewer candidates) down, so the first cells come soon and a stop
    keeps the most of them; another axis's as given."""
    idx = list(range(len(values)))
    return sorted(idx, key=lambda i: -values[i]) if name in THRESHOLDS else idx


def _full_run(codes: np.ndarray, Y: np.ndarray, params: dict) -> Result:
    import warnings

    from .algorithm import CamcfWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CamcfWarning)  # "nothing selected" is a count of 0 here
        return run(codes, Y, **params, trace="counters")  # counts only: no record


def _metric_grid(ds: Dataset, disc: Mapping[str, Any], x: str, xs: Sequence[float], y: str,
                 ys: Sequence[float], base: dict, metric: str, seed: int) -> np.ndarray:
    """One ML-kNN metric per cell via the evaluation package (the only call into it)."""
    from . import evaluation as ev

    folds = ev.make_folds(ds.X, ds.Y, ev.make_splitter("holdout", seed=seed),
                          discretize=disc.get("discretize", "auto"),
                          bins=int(disc.get("bins", 3)),
                          strategy=disc.get("strategy", "uniform"))
    frame = ev.sensitivity(folds, {x: list(xs), y: list(ys)}, base, metrics=[metric])
    mat = ev.sensitivity_matrix(frame, metric, rows=y, columns=x)
    return mat.reindex(index=list(ys), columns=list(xs)).to_numpy(dtype=float)


def landscape(ds: Dataset, x: str, x_values: Sequence[float], y: str,
              y_values: Sequence[float], params: Mapping[str, Any] | None = None, *,
              disc: Mapping[str, Any] | None = None, metric: str | None = None,
              seed: int = 0, n_jobs: int = 1, progress: Progress | None = None,
              done: Landscape | None = None,
              keep: Callable[[Landscape], None] | None = None) -> Landscape:
    """Number of selected features over the ``x × y`` grid.

    Parameters
    ----------
    ds : Dataset
        Raw data; discretised once with :func:`camcf.discretize.discretize` and ``disc``
        (``mode``, ``bins``, ``strategy``; the app's discretisation choice).
    x, y : str
        Two distinct names of :data:`GRID_PARAMS`.
    x_values, y_values : sequence of float
        The grid values (each validated as Ca-MCF validates it).
    params : dict, optional
        The other Ca-MCF parameters (defaults: :data:`camcf.DEFAULTS`).
    metric : str, optional
        A key of :data:`camcf.evaluation.METRICS`: also score ML-kNN per cell on a hold-out
        split (seed ``seed``), which costs a selection and a classification per cell.
    n_jobs : int
        Processes for the full runs (joblib; 1 runs in this process).
    progress : callable(done, total, message), optional
        Called after every grid point (and once before the metric, if any).
    done : Landscape, optional
        A partial landscape of this same grid and these parameters (e.g. what a stopped run
        handed to ``keep``): its computed cells are taken as they are, not run again.
    keep : callable, optional
        Called after every grid point (before ``progress``) with the landscape of the cells
        computed so far (:attr:`Landscape.filled`; the metric comes last, over all cells).

    Returns
    -------
    Landscape
        On data with a known truth (``ds.truth``, :mod:`camcf.networks`), ``truth_f1`` holds
        each cell's F1 against it (from the same runs as the counts, on all rows).
    """
    if x not in GRID_PARAMS or y not in GRID_PARAMS or x == y:
        raise ParameterError(f"x and y must be two different names of {GRID_PARAMS}; got "
                             f"x={x!r}, y={y!r}")
    xs = tuple(float(v) for v in x_values)
    ys = tuple(float(v) for v in y_values)
    if not xs or not ys:
        raise ParameterError("give at least one value for each axis of the landscape")
    base = {**DEFAULTS, **(params or {})}
    base = {k: base[k] for k in DEFAULTS}
    from .algorithm import check_params

    for v in xs:
        check_params(**{**base, x: v})
    for v in ys:
        check_params(**{**base, y: v})
    disc = dict(disc or {})
    t0 = time.perf_counter()
    codes, _ = discretize(ds.X, bins=int(disc.get("bins", 3)),
                          strategy=disc.get("strategy", "uniform"), discretize=disc.get("discretize", "auto"))
    Y = ds.Y
    total = len(xs) * len(ys)
    counts = np.zeros((len(ys), len(xs)), dtype=np.int64)
    filled = np.zeros((len(ys), len(xs)), dtype=bool)
    if done is not None:
        if (done.x, done.y, done.x_values, done.y_values) != (x, y, xs, ys) or \
                done.base_params != base:
            raise ParameterError("done: a landscape of another grid or other parameters "
                                 "cannot be continued here; start it anew", name="done")
        counts[...] = done.counts
        filled[...] = True if done.filled is None else done.filled
    n_done = int(np.count_nonzero(filled))

    # groups of grid points that share everything but k2
    k2_axis = "x" if x == "k2" else "y" if y == "k2" else None
    k2_values = xs if k2_axis == "x" else ys if k2_axis == "y" else ()
    other_values = ys if k2_axis == "x" else xs if k2_axis == "y" else None
    other_name = y if k2_axis == "x" else x if k2_axis == "y" else None
    known = ds.truth is not None
    if known:
        from .truth import check_names

        check_names(ds.truth, ds.feature_names, ds.label_names)
    f1 = np.full((len(ys), len(xs)), np.nan)
    if known and done is not None and done.truth_f1 is not None:
        f1[...] = done.truth_f1
    full_runs = phase4_only = reused = 0
    if k2_axis is not None:  # (a group not fully computed is run again, all of it)
        where = [gi for gi in axis_order(other_name, other_values)
                 if not (filled[gi, :] if k2_axis == "x" else filled[:, gi]).all()]
        jobs = [{**base, other_name: other_values[gi], "k2": 1.0} for gi in where]
    else:
        where = [(i, j) for i in range(len(ys)) for j in range(len(xs)) if not filled[i, j]]
        jobs = [{**base, x: xs[j], y: ys[i]} for i, j in where]

    def snapshot() -> Landscape:
        return Landscape(x=x, y=y, x_values=xs, y_values=ys, counts=counts.copy(),
                         base_params=base, seconds=time.perf_counter() - t0,
                         full_runs=full_runs, phase4_only=phase4_only, k1_reused=reused,
                         truth_f1=f1.copy() if known else None, filled=filled.copy())

    def finished(message: str) -> None:
        if keep is not None:
            keep(snapshot())
        if progress is not None:
            progress(n_done, total, message)

    def results():
        if n_jobs == 1 or len(jobs) == 1:
            for p in jobs:
                yield _full_run(codes, Y, p)
        else:
            from joblib import Parallel, delayed

            yield from Parallel(n_jobs=n_jobs, return_as="generator")(
                delayed(_full_run)(codes, Y, p) for p in jobs)

    k1_reuse = k2_axis is None and "k1" in (x, y) and (n_jobs == 1 or len(jobs) == 1)
    if k1_reuse:
        # per value of the other axis: runs whose ⌈k1·#candidates⌉ agree for every target take
        # identical decisions (k1 enters nowhere else); one run answers all of them
        k1_vals = xs if x == "k1" else ys
        oname = y if x == "k1" else x
        ovals = ys if x == "k1" else xs
        for oi in axis_order(oname, ovals):
            ov = ovals[oi]
            seen: dict[tuple, int] = {}
            n_cand = None
            for ki, kv in enumerate(k1_vals):
                i, j = (oi, ki) if x == "k1" else (ki, oi)
                if filled[i, j]:
                    continue
                sig = None if n_cand is None else tuple(_n_kept(kv, n) for n in n_cand)
                if sig is not None and sig in seen:
                    c, score = seen[sig]
                    reused += 1
                else:
                    res = _full_run(codes, Y, {**base, oname: ov, "k1": kv})
                    full_runs += 1
                    n_cand = [len(t.candidates_all) for t in res.targets if not t.skipped]
                    sig = tuple(_n_kept(kv, n) for n in n_cand)
                    c, score = seen[sig] = (int(res.selected_indices.size),
                                            _truth_f1(ds, res) if known else np.nan)
                counts[i, j] = c
                f1[i, j] = score
                filled[i, j] = True
                n_done += 1
                finished(f"{oname} = {ov:g}, k1 = {kv:g}")
    for w, res in zip(where, () if k1_reuse else results(), strict=False):
        full_runs += 1
        if k2_axis is None:
            i, j = w
            counts[i, j] = res.selected_indices.size
            if known:
                f1[i, j] = _truth_f1(ds, res)
            filled[i, j] = True
            n_done += 1
            msg = f"{x} = {xs[j]:g}, {y} = {ys[i]:g}"
        else:
            gi = w
            got = _runs_for_k2(res, k2_values)
            phase4_only += len(k2_values)
            line = filled[gi, :] if k2_axis == "x" else filled[:, gi]
            n_done += int(np.count_nonzero(~line))
            for kk, r in enumerate(got):
                cell = (gi, kk) if k2_axis == "x" else (kk, gi)
                counts[cell] = r.selected_indices.size
                if known:
                    f1[cell] = _truth_f1(ds, r)
            line[:] = True
            msg = f"{other_name} = {other_values[gi]:g}, every k2"
        finished(msg)
    values = None
    if metric is not None:
        from .evaluation import METRICS

        if metric not in METRICS:
            raise ParameterError(f"metric must be one of {list(METRICS)}, got {metric!r}")
        if progress is not None:
            progress(n_done, total, f"ML-kNN {metric} on a hold-out split")
        values = _metric_grid(ds, disc, x, xs, y, ys, base, metric, seed)
    return Landscape(x=x, y=y, x_values=xs, y_values=ys, counts=counts, base_params=base,
                     metric=metric, metric_values=values,
                     seconds=time.perf_counter() - t0, full_runs=full_runs,
                     phase4_only=phase4_only, k1_reused=reused,
                     truth_f1=f1 if known else None)

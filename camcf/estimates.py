"""Estimates of long work: its cost before it starts and its remaining time as it runs.

:class:`Estimate` is a study's cost before it starts (seconds, and memory where
it can be estimated) in :class:`Stage` s, each a number of units with a cost per unit, in the
order the study runs them. :func:`remaining_seconds` turns progress into a remaining time: a
stage's remaining units cost what its finished units cost on average (so a stage whose estimate
was 2× off is corrected by its first unit); a stage not yet started costs its estimate (its
units differ in kind from the finished ones: a selection's time says little about a
classification's) — unless the stage has a :attr:`Stage.kind`: then its estimate is scaled by
the measured / estimated ratio of the finished units of its kind (e.g. MI-MCF's selections on
Flags tell how far off its estimate for Enron is), or of all finished units while none of its
kind has run. Without an estimate every unit is assumed to cost the average of the finished
ones. :class:`CostProgress` reports a study whose units differ in cost by orders of magnitude
(``camcf reproduce``) through the same ``progress(done, total, message)`` contract, in work
units weighted by their estimated cost, such that ``done / total`` is the share of the expected
time and a printer's ``elapsed × (total − done) / done`` is :func:`remaining_seconds`' figure.

>>> est = Estimate.of([Stage("selection", 5, 8.0), Stage("classification", 25, 1.0)])
>>> round(est.seconds)
65
>>> # 2 selections took 20 s (10 s each, not 8): 3 more at 10 s, then 25 × 1 s
>>> remaining_seconds(est, [10.0, 10.0], 2, 30)
55.0
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["CLASSIFY_COST", "OVERHEAD", "RUN_COST", "SELECTION_COST", "TUNE_POINT_COST",
           "CostProgress", "Estimate", "Progress", "RunShape", "Stage", "format_bytes",
           "format_seconds", "remaining_parts", "remaining_seconds", "run_cost", "run_estimate",
           "run_seconds", "selection_seconds"]

#: ``progress(done, total, message)``
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class Stage:
    """``units`` units of work of one kind, each expected to take ``seconds_each`` seconds
    (None: not known before the study runs).

    ``group``: what the stage belongs to when a study has several (the data set of a comparison
    or a reproduction); :meth:`Estimate.describe` names it once before its stages.
    ``kind``: what other stages the units are like (e.g. ``"selection:mi-mcf"`` on every data
    set). A stage with a kind that has not started costs its estimate × the measured / estimated
    ratio of the finished units of its kind (of all finished units with a kind while none of
    its own has finished): see :func:`remaining_seconds`. None: its estimate as it is.
    """

    name: str
    units: int
    seconds_each: float | None
    kind: str | None = None
    group: str | None = None

    @property
    def label(self) -> str:
        """The stage's name after its group's: ``"flags: Ca-MCF selections"``."""
        return self.name if self.group is None else f"{self.group}: {self.name}"

    @property
    def seconds(self) -> float | None:
        return None if self.seconds_each is None else self.units * self.seconds_each


@dataclass(frozen=True)
class Estimate:
    """What a study is expected to cost before it starts.

    ``stages``: the units in the order the study runs them. ``seconds``: the sum of the known
    stages (``complete`` False when some stage's cost is unknown, then ``seconds`` is a lower
    bound). ``memory_bytes``: the expected peak memory of the worker process (None: not
    estimated); ``memory_parts``: what it is made of, largest first. ``notes``: what the figures
    assume, in words for the user.
    """

    stages: tuple[Stage, ...]
    memory_bytes: int | None = None
    memory_parts: tuple[tuple[str, int], ...] = ()
    notes: tuple[str, ...] = ()
    #: the stages in a few words, said instead of listing them (many stages of one kind)
    summary: str | None = None

    @classmethod
    def of(cls, stages: Sequence[Stage], memory: Mapping[str, int] | None = None,
           notes: Sequence[str] = (), summary: str | None = None) -> Estimate:
        """An estimate from its stages and the named parts of its memory (summed)."""
        parts = tuple(sorted(((k, int(v)) for k, v in (memory or {}).items() if v > 0),
                             key=lambda kv: -kv[1]))
        return cls(stages=tuple(stages), memory_bytes=sum(v for _, v in parts) if parts
                   else None, memory_parts=parts, notes=tuple(notes), summary=summary)

    @property
    def units(self) -> int:
        return sum(s.units for s in self.stages)

    @property
    def seconds(self) -> float:
        return float(sum(s.seconds for s in self.stages if s.seconds is not None))

    @property
    def complete(self) -> bool:
        return all(s.seconds_each is not None for s in self.stages)

    def describe(self) -> str:
        """One line: ``about 4 min 30 s, about 2.1 GB of memory (30 units: …)``; consecutive
        stages of one group are listed after the group's name, said once:
        ``(flags: 5 Ca-MCF selections × 0.2 s, 5 ML-kNN classifications × 0.1 s; enron: …)``."""
        time_part = ("about " if self.complete else "at least ") + format_seconds(self.seconds)
        mem = ("" if self.memory_bytes is None
               else f", about {format_bytes(self.memory_bytes)} of memory")
        if self.summary is not None:
            return f"{time_part}{mem} ({self.summary})"
        runs = itertools.groupby((s for s in self.stages if s.units), key=lambda s: s.group)
        parts = []
        for group, stages in runs:
            text = ", ".join(_stage_words(s) for s in stages)
            parts.append(text if group is None else f"{group}: {text}")
        return f"{time_part}{mem} ({'; '.join(parts)})"


def _stage_words(stage: Stage) -> str:
    """``5 selections × 2.0 s``; ``5 selections`` when their cost is not known; the name alone
    for work that costs nothing (a reference method: it has no units to count)."""
    if stage.seconds_each == 0:
        return stage.name
    cost = "" if stage.seconds_each is None else f" × {format_seconds(stage.seconds_each)}"
    return f"{stage.units:,} {stage.name}{cost}"


def format_seconds(seconds: float) -> str:
    """``under 0.1 s``, ``0.4 s``, ``12 s``, ``4 min 30 s``, ``2 h 5 min`` (``0 s`` for
    nothing at all: a time that rounds to 0.0 but is not 0 is said to be under 0.1 s)."""
    if seconds is None or not math.isfinite(seconds):
        return "unknown"
    if seconds <= 0:
        return "0 s"
    if seconds < 0.05:
        return "under 0.1 s"
    if seconds < 10:
        return f"{seconds:.1f} s"
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s" if s % 60 else f"{s // 60} min"
    return f"{s // 3600} h {(s % 3600) // 60} min"


def format_bytes(n: float) -> str:
    """``850 MB``, ``4.2 GB`` (decimal units, as a system monitor shows them)."""
    if n < 1e6:
        return f"{n / 1e3:.0f} kB"
    if n < 1e9:
        return f"{n / 1e6:.0f} MB"
    return f"{n / 1e9:.1f} GB"


def remaining_seconds(estimate: Estimate | None, unit_seconds: Sequence[float], done: int,
                      total: int) -> float | None:
    """Seconds the rest of a study is expected to take (:func:`remaining_parts`, summed).
    """
    parts = remaining_parts(estimate, unit_seconds, done, total)
    return None if parts is None else parts[0] + parts[1]


def remaining_parts(estimate: Estimate | None, unit_seconds: Sequence[float], done: int,
                    total: int) -> tuple[float, float] | None:
    """Seconds the rest of a study is expected to take, as ``(the unit in progress, the units
    after it)`` (``(0, 0)`` when nothing is left).

    ``unit_seconds``: how long each finished unit took, in order (``done`` values). With an
    estimate, the units are assigned to its stages in order (the last stage shrinks when the
    study reports fewer units than the estimate planned): a stage's remaining units cost the
    mean of its finished units; a stage not started costs its estimate; a stage of unknown
    cost, the mean of all finished units. A stage not started whose :attr:`Stage.kind` is set
    costs its estimate corrected by the measured / estimated ratio of the finished units of
    the same kind, or, while none of its kind has finished, of all finished units of stages
    with a kind (how much faster or slower this machine, its load and the workers are than the
    estimate assumed): after a cheap data set's selections, a large one's are predicted from
    their estimate × what the cheap one's took over their estimate. Without an estimate (or
    with one whose stages are all unknown) every remaining unit costs the mean of the finished
    ones. None before any unit has finished when nothing else is known.
    """
    done = max(0, int(done))
    total = max(done, int(total))
    spent = list(unit_seconds)[:done]
    mean_all = (sum(spent) / len(spent)) if spent else None
    if estimate is None or not estimate.stages or all(
            s.seconds_each is None for s in estimate.stages):
        if mean_all is None:
            return None
        return (mean_all if total > done else 0.0), mean_all * max(0, total - done - 1)
    sizes = [s.units for s in estimate.stages]
    # the study's own total wins when it is smaller (e.g. identical feature sets classified
    # once); a larger one is often an upper bound it will shrink, so the estimate stays
    sizes[-1] = max(0, min(sizes[-1], total - sum(sizes[:-1])))
    # stage of each unit, in order
    bounds = list(itertools.accumulate(sizes))
    per_stage: list[list[float]] = [[] for _ in sizes]
    for i, secs in enumerate(spent):
        st = next((k for k, b in enumerate(bounds) if i < b), len(sizes) - 1)
        per_stage[st].append(secs)
    # measured and estimated seconds of the finished units, per kind and over every kind
    by_kind: dict[str | None, list[float]] = {None: [0.0, 0.0]}
    for k, stage in enumerate(estimate.stages):
        if stage.kind is not None and stage.seconds_each is not None and per_stage[k]:
            for key in (stage.kind, None):
                pair = by_kind.setdefault(key, [0.0, 0.0])
                pair[0] += sum(per_stage[k])
                pair[1] += stage.seconds_each * len(per_stage[k])

    def ratio(kind: str) -> float:
        for key in (kind, None):
            measured, estimated = by_kind.get(key, (0.0, 0.0))
            if estimated > 0:
                return measured / estimated
        return 1.0

    left = 0.0
    first: float | None = None
    for k, stage in enumerate(estimate.stages):
        n_left = max(0, sizes[k] - len(per_stage[k]))
        if not n_left:
            continue
        if per_stage[k]:
            each = sum(per_stage[k]) / len(per_stage[k])
        elif stage.seconds_each is not None:
            each = stage.seconds_each * (1.0 if stage.kind is None else ratio(stage.kind))
        elif mean_all is not None:
            each = mean_all
        else:
            return None
        if first is None:
            first = each
        left += n_left * each
    return (0.0, 0.0) if first is None else (first, left - first)


class CostProgress:
    """Progress of a study whose units differ in cost by orders of magnitude, reported through
    the ``progress(done, total, message)`` contract in *work units* rather than unit counts.

    The study says when a unit of its :class:`Estimate` has finished (:meth:`tick`, in the
    estimate's stage order); each unit is timed (``clock`` between two ticks) and the time left
    is :func:`remaining_seconds` (each stage corrected by its own finished units, a stage not
    started by the measured / estimated ratio of its kind). What is passed on:

    * ``done``: the estimated cost of the finished units, in :attr:`SCALE` parts of the whole
      plan (a cheap unit moves it little, an expensive one much; it never decreases);
    * ``total``: ``done`` + the time left × ``done`` / the seconds since ``start``, so that a
      printer extrapolating ``elapsed × (total − done) / done`` (:class:`camcf.cli.progress.
      ProgressLine`, :meth:`Job.status`) shows :func:`remaining_seconds`' figure, and
      ``done / total`` is the share of the expected wall time that has passed.

    Before any cost has been counted, ``total`` is :attr:`SCALE`; a unit of a stage whose cost
    is not estimated adds nothing to ``done`` (its time still counts). :meth:`replan` swaps in
    a new estimate once the study knows more (the stages already run must stay the same).

    >>> t = [0.0]
    >>> est = Estimate.of([Stage("small", 2, 1.0, kind="fit"), Stage("big", 1, 100.0, kind="fit")])
    >>> seen = []
    >>> p = CostProgress(lambda d, n, m: seen.append((d, n)), est, clock=lambda: t[0])
    >>> t[0] = 2.0; p.tick("small 1"); t[0] = 4.0; p.tick("small 2")  # each took 2 s, not 1
    >>> round(p.seconds_left())   # the big unit: 100 s estimated × 2
    200
    >>> d, n = seen[-1]; round(4.0 * (n - d) / d)   # what a printer extrapolates
    200
    """

    #: ``total`` before anything is known; ``done`` counts in these parts of the first plan
    SCALE = 10_000

    def __init__(self, progress: Progress | None, estimate: Estimate, *,
                 clock: Callable[[], float] = time.perf_counter,
                 start: float | None = None) -> None:
        self.progress = progress
        self.estimate = estimate
        self.clock = clock
        now = clock()
        self.start = now if start is None else float(start)  # the study's start (elapsed)
        self._last = now  # the current unit started here
        self.units = 0
        self.unit_seconds: list[float] = []
        self._cost = 0.0  # estimated seconds of the finished units
        planned = estimate.seconds
        self._per_second = self.SCALE / planned if planned > 0 else 1.0

    def _unit_cost(self, index: int) -> float:
        """The estimated seconds of unit ``index`` (0-based, in stage order)."""
        for stage in self.estimate.stages:
            if index < stage.units:
                return stage.seconds_each or 0.0
            index -= stage.units
        return 0.0

    def replan(self, estimate: Estimate) -> None:
        """Use ``estimate`` from now on (its first stages must be those already run)."""
        self.estimate = estimate

    def seconds_left(self) -> float | None:
        """:func:`remaining_seconds` for the units not finished yet."""
        return remaining_seconds(self.estimate, self.unit_seconds, self.units,
                                 self.estimate.units)

    def counts(self) -> tuple[int, int]:
        """``(done, total)`` in work units, as :meth:`report` passes them on."""
        done = int(self._cost * self._per_second)
        left = self.seconds_left()
        elapsed = self.clock() - self.start
        if self.units >= self.estimate.units:
            return done, done
        if done <= 0 or left is None or elapsed <= 0:
            return done, max(done + 1, self.SCALE)
        return done, done + max(1, math.ceil(left * done / elapsed))

    def report(self, message: str) -> None:
        """Pass the current ``(done, total)`` and ``message`` on."""
        if self.progress is not None:
            self.progress(*self.counts(), message)

    def tick(self, message: str, units: int = 1) -> None:
        """``units`` more units have finished (the time since the last tick shared among
        them); then :meth:`report`."""
        if units > 0:
            now = self.clock()
            per = (now - self._last) / units
            for _ in range(units):
                self._cost += self._unit_cost(self.units)
                self.unit_seconds.append(per)
                self.units += 1
            self._last = now
        self.report(message)


# ------------------------------------------------------------------------------------------------
# Cost models: every coefficient the estimates use, in one place
# ------------------------------------------------------------------------------------------------
#: One Ca-MCF run (:func:`camcf.run`, one process) on n rows × m features, Q categories
#: computed (a binary label's second category mirrors its first and costs nothing; skipped
#: categories cost nothing) of Q_all in all, and K Phase 2 candidates kept over those Q
#: categories (Σ ⌈k1 · #{f : I(X_f; C) > δ1}⌉), in seconds:
#:
#:     fixed + n · (feature · Q·m + label · Q·Q_all + candidate · K·m)
#:
#: (the scores of every feature and pair of categories, then per kept candidate a scan of the
#: features for spouses and the tests of Phase 4: ``benchmarks/bench_run_cost.py`` prints the
#: tests of each step). Without the scores (no run on these data yet) K is predicted from the
#: thresholds: a feature is a candidate of a category with probability d + (1 − d) ·
#: P(χ²_df > 2·n·ln 2·δ1) — d the share of features that depend on a category strongly enough
#: to pass δ1, ``dependent`` × min(1, δ_α / δ1) with δ_α the threshold of a G test at α = 0.01
#: on these n rows (fewer pass a higher threshold), and the chance that an independent
#: feature's G statistic passes δ1 (df: the typical feature × category table's,
#: :func:`camcf.significance.suggest_thresholds`).
#: Fitted with ``benchmarks/bench_run_cost.py --scales 0.1,0.2,0.3,1 --sets
#: flags,yeast,image,enron --fit`` (2026-11-29, the compiled engine, one core of a shared 2-core
#: machine; 33 cases): ``feature`` and ``candidate`` by least squares of the log error
#: (mean |log(model / measured)| 0.72, a factor of about 2; 1.26 with the coefficients of the
#: numpy engine); ``label`` fitted to 0 (the unconditional tables and their lookups cost
#: nothing beside the rest). The model is up to 10× too high on Enron (sparse text: a test
#: costs the exceptions of its column, not n) and 3–5× too high on the synthetic sets at the
#: lowest thresholds. ``dependent``: the fit's median over the shared sets is 0.34, the
#: synthetic sets' about 0.01; 0.1 sits between (a first run's estimate is rough; the run's
#: own progress corrects it, and later runs count K from the scores and scale by the last run
#: on the same data). Refit when the engine changes.
RUN_COST: dict[str, float] = {
    "fixed": 0.05,
    "feature": 2.06e-10,
    "label": 0.0,
    "candidate": 6.2e-11,
    "dependent": 0.1,
}

#: Seconds (one process) of one selection on n training rows × m features with q labels:
#: ``OVERHEAD + b · n^a · m^c · q^e`` as ``method: (b, (a, c, e))``. Fitted to the per-split
#: seconds of one whole reproduction with this code (the 7 shared data sets, 5 splits, serial,
#: a loaded 2-core machine, 2026-11-24, 50 min; ``benchmarks/bench_eta.py DIR/r --fit`` prints
#: the fit): each method's exponents were chosen among {0, ½, 1, 1½, 2} by the mean |log
#: error| over the 7 data sets (0.2–0.6, fimf 1.1: within a factor 1.3–3). They order the data
#: sets and methods by cost; the run corrects their scale as it goes
#: (:func:`remaining_seconds`). Sparse data (PlantGO) costs less than its m says.
#:
#: Checked on 2026-11-29 (``benchmarks/bench_selection_cost.py``, one factor at a time from
#: 1,500 × 250 with 50 labels on delicious-like synthetic data, a machine under load ≈ 8): on
#: such weakly structured data the baselines cost far less than here (mi-mcf 0.2–1.5 s where
#: this table says minutes), while on a real file they cost what it says (mi-mcf on Enron's
#: 1,191 training rows: 154 s measured, 232 s here; 0.7 s from the synthetic fit) — a method
#: that searches until no candidate passes costs what the data's dependencies make it cost,
#: so the synthetic fit is not used. A refit needs real data of the sizes the app meets.
SELECTION_COST: dict[str, tuple[float, tuple[float, float, float]]] = {
    "camcf": (2.0e-7, (1.5, 0.5, 0.5)),
    "camcf-defaults": (7.7e-9, (2.0, 0.5, 0.0)),
    "mi-mcf": (2.4e-6, (0.5, 1.0, 2.0)),
    "d2f": (1.3e-7, (1.0, 1.5, 0.5)),
    "mdfs": (4.2e-6, (1.5, 0.5, 0.0)),
    "jfsc": (6.0e-8, (2.0, 0.5, 0.0)),
    "fimf": (3.4e-14, (1.5, 2.0, 2.0)),
    "mcls": (2.8e-8, (2.0, 0.5, 0.5)),
    "all": (0.0, (0.0, 0.0, 0.0)),
    "random": (0.0, (0.0, 0.0, 0.0)),
    # pgmpy's PC at max_cond_vars 3, fitted by eye to ALARM (m 32) and HAILFINDER (m 51), n
    # 1,000 and 20,000, five labels (0.4–30 s; within a factor 1.6): its cost follows the
    # graph's density more than any shape, the run corrects it
    "pc": (2.0e-8, (0.5, 4.0, 0.0)),
}
#: seconds every selection, tuning point or classification costs whatever its size
OVERHEAD = 0.05
#: one tuning point on one inner fold (a Ca-MCF selection and an ML-kNN classification):
#: ``b · n² · √(m·q)`` + a fixed part, n the outer training rows, as ``(b, fixed in one
#: process, fixed with workers)``: b and the fixed part in one process fitted to the same run's
#: tuning cells (mean |log error| 0.43); with workers each point is shipped to one (0.4 s, from
#: a run with ``--n-jobs 2`` on 2026-11-23)
TUNE_POINT_COST = (9.1e-9, 0.05, 0.4)
#: one classification task (ML-kNN on one split for every method's features): ``b · n_train ·
#: n_test`` + OVERHEAD (not fitted: the reproduction does not time its classifications; the
#: runs above classified their 35 splits in 20–70 s)
CLASSIFY_COST = 1.5e-6


def selection_seconds(method: str, n_train: int, m: int, q: int) -> float:
    """:data:`SELECTION_COST`'s prediction for one selection (a method it does not list is
    assumed to cost as Ca-MCF tuned)."""
    b, (a, c, e) = SELECTION_COST.get(method, SELECTION_COST["camcf"])
    return OVERHEAD + b * n_train ** a * m ** c * q ** e




@dataclass(frozen=True)
class RunShape:
    """What a Ca-MCF run's cost depends on, before it runs: ``n`` rows, ``m`` features,
    ``categories`` computed (``all_categories`` in all), ``df`` of the typical feature ×
    category table and, when a run on the same codes is at hand, ``scores``: I(X_f; C) in bits
    of every feature (rows) and computed category (columns) — the run's ``mi_table``, which no
    threshold changes — from which the candidates at any δ1, k1 are counted exactly."""

    n: int
    m: int
    categories: int
    all_categories: int
    df: int = 1
    scores: Any = None

    @classmethod
    def of(cls, X_codes, Y, *, min_category_size: int = 1) -> RunShape:
        """The shape of a run on these codes and labels: each label's categories of at least
        ``min_category_size`` rows, a binary label's counted once (its second mirrors it)."""
        import numpy as np

        from .significance import suggest_thresholds

        n, m = X_codes.shape
        Y = np.asarray(Y).reshape(n, -1)
        computed = total = 0
        for j in range(Y.shape[1]):
            _, sizes = np.unique(Y[:, j], return_counts=True)
            total += sizes.size
            ran = int(np.count_nonzero(sizes >= min_category_size))
            computed += min(ran, 1) if sizes.size == 2 else ran
        df = int(suggest_thresholds(X_codes, Y)["df_delta1"])
        return cls(n=int(n), m=int(m), categories=computed, all_categories=total, df=df)

    @classmethod
    def of_result(cls, result, df: int = 1) -> RunShape:
        """The shape of runs on the codes ``result`` ran on (:class:`camcf.Result`), its
        scores included: the categories it computed (neither skipped nor mirrored)."""
        import numpy as np

        ran = [t.id for t in result.targets if not t.skipped and t.mirror_of is None]
        return cls(n=int(result.n_samples), m=int(result.n_features), categories=len(ran),
                   all_categories=len(result.targets), df=int(df),
                   scores=np.asarray(result.mi_table)[:, ran])

    def candidates(self, delta1: float, k1: float) -> float:
        """K: the Phase 2 candidates kept over the computed categories at ``delta1``, ``k1``
        (counted from :attr:`scores` when known, else predicted as :data:`RUN_COST` says)."""
        import numpy as np

        if self.scores is not None:
            from .engine import rounded

            passed = np.count_nonzero(rounded(self.scores) > float(delta1), axis=0)
            return float(np.sum(np.ceil(float(k1) * passed)))
        from scipy.stats import chi2

        from .significance import threshold_for

        alpha = threshold_for(0.01, self.n, self.df)
        dep = RUN_COST["dependent"] * min(1.0, alpha / max(float(delta1), 1e-300))
        share = dep + (1 - dep) * float(chi2.sf(2 * self.n * math.log(2) * float(delta1),
                                                self.df))
        return self.categories * math.ceil(float(k1) * self.m * share)


def run_seconds(shape: RunShape, params: Mapping[str, Any]) -> float:
    """:data:`RUN_COST`'s seconds for one run of ``shape`` with Ca-MCF parameters ``params``
    (``delta1`` and ``k1`` matter; a threshold given as a word must be resolved first)."""
    c = RUN_COST
    k = shape.candidates(float(params["delta1"]), float(params["k1"]))
    return c["fixed"] + shape.n * (c["feature"] * shape.categories * shape.m
                                   + c["label"] * shape.categories * shape.all_categories
                                   + c["candidate"] * k * shape.m)


def run_cost(result, params: Mapping[str, Any], seconds: float, df: int = 1
             ) -> Callable[[Mapping[str, Any]], float]:
    """Seconds of a run on the codes ``result`` (a :class:`camcf.Result` of a run with
    ``params`` that took ``seconds``) ran on, with some parameters changed:
    ``cost({"delta1": 0.001})`` — :func:`run_estimate` from ``result``'s scores (the candidates
    counted at the new δ1 and k1), scaled by ``seconds``. What a grid of runs costs point by
    point (lower thresholds keep more candidates and cost more)."""
    shape = RunShape.of_result(result, df=df)
    measured = (dict(params), float(seconds))

    def cost(changes: Mapping[str, Any]) -> float:
        return run_estimate(shape, {**params, **changes}, measured=measured).seconds

    return cost


def run_estimate(shape: RunShape, params: Mapping[str, Any], *,
                 measured: tuple[Mapping[str, Any], float] | None = None) -> Estimate:
    """What one Ca-MCF run will cost: one unit per category, as :func:`camcf.run` reports its
    progress (:func:`run_seconds` shared among them). ``measured``: ``(params, seconds)`` of
    a run on the same data (e.g. the current one) — the model's figure is scaled by how far
    off it was for that run (this machine, its load, the data's own structure)."""
    seconds = run_seconds(shape, params)
    scale = 1.0
    notes = []
    if measured is not None:
        model = run_seconds(shape, measured[0])
        if model > 0 and measured[1] > 0:
            scale = float(measured[1]) / model
            notes.append(f"Scaled by the last run on these data: it took "
                         f"{format_seconds(measured[1])} where the model said "
                         f"{format_seconds(model)}.")
    k = shape.candidates(float(params["delta1"]), float(params["k1"]))
    how = ("counted from the last run's scores" if shape.scores is not None else
           "predicted from δ1 and the number of rows (no run on these data yet)")
    notes.append(f"{shape.categories:,} categories computed over {shape.n:,} rows × "
                 f"{shape.m:,} features; about {k:,.0f} Phase 2 candidates kept in all ({how}): "
                 "lower thresholds keep more and cost more.")
    units = max(1, shape.all_categories)
    return Estimate.of([Stage("categories", units, seconds * scale / units)], notes=notes)

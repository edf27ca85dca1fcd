"""Long work that reports progress, can be stopped, and runs as a job a user interface polls.

Every study in camcf (an evaluation, an ablation, a sensitivity grid, a landscape, a tuning
grid, a comparison of methods, the paper's reproduction) is a sequence of units of work (a
selection on one split, one classification, one grid point). Each takes a ``progress``
callable and calls it after every unit it finishes::

    progress(done: int, total: int, message: str) -> None

with ``done`` never decreasing and ``total`` the number of units it plans (it may grow once a
study learns it has more to do, never shrink below ``done``; 0 while it does not know yet).

**Stopping.** A progress callable may raise :class:`Cancelled`; the study then stops at that
unit's boundary, lets the exception propagate, and leaves nothing half-written (the caller's
state is as before the study started). :class:`StopToken` is the usual way to do that from
another thread or a user interface: :func:`stoppable` wraps a progress callable so that it
raises :class:`Cancelled` once the token is set.

>>> token = StopToken()
>>> seen = []
>>> progress = stoppable(lambda d, t, m: seen.append(d), token)
>>> progress(1, 3, "first")
>>> token.stop()
>>> try:
...     progress(2, 3, "second")
... except Cancelled as e:
...     print(e)
stopped by the user after 1 of 3 steps
>>> seen
[1]

**Jobs.** :class:`JobRunner` runs a study in the background so that a user interface can poll
it (:meth:`Job.status`: state, done/total, last message, elapsed and remaining seconds, result
or error) and stop it (:meth:`Job.stop`). The design, and why:

* **A worker process per job.** A unit of work can last long (a baseline on a large label
  space ran 15 minutes inside one unit), and a progress callable only runs between units, so a
  stop request cannot reach it. Each job therefore runs in its own process (``multiprocessing``
  with the ``forkserver`` start method where the platform has it, ``spawn`` elsewhere; never
  ``fork``, which is unsafe in a multi-threaded server). Stopping asks the study to stop at its
  next unit boundary (the worker's progress callable raises :class:`Cancelled`), waits
  ``grace`` seconds, and then kills the worker and every process it started (its process group
  on POSIX, and every descendant psutil finds), so nothing keeps burning CPU. The worker's
  memory goes back to the system when it ends. The study callable and its arguments must
  therefore be picklable (a module-level function, e.g. those of :mod:`camcf.studies`), and
  so must its result.
* **A server-wide limit.** At most ``max_jobs`` jobs run at once (environment variable
  ``CAMCF_MAX_JOBS``, default 1); further jobs wait in order (state ``"pending"``, with their
  place in the queue) and at most ``max_pending`` may wait (``CAMCF_MAX_PENDING``, default 4):
  beyond that :meth:`JobRunner.submit` refuses with :class:`JobRefused`.
* **A heartbeat.** A job submitted with ``heartbeat=seconds`` is stopped when nobody has called
  :meth:`Job.touch` for that long: a user interface touches the job each time it draws it, so a
  job whose page was closed, or whose session ended, stops by itself.
* **A worker that loses its server stops too**: it watches its control pipe and ends when the
  other side closes.

**Estimates.** :class:`Estimate` is a study's cost before it starts (seconds, and memory where
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
import multiprocessing as mp
import os
import signal
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import CamcfError

__all__ = [
    "Cancelled",
    "CostProgress",
    "Estimate",
    "Job",
    "JobRefused",
    "JobRunner",
    "JobStatus",
    "Progress",
    "Stage",
    "StopToken",
    "TimeBudgetExceeded",
    "format_bytes",
    "format_seconds",
    "max_jobs_setting",
    "preload",
    "remaining_seconds",
    "runner",
    "stoppable",
]

#: ``progress(done, total, message)``
Progress = Callable[[int, int, str], None]

#: job states
PENDING, RUNNING, DONE, FAILED, STOPPED = "pending", "running", "done", "failed", "stopped"
FINISHED = (DONE, FAILED, STOPPED)

ENV_MAX_JOBS = "CAMCF_MAX_JOBS"
ENV_MAX_PENDING = "CAMCF_MAX_PENDING"


class Cancelled(CamcfError):
    """A study was stopped before it finished (by the user, a budget or a closed session).

    Fields: ``done`` and ``total`` (units of work finished and planned when it stopped) and
    ``reason``.
    """


class TimeBudgetExceeded(CamcfError):
    """A unit of work ran past its own time budget (e.g. a baseline's ``max_seconds``).

    Not a :class:`Cancelled`: the study records the unit as failed and goes on. Fields:
    ``method``, ``seconds`` (spent), ``budget``, ``where``.
    """


class JobRefused(CamcfError):
    """The server runs as many jobs as it allows and as many wait as may wait.

    Fields: ``running``, ``pending``, ``max_jobs``.
    """


class StopToken:
    """A flag another thread may set to stop a study at its next unit boundary."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.reason = "stopped by the user"

    def stop(self, reason: str | None = None) -> None:
        if reason:
            self.reason = reason
        self._event.set()

    @property
    def stopped(self) -> bool:
        return self._event.is_set()

    def check(self, done: int = 0, total: int = 0) -> None:
        """Raise :class:`Cancelled` when the token has been set."""
        if self._event.is_set():
            where = f" after {done} of {total} steps" if total else ""
            raise Cancelled(f"{self.reason}{where}", done=done, total=total, reason=self.reason)


def stoppable(progress: Progress | None, token: StopToken) -> Progress:
    """A progress callable that raises :class:`Cancelled` once ``token`` is set, before
    passing the call on to ``progress`` (which may be None)."""

    def report(done: int, total: int, message: str) -> None:
        token.check(done - 1 if done else 0, total)
        if progress is not None:
            progress(done, total, message)

    return report


# ------------------------------------------------------------------------------------------------
# Estimates
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Stage:
    """``units`` units of work of one kind, each expected to take ``seconds_each`` seconds
    (None: not known before the study runs).

    ``kind``: what other stages the units are like (e.g. ``"selection:mi-mcf"`` on every data
    set). A stage with a kind that has not started costs its estimate × the measured / estimated
    ratio of the finished units of its kind (of all finished units with a kind while none of
    its own has finished): see :func:`remaining_seconds`. None: its estimate as it is.
    """

    name: str
    units: int
    seconds_each: float | None
    kind: str | None = None

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

    @classmethod
    def of(cls, stages: Sequence[Stage], memory: Mapping[str, int] | None = None,
           notes: Sequence[str] = ()) -> Estimate:
        """An estimate from its stages and the named parts of its memory (summed)."""
        parts = tuple(sorted(((k, int(v)) for k, v in (memory or {}).items() if v > 0),
                             key=lambda kv: -kv[1]))
        return cls(stages=tuple(stages), memory_bytes=sum(v for _, v in parts) if parts
                   else None, memory_parts=parts, notes=tuple(notes))

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
        """One line: ``about 4 min 30 s, about 2.1 GB of memory (30 units: …)``."""
        time_part = ("about " if self.complete else "at least ") + format_seconds(self.seconds)
        mem = ("" if self.memory_bytes is None
               else f", about {format_bytes(self.memory_bytes)} of memory")
        stages = "; ".join(
            f"{s.units:,} {s.name}" + ("" if s.seconds_each is None
                                       else f" × {format_seconds(s.seconds_each)}")
            for s in self.stages if s.units)
        return f"{time_part}{mem} ({stages})"


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
    """Seconds the rest of a study is expected to take.

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
        return mean_all * (total - done)
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
        left += n_left * each
    return left


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
# Jobs
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class JobStatus:
    """A snapshot of a job for a user interface.

    ``state``: ``"pending"`` (waiting for a free slot; ``queue_position`` 1 = next),
    ``"running"``, ``"done"`` (``result`` holds the study's return value), ``"failed"``
    (``error``: the message) or ``"stopped"`` (``error``: why). ``elapsed``: seconds since it
    started running (0 while pending). ``remaining``: expected seconds left (None: unknown).
    """

    id: str
    title: str
    state: str
    done: int
    total: int
    message: str
    elapsed: float
    remaining: float | None
    queue_position: int | None
    result: Any
    error: str | None
    error_type: str | None
    estimate: Estimate | None
    owner: Any
    tag: Any

    @property
    def finished(self) -> bool:
        return self.state in FINISHED

    @property
    def fraction(self) -> float:
        return min(1.0, self.done / self.total) if self.total else 0.0


class Job:
    """One study submitted to a :class:`JobRunner`. Thread-safe; poll :meth:`status`."""

    _ids = itertools.count(1)

    def __init__(self, runner: JobRunner, fn: Callable, args: tuple, kwargs: dict, *,
                 title: str, estimate: Estimate | None, owner: Any, tag: Any,
                 heartbeat: float | None) -> None:
        self.id = f"job-{next(Job._ids)}-{os.getpid()}"
        self.title = title
        self.estimate = estimate
        self.owner = owner
        self.tag = tag
        self.heartbeat = heartbeat
        self._runner = runner
        self._fn, self._args, self._kwargs = fn, args, kwargs
        self._lock = threading.Lock()
        self._state = PENDING
        self._done = 0
        self._total = estimate.units if estimate is not None else 0
        self._message = "waiting to start"
        self._unit_seconds: list[float] = []
        self._started: float | None = None
        self._finished: float | None = None
        self._last_unit: float | None = None
        self._result: Any = None
        self._error: str | None = None
        self._error_type: str | None = None
        self._stop_reason: str | None = None
        self._stop_event = threading.Event()
        self._finished_event = threading.Event()
        self._touched = time.monotonic()
        self.pid: int | None = None

    # ---- for the user interface ---------------------------------------------------------------
    def status(self) -> JobStatus:
        """A consistent snapshot (see :class:`JobStatus`)."""
        with self._lock:
            now = time.monotonic()
            end = self._finished if self._finished is not None else now
            elapsed = 0.0 if self._started is None else end - self._started
            remaining = None
            if self._state == RUNNING:
                remaining = remaining_seconds(self.estimate, self._unit_seconds, self._done,
                                              self._total)
                if remaining is not None:  # count down between two finished units
                    since = now - (self._last_unit or self._started or now)
                    remaining = max(0.0, remaining - since)
            elif self._state == PENDING and self.estimate is not None:
                remaining = self.estimate.seconds
            elif self._state == DONE:
                remaining = 0.0
            return JobStatus(
                id=self.id, title=self.title, state=self._state, done=self._done,
                total=self._total, message=self._message, elapsed=elapsed, remaining=remaining,
                queue_position=self._runner._position(self) if self._state == PENDING else None,
                result=self._result, error=self._error, error_type=self._error_type,
                estimate=self.estimate, owner=self.owner, tag=self.tag)

    @property
    def state(self) -> str:
        return self._state

    @property
    def result(self) -> Any:
        return self._result

    @property
    def stopping(self) -> bool:
        """A stop was asked for (the job may still be ending)."""
        return self._stop_event.is_set()

    def stop(self, reason: str = "stopped by the user") -> None:
        """Stop the job: at once while pending; while running, at the study's next unit
        boundary or, after the runner's grace period, by ending its worker process."""
        with self._lock:
            if self._state in FINISHED or self._stop_event.is_set():
                return
            self._stop_reason = reason
            self._stop_event.set()
        self._runner._wake()

    def touch(self) -> None:
        """Say that someone still watches this job (see the heartbeat in the module doc)."""
        self._touched = time.monotonic()

    def wait(self, timeout: float | None = None) -> JobStatus:
        """Block until the job has finished (or ``timeout`` seconds passed); its status."""
        self._finished_event.wait(timeout)
        return self.status()

    # ---- for the runner -------------------------------------------------------------------------
    def _set(self, **values) -> None:
        with self._lock:
            for k, v in values.items():
                setattr(self, f"_{k}", v)

    def _progress(self, done: int, total: int, message: str) -> None:
        now = time.monotonic()
        with self._lock:
            prev = self._last_unit or self._started or now
            if done > self._done:
                per = (now - prev) / (done - self._done)
                self._unit_seconds.extend([per] * (done - self._done))
                self._last_unit = now
            self._done = max(self._done, int(done))
            if total > 0 or self._done > 0:  # total 0: not known yet (keep the planned one)
                self._total = max(self._done, int(total))
            self._message = str(message)

    def _finish(self, state: str, *, result: Any = None, error: str | None = None,
                error_type: str | None = None) -> None:
        with self._lock:
            if self._state in FINISHED:
                return
            self._state = state
            self._result = result
            self._error = error
            self._error_type = error_type
            self._finished = time.monotonic()
            if self._started is None:
                self._started = self._finished
            self._fn = self._args = self._kwargs = None  # free the inputs
        self._finished_event.set()


def _setting(name: str, default: int, minimum: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise CamcfError(f"{name}={raw!r} is not a whole number; set it to e.g. {default}",
                         name=name, value=raw) from None
    if value < minimum:
        raise CamcfError(f"{name}={value} must be at least {minimum}", name=name, value=value)
    return value


def max_jobs_setting() -> int:
    """The server-wide limit on concurrent jobs: ``CAMCF_MAX_JOBS`` (default 1)."""
    return _setting(ENV_MAX_JOBS, 1, 1)


class JobRunner:
    """Runs jobs in worker processes, at most ``max_jobs`` at a time (see the module doc).

    Parameters
    ----------
    max_jobs : int, optional
        Jobs running at once; default :func:`max_jobs_setting` (``CAMCF_MAX_JOBS``, else 1).
    max_pending : int, optional
        Jobs that may wait for a slot; default ``CAMCF_MAX_PENDING``, else 4. Further
        submissions raise :class:`JobRefused`.
    grace : float, default 2.0
        Seconds a stopped job may take to stop at a unit boundary before its worker is killed.
    poll : float, default 0.2
        Seconds between the checks of a job's monitor thread (stop requests, heartbeat).
    """

    def __init__(self, max_jobs: int | None = None, max_pending: int | None = None, *,
                 grace: float = 2.0, poll: float = 0.2) -> None:
        self.max_jobs = int(max_jobs) if max_jobs is not None else max_jobs_setting()
        self.max_pending = (int(max_pending) if max_pending is not None
                            else _setting(ENV_MAX_PENDING, 4, 0))
        if self.max_jobs < 1:
            raise CamcfError(f"max_jobs must be at least 1, got {self.max_jobs}")
        self.grace = float(grace)
        self.poll = float(poll)
        self._cond = threading.Condition()
        self._queue: list[Job] = []  # pending, in order
        self._running: list[Job] = []
        self._all: dict[str, Job] = {}

    # ---- public ---------------------------------------------------------------------------------
    def submit(self, fn: Callable, args: tuple = (), kwargs: Mapping[str, Any] | None = None,
               *, title: str = "study", estimate: Estimate | None = None, owner: Any = None,
               tag: Any = None, heartbeat: float | None = None) -> Job:
        """Start ``fn(*args, progress=..., **kwargs)`` in a worker process (or queue it).

        ``fn``, its arguments and its return value must be picklable. ``owner``/``tag``: free
        values a user interface uses to find its jobs again (e.g. a session id and a page).
        ``heartbeat``: stop the job when :meth:`Job.touch` has not been called for that many
        seconds. Raises :class:`JobRefused` when ``max_pending`` jobs already wait.
        """
        job = Job(self, fn, tuple(args), dict(kwargs or {}), title=title, estimate=estimate,
                  owner=owner, tag=tag, heartbeat=heartbeat)
        with self._cond:
            busy = len(self._running) >= self.max_jobs
            if busy and len(self._queue) >= self.max_pending:
                raise JobRefused(
                    f"the server is busy: {len(self._running)} job(s) running (at most "
                    f"{self.max_jobs} at once, {ENV_MAX_JOBS}) and {len(self._queue)} waiting; "
                    "try again when one has finished", running=len(self._running),
                    pending=len(self._queue), max_jobs=self.max_jobs)
            self._queue.append(job)
            self._all[job.id] = job
            self._forget_old()
        threading.Thread(target=self._monitor, args=(job,), name=f"camcf-{job.id}",
                         daemon=True).start()
        return job

    def get(self, job_id: str) -> Job | None:
        return self._all.get(job_id)

    def jobs(self, owner: Any = None) -> list[Job]:
        """Jobs known to the runner (finished ones are forgotten after a while), oldest first;
        only ``owner``'s when given."""
        with self._cond:
            return [j for j in self._all.values() if owner is None or j.owner == owner]

    @property
    def running(self) -> int:
        return len(self._running)

    @property
    def pending(self) -> int:
        return len(self._queue)

    def warm_up(self) -> None:
        """Start the worker machinery (the fork server and its imports) in the background, so
        that the first job does not wait for it."""
        def start() -> None:
            try:
                proc = _context().Process(target=_nothing)
                proc.start()
                proc.join(timeout=600)
            except Exception:  # noqa: BLE001 - the first job will try again and report
                pass

        threading.Thread(target=start, name="camcf-jobs-warm-up", daemon=True).start()

    def stop_all(self, reason: str = "the server is shutting down", wait: float = 0.0) -> None:
        """Stop every job (and wait up to ``wait`` seconds for them to end)."""
        jobs = self.jobs()
        for job in jobs:
            job.stop(reason)
        deadline = time.monotonic() + wait
        for job in jobs:
            job.wait(max(0.0, deadline - time.monotonic()))

    # ---- internals ------------------------------------------------------------------------------
    def _position(self, job: Job) -> int | None:
        with self._cond:
            return self._queue.index(job) + 1 if job in self._queue else None

    def _wake(self) -> None:
        with self._cond:
            self._cond.notify_all()

    def _forget_old(self, keep: int = 64) -> None:
        finished = [j for j in self._all.values() if j.state in FINISHED]
        for j in finished[: max(0, len(finished) - keep)]:
            self._all.pop(j.id, None)

    def _heartbeat_lost(self, job: Job) -> bool:
        return job.heartbeat is not None and time.monotonic() - job._touched > job.heartbeat

    def _monitor(self, job: Job) -> None:
        """One thread per job: wait for a slot, run the worker, relay its messages."""
        with self._cond:
            while True:
                if job._stop_event.is_set() or self._heartbeat_lost(job):
                    self._queue.remove(job)
                    self._cond.notify_all()
                    reason = job._stop_reason or _no_heartbeat(job)
                    job._finish(STOPPED, error=f"{reason} before it started",
                                error_type="Cancelled")
                    return
                if self._queue[0] is job and len(self._running) < self.max_jobs:
                    self._queue.pop(0)
                    self._running.append(job)
                    break
                self._cond.wait(self.poll)
        try:
            self._run(job)
        except Exception as e:  # noqa: BLE001 - the monitor itself must never die silently
            self._release(job)
            job._finish(FAILED, error=f"the job could not be run: {type(e).__name__}: {e}",
                        error_type=type(e).__name__)
        finally:
            self._release(job)

    def _release(self, job: Job) -> None:
        """Free the job's slot (before it is reported finished, so that a finished job never
        holds one)."""
        with self._cond:
            if job in self._running:
                self._running.remove(job)
            self._cond.notify_all()

    def _run(self, job: Job) -> None:
        ctx = _context()
        recv_msgs, send_msgs = ctx.Pipe(duplex=False)
        recv_ctl, send_ctl = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_worker, name=f"camcf {job.title}"[:60],
                           args=(send_msgs, recv_ctl, job._fn, job._args, job._kwargs))
        job._set(state=RUNNING, started=time.monotonic(), message="starting the worker")
        job.touch()
        proc.start()
        job.pid = proc.pid
        send_msgs.close()
        recv_ctl.close()
        stop_sent: float | None = None
        final: tuple | None = None
        try:
            while final is None:
                ready = mp.connection.wait([recv_msgs, proc.sentinel], timeout=self.poll)
                if recv_msgs in ready:
                    try:
                        msg = recv_msgs.recv()
                    except (EOFError, OSError):
                        msg = None
                    if msg is None:
                        if not proc.is_alive():
                            break
                    elif msg[0] == "progress":
                        job._progress(*msg[1:])
                    elif msg[0] == "started":  # units are timed from here, not from the launch
                        job._set(last_unit=time.monotonic(), message="running")
                    else:
                        final = msg
                        break
                elif proc.sentinel in ready:
                    # the worker ended; read what it may still have sent
                    while recv_msgs.poll():
                        try:
                            msg = recv_msgs.recv()
                        except (EOFError, OSError):
                            break
                        if msg[0] == "progress":
                            job._progress(*msg[1:])
                        elif msg[0] != "started":
                            final = msg
                    break
                if stop_sent is None and (job._stop_event.is_set() or self._heartbeat_lost(job)):
                    if not job._stop_event.is_set():
                        job._stop_reason = _no_heartbeat(job)
                        job._stop_event.set()
                    stop_sent = time.monotonic()
                    job._set(message=f"stopping: {job._stop_reason}")
                    try:
                        send_ctl.send(("stop", job._stop_reason))
                    except (OSError, ValueError):
                        pass
                if stop_sent is not None and time.monotonic() - stop_sent > self.grace:
                    break  # did not stop at a unit boundary in time: killed below
        finally:
            _kill_tree(proc)
            proc.join(timeout=5)
            for conn in (recv_msgs, send_ctl):
                conn.close()
            self._release(job)
        if job._stop_event.is_set():
            reason = job._stop_reason or "stopped"
            if final is not None and final[0] == "done":
                job._finish(DONE, result=final[1])  # it finished before the stop arrived
            else:
                where = f" after {job._done} of {job._total} steps" if job._total else ""
                job._finish(STOPPED, error=f"{reason}{where}", error_type="Cancelled")
        elif final is None:
            code = proc.exitcode
            why = {-signal.SIGKILL: " (killed; often the machine ran out of memory)"}.get(
                code, "") if code is not None else ""
            job._finish(FAILED, error=f"the worker process ended unexpectedly with exit code "
                                      f"{code}{why}", error_type="WorkerDied")
        elif final[0] == "done":
            job._finish(DONE, result=final[1])
        elif final[0] == "stopped":
            job._finish(STOPPED, error=final[1], error_type="Cancelled")
        else:
            job._finish(FAILED, error=final[1], error_type=final[2])


def _no_heartbeat(job: Job) -> str:
    return (f"stopped because nobody watched it for {job.heartbeat:g} s (its page was left or "
            "its session ended)")


_CONTEXT: list = []
#: modules the fork server imports once, so that each worker starts without importing them
PRELOAD = ["camcf", "camcf.jobs", "camcf.studies", "camcf.evaluation", "camcf.landscape",
           "camcf.baselines"]


def preload(*modules: str) -> None:
    """Add modules for the fork server to import once (before its first job). A worker started
    by ``multiprocessing`` re-runs the main script of the calling program (e.g. Streamlit's
    command), so a server preloads what that script imports."""
    for m in modules:
        if m not in PRELOAD:
            PRELOAD.append(m)


def _context():
    """``forkserver`` where the platform has it (its server process is started from a clean
    interpreter, so no thread of the calling server is copied), else ``spawn``."""
    if not _CONTEXT:
        methods = mp.get_all_start_methods()
        ctx = mp.get_context("forkserver" if "forkserver" in methods else "spawn")
        if ctx.get_start_method() == "forkserver":
            try:
                ctx.set_forkserver_preload(list(PRELOAD))
            except Exception:  # noqa: BLE001 - only makes the first start slower
                pass
        _CONTEXT.append(ctx)
    return _CONTEXT[0]


def _nothing(progress=None) -> None:
    return None


def _descendants(pid: int) -> list:
    try:
        import psutil

        return psutil.Process(pid).children(recursive=True)
    except Exception:  # noqa: BLE001 - psutil missing or the process is gone
        return []


def _kill_tree(proc) -> None:
    """End the worker and every process it started."""
    if proc.pid is None:
        return
    children = _descendants(proc.pid)
    if proc.is_alive() or children:
        if hasattr(os, "killpg"):
            try:
                if os.getpgid(proc.pid) == proc.pid:  # the worker leads its own group
                    os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError, OSError):
                pass
        for p in children:
            try:
                p.kill()
            except Exception:  # noqa: BLE001 - already gone
                pass
        if proc.is_alive():
            proc.kill()


def _worker(send_msgs, recv_ctl, fn: Callable, args: tuple, kwargs: dict) -> None:
    """The worker process: run the study, send progress and the outcome."""
    if hasattr(os, "setpgid"):
        try:
            os.setpgid(0, 0)  # its own process group: the runner can end it with its children
        except OSError:
            pass
    token = StopToken()
    lock = threading.Lock()

    def send(msg: tuple) -> None:
        with lock:
            send_msgs.send(msg)

    def watch() -> None:
        while True:
            try:
                msg = recv_ctl.recv()
            except (EOFError, OSError):  # the server is gone: end at once, with any children
                if hasattr(os, "killpg") and os.getpgid(0) == os.getpid():
                    for p in _descendants(os.getpid()):
                        try:
                            p.kill()
                        except Exception:  # noqa: BLE001 - already gone
                            pass
                os._exit(1)
            if msg and msg[0] == "stop":
                token.stop(msg[1])

    threading.Thread(target=watch, daemon=True).start()

    def report(done: int, total: int, message: str) -> None:
        send(("progress", int(done), int(total), str(message)))

    send(("started",))
    try:
        result = fn(*args, progress=stoppable(report, token), **kwargs)
    except Cancelled as e:
        send(("stopped", str(e)))
        return
    except CamcfError as e:
        send(("failed", str(e), type(e).__name__))
        return
    except MemoryError:
        send(("failed", "the machine ran out of memory; use a smaller data set or fewer "
                        "splits", "MemoryError"))
        return
    except BaseException as e:  # noqa: BLE001 - reported to the user interface, not raised
        tb = traceback.format_exc(limit=8)
        send(("failed", f"{type(e).__name__}: {e}", type(e).__name__ + "\n" + tb))
        return
    try:
        send(("done", result))
    except Exception as e:  # noqa: BLE001 - e.g. a result that cannot be pickled
        send(("failed", f"the result could not be sent back ({type(e).__name__}: {e})",
              type(e).__name__))


_RUNNER: list[JobRunner] = []
_RUNNER_LOCK = threading.Lock()


def runner(max_jobs: int | None = None) -> JobRunner:
    """The process-wide :class:`JobRunner` (one per server: the limit is server-wide).

    ``max_jobs`` (e.g. from the app's configuration) overrides ``CAMCF_MAX_JOBS`` and may change
    the limit of an existing runner.
    """
    with _RUNNER_LOCK:
        if not _RUNNER:
            _RUNNER.append(JobRunner(max_jobs=max_jobs))
            import atexit

            atexit.register(_RUNNER[0].stop_all, "the server is shutting down", 5.0)
        elif max_jobs is not None and max_jobs != _RUNNER[0].max_jobs:
            if max_jobs < 1:
                raise CamcfError(f"max_jobs must be at least 1, got {max_jobs}")
            _RUNNER[0].max_jobs = int(max_jobs)
            _RUNNER[0]._wake()
        return _RUNNER[0]


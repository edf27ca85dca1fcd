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

**Partial results.** A study that can continue from what it finished (a grid whose finished
cells need not be computed again) hands its finished part to :func:`checkpoint` after each
unit: ``checkpoint(progress, value)`` calls ``progress.checkpoint(value)`` when the progress
callable has one (:func:`stoppable` keeps it; a job's worker gives its progress one that sends
``value`` to the job), and does nothing otherwise. A job keeps the last value it received
(:attr:`JobStatus.partial`), also when it is stopped or its worker is killed in the middle of a
unit — a stop keeps what the study had finished, and the study can be given it back to go on.

**Estimates** of a job's cost and remaining time are :mod:`camcf.estimates`' (a job carries
one and its status reports the remaining time from it).
"""

from __future__ import annotations

import itertools
import multiprocessing as mp
import os
import signal
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import CamcfError
from .estimates import (
    Estimate,
    Progress,
    remaining_parts,
)

__all__ = [
    "Cancelled",
    "Job",
    "JobRefused",
    "JobRunner",
    "JobStatus",
    "PartProgress",
    "Progress",
    "StopToken",
    "TimeBudgetExceeded",
    "checkpoint",
    "max_jobs_setting",
    "preload",
    "runner",
    "stoppable",
]


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
            where = f" after {done:,} of {total:,} steps" if total else ""
            raise Cancelled(f"{self.reason}{where}", done=done, total=total, reason=self.reason)


def stoppable(progress: Progress | None, token: StopToken) -> Progress:
    """A progress callable that raises :class:`Cancelled` once ``token`` is set, before
    passing the call on to ``progress`` (which may be None); ``progress``'s ``checkpoint``
    (see :func:`checkpoint`) is kept."""

    def report(done: int, total: int, message: str) -> None:
        token.check(done - 1 if done else 0, total)
        if progress is not None:
            progress(done, total, message)

    keep = getattr(progress, "checkpoint", None)
    if keep is not None:
        report.checkpoint = keep  # type: ignore[attr-defined]
    return report


class PartProgress:
    """The progress of one part of a study (a grid point, a method, a split) whose result only
    exists once its last unit has been reported: ``progress(offset + done, total, prefix +
    message)``, except that a :class:`Cancelled` raised at the part's last unit (``units``) is
    held, so that the part returns and its result can be kept (:func:`checkpoint`); then
    :meth:`release` raises it. Without this, a stop asked for during a part's last unit would
    lose the whole part.

    >>> seen = []
    >>> def progress(done, total, message):
    ...     seen.append(done)
    ...     raise Cancelled("stopped")
    >>> part = PartProgress(progress, offset=10, total=20, units=2)
    >>> part(2, 2, "last unit")   # held: the part can return and be kept
    >>> try:
    ...     part.release()
    ... except Cancelled as e:
    ...     print(e, seen)
    stopped [12]
    """

    def __init__(self, progress: Progress | None, *, offset: int, total: int, units: int,
                 prefix: str = "") -> None:
        self.progress, self.offset, self.total = progress, offset, total
        self.units, self.prefix = units, prefix
        self.held: Cancelled | None = None

    def __call__(self, done: int, total: int, message: str) -> None:
        if self.progress is None:
            return
        try:
            self.progress(self.offset + done, self.total, self.prefix + message)
        except Cancelled as e:
            if done < self.units:
                raise
            self.held = e

    def release(self) -> None:
        """Raise the stop held at the part's last unit, if any."""
        if self.held is not None:
            raise self.held


def checkpoint(progress: Progress | None, value: Any) -> None:
    """Hand ``value`` — what a study has finished so far, picklable — to whoever runs it:
    ``progress.checkpoint(value)`` when ``progress`` has that method (a job's worker gives it
    one: the job keeps the last value as :attr:`JobStatus.partial`), else nothing.

    >>> kept = []
    >>> def progress(done, total, message): pass
    >>> progress.checkpoint = kept.append
    >>> checkpoint(progress, {"cells": 3}); checkpoint(None, {"cells": 4})
    >>> kept
    [{'cells': 3}]
    """
    keep = getattr(progress, "checkpoint", None)
    if keep is not None:
        keep(value)


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
    ``partial``: the last value the study handed to :func:`checkpoint` (None: none yet).
    ``overrun``: the unit in progress has taken longer than it was expected to (its share of
    ``remaining`` is then unknown, and counted as 0).
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
    partial: Any = None
    overrun: bool = False

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
        self._partial: Any = None
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
            overrun = False
            if self._state == RUNNING:
                since = now - (self._last_unit or self._started or now)
                parts = remaining_parts(self.estimate, self._unit_seconds, self._done,
                                        self._total)
                if parts is not None:  # count down the unit in progress, then the rest
                    current, after = parts
                    # (late: twice its time and 2 s more, e.g. the first unit also starts up)
                    overrun = self._done < self._total and since > 2 * current + 2.0
                    remaining = after + max(0.0, current - since)
            elif self._state == PENDING and self.estimate is not None:
                remaining = self.estimate.seconds
            elif self._state == DONE:
                remaining = 0.0
            return JobStatus(
                id=self.id, title=self.title, state=self._state, done=self._done,
                total=self._total, message=self._message, elapsed=elapsed, remaining=remaining,
                queue_position=self._runner._position(self) if self._state == PENDING else None,
                result=self._result, error=self._error, error_type=self._error_type,
                estimate=self.estimate, owner=self.owner, tag=self.tag,
                partial=self._partial, overrun=overrun)

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
                    elif msg[0] == "partial":
                        job._set(partial=msg[1])
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
                        elif msg[0] == "partial":
                            job._set(partial=msg[1])
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
                where = (f" after {job._done:,} of {job._total:,} steps" if job._total
                         else "")
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

    def keep(value: Any) -> None:  # the study's finished part (checkpoint)
        send(("partial", value))

    report.checkpoint = keep  # type: ignore[attr-defined]
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


"""Studies as jobs in the app: their cost before they start, progress with a remaining time, a
Stop button, and nothing left running when their page is left or their session ends.

A study page shows the study's estimate (:func:`show_estimate`), starts it as a job of the
server's :class:`camcf.jobs.JobRunner` (:func:`start`) and follows it (:func:`follow`): a
fragment that reruns every :data:`POLL` seconds draws the progress, the remaining time and a Stop
button, and hands the result to the page once it is there. No Streamlit call happens outside
the script thread: the job's worker process and its monitor thread only write to the
:class:`camcf.jobs.Job`, which the fragment reads.

**When nobody watches any more.** Two signals, both from public APIs:

* *the page was left*: ``app.py`` calls :func:`page_shown` with the page it is about to run;
  this session's jobs started on another page are stopped at once;
* *the session ended* (tab closed, connection lost): every draw of the fragment touches the
  job (:meth:`camcf.jobs.Job.touch`); the runner stops a job nobody touched for
  :data:`HEARTBEAT` seconds (``CAMCF_JOB_HEARTBEAT``, default 120: a browser runs the timers of
  a hidden tab at most once a minute, and Streamlit itself keeps a disconnected session for 120 s).

**The server-wide limit** is ``[camcf] max_jobs`` in ``.streamlit/secrets.toml``, else the
environment variable ``CAMCF_MAX_JOBS``, else 1: a job beyond it waits (and says how many are
ahead of it); beyond ``CAMCF_MAX_PENDING`` waiting jobs a start is refused with a message.

**Short studies** (estimated under :data:`INLINE` seconds, e.g. on the demo) are waited for in
the click's own run, so their results appear at once, as before; the wait gives up after
:data:`INLINE_CAP` seconds and the fragment takes over.

Session-state keys (declared in ``pages/_state.py``, owned here): ``JOBS`` (this session's
jobs by slot), ``JOB_MESSAGES`` (each slot's last outcome), ``JOB_PAGE`` (the page drawn),
``JOB_OWNER`` (this session's id).
"""

from __future__ import annotations

import os
import re
import time
import uuid
from collections.abc import Callable
from typing import Any

import streamlit as st

from camcf import jobs, studies
from camcf.estimates import Estimate, format_bytes, format_seconds
from camcf.jobs import Job, JobRefused
from pages import _state as S

#: seconds between two draws of a running job
POLL = 1.0
#: seconds without a draw after which a job stops (its session ended)
HEARTBEAT = float(os.environ.get("CAMCF_JOB_HEARTBEAT", "120"))
#: studies estimated below this many seconds are waited for in the click's run
INLINE = 8.0
#: the longest such a wait lasts before the fragment takes over
INLINE_CAP = 30.0
#: seconds: the main run (app.py) estimated to take longer runs as a job (progress with the
#: time left and a Stop that keeps the previous results); a shorter one runs in the click's
#: own script run
RUN_AS_JOB = 3.0


@st.cache_resource(show_spinner=False)
def _server_runner() -> jobs.JobRunner:
    """The server's runner, its limit from the secrets or the environment."""
    limit = None
    try:
        if st.secrets.load_if_toml_exists():
            limit = st.secrets.get("camcf", {}).get("max_jobs")
    except Exception:  # noqa: BLE001 - an unreadable secrets file: the environment decides
        limit = None
    jobs.preload("streamlit")  # each worker re-runs app.py's imports (multiprocessing)
    runner = jobs.runner(int(limit) if limit is not None else None)
    runner.warm_up()
    return runner


def runner() -> jobs.JobRunner:
    return _server_runner()


def _owner() -> str:
    if not S.JOB_OWNER.has():
        S.JOB_OWNER.set(uuid.uuid4().hex)
    return S.JOB_OWNER.get()


def _jobs() -> dict:
    """This session's ``{slot: job id}`` (created on first use; changed in place)."""
    S.JOBS.init()
    return S.JOBS.get()


def _messages() -> dict:
    """Each slot's last outcome ``{slot: (kind, text)}`` (created on first use)."""
    S.JOB_MESSAGES.init()
    return S.JOB_MESSAGES.get()


def _job(slot: str) -> Job | None:
    job_id = _jobs().get(slot)
    return runner().get(job_id) if job_id else None


#: the page tag of a job of the frame (the main run): no page change stops it
FRAME_JOB = "*"
#: the slot of the main run (app.py)
RUN_SLOT = "run"


def page_shown(url_path: str) -> None:
    """Called by app.py before it runs a page: this session's jobs of other pages stop (not
    the frame's: the main run goes on whichever page is shown)."""
    S.JOB_PAGE.set(url_path)
    for job_id in list(_jobs().values()):
        job = runner().get(job_id)
        if (job is not None and job.tag[0] not in (url_path, FRAME_JOB)
                and job.state not in jobs.FINISHED):
            job.stop("stopped because its page was left")


# ------------------------------------------------------------------------------------------------
@st.cache_resource(max_entries=8,
                   show_spinner="Timing ML-kNN on a sample of the data for the estimate…")
def _classify_times(fingerprint: str, disc: tuple, k: int, neighbours: str,
                    _X, _Y) -> studies.ClassifyTimes:
    return studies.measure_classification(_X, _Y, disc=dict(disc), k=k, neighbours=neighbours)


def classify_times(rec, *, k: int, neighbours: str) -> studies.ClassifyTimes:
    """ML-kNN timed on samples of the run's data (once per data set, discretisation and
    ML-kNN settings: about a second), for the estimates."""
    ds = rec.data.dataset
    return _classify_times(rec.data.fingerprint, tuple(sorted(rec.disc.items())), int(k),
                           str(neighbours), ds.X, ds.Y)


def show_estimate(estimate: Estimate, *, what: str = "This study") -> None:
    """The study's cost before it starts: one line, and what it assumes in an expander."""
    st.caption(f"{what} will take {estimate.describe()}.")
    with st.expander("What the estimate assumes"):
        for note in estimate.notes:
            st.markdown(f"- {note}")
        if estimate.memory_parts:
            st.markdown("Memory of the worker process, largest parts first:")
            for name, size in estimate.memory_parts:
                st.markdown(f"- {name}: {format_bytes(size)}")
        lim = runner()
        st.markdown(f"The server runs at most {lim.max_jobs} stud"
                    f"{'y' if lim.max_jobs == 1 else 'ies'} at a time; a study started "
                    "beyond that waits for its turn.")


def start(slot: str, fn: Callable, kwargs: dict, *, title: str, estimate: Estimate | None,
          key: Any = None, frame: bool = False) -> None:
    """Start ``fn(**kwargs, progress=…)`` as this session's job in ``slot`` (stopping the slot's
    previous job) and rerun the page. ``key`` comes back with the result (see :func:`follow`).
    ``frame``: a job of the frame (the main run), which no page change stops. When the server
    refuses, :func:`follow` shows why."""
    old = _job(slot)
    if old is not None:
        old.stop("replaced by a new start")
    _messages().pop(slot, None)
    try:
        job = runner().submit(fn, kwargs=kwargs, title=title, estimate=estimate,
                              owner=_owner(),
                              tag=(FRAME_JOB if frame else S.JOB_PAGE.get(), slot, key),
                              heartbeat=HEARTBEAT)
    except JobRefused as e:
        _messages()[slot] = ("error", f"{title} could not start: {e}")
        return
    _jobs()[slot] = job.id
    st.rerun()  # draw the page again: its start button disabled, the job's progress below


def show_kept(slot: str) -> None:
    """A page shows a kept result instead of starting ``slot``'s study anew: the message about
    the slot's last stopped or failed job goes (it described another start)."""
    _messages().pop(slot, None)


def running(slot: str) -> bool:
    job = _job(slot)
    return job is not None and job.state not in jobs.FINISHED


def running_key(slot: str) -> Any:
    """The ``key`` (as given to :func:`start`) of ``slot``'s running job; None when none runs."""
    job = _job(slot)
    return job.tag[2] if job is not None and job.state not in jobs.FINISHED else None


def stop(slot: str, reason: str) -> None:
    """Stop ``slot``'s job, if one runs (its outcome is shown as for a Stop)."""
    job = _job(slot)
    if job is not None:
        job.stop(reason)


#: what a Stop keeps, said in the stop button's help and in the message after a stop
NOTHING_KEPT = "nothing of it is kept"


def follow(slot: str, on_result: Callable[[Any, Any], None], *,
           on_partial: Callable[[Any, Any], str] | None = None,
           kept: str = NOTHING_KEPT) -> None:
    """Draw ``slot``'s job: its progress while it runs (polled by a fragment), its outcome when
    it ends — ``on_result(result, key)`` once for a finished study (``key`` as given to
    :func:`start`), a message for a stopped or failed one (kept until the slot starts again).

    ``on_partial(partial, key)``: called once for a stopped or failed job whose study handed
    over what it had finished (:func:`camcf.jobs.checkpoint`); it keeps it and returns the
    words the message says about it (e.g. "its 6 finished cells are kept"). ``kept``: what a
    stop keeps otherwise (the Stop button's help and the message say it)."""
    job = _job(slot)
    if job is not None:
        job.touch()
        status = job.status()
        est = job.estimate
        if (not status.finished and est is not None and est.complete
                and est.seconds < INLINE):
            status = _wait_inline(job)
        if status.finished:
            _finish(slot, job, on_result, on_partial, kept)
            st.rerun()  # draw the page again with the outcome (and its start button enabled)
        _poll(slot, on_result, on_partial, kept)
        return
    kind, text = _messages().get(slot, (None, None))
    if kind == "error":
        st.error(text, icon=":material/error:")
    elif kind == "warning":
        st.warning(text, icon=":material/stop_circle:")


def _wait_inline(job: Job) -> jobs.JobStatus:
    """Wait for a short job in this run, with a progress bar."""
    bar = st.progress(0.0, text=f"{job.title}: starting")
    deadline = time.monotonic() + INLINE_CAP
    status = job.status()
    while not status.finished and time.monotonic() < deadline:
        job.touch()
        bar.progress(status.fraction, text=_line(status))
        time.sleep(0.1)
        status = job.status()
    bar.empty()
    return status


def _finish(slot: str, job: Job, on_result: Callable[[Any, Any], None],
            on_partial: Callable[[Any, Any], str] | None = None,
            kept: str = NOTHING_KEPT) -> None:
    status = job.status()
    _jobs().pop(slot, None)
    if status.state == jobs.DONE:
        _messages().pop(slot, None)
        on_result(status.result, job.tag[2])
        return
    words = None
    if on_partial is not None and status.partial is not None:
        words = on_partial(status.partial, job.tag[2])
    if status.state == jobs.STOPPED:
        again = ("press the button again to continue from them" if words else
                 "press the button again to start it anew")
        why = status.error
        if words:  # what is kept is counted there (the steps reported may lag a unit behind)
            why = re.sub(r" after [\d,]+ of [\d,]+ steps$", "", why)
        _messages()[slot] = ("warning", f"{job.title} {why}: {words or kept}; {again}.")
    else:
        _messages()[slot] = ("error", f"{job.title} failed: {status.error}"
                                      + (f" ({words})" if words else ""))


def _line(s: jobs.JobStatus) -> str:
    if s.state == jobs.PENDING:
        ahead = (s.queue_position or 1) - 1
        limit = runner().max_jobs
        return (f"{s.title}: queued — {ahead} stud{'y' if ahead == 1 else 'ies'} ahead of it "
                f"(the server runs at most {limit} at a time)" if ahead else
                f"{s.title}: queued — next, when a running study ends (the server runs at most "
                f"{limit} at a time)")
    if s.remaining is None:
        left = ""
    elif s.overrun:  # the step under way is taking longer than it was expected to
        left = (f", this step is taking longer than estimated; the steps after it: about "
                f"{format_seconds(s.remaining)}")
    else:
        left = f", about {format_seconds(s.remaining)} left"
    steps = f"{s.done:,}/{s.total:,} — " if s.total else ""
    return f"{s.title}: {steps}{s.message} ({format_seconds(s.elapsed)} so far{left})"


@st.fragment(run_every=POLL)
def _poll(slot: str, on_result: Callable[[Any, Any], None],
          on_partial: Callable[[Any, Any], str] | None = None,
          kept: str = NOTHING_KEPT) -> None:
    job = _job(slot)
    if job is None:
        return
    job.touch()
    status = job.status()
    if status.finished:
        _finish(slot, job, on_result, on_partial, kept)
        st.rerun(scope="app")
    with st.container(border=True):
        st.progress(status.fraction, text=_line(status))
        stopping = job.stopping
        # on_click: the job is stopped before this draw, so the button says "Stopping…" at once
        # (an explicit rerun of the fragment would fail when the whole page runs instead)
        st.button("Stopping…" if stopping else "Stop", key=f"jobs_stop_{slot}",
                  icon=":material/stop_circle:", disabled=stopping, on_click=job.stop,
                  help=f"Stop it: {kept if on_partial is None else 'what has finished is kept'}"
                       ". A running step that does not stop by itself within a few seconds is "
                       "ended.")

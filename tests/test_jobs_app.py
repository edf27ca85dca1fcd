"""Studies as jobs in the app (AppTest): the estimate before a study starts, progress and a Stop
button while it runs, its result, a stop when its page is left, and the server-wide limit
between two sessions. The studies run on the demo's run (1,000 rows) and last long enough to be
stopped by their size: 20 repeats, a 12 × 12 grid. (A 20,000-row demo loaded here before was
never run — large data wait for Run — so the pages studied the 1,000-row run anyway.)
``pages._jobs.INLINE = 0`` makes even a short study use the polled path a long one uses in a
browser."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import psutil
import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402
from support import app_test  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
sys.path.insert(0, str(ROOT))

from camcf import jobs  # noqa: E402
from pages import _jobs as jobs_ui  # noqa: E402
from pages import _state as S  # noqa: E402

PATIENCE = 240


@pytest.fixture(autouse=True)
def polled(monkeypatch):
    monkeypatch.setattr(jobs_ui, "INLINE", 0.0)
    yield
    jobs_ui.runner().stop_all(wait=60)


def _app() -> AppTest:
    at = app_test(APP, default_timeout=PATIENCE)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _goto(at: AppTest, page: str) -> AppTest:
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _job(at: AppTest, slot: str) -> jobs.Job:
    return jobs_ui.runner().get(at.session_state[S.JOBS.name][slot])


def _jobs_seen(at: AppTest) -> tuple:
    """What the page can show of the session's jobs: each one's state, progress, queue place
    and worker."""
    try:
        ids = list(at.session_state[S.JOBS.name].values())
    except KeyError:  # no job yet
        return ()
    seen = []
    for job_id in ids:
        job = jobs_ui.runner().get(job_id)
        if job is not None:
            s = job.status()
            seen.append((job_id, s.state, s.done, s.queue_position, job.pid))
    return tuple(seen)


def _rerun_until(at: AppTest, pred, timeout: float = PATIENCE) -> AppTest:
    """Rerun the app until ``pred``, as the page's polling fragment does every ``POLL`` = 1 s,
    but at once when one of the session's jobs has changed (its state, progress, queue place
    or worker: what a rerun would show); each rerun is a whole script run."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        if pred(at):
            return at
        seen, since = _jobs_seen(at), time.monotonic()
        while time.monotonic() - since < jobs_ui.POLL and _jobs_seen(at) == seen:
            time.sleep(0.05)
    raise AssertionError("the page never showed what was expected")


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _stop_evaluation(at: AppTest, repeats: int) -> None:
    """Start the evaluation with ``repeats`` repeats, stop it once it runs; the page says so."""
    at.number_input(key="ev_repeats").set_value(repeats).run()
    at.button(key="ev_run").click().run()
    job = _job(at, "evaluation")
    assert job.state in (jobs.PENDING, jobs.RUNNING)
    texts = [p.proto.text for p in at.get("progress")]
    assert any(t.startswith("The evaluation: ") for t in texts), texts
    at.run()
    assert at.button(key="ev_run").disabled  # one at a time per page
    _rerun_until(at, lambda a: job.pid is not None and job.status().done >= 1)
    worker = job.pid
    at.button(key="jobs_stop_evaluation").click().run()
    _rerun_until(at, lambda a: any("stopped by the user" in w.value for w in a.warning))
    assert job.status().state == jobs.STOPPED and _gone(worker)


def _stopped_shown(at: AppTest) -> bool:
    return any("stopped" in w.value for w in at.warning)


def test_estimate_then_progress_stop_and_result():
    at = _goto(_app(), "pages/evaluation.py")
    captions = [c.value for c in at.caption]
    assert any(c.startswith("The evaluation will take about ") and "of memory" in c
               for c in captions), captions
    assert any("The server runs at most" in m.value for m in at.markdown)
    assert any("the splits' codes and labels" in m.value for m in at.markdown)
    _stop_evaluation(at, 20)
    # what the stopped study finished (its first splits, if any) is shown, marked partial
    partial = [w.value for w in at.warning if w.value.startswith("Partial:")]
    assert bool(at.dataframe) == bool(partial)
    # start again with fewer repeats and let it finish (or, when an earlier test of the
    # process evaluated the same, show its kept result): the results appear
    at.number_input(key="ev_repeats").set_value(2).run()
    at.button(key="ev_run").click().run()
    _rerun_until(at, lambda a: len(a.dataframe) >= 2)
    assert not _stopped_shown(at)
    assert at.session_state["eval_key"][0] == "eval"
    # stopped again, then back to the kept result of 2 repeats: no job starts, and the
    # message about the stopped one goes (landed: it stayed above the kept result)
    _stop_evaluation(at, 19)
    at.number_input(key="ev_repeats").set_value(2).run()
    at.button(key="ev_run").click().run()
    assert "evaluation" not in at.session_state[S.JOBS.name]  # the kept result, no new job
    assert len(at.dataframe) >= 2 and not _stopped_shown(at), [w.value for w in at.warning]


def test_leaving_the_page_stops_its_study():
    at = _goto(_app(), "pages/landscape.py")
    assert any(c.value.startswith("The landscape will take about ") for c in at.caption)
    at.number_input(key="ls_delta1_steps").set_value(12).run()
    at.number_input(key="ls_k1_steps").set_value(12).run()
    at.button(key="ls_go").click().run()
    job = _job(at, "landscape")
    _rerun_until(at, lambda a: job.status().state == jobs.RUNNING and job.pid is not None)
    worker = job.pid
    _goto(at, "pages/overview.py")
    s = job.wait(PATIENCE)
    assert s.state == jobs.STOPPED and "its page was left" in s.error
    assert _gone(worker)


def test_a_second_session_queues_or_is_refused():
    runner = jobs_ui.runner()
    first = _goto(_app(), "pages/evaluation.py")
    first.number_input(key="ev_repeats").set_value(20).run()
    first.button(key="ev_run").click().run()
    job = _job(first, "evaluation")
    _rerun_until(first, lambda a: job.status().state == jobs.RUNNING)
    second = _goto(_app(), "pages/compare.py")
    second.multiselect(key="cmp_methods").set_value(["camcf", "all"])
    second.button(key="cmp_run").click().run()
    texts = [p.proto.text for p in second.get("progress")]
    assert any("queued" in t and "at most 1 at a time" in t for t in texts), texts
    queued = _job(second, "compare")
    assert queued.status().queue_position == 1
    old = runner.max_pending
    runner.max_pending = 0
    try:
        third = _goto(_app(), "pages/landscape.py")
        third.button(key="ls_go").click().run()
        assert any("could not start: the server is busy" in e.value for e in third.error)
    finally:
        runner.max_pending = old
    job.stop()
    _rerun_until(second, lambda a: len(a.dataframe) >= 1)  # its turn came; it finished


def test_a_study_of_a_session_that_ended_stops(monkeypatch):
    # (a heartbeat well below the study's time: at 3 s a fast machine's 20 repeats on the demo
    # could end first, and the job read "done")
    monkeypatch.setattr(jobs_ui, "HEARTBEAT", 1.0)
    at = _goto(_app(), "pages/evaluation.py")
    at.number_input(key="ev_repeats").set_value(20).run()
    at.button(key="ev_run").click().run()
    job = _job(at, "evaluation")
    del at  # the session is gone: nothing draws the job any more
    s = job.wait(PATIENCE)
    assert s.state == jobs.STOPPED and "nobody watched it for 1 s" in s.error
    assert "its page was left or its session ended" in s.error


def test_compare_estimates_every_chosen_method():
    """Issue 34 item 6: delicious's comparison said "at least 12 s" (only Ca-MCF was estimated;
    a baseline's cost was left open). Every chosen method is estimated from its cost model:
    the figure is "about", and each method's selections have their seconds."""
    at = _goto(_app(), "pages/compare.py")
    at.multiselect(key="cmp_methods").set_value(["camcf", "all", "mi-mcf"]).run()
    captions = [c.value for c in at.caption]
    estimate = next(c for c in captions if c.startswith("The comparison will take "))
    assert estimate.startswith("The comparison will take about "), estimate
    # the data set is named once, before its stages (it was repeated before each of them)
    start = estimate.index("(") + 1
    name = estimate[start:estimate.index(": ", start)]
    assert estimate.count(name) == 1, estimate
    for method in ("Ca-MCF", "MI-MCF"):
        assert f"{method} selections × " in estimate, estimate
    md = " ".join(m.value for m in at.markdown)
    assert "estimated from its cost model" in md and "mi-mcf stops after 600 s" in md

"""camcf.jobs: the job runner (worker processes, stop, the server-wide limit, heartbeats),
estimates and remaining times. Stopped jobs must leave no process behind (checked with psutil)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from camcf import jobs
from camcf.estimates import Estimate, Stage, remaining_seconds
from camcf.jobs import JobRefused, JobRunner

sys.path.insert(0, str(Path(__file__).parent))
import _jobs_helpers as helpers  # noqa: E402

#: seconds a state change may take on a loaded machine (the first job starts the fork server)
PATIENCE = 120


def _until(pred, timeout: float = PATIENCE, every: float = 0.05):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        value = pred()
        if value:
            return value
        time.sleep(every)
    raise AssertionError("condition not reached in time")


def _burns(pid: int) -> bool:
    """The process used CPU time during the last second (whatever the machine's load)."""
    p = psutil.Process(pid)
    before = sum(p.cpu_times()[:2])
    time.sleep(1.0)
    return sum(p.cpu_times()[:2]) > before


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.fixture(scope="module")
def runner():
    r = JobRunner(max_jobs=1, max_pending=1, grace=1.0, poll=0.05)
    yield r
    r.stop_all(wait=30)


# ---------------------------------------------------------------------------- estimates
def test_remaining_time_per_stage_corrects_a_wrong_estimate():
    est = Estimate.of([Stage("selection", 4, 10.0), Stage("classification", 10, 1.0)])
    assert est.seconds == 50 and est.units == 14 and est.complete
    assert remaining_seconds(est, [], 0, 14) == 50  # nothing finished: the estimate
    # two selections took 20 s each (twice the estimate): 2 more at 20 s, then 10 × 1 s as
    # estimated (a selection's time says nothing about a classification's)
    assert remaining_seconds(est, [20, 20], 2, 14) == pytest.approx(40 + 10)
    # selections done; 3 classifications at 0.5 s each: 7 more at 0.5 s
    assert remaining_seconds(est, [20, 20, 20, 20, 0.5, 0.5, 0.5], 7, 14) == pytest.approx(3.5)
    # the study reported fewer classifications than planned (identical sets classified once)
    assert remaining_seconds(est, [20] * 4, 4, 8) == pytest.approx(4 * 1.0)
    # a larger total is an upper bound the study will shrink: the planned 10 stay
    assert remaining_seconds(est, [20] * 4, 4, 30) == pytest.approx(10 * 1.0)


def test_remaining_time_without_an_estimate_is_the_mean_unit():
    assert remaining_seconds(None, [], 0, 10) is None
    assert remaining_seconds(None, [2.0, 4.0], 2, 10) == pytest.approx(8 * 3.0)
    unknown = Estimate.of([Stage("baseline", 3, None)])
    assert not unknown.complete and unknown.describe().startswith("at least")
    assert remaining_seconds(unknown, [5.0], 1, 3) == pytest.approx(10.0)
    mixed = Estimate.of([Stage("camcf", 2, 1.0), Stage("baseline", 2, None)])
    assert remaining_seconds(mixed, [], 0, 4) is None  # the unknown stage, nothing to go by
    assert remaining_seconds(mixed, [3.0], 1, 4) == pytest.approx(3.0 + 2 * 3.0)


def test_a_stage_not_started_is_corrected_by_its_kind_or_by_all_kinds():
    est = Estimate.of([Stage("small: tuning", 2, 1.0, kind="tuning"),
                       Stage("small: x", 1, 0.1, kind="select:x"),
                       Stage("big: tuning", 2, 100.0, kind="tuning"),
                       Stage("big: x", 1, 50.0, kind="select:x"),
                       Stage("plain", 1, 7.0)])
    # two small tunings took 3 s each (3× the estimate): no x has run yet, so every kind is
    # assumed 3× slow; a stage without a kind stays as estimated
    assert remaining_seconds(est, [3, 3], 2, 7) == pytest.approx(0.1 * 3 + 200 * 3 + 50 * 3 + 7)
    # the small x took half its estimate: the big x is predicted at half its estimate too
    assert remaining_seconds(est, [3, 3, 0.05], 3, 7) == pytest.approx(200 * 3 + 25 + 7)


def test_cost_progress_after_the_cheap_units_counts_the_expensive_ones():
    """Ten cheap units (estimated 0.1 s, taking 0.2 s) before two expensive ones (estimated
    50 s): unit counts say 0.4 s are left, the costed progress 2 × 50 s × 2."""
    from camcf.cli.progress import ProgressLine
    from camcf.estimates import CostProgress

    t = [0.0]
    calls = []
    out = io.StringIO()
    line = ProgressLine(out, tty=True, clock=lambda: t[0], min_interval=0.0)
    est = Estimate.of([Stage("cheap", 10, 0.1, kind="fit"), Stage("dear", 2, 50.0, kind="fit")])
    p = CostProgress(lambda d, n, m: (calls.append((d, n)), line(d, n, m)), est,
                     clock=lambda: t[0], start=0.0)
    for _ in range(10):
        t[0] += 0.2
        p.tick("cheap")
    assert 2.0 * (12 - 10) / 10 == pytest.approx(0.4)  # what equal units extrapolated
    assert p.seconds_left() == pytest.approx(200.0)
    done, total = calls[-1]
    assert 2.0 * (total - done) / done == pytest.approx(200.0, rel=0.02)
    assert done / total == pytest.approx(2.0 / 202.0, rel=0.02)  # the share of the time
    assert out.getvalue().rsplit("\r", 1)[1].endswith("about 3 min 20 s left")
    t[0] += 150.0                                # the first dear unit took 150 s, not 100
    p.tick("dear")
    done, total = calls[-1]
    assert 152.0 * (total - done) / done == pytest.approx(150.0, rel=0.02)
    t[0] += 150.0
    p.tick("dear")
    assert calls[-1][0] == calls[-1][1] > 0      # finished: 100 %
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)  # done never decreases
    assert all(n >= d for d, n in calls)


def test_a_job_shows_costed_progress_as_the_share_of_time_and_its_rest(monkeypatch):
    """The job runner needs nothing new: fed CostProgress's work units, a job's status says the
    share of the expected time and the cost model's time left (a fake clock, no worker)."""
    from camcf.estimates import CostProgress

    t = [100.0]
    monkeypatch.setattr(jobs.time, "monotonic", lambda: t[0])
    job = jobs.Job(JobRunner(max_jobs=1), print, (), {}, title="costed", estimate=None,
                   owner=None, tag=None, heartbeat=None)
    job._set(state=jobs.RUNNING, started=t[0])
    est = Estimate.of([Stage("cheap", 10, 0.1, kind="fit"), Stage("dear", 2, 50.0, kind="fit")])
    p = CostProgress(job._progress, est, clock=lambda: t[0], start=t[0])
    for _ in range(10):
        t[0] += 0.2
        p.tick("cheap")
    status = job.status()
    assert status.remaining == pytest.approx(200.0, rel=0.02)   # equal units: 0.4 s
    assert status.fraction == pytest.approx(2.0 / 202.0, rel=0.02)


def test_a_unit_past_its_estimate_does_not_read_as_nothing_left(monkeypatch):
    """Landed (issue 34, delicious's comparison): while FIMF's first split ran 14.5 min, the line
    said "about 0 s left" (the unit in progress counted down to 0 and nothing said it was late).
    The status says the unit under way overran, and its time left counts only the units after
    it."""
    t = [100.0]
    monkeypatch.setattr(jobs.time, "monotonic", lambda: t[0])
    est = Estimate.of([Stage("cheap", 2, 1.0), Stage("dear", 2, 60.0)])
    job = jobs.Job(JobRunner(max_jobs=1), print, (), {}, title="late", estimate=est,
                   owner=None, tag=None, heartbeat=None)
    job._set(state=jobs.RUNNING, started=t[0])
    for _ in range(2):
        t[0] += 1.0
        job._progress(job.status().done + 1, 4, "cheap")
    t[0] += 30.0  # half the first dear unit
    s = job.status()
    assert not s.overrun and s.remaining == pytest.approx(30.0 + 60.0)
    t[0] += 500.0  # far beyond its 60 s
    s = job.status()
    assert s.overrun and s.remaining == pytest.approx(60.0)  # the dear unit after it


def test_estimate_describes_time_and_memory():
    est = Estimate.of([Stage("selections", 5, 60.0)], {"folds": 1_400_000_000, "worker": 2e8},
                      ["assumed"])
    text = est.describe()
    assert text.startswith("about 5 min") and "1.6 GB" in text and "5 selections × 1 min" in text
    assert est.memory_parts[0] == ("folds", 1_400_000_000)  # largest first


def test_estimate_names_each_group_once_before_its_stages():
    """A comparison's stages of one data set follow its name, said once (it was repeated before
    every stage); stages without a group are listed as they are."""
    est = Estimate.of([Stage("Ca-MCF selections", 5, 2.0, group="flags (shared data folder)"),
                       Stage("ML-kNN classifications", 10, 0.5,
                             group="flags (shared data folder)"),
                       Stage("Ca-MCF selections", 5, 4.0, group="enron"),
                       Stage("All features (a reference, nothing to compute)", 5, 0.0,
                             group="enron"),
                       Stage("summary", 1, 1.0)])
    text = est.describe()
    assert text.count("flags (shared data folder)") == 1 and text.count("enron") == 1
    # work that costs nothing is named, not counted
    assert ("(flags (shared data folder): 5 Ca-MCF selections × 2.0 s, 10 ML-kNN "
            "classifications × 0.5 s; enron: 5 Ca-MCF selections × 4.0 s, All features (a "
            "reference, nothing to compute); 1 summary × 1.0 s)") in text
    assert est.stages[0].label == "flags (shared data folder): Ca-MCF selections"
    assert est.stages[4].label == "summary"


# ---------------------------------------------------------------------------- running
def test_a_job_runs_reports_progress_and_returns_its_result(runner):
    est = Estimate.of([Stage("units", 4, 0.05)])
    job = runner.submit(helpers.count, (4, 0.05), title="count", estimate=est, owner="me",
                        tag=("page", "slot", 7))
    seen = []
    while not job.status().finished:
        s = job.status()
        seen.append((s.state, s.done))
        time.sleep(0.01)
    s = job.wait(PATIENCE)
    assert s.state == jobs.DONE and s.result["units"] == 4
    assert (s.done, s.total, s.message) == (4, 4, "unit 4") and s.remaining == 0
    assert s.elapsed > 0 and s.owner == "me" and s.tag == ("page", "slot", 7)
    assert s.result["pid"] != os.getpid()  # it ran in a worker process
    dones = [d for _, d in seen]
    assert dones == sorted(dones)
    assert _until(lambda: _gone(s.result["pid"]), 30)
    assert job in runner.jobs(owner="me") and runner.get(job.id) is job


def test_failures_become_messages(runner):
    s = runner.submit(helpers.fail, title="bad").wait(PATIENCE)
    assert s.state == jobs.FAILED and s.error_type == "CamcfError"
    assert s.error.startswith("the labels are all zero") and s.done == 1
    s = runner.submit(helpers.crash, title="bug").wait(PATIENCE)
    assert s.state == jobs.FAILED and s.error == "ValueError: an unexpected bug"
    assert "Traceback" in s.error_type  # the traceback is kept for a log, not shown


def test_stop_at_a_unit_boundary(runner):
    job = runner.submit(helpers.count, (200, 0.05), title="long")
    _until(lambda: job.status().done >= 2)
    job.stop()
    s = job.wait(PATIENCE)
    assert s.state == jobs.STOPPED and s.error.startswith("stopped by the user after")
    assert 2 <= s.done < 200


def test_stop_ends_a_long_unit_and_every_process_it_started(runner, tmp_path):
    pid_file = tmp_path / "child.pid"
    job = runner.submit(helpers.burn, (600, str(pid_file)), title="burn")
    _until(lambda: pid_file.is_file() and pid_file.read_text())
    worker, child = job.pid, int(pid_file.read_text())
    assert psutil.Process(child).ppid() == worker
    assert _burns(worker)
    job.stop()
    s = job.wait(PATIENCE)
    assert s.state == jobs.STOPPED  # never reached a unit boundary: its worker was ended
    assert _until(lambda: _gone(worker) and _gone(child), 30)
    me = psutil.Process(os.getpid())
    assert not [p for p in me.children(recursive=True) if p.pid in (worker, child)]


def test_a_stopped_job_keeps_what_its_study_finished(runner):
    """A study hands each finished cell over (camcf.jobs.checkpoint): a stop at a unit boundary,
    and a stop that has to end the worker in the middle of a long unit, both leave the cells
    finished before it in the job's status (issue 34: a stopped study kept nothing)."""
    job = runner.submit(helpers.cells, kwargs={"n": 50, "seconds": 0.2}, title="cells")
    _until(lambda: job.status().done >= 3)
    job.stop()
    s = job.wait(PATIENCE)
    assert s.state == jobs.STOPPED and s.result is None
    assert len(s.partial) >= 3 and s.partial == {i: i * i for i in range(len(s.partial))}
    # the last cell runs 60 s without calling back: the worker is ended, the rest is kept
    job = runner.submit(helpers.cells, kwargs={"n": 3, "seconds": 0.1, "last": 60.0},
                        title="cells")
    _until(lambda: job.status().done >= 2)
    worker = job.pid
    job.stop()
    s = job.wait(PATIENCE)
    assert s.state == jobs.STOPPED and s.partial == {0: 0, 1: 1} and _gone(worker)


def test_the_limit_queues_and_refuses(runner):
    first = runner.submit(helpers.count, (100, 0.05), title="first")
    _until(lambda: first.status().state == jobs.RUNNING)
    second = runner.submit(helpers.count, (1, 0.01), title="second")
    s = second.status()
    assert s.state == jobs.PENDING and s.queue_position == 1
    with pytest.raises(JobRefused, match="the server is busy: 1 job"):
        runner.submit(helpers.count, (1, 0.01), title="third")  # max_pending = 1
    first.stop()
    assert second.wait(PATIENCE).state == jobs.DONE
    assert first.status().state == jobs.STOPPED


def test_a_pending_job_can_be_stopped(runner):
    first = runner.submit(helpers.count, (100, 0.05), title="first")
    second = runner.submit(helpers.count, (1, 0.01), title="second")
    second.stop("changed my mind")
    s = second.wait(PATIENCE)
    assert s.state == jobs.STOPPED and s.error == "changed my mind before it started"
    first.stop()
    first.wait(PATIENCE)


def test_a_job_nobody_watches_stops(runner):
    watched = runner.submit(helpers.count, (6, 0.25), title="watched", heartbeat=1.0)
    while not watched.status().finished:
        watched.touch()
        time.sleep(0.1)
    assert watched.status().state == jobs.DONE
    left = runner.submit(helpers.count, (10_000, 0.05), title="left", heartbeat=1.0)
    _until(lambda: left.status().state == jobs.RUNNING)
    s = left.wait(PATIENCE)
    assert s.state == jobs.STOPPED and "nobody watched it for 1 s" in s.error


def test_workers_end_when_their_server_dies(tmp_path):
    script = tmp_path / "server.py"
    script.write_text(textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        import _jobs_helpers as helpers
        from camcf.jobs import JobRunner

        if __name__ == "__main__":
            job = JobRunner().submit(helpers.burn, (600,))
            while job.pid is None or job.status().state != "running":
                time.sleep(0.05)
            print(job.pid, flush=True)
            time.sleep(600)
    """))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        worker = int(proc.stdout.readline())
        assert psutil.pid_exists(worker)
    finally:
        proc.kill()  # the server dies without cleaning up
        proc.wait()
    assert _until(lambda: _gone(worker), 60)


def test_settings_from_the_environment(monkeypatch):
    monkeypatch.setenv("CAMCF_MAX_JOBS", "3")
    assert jobs.max_jobs_setting() == 3 and JobRunner().max_jobs == 3
    monkeypatch.setenv("CAMCF_MAX_JOBS", "many")
    with pytest.raises(jobs.CamcfError, match="CAMCF_MAX_JOBS='many' is not a whole number"):
        jobs.max_jobs_setting()
    monkeypatch.delenv("CAMCF_MAX_JOBS")
    assert jobs.max_jobs_setting() == 1

"""The main Run as a job (issue 34 item 2): its estimate before it starts (from the data's shape
and the thresholds), progress with the time left, and a Stop that keeps the previous results.

A run is made long without burning CPU: ``camcf.studies.run_selection`` is replaced by
``_jobs_helpers.slow_selection`` (40 steps of 0.25 s, then the real run), which the job's
worker imports by name; the cost model is scaled up so that the demo's run is estimated above
``pages._jobs.RUN_AS_JOB``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from support import new_app, run_button, texts  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
import _jobs_helpers as helpers  # noqa: E402
from test_jobs_app import _rerun_until  # noqa: E402

from camcf import estimates, jobs, studies  # noqa: E402
from pages import _jobs as jobs_ui  # noqa: E402


@pytest.fixture
def slow(monkeypatch):
    """A fresh session on the demo (run at once), after which runs are estimated long (the model
    × 10⁴) and last 10 s in their worker."""
    at = new_app()
    cost = getattr(estimates, "RUN_COST", {})
    for name in ("feature", "label", "candidate"):
        if name in cost:
            monkeypatch.setitem(cost, name, cost[name] * 1e4)
    monkeypatch.setattr(studies, "run_selection", helpers.slow_selection, raising=False)
    monkeypatch.setattr(jobs_ui, "INLINE", 0.0)
    yield at
    jobs_ui.runner().stop_all(wait=60)


def _run_job(at):
    job_id = at.session_state["jobs_running"].get("run")
    return jobs_ui.runner().get(job_id) if job_id else None


def _seed_changed(at, seed: int):
    """Load a demo of 17,000 rows with another seed (new data too large to run by itself)."""
    at.number_input(key="demo_n").set_value(17_000)
    at.number_input(key="demo_seed").set_value(seed)
    at.button(key="load_demo").click().run()
    assert not at.exception


def test_the_estimate_before_a_run_follows_the_shape_and_the_thresholds(slow):
    """Before: the sidebar said nothing of a run's cost (delicious ran 101 s with only a
    category counter). Now Run has the estimate under it, and a lower δ1 is estimated
    dearer (more candidates)."""
    from camcf.estimates import RunShape, run_seconds

    at = slow
    _seed_changed(at, 4801)
    data = at.session_state["data"]
    captions = [c.value for c in at.caption if c.value.startswith("This run will take")]
    assert len(captions) == 1, texts(at)
    params = dict(at.session_state["run"].params)
    shape = RunShape.of(data.dataset.X, data.dataset.Y,
                        min_category_size=params["min_category_size"])
    low = run_seconds(shape, {**params, "delta1": 0.00005})
    assert low > run_seconds(shape, params)
    at.number_input(key="p_delta1").set_value(0.00005).run()
    later = [c.value for c in at.caption if c.value.startswith("This run will take")]
    assert later and later != captions


def test_a_long_run_is_a_job_with_progress_and_its_stop_keeps_the_results(slow):
    at = slow
    before = at.session_state["run"]
    _seed_changed(at, 4802)
    assert at.session_state["run"] is before  # large estimate: waits for Run
    run_button(at).click().run()
    job = _run_job(at)
    assert job is not None and job.tag[0] == jobs_ui.FRAME_JOB
    _rerun_until(at, lambda a: job.status().done >= 2)
    lines = [p.proto.text for p in at.get("progress")]
    assert any(t.startswith("The Ca-MCF run: ") and "so far, " in t and "about " in t
               for t in lines), lines
    # another page: the run goes on (only a page's own studies stop when it is left)
    at.switch_page("pages/skeleton.py")
    at.run()
    assert job.state == jobs.RUNNING
    worker = job.pid
    at.button(key="jobs_stop_run").click().run()
    _rerun_until(at, lambda a: any("stopped by the user" in w.value for w in a.warning))
    assert job.status().state == jobs.STOPPED and worker is not None
    warning = next(w.value for w in at.warning if "stopped by the user" in w.value)
    assert "the results shown before it stay" in warning
    assert at.session_state["run"] is before


def test_a_finished_run_job_becomes_the_run_every_page_draws(slow):
    at = slow
    _seed_changed(at, 4803)
    run_button(at).click().run()
    job = _run_job(at)
    _rerun_until(at, lambda a: a.session_state["run"].data.fingerprint
                 == a.session_state["data"].fingerprint)
    assert job.status().state == jobs.DONE
    rec = at.session_state["run"]
    assert "seed 4803" in rec.data.description and "17000" in rec.data.description and rec.result.selected_indices.size > 0
    assert "results are stale" not in texts(at)

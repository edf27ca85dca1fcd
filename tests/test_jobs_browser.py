"""Studies as jobs in a real browser (Chromium via Playwright), on a server of the module's
own: first a deep link as that server's first request (the page draws, a change is kept); then
a long study shows its estimate, its progress and a Stop button; Stop ends it and, checked with
psutil, the server's process tree goes back to idle with no worker left; a study whose page is
left stops at once, and one whose tab is closed stops after the heartbeat (set to 10 s for this
server).

The data: the built-in demo drawn at 8,000 rows (from the link ``?data=demo&n=8000``: small
enough to run as the link opens, n × m ≤ ``app.SMALL``), and an evaluation with 20 repeats,
which takes minutes (the app estimated 3 min 41 s on a loaded 2-core machine), long after the
heartbeat: long because of its repeats, not its data, so the server's own run stays short (the 20,000 rows used before had to wait for a Run
click and made every page of the module slower).
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

import psutil
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from support import SHOTS, set_number, settle, shot, start_app, stop_app, wait_idle  # noqa: E402

pytestmark = pytest.mark.browser


def _tree(pid: int) -> tuple[list[psutil.Process], list[psutil.Process]]:
    """(the server and its helpers, the job workers): workers are the fork server's children."""
    server = psutil.Process(pid)
    helpers, workers = [server], []
    for p in server.children(recursive=True):
        try:  # a process may end while it is looked at (a worker that just stopped)
            parent = " ".join(p.parent().cmdline())
            is_worker = "multiprocessing.forkserver" in parent and p.ppid() != pid
        except psutil.Error:
            continue
        (workers if is_worker else helpers).append(p)
    return helpers, workers


def _cpu_seconds(procs: list[psutil.Process]) -> float:
    total = 0.0
    for p in procs:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total


def _until(pred, timeout: float = 120.0):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        value = pred()
        if value:
            return value
        time.sleep(0.25)
    raise AssertionError("condition not reached in time")


@pytest.fixture(scope="module")
def server_of_its_own(chromium):
    """A server of its own (heartbeat 10 s) and a context of the session's Chromium."""
    proc, url = start_app({"CAMCF_JOB_HEARTBEAT": "10"})
    ctx = chromium.new_context(viewport={"width": 1440, "height": 1800})
    try:
        yield proc, ctx, url
    finally:
        ctx.close()
        stop_app(proc)


@pytest.fixture(scope="module")
def app(server_of_its_own):
    """A session on the demo at N rows, run: (page, server process, context, url). The last
    test closes its tab (a page load costs Chromium seconds: the tests share one)."""
    proc, ctx, url = server_of_its_own
    return _session(ctx, url), proc, ctx, url


def test_deep_link_on_a_fresh_server(server_of_its_own):
    """The first request of a new server process goes straight to a page URL (this module's
    server, before any other page: the session's server may have served pages already)."""
    _, ctx, url = server_of_its_own
    page = ctx.new_page()
    page.goto(f"{url}/skeleton")
    settle(page)
    main = page.locator('[data-testid="stMain"]')
    main.get_by_text("Label skeleton").first.wait_for(timeout=30_000)
    assert page.get_by_text("Page not found").count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0
    # the frame ran: the sidebar has the data source and the parameters
    side = page.locator('[data-testid="stSidebar"]')
    assert side.get_by_text("Parameters").count() >= 1
    assert urlparse(page.url).path == "/skeleton"
    shot(page, "deeplink-fresh-skeleton", full_page=False)
    # and the first change is not lost: δ1 moves and Run applies it
    set_number(page, "δ1", "0.055")
    side.get_by_text("results are stale").wait_for(timeout=15_000)
    page.close()


N = 8000


def _session(ctx, url: str):
    """A new tab (a new session) with the demo at N rows, run (a link with data runs them)."""
    page = ctx.new_page()
    page.set_default_timeout(180_000)
    page.goto(f"{url}/?data=demo&n={N}")
    wait_idle(page, 180_000)
    side = page.locator('[data-testid="stSidebar"]')
    side.get_by_text(f"{N:,} samples").first.wait_for()
    # the run is there: "no results yet" gone, and not stale
    side.get_by_text("no results yet").wait_for(state="detached", timeout=180_000)
    side.get_by_text("results are stale").wait_for(state="detached")
    return page


def _open_evaluation(page) -> None:
    side = page.locator('[data-testid="stSidebar"]')
    side.locator('[data-testid="stSidebarNav"]').get_by_text("Evaluation").click()
    wait_idle(page, 180_000)
    box = page.locator('[data-testid="stNumberInput"]').filter(has_text="Repeats")
    box.locator("input").fill("20")
    page.keyboard.press("Enter")
    wait_idle(page, 180_000)


def _start(page, proc) -> psutil.Process:
    main = page.locator('[data-testid="stMain"]')
    main.get_by_text("The evaluation will take about").wait_for()
    # (after a stopped evaluation of the same settings the button continues it)
    page.get_by_role("button", name=re.compile(r"^(Evaluate$|Continue \()")).click()
    page.get_by_role("button", name="Stop").wait_for()

    def live(w: psutil.Process) -> bool:
        try:
            return w.is_running() and w.status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False

    def computing():  # the job's worker: a live worker whose CPU time grows over a second (the
        # fork server's warm-up process and short-lived helpers end or stay idle; under load
        # one of them may have used more CPU so far than the worker)
        before = {w.pid: (w, _cpu_seconds([w])) for w in _tree(proc.pid)[1] if live(w)}
        time.sleep(1.0)
        grown = [(_cpu_seconds([w]) - c, w) for w, c in before.values() if live(w)]
        busy = [(d, w) for d, w in grown if d > 0.2]
        return max(busy, key=lambda dw: dw[0])[1] if busy else None

    return _until(computing)


def test_stop_ends_the_study_and_the_server_goes_idle(app):
    page, proc, _, _ = app
    SHOTS.mkdir(parents=True, exist_ok=True)
    _open_evaluation(page)
    worker = _start(page, proc)  # found computing: its CPU time grew by > 0.2 s in 1 s
    before = _cpu_seconds([worker])
    time.sleep(0.5)
    assert _cpu_seconds([worker]) > before  # and still computes
    main = page.locator('[data-testid="stMain"]')
    main.get_by_text("The evaluation: ").first.wait_for()
    page.screenshot(path=str(SHOTS / "job-running.png"), full_page=False)
    page.get_by_role("button", name="Stop").click()
    main.get_by_text("stopped by the user").wait_for()
    page.screenshot(path=str(SHOTS / "job-stopped.png"), full_page=False)
    _until(lambda: not psutil.pid_exists(worker.pid) or worker.status() == psutil.STATUS_ZOMBIE,
           30)
    _until(lambda: _tree(proc.pid)[1] == [], 60)
    helpers = _tree(proc.pid)[0]
    time.sleep(2.0)  # the page's last reruns settle
    before = _cpu_seconds(helpers)
    time.sleep(4.0)
    used = _cpu_seconds(_tree(proc.pid)[0]) - before
    assert used < 0.8, f"the server used {used:.2f} s of CPU in 4 s after the stop"
    assert page.locator('[data-testid="stException"]').count() == 0


def test_leaving_the_page_stops_its_study(app):
    page, proc, _, _ = app
    _open_evaluation(page)
    worker = _start(page, proc)
    side = page.locator('[data-testid="stSidebar"]')
    side.locator('[data-testid="stSidebarNav"]').get_by_text("Overview").click()
    wait_idle(page, 180_000)
    _until(lambda: not psutil.pid_exists(worker.pid) or worker.status() == psutil.STATUS_ZOMBIE,
           30)
    _until(lambda: _tree(proc.pid)[1] == [], 60)
    side.locator('[data-testid="stSidebarNav"]').get_by_text("Evaluation").click()
    wait_idle(page, 180_000)
    page.locator('[data-testid="stMain"]').get_by_text("its page was left").wait_for()
    page.screenshot(path=str(SHOTS / "job-page-left.png"), full_page=False)


def test_closing_the_tab_stops_its_study(app):
    """The session ends with its tab: nothing draws the job any more, and after the heartbeat
    (10 s for this server; 120 s by default) the job stops and its worker is gone. (The
    module's tab, after the tests above: the last test of the module.)"""
    page, proc, _, _ = app
    _open_evaluation(page)
    worker = _start(page, proc)
    page.close()
    _until(lambda: not psutil.pid_exists(worker.pid) or worker.status() == psutil.STATUS_ZOMBIE,
           90)
    _until(lambda: _tree(proc.pid)[1] == [], 60)  # no worker of any job survives

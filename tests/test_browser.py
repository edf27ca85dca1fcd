"""The app in a real browser: Debian's Chromium driven by Playwright, network limited to localhost.

Starts ``streamlit run app.py`` on a free port, opens every page, checks that the graphs draw
inside their frames (vis-network canvas, node ids), that no request leaves localhost, moves a
slider and presses Run, and saves screenshots to ``artifacts/screenshots/``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
SHOTS = REPO / "artifacts" / "screenshots"
CHROME_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
               "--no-first-run", "--disable-background-networking",
               "--disable-component-update", "--disable-sync"]
PAGES = [  # url path, a text the page shows, graphs expected
    ("", "Ca-MCF explorer", 0),
    ("skeleton", "Label skeleton", 1),
    ("local_structure", "Local structure", 1),
    ("recovery", "Recovery", 0),
    ("pruning", "Pruning", 0),
    ("step_through", "Step through", 1),
    ("what_changed", "What changed", 0),
    ("landscape", "Threshold landscape", 0),
    ("evaluation", "Evaluation", 0),
    ("export", "Export", 0),
]

pytestmark = pytest.mark.browser


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(env: dict | None = None, port: int | None = None):
    """Start the app; return (process, base url). The caller stops the process."""
    port = port or _free_port()
    streamlit = Path(sys.executable).with_name("streamlit")
    cmd = [str(streamlit) if streamlit.exists() else "streamlit", "run", "app.py",
           "--server.headless", "true", "--server.address", "127.0.0.1", "--server.port",
           str(port), "--browser.gatherUsageStats", "false"]
    proc = subprocess.Popen(cmd, cwd=REPO, env={**os.environ, **(env or {})},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=1) as r:
                if r.read().decode().strip() == "ok":
                    return proc, url
        except OSError:
            time.sleep(0.2)
    proc.terminate()
    raise RuntimeError("streamlit did not become healthy within 60 s")


def wait_idle(page, timeout: float = 90_000) -> None:
    """Wait until the script has run (Streamlit's own e2e tests wait this way); generous, for
    a loaded machine."""
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                           timeout=timeout)
    page.wait_for_timeout(150)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                           timeout=timeout)


def graph_node_ids(page, index: int = 0, timeout: float = 15_000) -> list[str]:
    """Node ids drawn by vis-network in the ``index``-th frame (waits for the canvas)."""
    frame_el = page.locator('[data-testid="stIFrame"]').nth(index)
    frame_el.wait_for(timeout=timeout)
    frame = frame_el.content_frame
    frame.locator("#mynetwork canvas").wait_for(timeout=timeout)
    return frame.locator("body").evaluate(
        "() => (typeof nodes !== 'undefined' && nodes) ? nodes.getIds() : []")


@pytest.fixture(scope="module")
def browser_app():
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} not found (apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (.venv/bin/pip install playwright)")
    if shutil.which("streamlit") is None and not Path(sys.executable).with_name(
            "streamlit").exists():
        pytest.skip("streamlit executable not found")
    proc, url = start_app()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
            ctx = browser.new_context(viewport={"width": 1440, "height": 2200})
            page = ctx.new_page()
            failed: list[str] = []
            outside: list[str] = []

            def on_request(req):
                u = req.url
                if not (u.startswith(("http://127.0.0.1", "http://localhost", "ws://127.0.0.1",
                                      "data:", "blob:", "about:"))):
                    outside.append(u)

            page.on("request", on_request)
            # (a deep link as the first request of a fresh server is tested in
            # test_browser_tuning.py)
            page.goto(url)
            wait_idle(page)
            page.on("requestfailed", lambda r: failed.append(f"{r.url} {r.failure}"))
            yield page, url, failed, outside
            browser.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_every_page_draws(browser_app):
    page, url, failed, outside = browser_app
    SHOTS.mkdir(parents=True, exist_ok=True)
    for path, text, n_graphs in PAGES:
        page.goto(f"{url}/{path}")
        wait_idle(page)
        page.get_by_text(text).first.wait_for(timeout=15_000)
        assert page.locator('[data-testid="stException"]').count() == 0, path
        assert page.get_by_text("Page not found").count() == 0, path
        if n_graphs:
            ids = graph_node_ids(page)
            assert ids, f"no node drawn on {path or 'overview'}"
        else:
            page.wait_for_timeout(400)  # let plotly finish drawing before the screenshot
        page.screenshot(path=str(SHOTS / f"{path or 'overview'}.png"), full_page=True)
    # the local graph of the default target holds its PC members and the target itself
    page.goto(f"{url}/local_structure")
    wait_idle(page)
    ids = graph_node_ids(page)
    assert any("=" in i for i in ids)  # a category node (the target)
    assert any(i.startswith("f") for i in ids)  # features
    assert not outside, f"requests left localhost: {outside[:5]}"
    assert not [f for f in failed if "127.0.0.1" not in f], failed


def test_slider_and_run_change_the_result(browser_app):
    page, url, failed, outside = browser_app
    page.goto(url)
    wait_idle(page)
    metric = page.locator('[data-testid="stMetricValue"]').first
    before = metric.inner_text()
    slider = page.locator(
        '[data-testid="stSidebar"] [data-testid="stSlider"] input[type="range"]').first  # δ1
    slider.focus()
    for _ in range(10):  # 0.05 → 0.10 (step 0.005); applied on Run
        page.keyboard.press("ArrowRight")
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("results are stale").wait_for(timeout=10_000)  # marked before Run
    page.screenshot(path=str(SHOTS / "stale.png"), full_page=True)
    assert page.locator('[data-testid="stMetricValue"]').first.inner_text() == before
    page.get_by_role("button", name="Run", exact=True).click()
    wait_idle(page)
    page.wait_for_timeout(300)
    wait_idle(page)
    after = page.locator('[data-testid="stMetricValue"]').first.inner_text()
    page.screenshot(path=str(SHOTS / "after-run.png"), full_page=True)
    assert sidebar.get_by_text("results are stale").count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0
    assert after != before, "moving δ1 from 0.05 to 0.10 should change the selection"
    assert not outside, outside[:5]


def test_clicking_a_pruning_point_explains_it(browser_app):
    """The plotly scatter sends the click back (on_select): the page explains that feature."""
    page, url, failed, outside = browser_app
    page.goto(f"{url}/pruning")
    wait_idle(page)
    chart = page.locator('[data-testid="stPlotlyChart"]').first
    chart.wait_for(timeout=15_000)
    points = chart.locator(".scatterlayer .trace .points path")
    points.first.wait_for(timeout=15_000)
    # without a click the page explains the first pruned feature; the first trace holds the
    # features that stayed in the blanket, so clicking one must change the explanation
    assert "Fate: blanket" not in page.locator('[data-testid="stMain"]').inner_text()
    box = points.first.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    wait_idle(page)
    page.wait_for_timeout(300)
    wait_idle(page)
    main = page.locator('[data-testid="stMain"]')
    text = main.inner_text()
    assert "Fate: blanket" in text and "passes the symmetry check" in text
    page.screenshot(path=str(SHOTS / "pruning-clicked.png"), full_page=True)
    assert page.locator('[data-testid="stException"]').count() == 0


def test_evaluation_page_classifies_on_demand(browser_app):
    """The heavy work waits for its button; then the metrics table and the radar chart show."""
    page, url, failed, outside = browser_app
    page.goto(f"{url}/evaluation")
    wait_idle(page)
    main = page.locator('[data-testid="stMain"]')
    assert "All features vs the selection" not in main.inner_text()
    page.get_by_role("button", name="Evaluate", exact=True).click()
    page.get_by_text("All features vs the selection").wait_for(timeout=60_000)
    wait_idle(page, timeout=60_000)
    page.wait_for_timeout(400)
    text = main.inner_text()
    assert "Hamming loss" in text and "Ablation by phase" in text
    assert page.locator('[data-testid="stPlotlyChart"]').count() >= 2  # radar + ablation
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(SHOTS / "evaluation-results.png"), full_page=True)
    assert not outside, outside[:5]

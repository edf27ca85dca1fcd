"""The tuning views in a real browser (Chromium + Playwright): a deep link on a fresh server,
What changed (pin, move a slider, run), the landscape (compute, click a cell → sliders move),
and a shared link opened in a fresh browser context. Screenshots go to ``$CAMCF_SHOTS`` (default
``artifacts/screenshots``)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from test_browser import CHROME_ARGS, CHROMIUM, REPO, start_app, wait_idle

SHOTS = Path(os.environ.get("CAMCF_SHOTS", REPO / "artifacts" / "screenshots"))
pytestmark = pytest.mark.browser


def _stop(proc) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def pw_browser():
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} not found (apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed")
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def server():
    proc, url = start_app()
    yield url
    _stop(proc)


def _page(browser):
    ctx = browser.new_context(viewport={"width": 1440, "height": 1400})
    return ctx, ctx.new_page()


def _settle(page) -> None:
    wait_idle(page, 60_000)
    page.wait_for_timeout(400)
    wait_idle(page, 60_000)


def _slider_value(page, label: str) -> str:
    s = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]').filter(has_text=label)
    return s.locator('[data-testid="stSliderThumbValue"]').first.inner_text()


def test_deep_link_on_a_fresh_server(pw_browser):
    """The first request of a new server process goes straight to a page URL."""
    proc, url = start_app()
    try:
        ctx, page = _page(pw_browser)
        page.goto(f"{url}/skeleton")
        _settle(page)
        main = page.locator('[data-testid="stMain"]')
        main.get_by_text("Label skeleton").first.wait_for(timeout=30_000)
        assert page.get_by_text("Page not found").count() == 0
        assert page.locator('[data-testid="stException"]').count() == 0
        # the frame ran: the sidebar has the data source and the parameters
        side = page.locator('[data-testid="stSidebar"]')
        assert side.get_by_text("Parameters").count() >= 1
        assert urlparse(page.url).path == "/skeleton"
        page.screenshot(path=str(SHOTS / "deeplink-fresh-skeleton.png"), full_page=False)
        # and the first click is not lost: δ1 moves and Run applies it
        slider = side.locator('[data-testid="stSlider"] input[type="range"]').first
        slider.focus()
        page.keyboard.press("ArrowRight")
        side.get_by_text("results are stale").wait_for(timeout=15_000)
        ctx.close()
    finally:
        _stop(proc)


def test_what_changed_after_pin_move_and_run(pw_browser, server):
    ctx, page = _page(pw_browser)
    page.goto(server)
    _settle(page)
    side = page.locator('[data-testid="stSidebar"]')
    side.get_by_role("button", name="Pin this run").click()
    _settle(page)
    side.get_by_text("Pinned:").wait_for(timeout=15_000)
    slider = side.locator('[data-testid="stSlider"] input[type="range"]').first  # δ1
    slider.focus()
    for _ in range(6):  # 0.050 → 0.080
        page.keyboard.press("ArrowRight")
    side.get_by_text("results are stale").wait_for(timeout=15_000)
    page.get_by_role("button", name="Run", exact=True).click()
    _settle(page)
    # through the navigation (a new page load would be a new session, without the pin)
    side.locator('[data-testid="stSidebarNav"]').get_by_text("What changed").click()
    _settle(page)
    main = page.locator('[data-testid="stMain"]')
    main.get_by_text("First flipped decision").first.wait_for(timeout=30_000)
    text = main.inner_text()
    assert "δ1 0.05 → 0.08" in text
    assert "Before:" in text and "Now:" in text
    assert page.locator('[data-testid="stPlotlyChart"]').count() >= 1
    assert page.locator('[data-testid="stException"]').count() == 0
    page.wait_for_timeout(500)
    page.screenshot(path=str(SHOTS / "what-changed.png"), full_page=True)
    ctx.close()


def test_landscape_cell_click_sets_the_sliders(pw_browser, server):
    ctx, page = _page(pw_browser)
    page.goto(f"{server}/landscape")
    _settle(page)
    main = page.locator('[data-testid="stMain"]')
    main.get_by_role("button", name="Compute the landscape").click()
    chart = main.locator('[data-testid="stPlotlyChart"]').first
    chart.wait_for(timeout=120_000)
    _settle(page)
    page.wait_for_timeout(600)
    page.screenshot(path=str(SHOTS / "landscape.png"), full_page=True)
    before = _slider_value(page, "δ1")
    # the top-right cell: largest δ1 (0.1) and k1 (1.0); the cell markers are invisible points
    pts = chart.locator(".scatterlayer .trace .points path")
    pts.first.wait_for(state="attached", timeout=15_000)
    n = pts.count()
    assert n == 25
    box = pts.nth(n - 1).bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    _settle(page)
    main.get_by_text("Sliders set to").wait_for(timeout=30_000)
    assert _slider_value(page, "δ1") == "0.100" != before
    assert _slider_value(page, "k1") == "1.00"
    page.screenshot(path=str(SHOTS / "landscape-clicked.png"), full_page=True)
    assert page.locator('[data-testid="stException"]').count() == 0
    ctx.close()


def test_shared_link_reopens_the_same_view(pw_browser, server):
    ctx, page = _page(pw_browser)
    page.goto(server)
    _settle(page)
    side = page.locator('[data-testid="stSidebar"]')
    slider = side.locator('[data-testid="stSlider"] input[type="range"]').nth(2)  # k1
    slider.focus()
    for _ in range(4):  # 0.70 → 0.50
        page.keyboard.press("ArrowLeft")
    side.get_by_text("results are stale").wait_for(timeout=15_000)
    page.get_by_role("button", name="Run", exact=True).click()
    _settle(page)
    page.wait_for_function("() => window.location.search.includes('k1=0.5')", timeout=15_000)
    link = page.url
    metric = page.locator('[data-testid="stMetricValue"]').first.inner_text()
    ctx.close()
    assert parse_qs(urlparse(link).query)["k1"] == ["0.5"]
    ctx2, page2 = _page(pw_browser)  # a fresh browser session
    page2.goto(link)
    _settle(page2)
    page2.screenshot(path=str(SHOTS / "shared-link.png"), full_page=False)
    assert _slider_value(page2, "k1") == "0.50"
    assert page2.locator('[data-testid="stMetricValue"]').first.inner_text() == metric
    assert page2.get_by_text("results are stale").count() == 0
    ctx2.close()


@pytest.mark.slow
def test_tuning_views_on_a_wide_data_set(pw_browser, data_dir):
    """Enron (1702 × 1001, 53 labels → 106 categories) from the shared folder: pin, move δ1,
    run, What changed (paged table, explanation); the landscape on a 1 × 2 grid."""
    if not (Path(data_dir) / "enron").is_dir():
        pytest.skip("the shared data folder has no enron")
    proc, url = start_app({"CAMCF_DATA_DIR": str(data_dir)})
    try:
        ctx, page = _page(pw_browser)
        page.set_default_timeout(180_000)
        page.goto(url)
        _settle(page)
        side = page.locator('[data-testid="stSidebar"]')
        side.locator("label").filter(has_text="Shared data folder").click()
        _settle(page)
        box = side.locator('[data-testid="stSelectbox"]').filter(has_text="Data set")
        box.click()
        page.get_by_role("option").filter(has_text="enron").first.click()
        _settle(page)
        side.get_by_role("button", name="Load data set").click()
        _settle(page)
        page.get_by_role("button", name="Run", exact=True).click()
        wait_idle(page, 180_000)
        side.get_by_text("results are stale").wait_for(state="detached", timeout=180_000)
        side.get_by_role("button", name="Pin this run").click()
        _settle(page)
        slider = side.locator('[data-testid="stSlider"] input[type="range"]').first  # δ1
        slider.focus()
        for _ in range(4):  # 0.050 → 0.030
            page.keyboard.press("ArrowLeft")
        side.get_by_text("results are stale").wait_for(timeout=30_000)
        page.get_by_role("button", name="Run", exact=True).click()
        wait_idle(page, 180_000)
        side.get_by_text("results are stale").wait_for(state="detached", timeout=180_000)
        side.locator('[data-testid="stSidebarNav"]').get_by_text("What changed").click()
        _settle(page)
        main = page.locator('[data-testid="stMain"]')
        main.get_by_text("First flipped decision").first.wait_for(timeout=60_000)
        assert "δ1 0.05 → 0.03" in main.inner_text()
        main.get_by_text("Changed only").click()  # all 106 categories: paged
        _settle(page)
        assert main.get_by_text("Page (of 3").count() == 1
        page.wait_for_timeout(500)
        page.screenshot(path=str(SHOTS / "what-changed-enron.png"), full_page=True)
        side.locator('[data-testid="stSidebarNav"]').get_by_text("Threshold landscape").click()
        _settle(page)
        page.locator('[data-testid="stNumberInput"]').filter(has_text="steps").first \
            .locator("input").fill("1")
        page.keyboard.press("Enter")
        _settle(page)
        page.locator('[data-testid="stNumberInput"]').filter(has_text="steps").nth(1) \
            .locator("input").fill("2")
        page.keyboard.press("Enter")
        _settle(page)
        main.get_by_role("button", name="Compute the landscape (2 cells)").click()
        main.locator('[data-testid="stPlotlyChart"]').first.wait_for(timeout=240_000)
        _settle(page)
        page.wait_for_timeout(500)
        page.screenshot(path=str(SHOTS / "landscape-enron.png"), full_page=True)
        assert page.locator('[data-testid="stException"]').count() == 0
        ctx.close()
    finally:
        _stop(proc)

"""The tuning views in a real browser (Chromium + Playwright): What changed (pin, move a slider,
run), a shared link opened in a fresh browser context, the landscape (compute, click a cell →
sliders move), in one session. (A deep link as the first request of a fresh server is in
test_jobs_browser.py, whose module starts a server of its own anyway.) Screenshots go to ``$CAMCF_SHOTS`` (default
``artifacts/screenshots``)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from support import (
    charts_drawn,
    move_slider,
    number_value,
    open_page,
    set_number,
    settle,
    shot,
    slider_value,
    start_app,
    stop_app,
    wait_idle,
)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def tuning_page(chromium, server):
    """One session on the session's server for What changed, the shared link and the
    landscape, in that order (each goes on from the last through the navigation: a page load
    costs Chromium seconds of CPU)."""
    ctx = chromium.new_context(viewport={"width": 1440, "height": 1400})
    page = ctx.new_page()
    page.goto(server)
    settle(page)
    yield page
    ctx.close()


def test_what_changed_after_pin_move_and_run(tuning_page):
    page = tuning_page
    side = page.locator('[data-testid="stSidebar"]')
    side.get_by_role("button", name="Pin this run").click()
    settle(page)
    side.get_by_text("Pinned:").wait_for(timeout=15_000)
    set_number(page, "δ1", "0.08")
    side.get_by_text("results are stale").wait_for(timeout=15_000)
    page.get_by_role("button", name="Run", exact=True).click()
    settle(page)
    # through the navigation (a new page load would be a new session, without the pin)
    side.locator('[data-testid="stSidebarNav"]').get_by_text("What changed").click()
    settle(page)
    main = page.locator('[data-testid="stMain"]')
    main.get_by_text("First flipped decision").first.wait_for(timeout=30_000)
    text = main.inner_text()
    assert "δ1 0.05 → 0.08" in text
    assert "Before:" in text and "Now:" in text
    assert page.locator('[data-testid="stPlotlyChart"]').count() >= 1
    assert page.locator('[data-testid="stException"]').count() == 0
    charts_drawn(page)
    shot(page, "what-changed")


def _sentence(page) -> str:
    return page.locator('[data-testid="camcf-sentence"]').first.inner_text()


def test_a_shared_link_reopens_the_same_view(tuning_page, new_page):
    """A link opened in a fresh browser session: the same parameters and results, and (issue 18
    item 5; the landed URL lost them) the same page, target category, step and filters. (After
    What changed: δ1 = 0.08 and a pinned run, which the link carries too.)"""
    page = tuning_page
    open_page(page, "Overview")
    side = page.locator('[data-testid="stSidebar"]')
    move_slider(page, "k1", -4)  # 0.70 → 0.50
    side.get_by_text("results are stale").wait_for(timeout=15_000)
    page.get_by_role("button", name="Run", exact=True).click()
    settle(page)
    metric = page.locator('[data-testid="stMetricValue"]').first.inner_text()
    open_page(page, "Step through")
    main = page.locator('[data-testid="stMain"]')
    box = main.locator('[data-testid="stSelectbox"]').filter(has_text="Target category")
    box.click()
    page.keyboard.type("B=0")
    page.get_by_role("option").filter(has_text="B=0").first.click()
    settle(page)
    main.get_by_text("Group routine rows").click()  # show every decision
    settle(page)
    main.get_by_role("button", name="Next ▶").click()
    settle(page)
    sentence = _sentence(page)
    assert sentence.startswith("2/")
    page.wait_for_function("() => /[?&]step=2(&|$)/.test(window.location.search)", timeout=15_000)
    link = page.url
    q = parse_qs(urlparse(link).query)
    assert q["k1"] == ["0.5"] and q["target"] == ["B=0"] and q["routine_grouped"] == ["0"]
    shot(page, "link-step-through")
    page2 = new_page()  # a fresh browser session opens the link
    page2.goto(link)
    settle(page2)
    shot(page2, "link-step-through-reopened")
    assert urlparse(page2.url).path == "/step_through"
    assert _sentence(page2) == sentence  # the same decision of the same target …
    main2 = page2.locator('[data-testid="stMain"]')
    chooser = main2.locator('[data-testid="stSelectbox"]').filter(has_text="Target category")
    assert chooser.locator("input").input_value().startswith("B=0 —")  # … in the chooser …
    assert not main2.get_by_role("switch", name="Group routine rows").is_checked()  # filters
    assert slider_value(page2, "k1") == "0.5"
    assert page2.get_by_text("results are stale").count() == 0
    assert page2.locator('[data-testid="stException"]').count() == 0
    open_page(page2, "Overview")
    assert page2.locator('[data-testid="stMetricValue"]').first.inner_text() == metric


def test_landscape_cell_click_sets_the_sliders(tuning_page):
    page = tuning_page
    open_page(page, "Threshold landscape")
    settle(page)
    main = page.locator('[data-testid="stMain"]')
    main.get_by_role("button", name="Compute the landscape").click()
    chart = main.locator('[data-testid="stPlotlyChart"]').first
    chart.wait_for(timeout=120_000)
    settle(page)
    page.wait_for_timeout(600)
    shot(page, "landscape")
    before = number_value(page, "δ1")
    # the top-right cell: largest δ1 (the axis' end: the current δ1 × 8) and k1 (1.0); the
    # cell markers are invisible points, the first trace (the current point's ring comes after)
    top = main.locator('[data-testid="stNumberInput"]').filter(has_text="δ1 to").locator(
        "input").first.input_value()
    pts = chart.locator(".scatterlayer .trace").first.locator(".points path")
    pts.first.wait_for(state="attached", timeout=15_000)
    n = pts.count()
    assert n == 5 * 6  # δ1: 5 log-spaced values; k1 0.2 … 1 and the current 0.7
    box = pts.nth(n - 1).bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    settle(page)
    main.get_by_text("Sliders set to").wait_for(timeout=30_000)
    assert number_value(page, "δ1") == top != before
    assert slider_value(page, "k1") == "1"
    shot(page, "landscape-clicked")
    assert page.locator('[data-testid="stException"]').count() == 0


@pytest.mark.slow
def test_tuning_views_on_a_wide_data_set(new_page, data_dir):
    """Enron (1702 × 1001, 53 labels → 106 categories) from the shared folder: pin, move δ1,
    run, What changed (paged table, explanation); the landscape on a 1 × 2 grid."""
    if not (Path(data_dir) / "enron").is_dir():
        pytest.skip("the shared data folder has no enron")
    proc, url = start_app({"CAMCF_DATA_DIR": str(data_dir)})
    try:
        page = new_page()
        page.set_default_timeout(180_000)
        page.goto(url)
        settle(page)
        side = page.locator('[data-testid="stSidebar"]')
        side.locator("label").filter(has_text="Shared data folder").click()
        settle(page)
        box = side.locator('[data-testid="stSelectbox"]').filter(has_text="Data set")
        box.click()
        page.get_by_role("option").filter(has_text="enron").first.click()
        settle(page)
        side.get_by_role("button", name="Load data set").click()
        settle(page)
        page.get_by_role("button", name="Run", exact=True).click()
        wait_idle(page, 180_000)
        side.get_by_text("results are stale").wait_for(state="detached", timeout=180_000)
        side.get_by_role("button", name="Pin this run").click()
        settle(page)
        set_number(page, "δ1", "0.03")
        side.get_by_text("results are stale").wait_for(timeout=30_000)
        page.get_by_role("button", name="Run", exact=True).click()
        wait_idle(page, 180_000)
        side.get_by_text("results are stale").wait_for(state="detached", timeout=180_000)
        side.locator('[data-testid="stSidebarNav"]').get_by_text("What changed").click()
        settle(page)
        main = page.locator('[data-testid="stMain"]')
        main.get_by_text("First flipped decision").first.wait_for(timeout=60_000)
        assert "δ1 0.05 → 0.03" in main.inner_text()
        main.get_by_text("Changed only").click()  # all 106 categories: paged
        settle(page)
        assert main.get_by_text("Page (of 3").count() == 1
        page.wait_for_timeout(500)
        shot(page, "what-changed-enron")
        side.locator('[data-testid="stSidebarNav"]').get_by_text("Threshold landscape").click()
        settle(page)
        page.locator('[data-testid="stNumberInput"]').filter(has_text="steps").first \
            .locator("input").fill("1")
        page.keyboard.press("Enter")
        settle(page)
        page.locator('[data-testid="stNumberInput"]').filter(has_text="steps").nth(1) \
            .locator("input").fill("2")
        page.keyboard.press("Enter")
        settle(page)
        main.get_by_role("button", name="Compute the landscape (2 cells)").click()
        main.locator('[data-testid="stPlotlyChart"]').first.wait_for(timeout=240_000)
        settle(page)
        page.wait_for_timeout(500)
        shot(page, "landscape-enron")
        assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        stop_app(proc)

"""The app in a real browser: Debian's Chromium driven by Playwright, network limited to localhost.

Starts ``streamlit run app.py`` on a free port, opens every page, checks that the graphs draw
inside their frames (vis-network canvas, node ids), that no request leaves localhost, clicks a
pruning point, moves a slider and presses Run, evaluates, and saves screenshots to
``artifacts/screenshots/``. One page load: every test goes on in the same session through the
sidebar navigation (a page load costs Chromium seconds of CPU).
"""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from support import SHOTS, charts_drawn, graph_node_ids, open_page, set_number, wait_idle

PAGES = [  # url path, navigation title, a text the page shows, graphs expected
    ("", "Overview", "Ca-MCF explorer", 0),
    ("skeleton", "Label skeleton", "Label skeleton", 1),
    ("local_structure", "Local structure", "Local structure", 1),
    ("recovery", "Recovery", "Recovery", 0),
    ("step_through", "Step through", "Step through", 1),
    ("what_changed", "What changed", "What changed", 0),
    ("landscape", "Threshold landscape", "Threshold landscape", 0),
    ("compare", "Compare methods", "Compare methods", 0),
    ("export", "Export", "Export", 0),
]
#: opened (and checked the same way) by the tests below: each navigation costs Chromium a second
LATER = [("pruning", "Pruning", "Pruning", 0), ("evaluation", "Evaluation", "Evaluation", 0)]

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser_app(chromium, server):
    """One page on the module's server, watching every request (nothing may leave localhost)."""
    ctx = chromium.new_context(viewport={"width": 1440, "height": 2200})
    page = ctx.new_page()
    failed: list[str] = []
    outside: list[str] = []

    def on_request(req):
        u = req.url
        if not (u.startswith(("http://127.0.0.1", "http://localhost", "ws://127.0.0.1",
                              "data:", "blob:", "about:"))):
            outside.append(u)

    page.on("request", on_request)
    # (a deep link as the first request of a fresh server is tested in test_browser_tuning.py)
    page.goto(server)
    wait_idle(page)
    page.on("requestfailed", lambda r: failed.append(f"{r.url} {r.failure}"))
    yield page, server, failed, outside
    ctx.close()


def test_every_page_draws(browser_app):
    page, url, failed, outside = browser_app
    SHOTS.mkdir(parents=True, exist_ok=True)
    for path, title, text, n_graphs in PAGES:  # through the navigation: one session
        _open(page, path, title, text)
        if n_graphs:
            ids = graph_node_ids(page)
            assert ids, f"no node drawn on {path or 'overview'}"
        if path == "local_structure":  # the default target's local graph holds its PC
            assert any("=" in i for i in ids)  # members and the target: a category node
            assert any(i.startswith("f") for i in ids)  # features
        else:
            charts_drawn(page)  # plotly has drawn before the screenshot
        if path == "step_through":
            _decision_table_is_whole(page)
        page.screenshot(path=str(SHOTS / f"{path or 'overview'}.png"), full_page=True)
    # (a page's own URL opening a new session: test_browser_tuning.py's deep link on a fresh
    # server, test_browser_compare.py's /compare link)
    assert not outside, f"requests left localhost: {outside[:5]}"
    assert not [f for f in failed if "127.0.0.1" not in f], failed


def _open(page, path: str, title: str, text: str) -> None:
    """Open a page through the navigation: its URL, its text, no exception, no "Page not
    found"."""
    open_page(page, title)
    # the click's script run may not have started when open_page's wait begins (a loaded
    # machine): wait for the page's URL, then for its run
    page.wait_for_url(lambda u: urlparse(u).path.strip("/") == path, timeout=30_000)
    wait_idle(page)
    page.get_by_text(text).first.wait_for(timeout=15_000)
    assert page.locator('[data-testid="stException"]').count() == 0, path
    assert page.get_by_text("Page not found").count() == 0, path


def _decision_table_is_whole(page) -> None:
    """Step through's "This decision" table says what the sentence says, whole: no cell cut
    off (a data grid cut the value mid-number) and no sign lost to Markdown (a leading "> δ2"
    became a quote without its ">")."""
    sentence = page.locator('[data-testid="camcf-sentence"]').first.inner_text()
    table = page.locator('[data-testid="stTable"]').filter(has_text="decided about").first
    rows = table.evaluate("""(t) => [...t.querySelectorAll('tbody tr')].map(
        r => [...r.querySelectorAll('th, td')].map(c => [c.innerText.trim(),
                                                      c.scrollWidth > c.clientWidth + 1]))""")
    cells = {r[0][0]: r[-1][0] for r in rows}
    assert not [r for r in rows if any(cut for _, cut in r)], rows
    assert cells["value"] in sentence, (cells, sentence)
    assert cells["compared with"][0] in "<>≤≥" and cells["compared with"] in sentence, cells


def test_clicking_a_pruning_point_explains_it(browser_app):
    """The plotly scatter sends the click back (on_select): the page explains that feature.
    (Before the slider test: on the default parameters' run.)"""
    page, url, failed, outside = browser_app
    _open(page, *LATER[0][:3])
    chart = page.locator('[data-testid="stPlotlyChart"]').first
    chart.wait_for(timeout=15_000)
    points = chart.locator(".scatterlayer .trace .points path")
    points.first.wait_for(timeout=15_000)
    # without a click the page explains the first pruned feature; the first trace holds the
    # features that stayed in the blanket, so clicking one must change the explanation
    assert "Fate: blanket" not in page.locator('[data-testid="stMain"]').inner_text()
    page.screenshot(path=str(SHOTS / "pruning.png"), full_page=True)
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


def test_slider_and_run_change_the_result(browser_app):
    page, url, failed, outside = browser_app
    open_page(page, "Overview")  # the same session: the default parameters, run
    metric = page.locator('[data-testid="stMetricValue"]').first
    before = metric.inner_text()
    set_number(page, "δ1", "0.1")  # 0.05 → 0.10; applied on Run
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


def test_evaluation_page_classifies_on_demand(browser_app):
    """The heavy work waits for its button; then the metrics table and the radar chart show."""
    page, url, failed, outside = browser_app
    _open(page, *LATER[1][:3])  # the run of the slider test (δ1 = 0.1)
    page.screenshot(path=str(SHOTS / "evaluation.png"), full_page=True)
    main = page.locator('[data-testid="stMain"]')
    assert "All features vs the selection" not in main.inner_text()
    page.get_by_role("button", name="Evaluate", exact=True).click()
    page.get_by_text("All features vs the selection").wait_for(timeout=120_000)
    wait_idle(page, timeout=120_000)
    page.locator('[data-testid="stPlotlyChart"]').nth(1).wait_for(timeout=30_000)
    charts_drawn(page)
    text = main.inner_text()
    assert "Hamming loss" in text and "Ablation by phase" in text
    assert page.locator('[data-testid="stPlotlyChart"]').count() >= 2  # radar + ablation
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(SHOTS / "evaluation-results.png"), full_page=True)
    assert not outside, outside[:5]

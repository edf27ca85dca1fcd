"""The app in a real browser on a wide data set: a MATLAB file with two variable pairs is
uploaded through the sidebar, its pair chosen in the Variables chooser, and every page is drawn
(hundreds of label categories, thousands of features) and readable: no two texts of a chart
overlap, no text is cut off at a chart's edge, no chart is empty without a message, no two
graph labels overlap, the Variables chooser shows its choice whole. Then a data set where
nothing is selected is uploaded and every page is checked again. Screenshots go to
``artifacts/screenshots-wide/`` (``$CAMCF_SHOTS`` to change it).

The data: :func:`camcf.datasets.make_wide` (150 binary labels = 300 label categories, 3,000
features, 60 samples in the training pair); δ1 is raised to 0.2 (by the link the session opens)
before loading so that the run itself takes a few seconds.

Last, in the same session (a page load costs Chromium seconds), issue 14: on a third generated
wide data set uploaded through the sidebar, "Suggest from the data" moves δ1 and δ2 to the
numbers a library run with ``delta1="auto", delta2="auto"`` resolves to; Run applies them; then
the Threshold landscape's "Tune" scores a 2 × 1 grid by inner cross-validation, marks its best
point, and "Apply the best point" moves the sidebar inputs there (screenshots in
``$CAMCF_SHOTS``, default ``artifacts/screenshots``).
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from urllib.parse import urlparse

import numpy as np
import pytest
import scipy.io
import support
from _readable import (
    CLIPPED_TEXT_JS,
    EMPTY_CHARTS_JS,
    GRAPH_OVERLAPS_JS,
    TEXT_OVERLAPS_JS,
    noise_arff,
    settle,
)
from support import (
    charts_drawn,
    graph_node_ids,
    number_value,
    open_page,
    shot,
    sidebar_number,
    slider_value,
    upload_file,
    upload_mat,
    wait_idle,
)

import camcf
from camcf.datasets import make_wide
from camcf.io import load

SHOTS = Path(os.environ.get("CAMCF_SHOTS", Path(__file__).resolve().parents[1] / "artifacts"
                            / "screenshots-wide"))
pytestmark = pytest.mark.browser
N, M, Q = 60, 3000, 150
#: (navigation title, url path, graphs drawn). Pages are opened through the navigation: a new
#: URL would start a new session, without the uploaded data.
NAV = [("Overview", "overview", 0), ("Label skeleton", "skeleton", 1),
       ("Local structure", "local_structure", 1), ("Recovery", "recovery", 0),
       ("Pruning", "pruning", 0), ("Step through", "step_through", 1),
       ("What changed", "what_changed", 0), ("Export", "export", 0)]
#: the study pages (forms until a study is started): drawn on the small data set only
STUDIES = [("Threshold landscape", "landscape", 0), ("Evaluation", "evaluation", 0),
           ("Compare methods", "compare", 0)]


def write_wide_mat(path: Path, n: int = N, m: int = M, q: int = Q) -> Path:
    """A .mat file with train_data/train_target (n rows, labels × samples as MATLAB users
    often store them) and test_data/test_target (20 rows) from :func:`make_wide`."""
    ds = make_wide(n + 20, m, q, seed=11)
    scipy.io.savemat(path, {"train_data": ds.X[:n], "train_target": ds.Y[:n].T,
                            "test_data": ds.X[n:], "test_target": ds.Y[n:]})
    return path


def readability(page, n_graphs: int = 0) -> dict:
    """What is unreadable on the page shown: overlapping or cut-off chart text, charts empty
    without a message, overlapping graph labels (in the first ``n_graphs`` frames)."""
    settle(page)
    main = page.locator('[data-testid="stMain"]')
    out = {"overlaps": main.evaluate(f"(root) => ({TEXT_OVERLAPS_JS})([root, 2])"),
           "clipped": main.evaluate(f"(root) => ({CLIPPED_TEXT_JS})([root, 2])"),
           "empty": main.evaluate(f"(root) => ({EMPTY_CHARTS_JS})(root)"),
           "graph": []}
    for i in range(n_graphs):
        frame = page.locator('[data-testid="stIFrame"]').nth(i).content_frame
        frame.locator("#mynetwork canvas").wait_for(timeout=15_000)
        out["graph"] += frame.locator("body").evaluate(f"() => ({GRAPH_OVERLAPS_JS})(1)") or []
    return {k: v for k, v in out.items() if v}


@pytest.fixture(scope="module")
def wide_page(tmp_path_factory, chromium, server):
    """A session of its own on the session's server: the uploaded data live in it only."""
    path = write_wide_mat(tmp_path_factory.mktemp("wide") / "wide-split.mat")
    SHOTS.mkdir(parents=True, exist_ok=True)
    url = server
    ctx = chromium.new_context(viewport={"width": 1440, "height": 1600})
    try:
        page = ctx.new_page()
        page.goto(f"{url}/?delta1=0.2")  # a link with δ1 raised (no second run to set it)
        wait_idle(page)
        page.wait_for_function("(e) => parseFloat(e.value) === 0.2",  # the link was read
                               arg=sidebar_number(page, "δ1").element_handle(timeout=60_000),
                               timeout=60_000)
        upload_mat(page, path, "train_data / train_target")
        assert float(number_value(page, "δ1")) == 0.2  # the upload keeps it
        yield page, url
    finally:
        ctx.close()


def test_the_chosen_pair_loads_and_runs(wide_page):
    page, url = wide_page
    side = page.locator('[data-testid="stSidebar"]')
    side.get_by_text("train_data/train_target").first.wait_for(timeout=30_000)
    text = side.inner_text()
    assert f"{N} samples, {M:,} features, {Q} labels" in text
    assert page.locator('[data-testid="stException"]').count() == 0
    assert side.get_by_text("results are stale").count() == 0
    # the chooser shows its choice whole (landed: "train_data / train_target: 463 san…")
    box = side.locator('[data-testid="stSelectbox"]').filter(has_text="Variables").locator(
        "input").first
    assert box.input_value().startswith("train_data / train_target")
    assert not box.evaluate("(e) => e.scrollWidth > e.clientWidth + 1"), box.input_value()
    # no sidebar label is cut short (landed: δ1's and δ2's "auto" toggles read "a…")
    cut = side.evaluate("""(root) => [...root.querySelectorAll(
        '[data-testid="stMarkdownContainer"]')].filter(e => getComputedStyle(e).textOverflow
        === 'ellipsis' && e.scrollWidth > e.clientWidth).map(e => e.textContent)""")
    assert not cut, cut
    page.screenshot(path=str(SHOTS / "wide-loaded.png"), full_page=True)


def test_every_page_draws_on_wide_data(wide_page):
    page, url = wide_page
    problems = {}
    for title, path, n_graphs in NAV:
        open_page(page, title)
        assert urlparse(page.url).path.rstrip("/").endswith(path) or path == "overview", page.url
        assert page.locator('[data-testid="stException"]').count() == 0, path
        text = page.locator('[data-testid="stSidebar"]').inner_text()
        assert f"{M:,} features" in text, path  # still the uploaded data
        if n_graphs:
            ids = graph_node_ids(page)
            assert 0 < len(ids) <= 120, (path, len(ids))
        problems[path] = readability(page, n_graphs)  # (waits until its charts are drawn)
        page.screenshot(path=str(SHOTS / f"wide-{path}.png"), full_page=True)
    assert not {k: v for k, v in problems.items() if v}, problems


def test_skeleton_neighbourhood_and_search(wide_page):
    page, url = wide_page
    open_page(page, "Label skeleton")
    ids = graph_node_ids(page)
    assert len(ids) <= 1 + 40 + 11 + 16  # an ego graph, not a 300-node ring
    main = page.locator('[data-testid="stMain"]')
    box = main.locator('[data-testid="stSelectbox"]').filter(has_text="Target category")
    box.click()
    page.keyboard.type("y42=1")
    page.get_by_role("option").filter(has_text="y42=1").first.click()
    wait_idle(page)
    ids = _until_ids(page, lambda ids: "y42=1" in ids)  # the graph drawn again, around y42=1
    assert "y42=1" in ids
    page.screenshot(path=str(SHOTS / "wide-skeleton-L042.png"), full_page=True)


def _until_ids(page, pred, timeout: float = 30.0) -> list[str]:
    """The node ids of the page's first graph once ``pred(ids)`` holds (the frame is drawn
    again after a choice), or the last ids seen after ``timeout`` seconds."""
    from playwright.sync_api import Error as PlaywrightError

    deadline = time.monotonic() + timeout
    while True:
        try:
            ids = graph_node_ids(page)
        except PlaywrightError:  # the frame was replaced while it was read
            ids = []
        if pred(ids) or time.monotonic() > deadline:
            return ids
        page.wait_for_timeout(100)


def test_every_page_is_readable_when_nothing_is_selected(wide_page, tmp_path):
    """Landed: an empty white Sankey (and empty charts) when nothing is selected."""
    page, url = wide_page
    path = tmp_path / "noise.arff"
    path.write_bytes(noise_arff())
    upload_file(page, path)
    main = page.locator('[data-testid="stMain"]')
    problems = {}
    for title, path, n_graphs in NAV + STUDIES:
        open_page(page, title)
        assert page.locator('[data-testid="stException"]').count() == 0, path
        if path == "overview":
            assert "0 of 12" in main.inner_text()  # selected features
            assert "nothing flows through the phases" in main.inner_text()
        problems[path] = readability(page, n_graphs)  # (waits until its charts are drawn)
        page.screenshot(path=str(SHOTS / f"nothing-{path}.png"), full_page=True)
    assert not {k: v for k, v in problems.items() if v}, problems


#: the tuning test's rows, features, labels (60 label categories): wide enough to tune, small
#: enough to be quick
TN, TM, TQ = 240, 80, 30


def write_arff(path, ds) -> None:
    """``ds`` as an ARFF file whose MEKA header names the last Q attributes as labels."""
    X, Y = np.asarray(ds.X), np.asarray(ds.Y)
    head = [f"@relation 'wide-tune: -C -{Y.shape[1]}'"]
    head += [f"@attribute f{j} {{0,1,2}}" for j in range(X.shape[1])]
    head += [f"@attribute y{i} {{0,1}}" for i in range(Y.shape[1])]
    rows = [",".join(map(str, r)) for r in np.hstack([X, Y]).astype(int)]
    path.write_text("\n".join(head + ["@data"] + rows) + "\n")


def test_suggest_then_tune_on_a_generated_wide_data_set(wide_page, tmp_path):
    """Issue 14 (see the module's doc), in the module's session after the tests above."""
    ds = make_wide(TN, TM, TQ, seed=5)
    path = tmp_path / "wide-tune.arff"
    write_arff(path, ds)
    loaded = load(path)
    auto = camcf.run(loaded.X, loaded.Y, delta1="auto", delta2="auto").params
    page, _ = wide_page
    upload_file(page, path)
    side = page.locator('[data-testid="stSidebar"]')
    before = float(number_value(page, "δ1"))
    side.get_by_role("button", name="Suggest from the data").click()
    support.settle(page)
    assert float(number_value(page, "δ1")) == pytest.approx(auto["delta1"], rel=1e-3)
    assert float(number_value(page, "δ2")) == pytest.approx(auto["delta2"], rel=1e-3)
    assert float(number_value(page, "δ1")) != pytest.approx(before, rel=1e-3)
    page.get_by_role("button", name="Run", exact=True).click()
    wait_idle(page, 120_000)
    side.get_by_text("results are stale").wait_for(state="detached", timeout=120_000)
    shot(page, "suggest-applied")

    open_page(page, "Threshold landscape")
    main = page.locator('[data-testid="stMain"]')
    main.get_by_role("tab", name="Tune").click()
    support.settle(page)
    steps = main.locator('[data-testid="stNumberInput"]').filter(has_text="steps")
    # a 3 × 1 grid: two δ1 values and the current one; one k1 (a one-value axis is that value)
    for i, n in enumerate(("2", "1")):
        box = steps.nth(i).locator("input")
        box.fill(n)
        box.press("Enter")
        support.settle(page)
    main.get_by_role("tab", name="Tune").click()
    main.get_by_text("Tuning will take").first.wait_for(timeout=30_000)
    main.get_by_role("button", name=re.compile(r"^Tune \(3 points")).click()
    best = main.locator("p").filter(has_text="Best point").first
    best.wait_for(timeout=240_000)
    support.settle(page)
    text = best.inner_text()
    m = re.search(r"δ1 = ([0-9.e-]+), k1 = ([0-9.e-]+)", text)
    assert m, text
    chart = main.locator('[data-testid="stPlotlyChart"]').filter(has_text="best (least score)")
    chart.first.wait_for(timeout=30_000)
    charts_drawn(page)
    shot(page, "tune-best")
    main.get_by_role("button", name="Apply the best point to the sliders").click()
    support.settle(page)
    main.get_by_text("Sliders set to the best point").first.wait_for(timeout=30_000)
    assert float(number_value(page, "δ1")) == pytest.approx(float(m.group(1)))
    assert float(slider_value(page, "k1")) == pytest.approx(float(m.group(2)))
    side.get_by_text("results are stale").wait_for(timeout=30_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    shot(page, "tune-applied")

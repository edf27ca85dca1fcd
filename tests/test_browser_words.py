"""Numbers and graphs in a real browser (issue 34, items 7 and 8), on a generated file with a
large label skeleton at the thresholds the data suggest:

* the δ1/δ2 boxes show their whole value (they clipped "0.009531" to "0.00953…");
* the local structure and the skeleton's neighbourhood draw at most ``MAX_GROUP`` members of
  R (a target with |R| = 109 drew a ring of 109 boxes), and their labels do not overlap.

Screenshots go to ``$CAMCF_SHOTS`` (default ``artifacts/screenshots``): ``words-sidebar``,
``words-local-structure``, ``words-skeleton``, ``words-greedy-table``,
``words-step-through``.
"""

from __future__ import annotations

import pytest
import scipy.io
from _readable import GRAPH_OVERLAPS_JS
from support import (
    SHOTS,
    graph_node_ids,
    number_value,
    open_page,
    set_number,
    settle,
    shot,
    sidebar_number,
    upload_mat,
    wait_idle,
)

from camcf.datasets import make_wide
from camcf.viz import graphs

pytestmark = pytest.mark.browser

#: values as wide as the inputs show them (NUMBER_FORMAT, 4 significant digits)
WIDE_VALUES = ("0.009531", "0.0009531", "1.234e-05")


@pytest.fixture(scope="module")
def words_page(tmp_path_factory, chromium, server):
    """A session of its own with the large-R file loaded and run at the suggested
    thresholds."""
    ds = make_wide(1100, 1050, 24, seed=7, group_size=24)
    path = tmp_path_factory.mktemp("words") / "large-r.mat"
    scipy.io.savemat(path, {"data": ds.X, "target": ds.Y})
    ctx = chromium.new_context(viewport={"width": 1440, "height": 1400})
    try:
        page = ctx.new_page()
        page.goto(server)
        wait_idle(page)
        upload_mat(page, path, "data / target", wait_run=False)
        side = page.locator('[data-testid="stSidebar"]')
        side.get_by_role("button", name="Suggest from the data").click()
        settle(page)
        page.get_by_role("button", name="Run", exact=True).click()
        wait_idle(page, 180_000)
        side.get_by_text("results are stale").wait_for(state="detached", timeout=180_000)
        yield page
    finally:
        ctx.close()


def _clipped(page, label: str) -> tuple[int, int]:
    return tuple(sidebar_number(page, label).evaluate("e => [e.scrollWidth, e.clientWidth]"))


def test_threshold_boxes_show_their_whole_value(words_page):
    page = words_page
    shown, shown2 = number_value(page, "δ1"), number_value(page, "δ2")
    assert float(shown) < 0.01  # the suggested δ1
    side = page.locator('[data-testid="stSidebar"]')
    side.locator('[data-testid="stNumberInput"]').filter(has_text="δ1").first \
        .scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    side.screenshot(path=str(SHOTS / "words-sidebar.png"))
    for value in WIDE_VALUES:
        set_number(page, "δ2", value)
        wait_idle(page)
        width, room = _clipped(page, "δ2")
        assert width <= room, (value, number_value(page, "δ2"), width, room)
    width, room = _clipped(page, "δ1")
    assert width <= room, (shown, width, room)
    # the "auto" switch beside each box keeps its word whole
    for w, r in side.locator('[data-testid="stCheckbox"]').filter(has_text="auto").evaluate_all(
            "els => els.map(e => [e.scrollWidth, e.clientWidth])"):
        assert w <= r
    set_number(page, "δ2", shown2)  # the suggested value again: the run is current
    wait_idle(page)
    assert number_value(page, "δ2") == shown2


def _largest_r_target(page) -> None:
    """Sort the chooser by |R| and pick the first (largest) category."""
    main = page.locator('[data-testid="stMain"]')
    main.locator('[data-testid="stSelectbox"]').filter(has_text="Sort by").first.click()
    page.get_by_role("option").filter(has_text="skeleton size").first.click()
    wait_idle(page)
    main.locator('[data-testid="stSelectbox"]').filter(has_text="Target category").first.click()
    page.get_by_role("option").first.click()
    settle(page)


@pytest.mark.parametrize("title, name", [("Local structure", "words-local-structure"),
                                         ("Label skeleton", "words-skeleton")])
def test_graphs_of_a_large_r_draw_the_strongest_and_sum_up_the_rest(words_page, title, name):
    page = words_page
    open_page(page, title)
    _largest_r_target(page)
    ids = graph_node_ids(page)
    more = [n for n in ids if n.endswith(" more in R")]
    assert len(more) == 1, ids  # "+k more in R"
    assert int(more[0].split()[0].lstrip("+").replace(",", "")) > 0
    categories = [n for n in ids if "=" in n]  # label categories (features are f…)
    if title == "Local structure":  # the target and at most MAX_GROUP of its R
        assert len(categories) <= 1 + graphs.MAX_GROUP, categories
    else:  # and the neighbourhood's rejected candidates, neighbours, categories pointing here
        assert len(categories) <= (1 + graphs.MAX_GROUP + graphs.EGO_REJECTED
                                   + 2 * graphs.EGO_NEIGHBOURS), categories
    frame = page.locator('[data-testid="stIFrame"]').first.content_frame
    assert frame.locator("body").evaluate(f"() => ({GRAPH_OVERLAPS_JS})(1)") in ([], None)
    page.locator('[data-testid="stIFrame"]').first.scroll_into_view_if_needed()
    shot(page, name)
    if title == "Label skeleton":  # the greedy table: noise as 0, where bits and p disagree
        main = page.locator('[data-testid="stMain"]')
        main.get_by_text("Each greedy step").first.scroll_into_view_if_needed()
        settle(page)
        shot(page, "words-greedy-table", full_page=False)


def test_step_through_tables_show_bits_against_p(words_page):
    page = words_page
    open_page(page, "Step through")
    main = page.locator('[data-testid="stMain"]')
    main.get_by_text("decisions in the chosen phases").first.click()  # open the listing
    settle(page)
    assert main.get_by_text("bits vs p").count() >= 1
    shot(page, "words-step-through")

"""Compare methods in a real browser (issue 17 item 4), on a shared data set (Flags, opened by
a link ``?data=shared:flags``; on the demo when the shared folder is missing): choose two
methods and the protocol (3-fold cross-validation), press Compare, see its progress, then the metrics table, the per-split
ranks, the CD diagram (splits as blocks) and the radar drawn, and downloads that parse.
Screenshots go to ``$CAMCF_SHOTS`` (default ``artifacts/screenshots``)."""

from __future__ import annotations

import json

import pytest
from conftest import DATA_DIR
from support import charts_drawn, settle, shot, wait_idle

pytestmark = pytest.mark.browser


def _choose(page, box, names: list[str]) -> None:
    """Leave exactly ``names`` chosen in the multiselect ``box``: clear it (its "Clear all"
    button: one script run, not one a chosen method), then type each."""
    tags = box.locator("[data-tag]")
    tags.first.wait_for()  # the default choice is drawn
    box.get_by_role("button", name="Clear all").click()
    wait_idle(page)
    tags.first.wait_for(state="detached")
    box.locator("input").click()
    for name in names:
        page.keyboard.type(name)
        page.get_by_role("option").filter(has_text=name).first.click()
        wait_idle(page)
        box.locator("input").click()
    page.keyboard.press("Escape")


def test_compare_two_methods(server, new_page):
    """On Flags opened by a link when the shared data folder is there, else on the demo. (One
    of the two, not both: the browser path is the same, and the demo's comparison is checked
    through AppTest in test_compare_page.py — the table's columns, the per-split ranks and the
    radar.)"""
    data = "flags" if (DATA_DIR / "flags" / "flags.arff").is_file() else "demo"
    page = new_page()
    page.set_default_timeout(120_000)
    if data == "demo":
        page.goto(f"{server}/compare")
    else:  # a shared data set, as a link opens it
        page.goto(f"{server}/compare?data=shared:{data}")
    settle(page)
    side = page.locator('[data-testid="stSidebar"]')
    if data != "demo":
        side.get_by_text("194 samples").first.wait_for()  # Flags: 194 rows, 19 features
    main = page.locator('[data-testid="stMain"]')
    main.get_by_text("Choose methods and a protocol").wait_for()
    methods = main.locator('[data-testid="stMultiSelect"]').filter(has_text="Methods").first
    _choose(page, methods, ["Ca-MCF", "All features"])
    chips = methods.locator("[data-tag]").all_inner_texts()
    assert [c.strip() for c in chips] == ["Ca-MCF", "All features"], chips
    protocol = main.locator('[data-testid="stSelectbox"]').filter(has_text="Protocol").first
    protocol.click()
    page.get_by_role("option").filter(has_text="k-fold cross-validation").first.click()
    settle(page)
    folds = main.locator('[data-testid="stNumberInput"]').filter(has_text="Folds").first
    folds.locator("input").fill("3")
    folds.locator("input").press("Enter")
    settle(page)
    main.get_by_text("The comparison will take about").first.wait_for()  # the estimate
    assert page.locator('[data-testid="stException"]').count() == 0

    page.get_by_role("button", name="Compare", exact=True).click()
    # its progress while it runs (a bar for a short study, a bar and Stop for a long one)
    main.locator('[data-testid="stProgress"]').first.wait_for(timeout=60_000)
    main.get_by_text("Metric for ranks and CD diagrams").wait_for(timeout=240_000)
    settle(page)
    main.locator(".js-plotly-plot").nth(2).wait_for(timeout=30_000)  # the three charts …
    charts_drawn(page)  # … drawn
    text = main.inner_text()
    assert page.locator('[data-testid="stException"]').count() == 0
    assert "Mean ± sample SD over splits" in text
    # the table has a row per method; the charts: per-split ranks, CD diagram, radar
    table = main.locator('[data-testid="stDataFrame"]').first
    table.wait_for()
    charts = main.locator(".js-plotly-plot")
    assert charts.count() == 3, charts.count()
    shot(page, f"compare-{data}")
    titles = " ".join(t for i in range(charts.count())
                      for t in charts.nth(i).locator(".gtitle").all_text_contents())
    assert "rank per split" in titles and "splits as blocks" in titles, titles
    assert main.locator(".js-plotly-plot .polarlayer .trace").count() >= 2  # radar: a method each

    with page.expect_download() as dl:
        main.get_by_role("button", name="Everything (JSON)").click()
    payload = json.loads(dl.value.path().read_text(encoding="utf-8"))
    assert [m["display"] for m in payload["methods"]] == ["Ca-MCF", "All features"]
    [(name, found)] = list(payload["data_sets"].items())
    assert data == "demo" or data in name.lower(), name
    summary = found["summary"]
    assert {r["method"] for r in summary} == {m["name"] for m in payload["methods"]}
    assert payload["settings"]["protocol"] == "kfold" and payload["settings"]["n_folds"] == 3
    with page.expect_download() as dl:
        main.get_by_role("button", name="Summary (CSV)").click()
    import pandas as pd

    csv = pd.read_csv(dl.value.path())
    assert set(csv["method_name"]) == {"Ca-MCF", "All features"}
    assert len(csv) == len(summary) and csv["mean"].notna().all()

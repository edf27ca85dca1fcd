"""The Compare methods page through AppTest: the demo, Compare, tables, ranks, radar."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("streamlit")
from support import goto, new_app  # noqa: E402


@pytest.fixture(scope="module")
def page():
    return goto(new_app(timeout=180), "pages/compare.py")


def test_compare_on_the_demo(page):
    at = page
    assert at.title[0].value == "Compare methods"
    assert not at.dataframe
    at.multiselect(key="cmp_methods").set_value(["camcf", "all", "random"])
    at.number_input(key="cmp_repeats").set_value(2)
    next(b for b in at.button if b.label == "Compare").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    table = at.dataframe[0].value
    assert list(table.columns) == ["metric", "Ca-MCF", "All features", "Random subset"]
    assert "±" in table.iloc[0]["Ca-MCF"]
    assert table.iloc[-2]["metric"] == "Splits with nothing selected"
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    types = {t.get("type") for c in charts for t in c["data"]}
    assert {"heatmap", "scatterpolar"} <= types  # per-split ranks and the normalised radar


def test_too_few_methods_is_a_message(page):
    at = page
    at.multiselect(key="cmp_methods").set_value(["camcf"])
    next(b for b in at.button if b.label == "Compare").click()
    at.run()
    assert any("at least two methods" in e.value for e in at.error)


def test_words_name_the_methods_and_skip_an_empty_list(page):
    """Landed: the estimate named the reference by its internal name ("all (reference)"),
    and with no ranking method chosen a caption ended "Ranking methods: ."."""
    at = page
    at.multiselect(key="cmp_methods").set_value(["camcf", "all"])
    at.number_input(key="cmp_repeats").set_value(2)
    at.run()
    estimate = next(c.value for c in at.caption if c.value.startswith("The comparison will"))
    assert "(reference)" not in estimate and "All features" in estimate, estimate
    next(b for b in at.button if b.label == "Compare").click()
    at.run()
    assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
    assert list(at.dataframe[0].value.columns) == ["metric", "Ca-MCF", "All features"]
    captions = [c.value for c in at.caption]
    assert not [c for c in captions if "Ranking methods:" in c or ": ." in c], captions

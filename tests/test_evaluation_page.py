"""The Evaluation page through AppTest: app.py's demo, press Evaluate, the tables and charts."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("streamlit")
from support import goto, new_app  # noqa: E402

PAGE = "pages/evaluation.py"


@pytest.fixture(scope="module")
def page():
    return goto(new_app(timeout=120), PAGE)


def _button(at, label: str):
    return next(b for b in at.button if b.label == label)


def test_nothing_heavy_before_the_button(page):
    assert page.title[0].value == "Evaluation"
    assert "Evaluate" in [b.label for b in page.button]
    assert not page.dataframe  # no table until Evaluate is pressed
    assert any("Press **Evaluate**" in i.value for i in page.info)
    # landed: fast units were estimated "× 0.0 s" (as if they cost nothing)
    estimate = next(c.value for c in page.caption if c.value.startswith("The evaluation will"))
    assert "0.0 s" not in estimate, estimate


def test_protocol_and_knn_widgets_follow_the_declarations(page):
    """The page's protocol and ML-kNN widgets offer the declared options and ranges, with the
    declared defaults and help."""
    from camcf.evaluation.settings import EVAL_PARAMS, KNN_PARAMS, PROTOCOLS

    decl = {p.name: p for p in (*EVAL_PARAMS, *KNN_PARAMS)}
    protocol = page.selectbox(key="ev_protocol")
    assert protocol.options == list(PROTOCOLS.values()) and protocol.value == "repeated"
    assert page.selectbox(key="ev_neighbours").options == list(decl["neighbours"].options)
    for key, name in (("ev_repeats", "n_repeats"), ("ev_test_size", "test_size"),
                      ("ev_seed", "seed"), ("ev_k", "k")):
        w = page.number_input(key=key)
        lo, hi, step = decl[name].ui_range()
        assert (w.min, w.max, w.value) == (lo, hi, decl[name].default), key
        assert w.help == decl[name].help


def test_only_the_chosen_protocols_settings_are_offered(page):
    """Landed: k-fold showed the repeats and the test share too. Each protocol offers the
    settings PROTOCOL_SETTINGS declares for it, and a value typed before comes back."""
    from camcf.evaluation.settings import EVAL_PARAMS, PROTOCOL_SETTINGS

    keys = {"n_repeats": "ev_repeats", "n_folds": "ev_folds", "test_size": "ev_test_size",
            "seed": "ev_seed"}
    page.number_input(key="ev_seed").set_value(7).run()
    page.number_input(key="ev_repeats").set_value(3).run()
    for protocol in ("kfold", "holdout", "repeated"):
        page.selectbox(key="ev_protocol").set_value(protocol).run()
        assert not page.exception, [e.value for e in page.exception]
        shown = {w.key for w in page.number_input}
        offered = {keys[n] for n in keys if n in PROTOCOL_SETTINGS[protocol]}
        assert offered <= shown and not (set(keys.values()) - offered) & shown, protocol
        assert page.number_input(key="ev_seed").value == 7
    assert set(PROTOCOL_SETTINGS) == set(EVAL_PARAMS[0].options)
    assert page.number_input(key="ev_repeats").value == 3  # kept while it was not offered
    page.number_input(key="ev_seed").set_value(0).run()
    page.number_input(key="ev_repeats").set_value(5).run()


def test_evaluate_shows_the_seven_metrics_and_the_ablation(page):
    page.number_input(key="ev_repeats").set_value(2)
    _button(page, "Evaluate").click()
    page.run()
    assert not page.exception, [e.value for e in page.exception]
    assert not page.error, [e.value for e in page.error]
    table = page.dataframe[0].value
    assert table["metric"].tolist()[:7] == [
        "Hamming loss ↓", "Subset accuracy ↑", "Average precision ↑", "Coverage ↓",
        "Ranking loss ↓", "Macro-F1 ↑", "Micro-F1 ↑"]
    assert {"All features", "Ca-MCF (re-selected per split)"} <= set(table.columns)
    assert "±" in table.loc[0, "All features"]  # mean ± SD over the 2 splits
    subheaders = [s.value for s in page.subheader]
    assert "All features vs the selection" in subheaders and "Ablation by phase" in subheaders
    charts = [json.loads(c.proto.spec) for c in page.get("plotly_chart")]
    assert any(t.get("type") == "scatterpolar" for c in charts for t in c["data"])
    assert "Splits with nothing selected" in table["metric"].tolist()
    ablation = page.dataframe[1].value
    assert list(ablation.columns)[1] == "All features" and len(ablation.columns) == 6
    assert all("±" in v or v == "nothing selected" for v in ablation.iloc[0, 1:])
    labels = {m.label for m in page.metric}
    assert {"Features (Ca-MCF, mean over splits)", "Ca-MCF time per split",
            "Splits where Ca-MCF selected nothing"} <= labels
    assert len(page.get("download_button")) >= 4
    assert page.session_state["eval_key"][0] == "eval"


def test_sensitivity_heatmaps_on_a_small_grid(page):
    page.text_input(key="sens_d1").set_value("0.02, 0.05")
    page.text_input(key="sens_k1").set_value("0.5, 1.0")
    page.text_input(key="sens_d2").set_value("0.1")
    page.text_input(key="sens_k2").set_value("0.5, 1.0")
    _button(page, "Run sensitivity").click()
    page.run()
    assert not page.exception, [e.value for e in page.exception]
    heatmaps = [json.loads(c.proto.spec) for c in page.get("plotly_chart")]
    heat = [t for c in heatmaps for t in c["data"] if t.get("type") == "heatmap"]
    assert len(heat) == 2
    shapes = sorted((len(h["y"]), len(h["x"])) for h in heat)  # z is a typed array
    assert shapes == [(1, 2), (2, 2)]
    assert [h["y"] for h in heat if len(h["y"]) == 2] == [["0.02", "0.05"]]


def test_bad_grid_values_show_a_message(page):
    page.text_input(key="sens_k1").set_value("0.5, 3").run()
    assert not page.exception
    assert any("k1" in e.value and "outside" in e.value for e in page.error)
    assert _button(page, "Run sensitivity").disabled  # nothing to start until it is fixed

"""The tuning views and links through AppTest: What changed (pin, move, run), the threshold
landscape, one range per parameter for every widget and link (issue 18 item 2), and links that
keep the place (issue 18 item 5): the URL's query state as a pure round trip and a fresh session
opened with a query string."""

from __future__ import annotations

import json
import logging

import pytest

pytest.importorskip("streamlit")

from support import goto, link_of, new_app, run_button  # noqa: E402

import camcf  # noqa: E402
from camcf.algorithm_params import by_name  # noqa: E402

DECL = by_name()


def params_of(at) -> dict:
    return at.session_state["run"].params


# ------------------------------------------------------------------------------ URL, pure
def test_query_round_trip():
    from pages._share import from_query, to_query

    params = dict(camcf.DEFAULTS)
    params.update(delta1=0.035, k2=0.6, recovery="all", min_category_size=7)
    disc = {"discretize": "auto", "bins": 4, "strategy": "quantile"}
    q = to_query(params, disc, {"kind": "demo", "n": 800, "seed": 3})
    assert q["data"] == "demo" and q["n"] == "800" and q["delta1"] == "0.035"
    link = from_query(q)
    assert link.problems == []
    assert link.request == {"kind": "demo", "n": 800, "seed": 3}
    assert link.params["delta1"] == 0.035 and link.params["k2"] == 0.6
    assert link.params["recovery"] == "all" and link.params["min_category_size"] == 7
    assert link.params["bins"] == 4 and link.params["strategy"] == "quantile"
    q2 = to_query(params, disc, {"kind": "shared", "name": "yeast"})
    assert from_query(q2).request == {"kind": "shared", "name": "yeast"}


def test_the_place_round_trips_through_the_query_string():
    from pages import _state as S
    from pages._share import from_query, to_query

    pin = {"params": {**camcf.DEFAULTS, "delta1": 0.0004}, "disc": {
        "discretize": "auto", "bins": 5, "strategy": "uniform"}}
    view = {"target": "y=a,b", "step": 7, "phases": [2, 4], "routine_grouped": False,
            "wc_find": "M=", "wc_changed": False, "wc_sort": "flips", "pin": pin,
            "grid": {"axes": [("delta2", 0.01, 0.3, 4), ("k2", 0.2, 1.0, 3)],
                     "metric": "hamming_loss"}}
    q = to_query(camcf.DEFAULTS, pin["disc"], {"kind": "demo"}, view)
    link = from_query(q)
    assert link.problems == []
    assert link.view["target"] == "y=a,b" and link.view["step"] == 7
    assert link.view["pin"] == pin
    w = link.widgets
    assert w[S.ST_PHASES.name] == [2, 4] and w[S.ST_HIDE.name] is False
    assert w[S.WC_QUERY.name] == "M=" and w[S.WC_CHANGED_ONLY.name] is False
    assert w[S.WC_SORT.name] == "flips"
    assert w[S.LS_PRESET.name] == ("delta2", "k2")
    assert (w["ls_delta2_lo"], w["ls_delta2_hi"], w["ls_delta2_steps"]) == (0.01, 0.3, 4)
    assert (w["ls_k2_lo"], w["ls_k2_hi"], w["ls_k2_steps"]) == (0.2, 1.0, 3)
    assert w[S.LS_METRIC_ON.name] is True and w[S.LS_METRIC.name] == "hamming_loss"


def test_bad_query_entries_are_named_and_left_out():
    from pages._share import from_query

    link = from_query({"delta1": "abc", "k1": "0", "recovery": "most", "k2": "0.5",
                       "data": "upload", "step": "-2", "wc_sort": "size",
                       "grid": "delta1:0:1:5", "routine_grouped": "maybe"})
    assert link.params == {"k2": 0.5}
    assert link.request is None and "step" not in link.view and not link.widgets
    text = " ".join(link.problems)
    for name in ("delta1", "k1", "recovery", "step", "wc_sort", "grid", "routine_grouped"):
        assert name in text
    assert "uploaded file cannot" in text


# ------------------------------------------------------------------------------ one range
def test_a_value_beyond_a_widget_is_clamped_with_a_note():
    from pages._share import fit

    assert fit(DECL["delta1"], 0.9) == (0.9, None)
    v, note = fit(DECL["delta1"], 5)
    assert v == DECL["delta1"].ui_range()[1] and "δ1 = 5" in note
    v, note = fit(DECL["k2"], 0.001)
    assert v == DECL["k2"].ui_range()[0] and "k2" in note
    assert fit(DECL["bins"], 50)[0] == DECL["bins"].ui_range()[1]
    assert fit(DECL["delta1"], 0.000312345) == (0.0003123, None)  # as the widget shows it
    with pytest.raises(camcf.ParameterError):
        fit(DECL["k1"], 0)  # refused by the declaration itself


def test_a_link_with_a_threshold_above_the_old_slider_runs():
    """Landed: ?delta1=0.9 raised StreamlitValueAboveMaxError (slider max 0.3), a blank page."""
    at = new_app({"delta1": "0.9"})
    assert params_of(at)["delta1"] == pytest.approx(0.9)
    assert at.number_input(key="p_delta1").value == pytest.approx(0.9)


def test_a_link_beyond_every_widget_is_clamped_and_says_so():
    at = new_app({"delta1": "5", "k2": "0.001", "bins": "50"})
    hi = DECL["delta1"].ui_range()[1]
    assert params_of(at)["delta1"] == hi and params_of(at)["k2"] == DECL["k2"].ui_range()[0]
    warnings = " ".join(w.value for w in at.warning)
    assert "From the link" in warnings and "δ1 = 5" in warnings and "k2" in warnings
    assert "bins" in warnings
    assert at.session_state["run"].disc["bins"] == DECL["bins"].ui_range()[1]


def test_every_widget_of_a_parameter_offers_its_declared_range():
    """The sidebar, the landscape grid and links accept the same range (Param.ui_range); the
    landed landscape took δ1 up to 1.0 beside a slider that stopped at 0.3."""
    at = goto(new_app(), "pages/landscape.py")
    for name in ("delta1", "k1"):
        lo, hi, step = DECL[name].ui_range()
        side = [w for w in [*at.sidebar.slider, *at.sidebar.number_input]
                if w.label.startswith(DECL[name].label)]
        assert side
        for w in side:
            assert (w.min, w.max) == (lo, hi), w.label
        for part in ("lo", "hi"):
            w = at.number_input(key=f"ls_{name}_{part}")
            assert (w.min, w.max) == (lo, hi), w.label
    for name in ("gamma", "min_category_size", "bins"):
        lo, hi, step = DECL[name].ui_range()
        w = next(w for w in at.sidebar.number_input if w.label == DECL[name].label)
        assert (w.min, w.max, w.step) == (lo, hi, step)


def test_a_landscape_cell_above_the_old_slider_range_sets_the_sliders():
    """Landed: a landscape with δ1 up to 0.5, a click on a cell above 0.3 raised
    StreamlitValueAboveMaxError and left a blank page."""
    at = goto(new_app(), "pages/landscape.py")
    at.number_input(key="ls_delta1_hi").set_value(0.5)
    at.number_input(key="ls_delta1_steps").set_value(2)
    at.number_input(key="ls_k1_steps").set_value(2)
    at.run()
    at.button(key="ls_go").click().run()
    assert not at.exception
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    heat = [tr for s in specs for tr in s["data"] if tr.get("type") == "heatmap"]
    # 2 steps on each axis, and the current value (δ1 0.05, k1 0.7) added to both
    assert heat and len(heat[0]["text"]) == 3 and len(heat[0]["text"][0]) == 3
    # what a click on the cell (δ1 = 0.5, k1 = 1) does: the page asks the frame
    at.session_state["pending_params"] = {"delta1": 0.5, "k1": 1.0}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.number_input(key="p_delta1").value == pytest.approx(0.5)
    assert at.slider(key="p_k1").value == pytest.approx(1.0)
    run_button(at).click().run()
    assert params_of(at)["delta1"] == pytest.approx(0.5)


def test_a_tiny_threshold_is_shown_as_it_is_run():
    """δ thresholds from significance at large n are tiny (δ1 ≈ 0.0003 bits at n = 16,000);
    the landed slider (step 0.005, format %.3f) showed 0.000 for them."""
    at = new_app({"delta1": "0.0003123"})
    run = params_of(at)["delta1"]
    assert run == pytest.approx(0.0003123)
    shown = [w for w in [*at.sidebar.slider, *at.sidebar.number_input]
             if w.label.startswith("δ1")]
    assert shown
    for w in shown:
        assert float(w.proto.format % w.value) == run, (w.label, w.proto.format)
    # typed into the exact input: kept to what it shows, and the slider follows
    at.number_input(key="p_delta1").set_value(0.000456789).run()
    assert at.number_input(key="p_delta1").value == 0.0004568
    run_button(at).click().run()
    assert params_of(at)["delta1"] == 0.0004568
    for w in [*at.sidebar.slider, *at.sidebar.number_input]:
        if w.label.startswith("δ1"):
            assert float(w.proto.format % w.value) == 0.0004568


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def test_no_widget_gets_both_a_default_and_a_session_state_value(monkeypatch):
    """Landed: a link set p_delta1 through the Session State API while the slider also had a
    default, and the server log showed Streamlit's warning (with a stack)."""
    from streamlit.elements.lib import policies

    monkeypatch.setattr(policies, "_shown_default_value_warning", False)
    handler = _Records()
    logger = logging.getLogger(policies.__name__)
    logger.addHandler(handler)
    try:
        at = new_app({"delta1": "0.08", "k1": "0.5", "routine_grouped": "0", "phases": "2,3",
                      "wc_find": "A", "grid": "delta1:0.02:0.2:3,k1:0.3:1:2",
                      "target": "B=0", "step": "2"})
        for page in ("pages/step_through.py", "pages/landscape.py", "pages/what_changed.py"):
            goto(at, page)
        at.session_state["pending_params"] = {"delta1": 0.1}
        at.run()
    finally:
        logger.removeHandler(handler)
    assert not [m for m in handler.messages if "Session State API" in m], handler.messages


# ------------------------------------------------------------------------------ links, app
def test_a_link_reopens_the_same_run_on_a_fresh_session():
    at = new_app()
    at.number_input(key="p_delta1").set_value(0.08)
    at.slider(key="p_k1").set_value(0.5)
    run_button(at).click().run()
    rec = at.session_state["run"]
    assert rec.params["delta1"] == pytest.approx(0.08)
    link = link_of(at)
    assert link["delta1"] == "0.08" and link["k1"] == "0.5" and link["data"] == "demo"
    fresh = new_app(link)  # a new session opened with that query string
    assert fresh.number_input(key="p_delta1").value == pytest.approx(0.08)
    assert fresh.slider(key="p_k1").value == pytest.approx(0.5)
    rec2 = fresh.session_state["run"]
    assert rec2.params == rec.params
    assert rec2.result.to_json() == rec.result.to_json()


def _sentence(at) -> str:
    return next(h.proto.body for h in at.get("html") if "camcf-sentence" in h.proto.body)


def test_a_link_keeps_the_target_the_step_and_the_filters():
    """Landed: the URL kept data and parameters only; the target, the step position and the
    filters were lost."""
    at = goto(new_app(), "pages/step_through.py")
    res = at.session_state["run"].result
    tid = res.target("B=0").id
    at.selectbox(key="st_target").set_value(tid).run()
    at.toggle(key="st_hide").set_value(False).run()
    at.button_group(key="st_phases").set_value([1, 2]).run()
    for _ in range(3):
        at.button(key="st_next").click().run()
    sentence = _sentence(at)
    assert "<b>4/" in sentence
    link = link_of(at)
    assert link["target"] == "B=0" and link["step"] == "4" and link["routine_grouped"] == "0"
    assert link["phases"] == "1,2"
    fresh = goto(new_app(link), "pages/step_through.py")
    assert fresh.session_state["chosen_target"] == tid
    assert fresh.selectbox(key="st_target").value == tid
    assert fresh.toggle(key="st_hide").value is False
    assert _sentence(fresh) == sentence
    assert link_of(fresh) == link  # and the link stays the same


def test_a_link_keeps_the_pinned_run_and_what_changed_filters():
    at = new_app()
    at.button(key="pin_run").click().run()
    pinned = at.session_state["pinned"]
    at.number_input(key="p_delta1").set_value(0.08)
    run_button(at).click().run()
    at = goto(at, "pages/what_changed.py")
    at.toggle(key="wc_changed_only").set_value(False).run()
    at.selectbox(key="wc_sort").set_value("flips").run()
    link = link_of(at)
    assert link["pin_delta1"] == "0.05" and link["delta1"] == "0.08"
    assert link["wc_changed"] == "0" and link["wc_sort"] == "flips"
    fresh = goto(new_app(link), "pages/what_changed.py")
    again = fresh.session_state["pinned"]
    assert again.params == pinned.params and again.disc == pinned.disc
    assert again.result.to_json() == pinned.result.to_json()
    assert "δ1 0.05 → 0.08" in " ".join(m.value for m in fresh.markdown)
    assert fresh.toggle(key="wc_changed_only").value is False
    assert fresh.selectbox(key="wc_sort").value == "flips"


def test_a_link_keeps_a_computed_landscape_grid():
    at = goto(new_app(), "pages/landscape.py")
    at.radio(key="ls_preset").set_value(("delta2", "k2")).run()
    at.number_input(key="ls_delta2_lo").set_value(0.05)
    at.number_input(key="ls_delta2_hi").set_value(0.25)
    at.number_input(key="ls_delta2_steps").set_value(3)
    at.number_input(key="ls_k2_steps").set_value(2)
    at.run()
    at.button(key="ls_go").click().run()
    assert not at.exception
    link = link_of(at)
    assert link["grid"] == "delta2:0.05:0.25:3,k2:0.2:1:2"
    fresh = goto(new_app(link), "pages/landscape.py")
    assert fresh.radio(key="ls_preset").value == ("delta2", "k2")
    assert fresh.number_input(key="ls_delta2_lo").value == 0.05
    assert fresh.number_input(key="ls_delta2_hi").value == 0.25
    assert fresh.number_input(key="ls_delta2_steps").value == 3
    assert fresh.number_input(key="ls_k2_steps").value == 2
    # 3 log-spaced δ2 and the current 0.1; k2 0.2 and 1 (the current 1 is one of them)
    assert any("Compute the landscape (8 cells)" in b.label for b in fresh.button)


def test_a_link_with_an_unknown_target_says_so():
    at = new_app({"target": "Z=9", "step": "3"})
    assert any("Z=9" in w.value for w in at.warning)
    assert at.session_state["run"] is not None


def test_a_link_with_an_upload_says_it_cannot_carry_the_file():
    at = new_app({"data": "upload", "delta1": "0.07"})
    warnings = " ".join(w.value for w in at.warning)
    assert "uploaded file cannot be put in a link" in warnings
    assert params_of(at)["delta1"] == pytest.approx(0.07)


# ------------------------------------------------------------------------------ pages
def test_what_changed_after_pin_move_and_run():
    at = goto(new_app(), "pages/what_changed.py")
    assert any("Nothing pinned" in i.value for i in at.info)
    at.button(key="pin_run").click().run()
    at.number_input(key="p_delta1").set_value(0.08)
    run_button(at).click().run()
    at = goto(at, "pages/what_changed.py")
    assert at.title[0].value == "What changed"
    md = " ".join(m.value for m in at.markdown)
    assert "δ1 0.05 → 0.08" in md
    assert "First flipped decision" in md and "Before:" in md and "Now:" in md
    table = at.dataframe[0].value
    assert len(table) >= 1 and "first flip" not in table.columns  # renamed in display only
    assert set(table["first_flip_step"].dropna()) <= {
        "feature-mi", "backward", "spouse-screen", "spouse", "symmetry", "recovery-skip",
        "recovery", "k2-cut", "redundancy", "label-mi", "label-cmi", "blocker"}
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert any(tr.get("type") == "bar" for s in specs for tr in s["data"])
    assert at.get("download_button")
    # searching narrows the table
    at.text_input(key="wc_query").set_value("M=").run()
    narrowed = at.dataframe[0].value
    assert len(narrowed) <= len(table) and all("M=" in c for c in narrowed["category"])


def test_landscape_computes_and_a_cell_choice_moves_the_sliders():
    at = goto(new_app(), "pages/landscape.py")
    assert any("Compute the landscape" in i.value for i in at.info)
    at.number_input(key="ls_delta1_steps").set_value(3)
    at.number_input(key="ls_k1_steps").set_value(2)
    at.run()
    at.button(key="ls_go").click().run()
    assert not at.exception
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    heat = [tr for s in specs for tr in s["data"] if tr.get("type") == "heatmap"]
    # rows: k1 0.2, 1 and the current 0.7; columns: δ1 0.025, 0.1, 0.4 (log-spaced from the
    # current 0.05 ÷ 2 to × 8) and the current 0.05
    assert heat and heat[0]["text"] and len(heat[0]["text"]) == 3
    assert len(heat[0]["text"][0]) == 4
    assert any("12 cells" in c.value for c in at.caption)
    # what a click does (AppTest cannot click a plotly point): the page asks the frame
    at.session_state["pending_params"] = {"delta1": 0.1, "k1": 1.0}
    at.run()
    assert at.number_input(key="p_delta1").value == pytest.approx(0.1)
    assert at.slider(key="p_k1").value == pytest.approx(1.0)


def test_a_number_parameter_that_also_takes_a_word():
    """δ1/δ2 may be "auto" (Param.words): a toggle beside the number; links carry the word."""
    from camcf.algorithm_params import ALGORITHM_PARAMS

    worded = [p for p in ALGORITHM_PARAMS if p.words]
    if not worded:
        pytest.skip("no Ca-MCF parameter declares a word (Param.words) in this version")
    p = worded[0]
    at = new_app({p.name: p.words[0]})
    assert at.session_state["run"].asked[p.name] == p.words[0]
    assert isinstance(params_of(at)[p.name], float)  # as run: the derived number
    assert at.toggle(key=f"w_{p.name}").value is True
    number = next(w for w in at.sidebar.number_input if w.label == p.label)
    assert number.disabled
    assert link_of(at)[p.name] == p.words[0]
    at.button(key="pin_run").click().run()  # the pinned caption shows the word
    assert any(f"{p.label} {p.words[0]}" in c.value for c in at.sidebar.caption)
    at.toggle(key=f"w_{p.name}").set_value(False).run()
    run_button(at).click().run()
    assert params_of(at)[p.name] == number.value


def test_tune_scores_the_grid_marks_the_best_point_and_applies_it():
    """Issue 14 item 3 on the page: "Tune" runs camcf.tuning.tune over the landscape's grid as a
    job; the heatmap shows each point's score with the best point marked, the sentence is the
    result's best row, and "Apply" moves the sliders there."""
    from camcf import studies
    from camcf.tuning import tune

    at = goto(new_app(), "pages/landscape.py")
    at.number_input(key="ls_delta1_lo").set_value(0.01)
    at.number_input(key="ls_delta1_hi").set_value(0.1)
    at.number_input(key="ls_delta1_steps").set_value(2)
    at.number_input(key="ls_k1_steps").set_value(2)
    at.run()
    assert not any(b.key == "tune_go" for b in at.button)  # only the open tab runs
    at.session_state["ls_tab"] = "Tune"  # what a click on the tab does
    at.run()
    assert not any(b.key == "ls_go" for b in at.button)
    assert any("Tune" in i.value for i in at.info)
    assert any(c.value.startswith("Tuning will take") for c in at.caption)  # the estimate
    at.button(key="tune_go").click().run()
    assert not at.exception, [e.value for e in at.exception]
    T = at.session_state["tune"].result
    run = at.session_state["run"]
    # the same tuning called directly gives the same grid (the page only draws the result)
    fixed = {k: v for k, v in run.params.items() if k not in ("delta1", "k1")}
    direct = tune(run.data.dataset.X, run.data.dataset.Y,
                  {"delta1": list(T.settings["grid"]["delta1"]),
                   "k1": list(T.settings["grid"]["k1"])},
                  metric="micro_f1", params=fixed, cv=studies.tune_splitter(), **run.disc)
    skip = ("seconds",)
    assert {k: v for k, v in T.settings.items() if k not in skip} == \
        {k: v for k, v in direct.settings.items() if k not in skip}
    assert T.grid["score"].round(12).tolist() == direct.grid["score"].round(12).tolist()
    assert T.best == direct.best
    best = T.grid.loc[T.best_index]
    text = " ".join(m.value for m in at.markdown)
    assert f"δ1 = {best['delta1']:g}, k1 = {best['k1']:g}" in text
    assert f"{best['value']:.3f} ± {best['sd']:.3f}" in text
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    tuned = [s for s in specs
             if any(tr.get("name") == "best (least score)" for tr in s["data"])]
    assert len(tuned) == 1
    heat = next(tr for tr in tuned[0]["data"] if tr.get("type") == "heatmap")
    star = next(tr for tr in tuned[0]["data"] if tr.get("name") == "best (least score)")
    assert heat["colorbar"]["title"]["text"] == T.settings["score"]
    assert star["x"] == [f"{best['delta1']:g}"] and star["y"] == [f"{best['k1']:g}"]
    # the coloured cells (points never empty on a fold; the others are grey, beside) show
    # their scores, the best the least of them
    usable = T.grid[T.grid["n_empty"] == 0]
    cells = [float(v) for row in heat["text"] for v in row if v not in ("", "—")]
    assert len(cells) == len(usable) and min(cells) == float(f"{best['score']:.3f}")
    at.button(key="tune_apply").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.number_input(key="p_delta1").value == pytest.approx(best["delta1"])
    assert at.slider(key="p_k1").value == pytest.approx(best["k1"])
    assert any("Sliders set to the best point" in s.value for s in at.success)
    assert at.session_state["ls_tab"] == "Tune" and link_of(at)["ls_tab"] == "Tune"


@pytest.mark.parametrize("slot, go, tab", [("landscape", "ls_go", None),
                                           ("tune", "tune_go", "Tune")])
def test_a_kept_result_hides_the_message_of_a_stopped_other_start(slot, go, tab):
    """A study of another grid was stopped (its message kept for its slot); back on the grid
    whose result is kept, the page shows that result without the stale "stopped" message.
    (A 2 × 1 grid: any grid's result will do, and the tuner's inner cross-validation costs per
    point.)"""
    at = goto(new_app(), "pages/landscape.py")
    at.number_input(key="ls_delta1_steps").set_value(2)
    at.number_input(key="ls_k1_steps").set_value(1)
    if tab:
        at.session_state["ls_tab"] = tab
    at.run()
    at.button(key=go).click().run()
    assert not at.exception, [e.value for e in at.exception]
    stale = "The study of another grid was stopped by the user."
    at.session_state["jobs_messages"] = {slot: ("warning", stale)}
    at.run()
    assert not at.exception
    assert stale not in [w.value for w in at.warning]
    assert slot not in at.session_state["jobs_messages"]


def test_the_closed_tabs_choices_are_kept():
    """Only the open tab runs; what was chosen on the other one survives the switch."""
    at = goto(new_app(), "pages/landscape.py")
    at.toggle(key="ls_metric_on").set_value(True).run()
    at.selectbox(key="ls_metric").set_value("macro_f1").run()
    at.session_state["ls_tab"] = "Tune"
    at.run()
    at.selectbox(key="tune_metric").set_value("hamming_loss").run()
    at.session_state["ls_tab"] = "Features selected"
    at.run()
    assert at.toggle(key="ls_metric_on").value is True
    assert at.selectbox(key="ls_metric").value == "macro_f1"
    at.session_state["ls_tab"] = "Tune"
    at.run()
    assert at.selectbox(key="tune_metric").value == "hamming_loss"
    assert not at.exception

"""The tuning views through AppTest: What changed (pin, move, run), the threshold landscape, the
URL query state (pure round trip and a fresh session opened with a query string)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
sys.path.insert(0, str(ROOT))

from pages._share import from_query, to_query  # noqa: E402


def new_app(query: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def goto(at, page: str) -> AppTest:
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def run_button(at):
    return next(b for b in at.button if b.label == "Run")


# ------------------------------------------------------------------------------ URL, pure
def test_query_round_trip():
    params = dict(camcf_defaults())
    params.update(delta1=0.035, k2=0.6, recovery="all", min_category_size=7)
    disc = {"discretize": "auto", "bins": 4, "strategy": "quantile"}
    q = to_query(params, disc, {"kind": "demo", "n": 800, "seed": 3})
    assert q["data"] == "demo" and q["n"] == "800" and q["delta1"] == "0.035"
    widgets, req, problems = from_query(q)
    assert problems == []
    assert req == {"kind": "demo", "n": 800, "seed": 3}
    assert widgets["p_delta1"] == 0.035 and widgets["p_k2"] == 0.6
    assert widgets["p_recovery"] == "all" and widgets["p_min_cat"] == 7
    assert widgets["d_bins"] == 4 and widgets["d_strategy"] == "quantile"
    q2 = to_query(params, disc, {"kind": "shared", "name": "yeast"})
    assert from_query(q2)[1] == {"kind": "shared", "name": "yeast"}


def test_bad_query_entries_are_named_and_left_out():
    widgets, req, problems = from_query({"delta1": "abc", "k1": "0", "recovery": "most",
                                         "k2": "0.5", "data": "upload"})
    assert widgets == {"p_k2": 0.5}
    assert req is None
    text = " ".join(problems)
    assert "delta1" in text and "k1" in text and "recovery" in text
    assert "uploaded file cannot" in text


def camcf_defaults():
    import camcf

    return camcf.DEFAULTS


# ------------------------------------------------------------------------------ URL, app
def test_a_link_reopens_the_same_run_on_a_fresh_session():
    at = new_app()
    at.slider(key="p_delta1").set_value(0.08)
    at.slider(key="p_k1").set_value(0.5)
    run_button(at).click().run()
    rec = at.session_state["run"]
    assert rec.params["delta1"] == pytest.approx(0.08)
    link = {k: v[0] if isinstance(v, list) else v for k, v in at.query_params.items()}
    assert link["delta1"] == "0.08" and link["k1"] == "0.5" and link["data"] == "demo"
    fresh = new_app(link)  # a new session opened with that query string
    assert fresh.slider(key="p_delta1").value == pytest.approx(0.08)
    assert fresh.slider(key="p_k1").value == pytest.approx(0.5)
    rec2 = fresh.session_state["run"]
    assert rec2.params == rec.params
    assert rec2.result.to_json() == rec.result.to_json()


def test_a_link_with_an_upload_says_it_cannot_carry_the_file():
    at = new_app({"data": "upload", "delta1": "0.07"})
    warnings = " ".join(w.value for w in at.warning)
    assert "uploaded file cannot be put in a link" in warnings
    assert at.session_state["run"].params["delta1"] == pytest.approx(0.07)


# ------------------------------------------------------------------------------ pages
def test_what_changed_after_pin_move_and_run():
    at = goto(new_app(), "pages/what_changed.py")
    assert any("Nothing pinned" in i.value for i in at.info)
    at.button(key="pin_run").click().run()
    at.slider(key="p_delta1").set_value(0.08)
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
    assert heat and heat[0]["text"] and len(heat[0]["text"]) == 2  # rows: k1
    assert len(heat[0]["text"][0]) == 3  # columns: δ1
    assert any("6 cells" in c.value for c in at.caption)
    # what a click does (AppTest cannot click a plotly point): the page asks the frame
    at.session_state["pending_params"] = {"delta1": 0.1, "k1": 1.0}
    at.run()
    assert at.slider(key="p_delta1").value == pytest.approx(0.1)
    assert at.slider(key="p_k1").value == pytest.approx(1.0)

"""Thresholds with a meaning in the app: the help of δ1/δ2 (against scipy), "Suggest from the
data" (the inputs take the suggested numbers, the run and the link record them), p beside bits
in the phase tables, and the diagnosis of an empty result (its counts against the record)."""

from __future__ import annotations

import math
from collections import Counter
from contextlib import nullcontext

import numpy as np
import pytest

from camcf.diagnosis import diagnose
from camcf.significance import threshold_meaning
from camcf.viz.explain import p_column, p_text

LN2, LN10 = math.log(2.0), math.log(10.0)
SUP = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _log10_p_df1(g: float) -> float:
    """log10 P(χ²₁ ≥ g) directly: P = 2·Φ(−√g) (scipy.special.log_ndtr never underflows)."""
    from scipy.special import log_ndtr

    return (float(log_ndtr(-math.sqrt(g))) + LN2) / LN10


# ------------------------------------------------------------------------------------------------
# The help's sentence, against a direct scipy computation
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("delta,n", [(0.05, 16105), (0.05, 194), (0.003, 2417)])
def test_threshold_meaning_df1_agrees_with_scipy(delta, n):
    from scipy.stats import chi2

    g = 2 * n * LN2 * delta
    text = threshold_meaning("delta1", delta, n, 1)
    assert text.startswith(f"δ1 = {delta:g} bits ≈ ")
    assert "a binary feature" in text and f"n = {n:,}" in text and "(df = 1)" in text
    lg = _log10_p_df1(g)
    if lg >= -3:
        assert f"p ≈ {chi2.sf(g, 1):.2g}" in text
    else:
        assert "p < 10" + str(math.ceil(lg)).translate(SUP) in text


def test_threshold_meaning_more_levels_and_delta2():
    # df = 2: P(χ²₂ ≥ g) = exp(−g/2) exactly
    n, delta = 5000, 0.02
    g = 2 * n * LN2 * delta
    text = threshold_meaning("delta1", delta, n, 2)
    assert "a feature with 3 levels" in text
    assert "p < 10" + str(math.ceil(-g / 2 / LN10)).translate(SUP) in text
    t2 = threshold_meaning("delta2", 0.1, 16105, 1)
    assert t2.startswith("δ2 = 0.1 bits") and "two label categories" in t2
    assert "p < 10" + str(math.ceil(_log10_p_df1(2 * 16105 * LN2 * 0.1))).translate(SUP) in t2


def test_p_text_from_record_rows(demo_result):
    df = demo_result.to_frame(0)
    col = p_column(df)
    for text, p, lg in zip(col, df["p_value"], df["log10_p"], strict=True):
        if p >= 1e-300:
            assert text == f"p = {p:.3g}"
        else:
            assert text == "p < 10" + str(math.ceil(lg)).translate(SUP)
    assert p_text(0.0, -243.6) == "p < 10⁻²⁴³"
    assert p_text(float("nan"), float("nan")) == ""


# ------------------------------------------------------------------------------------------------
# The diagnosis, against the record
# ------------------------------------------------------------------------------------------------
def _record_counts(res) -> Counter:
    c: Counter = Counter()
    for t in res.targets:
        if not t.skipped:
            df = res.to_frame(t.id)
            c.update(zip(df["step"], df["decision"], strict=True))
    return c


@pytest.mark.parametrize("delta1", [0.05, 0.9])
def test_diagnosis_counts_are_the_records(demo, delta1):
    import camcf
    from camcf.discretize import discretize

    ds = demo.dataset
    codes, _ = discretize(ds.X)
    with pytest.warns(camcf.CamcfWarning) if delta1 > 0.5 else nullcontext():
        res = camcf.run(codes, ds.Y, delta1=delta1)
    d = diagnose(res)
    rec = _record_counts(res)
    assert d.counts == {
        "below-delta1": rec[("feature-mi", "below-delta1")],
        "cut-k1": rec[("feature-mi", "cut-k1")],
        "backward": rec[("backward", "removed")],
        "cut-k2": rec[("k2-cut", "cut")],
        "symmetry": rec[("symmetry", "removed")],
        "redundancy": len({(r["target"], r["a"]) for r in _rows(res, "redundancy", "dominates")}),
    }
    ran = [t for t in res.targets if not t.skipped]
    assert d.pairs == res.n_features * len(ran)
    assert d.selected == res.selected_indices.size
    assert d.poor == (d.selected < 0.02 * res.n_features)
    assert d.worst.removed == max(d.counts.values())
    assert d.empty_skeleton == sum(1 for t in ran if not t.skeleton)
    # every sentence names the numbers it was built from
    said = " ".join(d.sentences)
    assert f"selected {d.selected:,} of {res.n_features:,} features" in said
    assert (f"{d.counts['below-delta1']:,} of {d.pairs:,} feature–category pairs" in said)
    assert f"≤ δ1 = {delta1:g} bits" in said
    assert f"{d.counts['backward']:,} of " in said
    # the suggestion is what delta1="auto" resolves to on the same data
    auto = camcf.run(codes, ds.Y, delta1="auto", delta2="auto", significance=0.01,
                     trace="counters")
    assert d.suggestion["delta1"] == pytest.approx(auto.params["delta1"], rel=1e-12)
    assert d.suggestion["delta2"] == pytest.approx(auto.params["delta2"], rel=1e-12)
    assert f"δ1 = {d.suggestion['delta1']:.4g} bits" in said


def _rows(res, step, decision):
    for t in res.targets:
        if not t.skipped:
            df = res.to_frame(t.id)
            yield from df[(df["step"] == step) & (df["decision"] == decision)].to_dict("records")


# ------------------------------------------------------------------------------------------------
# The app (AppTest)
# ------------------------------------------------------------------------------------------------
def _suggested(significance: float = 0.01) -> dict:
    from camcf.datasets import make_causal_multilabel
    from camcf.discretize import discretize
    from camcf.significance import suggest_thresholds

    ds = make_causal_multilabel(1000, seed=0).dataset  # the app's default demo
    codes, _ = discretize(ds.X)
    return suggest_thresholds(codes, ds.Y, significance)


def test_help_and_suggest_button_set_inputs_run_and_link():
    pytest.importorskip("streamlit")
    from support import link_of, new_app, run_button

    from camcf.algorithm_params import by_name
    from pages import _state as S
    from pages._share import fit

    at = new_app()
    sug = _suggested()
    d1 = at.number_input(key=S.PARAM["delta1"].name)
    assert threshold_meaning("delta1", 0.05, 1000, sug["df_delta1"]) in d1.proto.help
    d2 = at.number_input(key=S.PARAM["delta2"].name)
    assert threshold_meaning("delta2", 0.1, 1000, 1) in d2.proto.help
    button = next(b for b in at.button if b.label == "Suggest from the data")
    assert "typical feature × category table" in button.proto.help
    assert f"δ1 = {sug['delta1']:.4g} bits" in button.proto.help
    button.click().run()
    assert not at.exception
    want1 = fit(by_name()["delta1"], sug["delta1"])[0]
    want2 = fit(by_name()["delta2"], sug["delta2"])[0]
    assert want1 != 0.05 and want2 != 0.1
    assert at.number_input(key=S.PARAM["delta1"].name).value == want1
    assert at.number_input(key=S.PARAM["delta2"].name).value == want2
    # the help follows the value now in the input
    assert threshold_meaning("delta1", want1, 1000, sug["df_delta1"]) in at.number_input(
        key=S.PARAM["delta1"].name).proto.help
    run_button(at).click().run()
    assert not at.exception
    rec = at.session_state[S.RUN.name]
    assert rec.params["delta1"] == want1 and rec.params["delta2"] == want2
    assert rec.result.params["delta1"] == want1
    link = link_of(at)
    assert float(link["delta1"]) == want1 and float(link["delta2"]) == want2


def test_empty_result_explains_itself_and_applies_the_suggestion():
    pytest.importorskip("streamlit")
    from support import new_app, run_button, texts

    from camcf.algorithm_params import by_name
    from pages import _state as S
    from pages._share import fit

    at = new_app()
    at.number_input(key=S.PARAM["delta1"].name).set_value(0.9).run()
    run_button(at).click().run()
    assert not at.exception
    res = at.session_state[S.RUN.name].result
    assert res.selected_indices.size == 0 and res.params["delta1"] == 0.9
    d = diagnose(res, significance=0.01)
    shown = texts(at)
    assert "Why no feature was selected" in shown
    for sentence in d.sentences:
        assert sentence in shown
    rec = _record_counts(res)
    assert f"{rec[('feature-mi', 'below-delta1')]:,} of {d.pairs:,}" in shown
    apply = next(b for b in at.button if b.label.startswith("Run with the suggested"))
    apply.click().run()
    assert not at.exception
    sug = _suggested()
    new = at.session_state[S.RUN.name]
    assert new.params["delta1"] == fit(by_name()["delta1"], sug["delta1"])[0]
    assert new.params["delta2"] == fit(by_name()["delta2"], sug["delta2"])[0]
    assert new.result.selected_indices.size > 0
    assert "Why no feature was selected" not in texts(at)


def test_phase_tables_show_the_records_p(shared_app):
    from support import goto

    at = goto(shared_app, "pages/local_structure.py")
    res = at.session_state["run"].result
    tid = at.session_state["chosen_target"]
    df = res.to_frame(tid)
    bw = df[df["step"] == "backward"]
    table = next(t.value for t in at.dataframe if "I(t; X_f | PC−f ∪ R) bits" in t.value)
    assert list(table["p"]) == p_column(bw)
    at = goto(shared_app, "pages/skeleton.py")
    cmi = df[df["step"] == "label-cmi"]
    table = next(t.value for t in at.dataframe if "I(t; C' | accepted) bits" in t.value)
    assert list(table["p"]) == p_column(cmi)
    assert np.all([s.startswith("p ") for s in table["p"]])


def test_hovers_show_the_records_p(demo_result):
    from camcf.viz import figures, graphs
    from camcf.viz.summary import label_mi_p, s_f_p

    res = demo_result
    t = next(t for t in res.targets if t.pc and t.skeleton)
    df = res.to_frame(t.id)
    fm = df[df["step"] == "feature-mi"]
    want = dict(zip(fm["b"].tolist(), p_column(fm), strict=True))
    assert s_f_p(res, t.id) == want and want
    g = graphs.local_graph(res, t.id)
    f = t.pc[0]
    assert want[f] in g.nodes[res.feature_names[f]]["title"]
    fig = figures.mi_ranks(res, t.id)
    shown = {str(row[0]): str(row[2]) for bar in fig.data for row in bar.customdata}
    assert shown[res.feature_names[f]] == want[f]
    lm = df[df["step"] == "label-mi"]
    lp = label_mi_p(res, t.id)
    q = t.skeleton[0]
    assert lp[q] == p_column(lm[lm["b"] == res.n_features + q])[0]
    ego, _ = graphs.skeleton_ego(res, t.id)
    assert lp[q] in ego.nodes[res.categories[q].display]["title"]

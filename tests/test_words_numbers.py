"""Numbers and words, library side (issue 34, items 8 and 10).

* float noise (|I| < 1e-12) is written as 0 by the one formatter (:func:`explain.number`) and
  everything built on it; counts are written with thousands separators and the right plural;
* a sentence says when a decision by bits against δ and the G test's p of the same value
  disagree, and why — checked against every row of the record (its n, g, df, p_value).
"""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest
from scipy.stats import chi2

import camcf
from camcf.datasets import make_causal_multilabel, make_wide
from camcf.diagnosis import diagnose
from camcf.discretize import discretize
from camcf.significance import LN2
from camcf.viz.explain import explain_row_full, measured, number, p_text

explain = sys.modules["camcf.viz.explain"]  # (camcf.viz.explain is also a function's name)

#: the steps decided by bits against a δ (value > δ: "dependent")
DELTA = {"label-mi": "δ2", "label-cmi": "δ2", "feature-mi": "δ1", "backward": "δ1",
         "spouse-screen": "δ1", "spouse": "δ1", "symmetry": "δ1"}


# -- numbers ---------------------------------------------------------------------------------
@pytest.mark.parametrize("noise", [-4.529e-16, 2.114e-15, -1e-13, 9.99e-13])
def test_float_noise_is_written_as_zero(noise):
    assert number(noise) == number(0.0) == "0.000"
    shown, bound = explain._pair(noise, 0.05)
    assert shown == "0.000" and bound == "0.05"
    assert number(-0.0) == "0.000"  # never a negative zero


def test_a_small_information_that_is_not_noise_keeps_its_digits():
    assert number(3e-9) != "0.000" and float(number(3e-9)) == pytest.approx(3e-9, rel=0.01)


def test_the_g_statistic_of_noise_is_not_a_negative_zero():
    text = measured("0.000", {"p_value": 1.0, "g": -1.2e-12, "df": 4})
    assert "G = 0.00," in text and "-0.00" not in text


def test_counts_and_plurals():
    assert explain.plural(1, "category") == "1 category"
    assert explain.plural(1966, "category") == "1,966 categories"
    assert explain.plural(2, "day") == "2 days"
    assert explain.plural(1, "label category") == "1 label category"


def test_one_skipped_category_is_one_category():
    """'1 categories were skipped' (the diagnosis of a poor run)."""
    ds = make_causal_multilabel(1000, seed=0).dataset
    codes, _ = discretize(ds.X)
    # M=0 has 231 rows, every other category more than 232: exactly one is skipped
    res = camcf.run(codes, ds.Y, label_names=ds.label_names, category_names=ds.category_names,
                    min_category_size=232, delta1=0.5)
    assert len(res.skipped) == 1
    said = " ".join(diagnose(res).sentences)
    assert "1 category was skipped" in said
    assert not re.search(r"\b1 (categories|candidates|features|pairs) were\b", said), said


# -- bits against p ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def runs():
    """A large label skeleton at the auto thresholds (α = 0.01 recorded), the same at given
    thresholds (α = 0.05, the usual), and the demo at its defaults."""
    ds = make_wide(600, 20, 30, seed=7, group_size=30)
    codes, _ = discretize(ds.X, discretize="none")
    kw = dict(feature_names=ds.feature_names, label_names=ds.label_names,
              category_names=ds.category_names)
    out = [camcf.run(codes, ds.Y, delta1="auto", delta2="auto", **kw),
           camcf.run(codes, ds.Y, delta1=0.004, delta2=0.003, **kw)]
    demo = make_causal_multilabel(1000, seed=0).dataset
    dc, _ = discretize(demo.X)
    out.append(camcf.run(dc, demo.Y, feature_names=demo.feature_names,
                         label_names=demo.label_names, category_names=demo.category_names))
    return out


def _expected(row, alpha) -> bool | None:
    """From the record's fields alone: does the decision by bits disagree with p ≤ α?"""
    if row["step"] not in DELTA or not np.isfinite(row["p_value"]) or row["df"] <= 0:
        return None
    above = round(row["value"], 12) > round(row["threshold"], 12)
    return above != (row["p_value"] <= alpha)


def test_every_sentence_says_where_bits_and_p_disagree(runs):
    seen = {True: 0, False: 0}
    for res in runs:
        alpha = res.params.get("significance", 0.05)
        assert explain.alpha_of(res) == alpha
        for t in res.targets:
            df = res.to_frame(t.id)
            if df.empty:
                continue
            column = explain.disagreement_column(df, res)
            for (_, row), cell in zip(df.iterrows(), column, strict=True):
                want = _expected(row, alpha)
                e = explain_row_full(row, res)
                table = dict(zip(*e.table().values(), strict=True))
                if not want:
                    assert e.disagreement is None and "bits vs p" not in table, e.text
                    assert "disagrees" not in e.text and cell == ""
                    continue
                above = round(row["value"], 12) > round(row["threshold"], 12)
                seen[bool(above)] += 1
                d = e.disagreement
                n, dof, g = int(row["n"]), int(row["df"]), float(row["g"])
                assert d.above == above and d.reference == DELTA[row["step"]]
                assert (d.n, d.df, d.alpha) == (n, dof, alpha)
                assert g == pytest.approx(2 * n * LN2 * row["value"])
                # the G the test needs for p ≤ α at this df, and the bits it amounts to
                need = chi2.isf(alpha, dof)
                assert d.g_needed == pytest.approx(need, rel=1e-9)
                assert d.needed == pytest.approx(need / (2 * n * LN2), rel=1e-9)
                assert (g < need) if above else (g >= need * (1 - 1e-9))
                words = d.sentence()
                assert words in e.text and table["bits vs p"] == words
                p = p_text(row["p_value"], row["log10_p"])
                assert p in words and f"α = {alpha:g}" in words
                assert f"df = {dof:,}" in words and f"n = {n:,}" in words
                assert (f"{p} > α" in words) == above and (f"{p} ≤ α" in words) != above
                assert "not by p" in words and f"against {d.reference}" in words
                assert cell == d.short() and cell
    # both puzzles occur: above δ with p > α (p = 1 beside "accepted"), and the reverse
    assert seen[True] > 0 and seen[False] > 0, seen


def test_a_row_without_p_says_nothing_of_it(runs):
    res = runs[2]
    row = res.to_frame(0).iloc[0].drop(["n", "g", "df", "p_value", "log10_p"])
    assert explain_row_full(row, res).disagreement is None

"""Thresholds with a meaning: camcf.significance, and delta1/delta2 = "auto" in run, the
estimator and the command line."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from scipy.stats import chi2

import camcf
from camcf.algorithm import check_params
from camcf.errors import ParameterError
from camcf.significance import (
    log10_p,
    p_value,
    p_value_of,
    suggest_thresholds,
    threshold_for,
    typical_feature_df,
)


def test_threshold_and_p_value_are_inverse():
    for alpha, n, df in [(0.01, 194, 1), (0.05, 16105, 2), (1e-6, 2000, 7)]:
        d = threshold_for(alpha, n, df)
        assert d == pytest.approx(chi2.isf(alpha, df) / (2 * n * math.log(2)), rel=1e-12)
        ev = p_value_of(d, n, df)
        assert ev.p_value == pytest.approx(alpha, rel=1e-9)
        assert ev.g == pytest.approx(2 * n * math.log(2) * d, rel=1e-12)
    assert threshold_for(0.01, 100, 0) == 0.0  # a constant variable: no information


def test_the_slider_sentence_at_delicious_size():
    ev = p_value_of(0.05, 16105, 1)
    assert ev.g == pytest.approx(1116.3, abs=0.1)
    assert ev.p_value == pytest.approx(chi2.sf(ev.g, 1), rel=1e-9)
    assert ev.exponent == -244 and ev.log10_p == pytest.approx(-244.02, abs=0.01)
    assert ev.describe("δ1") == "δ1 = 0.05 bits ≈ p < 10⁻²⁴⁴ for df = 1 at n = 16,105"
    small = p_value_of(0.01, 194, 1)  # G ≈ 2.7: a readable p
    assert small.p_text() == f"p ≈ {chi2.sf(small.g, 1):.2g}" and small.exponent == 0


def test_tiny_p_values_do_not_underflow():
    g = np.array([10.0, 1e3, 5e3, 1e5, 1e7])
    # df = 2: P(χ²₂ ≥ g) = exp(−g/2) exactly, so log10 p = −g / (2 ln 10)
    np.testing.assert_allclose(log10_p(g, 2), -g / (2 * math.log(10)), rtol=1e-12)
    assert p_value(1e5, 2) == 0.0  # the p value itself underflows …
    assert np.isfinite(log10_p(1e5, 2))  # … its logarithm does not
    for df in (1, 5, 300):
        fine = np.array([0.5, 30.0, 800.0, 1250.0])  # where scipy's logsf is finite
        np.testing.assert_allclose(log10_p(fine, df), chi2.logsf(fine, df) / math.log(10),
                                   rtol=1e-9, atol=1e-12)
        big = np.array([2e3, 1e4, 1e6])
        vals = log10_p(big, df)
        assert np.isfinite(vals).all() and (np.diff(vals) < 0).all()
    assert log10_p(7.0, 0) == 0.0 and p_value(7.0, 0) == 1.0  # df = 0: p = 1
    assert math.isnan(log10_p(float("nan"), 1))


def test_suggested_thresholds_follow_the_stated_rule():
    rng = np.random.default_rng(0)
    n = 1000
    X = np.column_stack([rng.integers(0, 2, n), rng.integers(0, 3, n), rng.integers(0, 3, n),
                         rng.integers(0, 5, n), np.zeros(n, dtype=int)])  # the last constant
    Y = rng.integers(0, 2, size=(n, 3))
    s = suggest_thresholds(X, Y, 0.01)
    assert typical_feature_df([2, 3, 3, 5, 1]) == 2  # median of 1, 2, 2, 4
    assert (s["df_delta1"], s["df_delta2"], s["n"], s["significance"]) == (2, 1, n, 0.01)
    assert s["delta1"] == pytest.approx(chi2.isf(0.01, 2) / (2 * n * math.log(2)))
    assert s["delta2"] == pytest.approx(chi2.isf(0.01, 1) / (2 * n * math.log(2)))
    assert "median" in s["rule"] and "df" in s["rule"]
    with pytest.raises(ParameterError, match="significance"):
        suggest_thresholds(X, Y, 1.0)


def problem(seed=0, n=400, m=12):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, m))
    L = [((X[:, 0] + X[:, 1]) > 2) ^ (rng.random(n) < 0.1)]
    L.append(L[0] ^ (rng.random(n) < 0.2))
    L.append((X[:, 2] > 0) ^ (rng.random(n) < 0.1))
    return X, np.column_stack(L).astype(int)


def quiet(fn, *a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", camcf.CamcfWarning)
        return fn(*a, **kw)


def test_auto_is_exactly_a_run_at_the_resolved_numbers():
    X, Y = problem()
    auto = quiet(camcf.run, X, Y, delta1="auto", delta2="auto", significance=0.01)
    s = suggest_thresholds(X, Y, 0.01)
    assert auto.params["delta1"] == s["delta1"] and auto.params["delta2"] == s["delta2"]
    assert auto.params["significance"] == 0.01
    assert auto.thresholds["df_delta1"] == 2 and auto.thresholds["n"] == 400
    numeric = quiet(camcf.run, X, Y, **{k: v for k, v in auto.params.items()
                                        if k != "significance"})
    assert "significance" not in numeric.params and numeric.thresholds is None
    a, b = json.loads(auto.to_json()), json.loads(numeric.to_json())
    assert a.pop("thresholds")["delta1"] == s["delta1"]
    a["params"].pop("significance")
    assert a == b  # every decision, set and count
    # the same call gives the same text; the recorded numbers repeat every decision
    assert auto.to_json() == quiet(camcf.run, X, Y, delta1="auto", delta2="auto",
                                   significance=0.01).to_json()
    again = quiet(camcf.run, X, Y, **auto.params)
    assert again.to_json() == numeric.to_json()
    # one threshold auto, the other given
    half = quiet(camcf.run, X, Y, delta1="auto", delta2=0.3)
    assert half.params["delta2"] == 0.3 and "delta2" not in half.thresholds
    assert half.params["delta1"] == s["delta1"]


def test_check_params_keeps_significance_only_for_auto():
    assert "significance" not in check_params(0.1, 0.2, 0.5, 1, 2, 3, "all")
    p = check_params(delta1="auto", significance=0.05)
    assert p["delta1"] == "auto" and p["significance"] == 0.05 and p["delta2"] == 0.1
    for bad in (0, 1, -0.1, "auto"):
        with pytest.raises(ParameterError, match="significance"):
            check_params(delta1="auto", significance=bad)
    with pytest.raises(ParameterError, match="delta1"):
        check_params(delta1="automatic")


def test_estimator_keeps_auto_and_records_the_numbers():
    from sklearn.base import clone

    X, Y = problem(1)
    sel = quiet(camcf.CaMCF(delta1="auto", delta2="auto", significance=0.05).fit, X, Y)
    assert sel.get_params()["delta1"] == "auto"  # as given (scikit-learn's rule)
    s = suggest_thresholds(X, Y, 0.05)
    assert sel.thresholds_ == {"delta1": s["delta1"], "delta2": s["delta2"]}
    assert clone(sel).get_params() == sel.get_params()
    plain = quiet(camcf.CaMCF(delta1=s["delta1"], delta2=s["delta2"]).fit, X, Y)
    assert plain.get_support().tolist() == sel.get_support().tolist()


def test_command_line_takes_auto_and_significance(tmp_path):
    import pandas as pd

    from camcf.cli import main

    X, Y = problem(2)
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    for i in range(Y.shape[1]):
        df[f"y{i}"] = Y[:, i]
    df.to_csv(tmp_path / "d.csv", index=False)
    out = tmp_path / "o.json"
    quiet(main, ["select", str(tmp_path / "d.csv"), "--labels", "last:3", "--discretize",
                 "none", "--delta1", "auto", "--delta2", "auto", "--significance", "0.05",
                 "-o", str(out)])
    got = json.loads(out.read_text())
    s = suggest_thresholds(X, Y, 0.05)
    assert got["params"]["delta1"] == pytest.approx(s["delta1"], rel=1e-12)
    assert got["params"]["significance"] == 0.05
    assert got["thresholds"]["df_delta1"] == s["df_delta1"]

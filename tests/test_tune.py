"""camcf.tuning.tune: the grid's best point, scored on training rows only, oriented scores,
progress and stopping, bad grids named."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from camcf.datasets import make_causal_multilabel
from camcf.discretize import discretize
from camcf.errors import ParameterError
from camcf.evaluation import make_splitter
from camcf.jobs import Cancelled
from camcf.significance import suggest_thresholds
from camcf.tuning import GRID_COLUMNS, THRESHOLDS, oriented, tune

GRID = {"delta1": [0.01, 0.05], "k1": [0.3, 0.7]}


@pytest.fixture(scope="module")
def data():
    d = make_causal_multilabel(300, seed=1)
    return np.asarray(d.dataset.X), np.asarray(d.dataset.Y)


def _small(**kw):
    """One outer hold-out split and two inner folds: the smallest nested protocol."""
    return {"cv": make_splitter("holdout", seed=0),
            "inner": make_splitter("kfold", n_folds=2, seed=0), **kw}


@pytest.fixture(scope="module")
def f1_result(data):
    X, Y = data
    return tune(X, Y, GRID, metric="micro_f1", **_small())


def test_grid_has_one_row_per_point_with_its_four_parameters(f1_result):
    g = f1_result.grid
    assert list(g.columns) == [*THRESHOLDS, *GRID_COLUMNS]
    assert len(g) == 4
    assert list(zip(g["delta1"], g["k1"], strict=True)) == [(0.01, 0.3), (0.01, 0.7),
                                                            (0.05, 0.3), (0.05, 0.7)]
    # the parameters the grid does not vary are the defaults
    assert set(g["delta2"]) == {0.1} and set(g["k2"]) == {1.0}
    assert (g["n_splits"] == 2).all()
    # the mean feature count is the mean over the inner splits of the tidy frame
    per_point = f1_result.frame.groupby(["delta1", "k1"], sort=False)["n_features"].mean()
    assert np.allclose(g["n_features"], per_point.to_numpy())


def test_best_is_the_argmin_of_score(f1_result):
    g = f1_result.grid
    assert (g["n_empty"] == 0).all()
    i = int(g["score"].idxmin())
    assert f1_result.best_index == i
    assert f1_result.best == {k: g.at[i, k] for k in THRESHOLDS}
    assert all(isinstance(v, float) for v in f1_result.best.values())
    # no other point scores lower
    assert (g["score"] >= g.at[i, "score"]).all()


def test_f1_score_is_one_minus_the_metric(f1_result):
    g, f = f1_result.grid, f1_result.frame
    assert np.allclose(f["score"], 1 - f["value"])
    assert np.allclose(g["score"], 1 - g["value"])
    # the best point has the highest micro-F1
    assert g.at[f1_result.best_index, "value"] == g["value"].max()
    sd = f.groupby(["delta1", "k1"], sort=False)["score"].std().to_numpy()
    assert np.allclose(g["sd"], sd)


def test_a_loss_is_scored_as_it_is(data):
    X, Y = data
    r = tune(X, Y, {"k1": [0.3, 0.7]}, metric="hamming_loss", **_small())
    assert np.allclose(r.grid["score"], r.grid["value"])
    assert np.allclose(r.frame["score"], r.frame["value"])
    assert r.grid.at[r.best_index, "value"] == r.grid["value"].min()
    assert r.settings["score"] == "hamming_loss" and not r.settings["higher_is_better"]
    assert float(oriented("ranking_loss", 0.3)) == 0.3
    assert float(oriented("subset_accuracy", 0.3)) == pytest.approx(0.7)


def test_held_out_rows_are_never_read(data):
    """Scrambling the held-out rows' labels (and making their features NaN) changes nothing;
    the same scrambling on as many training rows does change the scores."""
    X, Y = data
    cv = make_splitter("holdout", test_size=0.3, seed=0)
    train, held_out = next(cv.split(X))
    rng = np.random.default_rng(5)
    X = X.astype(float)
    base = tune(X, Y, GRID, **_small())

    X2, Y2 = X.copy(), Y.copy()
    X2[held_out] = np.nan
    Y2[held_out] = rng.permutation(Y2[held_out].ravel()).reshape(Y2[held_out].shape)[::-1]
    same = tune(X2, Y2, GRID, **_small())
    pd.testing.assert_frame_equal(same.grid, base.grid)
    assert np.array_equal(same.frame["value"].to_numpy(), base.frame["value"].to_numpy())

    some_train = train[: held_out.size]
    Y3 = Y.copy()
    Y3[some_train] = rng.permutation(Y3[some_train].ravel()).reshape(Y3[some_train].shape)
    other = tune(X, Y3, GRID, **_small())
    assert not np.allclose(other.frame["value"].to_numpy(), base.frame["value"].to_numpy())


def test_a_point_that_selects_nothing_is_never_best(data):
    X, Y = data
    r = tune(X, Y, {"delta1": [0.9, 1.0, 0.02]}, **_small())
    g = r.grid
    # δ1 = 0.9 bits keeps features on one inner split only, 1 bit on none
    assert g.at[0, "n_empty"] == 1 and not np.isnan(g.at[0, "score"])
    assert g.at[1, "n_empty"] == g.at[1, "n_splits"] and np.isnan(g.at[1, "score"])
    assert g.at[2, "n_empty"] == 0
    assert r.best_index == 2 and r.best["delta1"] == 0.02


def test_nested_splits_are_counted_per_outer_part(data):
    X, Y = data
    r = tune(X, Y, {"k1": [0.7]}, cv=make_splitter("repeated", n_repeats=2),
             inner=make_splitter("kfold", n_folds=2))
    assert r.grid.at[0, "n_splits"] == 4
    pairs = sorted(zip(r.frame["outer"], r.frame["inner"], strict=True))
    assert pairs == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert r.settings["n_outer"] == 2 and r.settings["n_inner"] == 2


def test_auto_in_the_grid_is_resolved_in_best(data):
    X, Y = data
    r = tune(X, Y, {"delta1": ["auto"]}, params={"significance": 0.05, "delta2": "auto"},
             **_small())
    codes, _ = discretize(X)
    sug = suggest_thresholds(codes, Y, significance=0.05)
    assert r.grid.at[0, "delta1"] == "auto" and r.grid.at[0, "delta2"] == "auto"
    assert r.best["delta1"] == pytest.approx(sug["delta1"])
    assert r.best["delta2"] == pytest.approx(sug["delta2"])
    assert r.settings["auto"]["significance"] == 0.05


@pytest.mark.parametrize(("grid", "params", "name"), [
    ({"delta3": [0.1]}, None, "delta3"),
    ({"k1": [0.5, 1.5]}, None, "k1"),
    ({"k1": []}, None, "k1"),
    ({"k1": [0.5, 0.5]}, None, "k1"),
    ({"delta1": ["often"]}, None, "delta1"),
    ({"k1": [0.5]}, {"k1": 0.3}, "k1"),
    ({"k1": [0.5]}, {"gama": 1.0}, "gama"),
])
def test_bad_grids_are_named(data, grid, params, name):
    X, Y = data
    with pytest.raises(ParameterError) as e:
        tune(X, Y, grid, params=params, **_small())
    assert e.value.name == name
    assert name in str(e.value)


def test_bad_metric_is_named(data):
    X, Y = data
    with pytest.raises(ParameterError, match="metric"):
        tune(X, Y, GRID, metric="accuracy", **_small())


def test_progress_is_reported_and_cancelled_stops(data):
    X, Y = data
    calls = []
    tune(X, Y, {"k1": [0.3, 0.7]}, progress=lambda *a: calls.append(a), **_small())
    done = [c[0] for c in calls]
    assert done == sorted(done) and done[-1] == calls[-1][1]
    assert all(0 <= d <= t for d, t, _ in calls)
    # 1 outer part + 2 points × 2 folds selected + 2 × 2 classified
    assert calls[-1][1] == 1 + 4 + 4

    seen = []

    def stop(done, total, message):
        seen.append(done)
        if done >= 3:
            raise Cancelled()

    with pytest.raises(Cancelled):
        tune(X, Y, {"k1": [0.3, 0.7]}, progress=stop, **_small())
    assert max(seen) == 3


def test_to_dict_is_plain(f1_result):
    import json

    d = f1_result.to_dict()
    text = json.dumps(d, allow_nan=False)
    assert json.loads(text)["best"] == f1_result.best
    assert len(d["grid"]) == 4


@pytest.mark.parametrize("metric", ["micro_f1", "hamming_loss"])
def test_scores_equal_grid_search_over_the_pipeline_on_the_training_rows(metric):
    """An independent computation: scikit-learn's GridSearchCV over Pipeline(CaMCF, MLkNN), fitted
    on the outer training rows only with the same inner folds, gets the same metric values."""
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import Pipeline

    import camcf
    from camcf.evaluation import METRICS, get_scorer

    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(150, 6))
    noise = rng.random((150, 3)) < 0.1
    Y = np.column_stack([(X[:, 0] == 0) ^ noise[:, 0], (X[:, 1] > 0) ^ noise[:, 1],
                         (X[:, 2] == 2) ^ noise[:, 2]]).astype(int)
    cv, inner = make_splitter("holdout"), make_splitter("kfold", n_folds=3)
    r = tune(X, Y, {"delta1": [0.01, 0.05], "k1": [0.5, 1.0]}, metric=metric, cv=cv,
             inner=inner, knn={"k": 5})
    train, _ = next(cv.split(X))
    pipe = Pipeline([("select", camcf.CaMCF()), ("clf", camcf.MLkNN(k=5))])
    search = GridSearchCV(pipe, {"select__delta1": [0.01, 0.05], "select__k1": [0.5, 1.0]},
                          scoring=get_scorer(metric), cv=list(inner.split(X[train])))
    search.fit(X[train], Y[train])
    sign = 1 if METRICS[metric]["higher_is_better"] else -1  # scikit-learn negates losses
    np.testing.assert_allclose(sign * search.cv_results_["mean_test_score"],
                               r.grid["value"].to_numpy(), rtol=1e-12)
    best = search.best_params_
    assert (r.best["delta1"], r.best["k1"]) == (best["select__delta1"], best["select__k1"])


def test_held_out_estimate_is_nested(data):
    """Per outer split the tuned point is the least score on that split's inner folds; the
    defaults' held-out values are those of an evaluation of Ca-MCF on the outer folds."""
    import camcf
    from camcf.evaluation import evaluate, make_folds

    X, Y = data
    cv = make_splitter("repeated", n_repeats=2, seed=3)
    r = tune(X, Y, GRID, cv=cv, inner=make_splitter("kfold", n_folds=2), held_out=True)
    h = r.held_out
    assert sorted(set(h["set"])) == ["defaults", "tuned"] and sorted(set(h["outer"])) == [0, 1]
    for o in (0, 1):
        inner = r.frame[r.frame["outer"] == o].groupby(["delta1", "k1"], sort=False)["score"]
        means = inner.mean().to_numpy()
        tuned = h[(h["outer"] == o) & (h["set"] == "tuned")]
        assert set(tuned["point"]) == {int(np.argmin(means))}
        i = int(np.argmin(means))
        assert (tuned["delta1"].iloc[0], tuned["k1"].iloc[0]) == (r.grid.at[i, "delta1"],
                                                                  r.grid.at[i, "k1"])
    direct = evaluate(make_folds(X, Y, cv), {"d": camcf.CaMCF()}).frame
    ours = h[h["set"] == "defaults"].sort_values(["outer", "metric"])
    theirs = direct.sort_values(["split", "metric"])
    np.testing.assert_allclose(ours["value"].to_numpy(), theirs["value"].to_numpy())
    s = r.held_out_summary()
    assert set(s["set"]) == {"tuned", "defaults"} and len(s) == 14
    assert r.to_dict()["held_out"]["summary"][0]["set"] == "tuned"


@pytest.mark.parametrize("held_out", [False, True])
def test_estimate_counts_the_units_progress_counts(data, held_out):
    from camcf.studies import ClassifyTimes, tune_estimate

    X, Y = data
    times = ClassifyTimes(rows=(100, 200), seconds_all=(0.01, 0.03), m=X.shape[1], few=5,
                          seconds_few=0.01, discretize_per_row=1e-5)
    calls = []
    tune(X, Y, GRID, held_out=held_out, progress=lambda *a: calls.append(a), **_small())
    est = tune_estimate(X, Y, GRID, run_seconds=0.5, n_selected=6, times=times,
                        held_out=held_out, **_small())
    assert est.units == calls[0][1]  # the total tune announces before it starts
    # 4 points × 2 inner folds, each selection on 105 of 300 rows (70 % then half)
    sel = next(s for s in est.stages if s.name.startswith("Ca-MCF"))
    assert sel.units == 8 and sel.seconds_each == pytest.approx(0.5 * 105 / 300)
    assert est.memory_bytes > 0 and est.seconds > 0

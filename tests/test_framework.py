"""The evaluation framework: splitters, folds, the evaluate core, the studies (ablation,
sensitivity, comparison with any scikit-learn selector), progress, stopping and plans, honest
summaries, and the old signatures kept for the CLI modules."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

import camcf
from camcf.baselines._base import N_FEATURES_TO_SELECT, RankingSelector, SubsetSelector
from camcf.baselines.reference import AllFeatures, RandomSubset
from camcf.datasets import make_causal_multilabel
from camcf.errors import CamcfError, InvalidDataError, ParameterError
from camcf.evaluation import (
    ABLATION_SETS,
    KNN_DEFAULTS,
    KNN_PARAMS,
    METRICS,
    PROTOCOLS,
    FeatureSet,
    HoldoutSplit,
    KnnCache,
    MLkNN,
    RepeatedHoldout,
    ShuffledKFold,
    ablation,
    binarize_labels,
    compare,
    compare_data_sets,
    evaluate,
    evaluate_all,
    make_folds,
    make_splits,
    make_splitter,
    select_on_folds,
    sensitivity,
    sensitivity_matrix,
    sensitivity_summary,
    summarise,
)
from camcf.evaluation.settings import EVAL_PARAMS, check_eval, check_knn
from camcf.jobs import Cancelled


@pytest.fixture(scope="module")
def demo():
    ds = make_causal_multilabel(300, seed=1).dataset
    return ds.X, ds.Y


@pytest.fixture(scope="module")
def folds(demo):
    X, Y = demo
    return make_folds(X, Y, make_splitter(n_repeats=3), discretize=None)


# ---------------------------------------------------------------------------- settings
def test_settings_are_declared_once_and_validated():
    assert [p.name for p in EVAL_PARAMS] == ["protocol", "n_repeats", "n_folds", "test_size",
                                             "seed"]
    assert [p.name for p in KNN_PARAMS] == ["k", "s", "distance", "neighbours"]
    assert KNN_DEFAULTS == {"k": 10, "s": 1.0, "distance": "hamming", "neighbours": "strict"}
    assert list(PROTOCOLS) == list(next(p for p in EVAL_PARAMS if p.name == "protocol").options)
    assert all(p.ui_range()[0] <= p.default <= p.ui_range()[1]
               for p in (*EVAL_PARAMS, *KNN_PARAMS) if p.widget is not None)
    # MLkNN's signature defaults are the declarations'
    assert MLkNN().get_params() == KNN_DEFAULTS
    assert check_knn({"k": 3})["s"] == 1.0
    with pytest.raises(ParameterError) as e:
        check_knn({"k": 0})
    assert e.value.name == "k"
    with pytest.raises(ParameterError):
        check_knn({"kk": 3})
    with pytest.raises(ParameterError) as e:
        check_eval(protocol="bootstrap")
    assert e.value.name == "protocol"


# ---------------------------------------------------------------------------- splitters
def _old_repeated(n, n_repeats, test_size, seed):
    """The splits as the framework has always drawn them (one generator, a permutation per
    repeat, the first ceil(test_size n) rows tested)."""
    rng = np.random.default_rng(seed)
    n_test = math.ceil(test_size * n)
    return [(np.sort(p[n_test:]), np.sort(p[:n_test]))
            for p in (rng.permutation(n) for _ in range(n_repeats))]


def _old_kfold(n, n_folds, seed):
    parts = np.array_split(np.random.default_rng(seed).permutation(n), n_folds)
    return [(np.sort(np.concatenate([f for j, f in enumerate(parts) if j != i])), np.sort(p))
            for i, p in enumerate(parts)]


@pytest.mark.parametrize("n", [7, 60, 194])
@pytest.mark.parametrize("seed", [0, 5])
def test_splitters_give_todays_splits(n, seed):
    cases = [
        (make_splitter("repeated", n_repeats=4, test_size=0.25, seed=seed),
         _old_repeated(n, 4, 0.25, seed)),
        (make_splitter("kfold", n_folds=5, seed=seed), _old_kfold(n, 5, seed)),
        (make_splitter("holdout", test_size=0.3, seed=seed), _old_repeated(n, 1, 0.3, seed)),
    ]
    for cv, expected in cases:
        got = list(cv.split(np.zeros((n, 2))))
        assert cv.get_n_splits() == len(expected) == len(got)
        for (tr, te), (etr, ete) in zip(got, expected, strict=True):
            assert np.array_equal(tr, etr) and np.array_equal(te, ete)
    assert isinstance(make_splitter("kfold"), ShuffledKFold)
    assert isinstance(make_splitter("holdout"), HoldoutSplit)
    assert isinstance(make_splitter(), RepeatedHoldout)


def test_splitters_follow_scikit_learns_protocol():
    from sklearn.model_selection import check_cv, cross_val_score
    from sklearn.tree import DecisionTreeClassifier

    cv = make_splitter("kfold", n_folds=4)
    assert check_cv(cv) is cv
    X = np.arange(40).reshape(20, 2)
    y = np.arange(20) % 2
    assert len(cross_val_score(DecisionTreeClassifier(), X, y, cv=cv)) == 4
    tests = np.concatenate([te for _, te in cv.split(X, y, groups=None)])
    assert sorted(tests.tolist()) == list(range(20))
    assert len(make_splits(50, "holdout", test_size=0.2)[0][1]) == 10
    with pytest.raises(ParameterError):
        make_splitter("bootstrap")
    with pytest.raises(ParameterError):
        list(make_splitter("kfold", n_folds=9).split(np.zeros((5, 1))))


# ---------------------------------------------------------------------------- folds
def test_folds_partition_rows_and_bins_see_only_training_rows():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 3))
    Y = (X[:, :2] > 0).astype(int)
    cv = make_splitter(n_repeats=2, seed=3)
    base = make_folds(X, Y, cv)
    moved = X.copy()
    test0 = next(cv.split(X))[1]
    moved[test0] = moved[test0] * 1000 + 50  # test rows far outside the training range
    changed = make_folds(moved, Y, cv)
    for f in base:
        assert np.intersect1d(f.train, f.test).size == 0
        assert f.train.size + f.test.size == 60
        assert f.protocol == "repeated_holdout"
    assert np.array_equal(base[0].X_train, changed[0].X_train)  # bins ignore the test rows
    assert base[0].key != changed[0].key
    # any splitter, or the (train, test) pairs themselves
    from sklearn.model_selection import KFold

    sk = make_folds(X, Y, KFold(3))
    assert len(sk) == 3 and sk[0].protocol == "KFold"
    pairs = make_folds(X, Y, list(cv.split(X)))
    assert np.array_equal(pairs[1].X_test, base[1].X_test)


def test_fixed_pair_is_one_holdout_fold(demo):
    X, Y = demo
    folds = make_folds(X[:200], Y[:200], X_test=X[200:], Y_test=Y[200:], discretize=None)
    assert len(folds) == 1 and folds[0].protocol == "holdout"
    assert folds[0].train.tolist() == list(range(200))
    assert folds[0].test.tolist() == list(range(200, 300))
    with pytest.raises(ParameterError):
        make_folds(X[:200], Y[:200], make_splitter(), X_test=X[200:], Y_test=Y[200:])


def test_multiclass_labels_are_selected_as_codes_and_scored_one_hot(demo):
    X, Y = demo
    assert any(np.unique(Y[:, j]).size > 2 for j in range(Y.shape[1]))
    folds = make_folds(X, Y, make_splitter(n_repeats=1), discretize=None)
    Yb, names = binarize_labels(Y)
    assert folds[0].Y_train.shape[1] == Y.shape[1]
    assert folds[0].Yb_train.shape[1] == Yb.shape[1] > Y.shape[1]
    signs, names = binarize_labels(np.array([[-1, 0], [1, 1], [-1, 1]]), ["a", "b"])
    assert signs.tolist() == [[0, 0], [1, 1], [0, 1]] and names == ["a", "b"]


# ---------------------------------------------------------------------------- the core
def test_evaluate_fixed_sets_equal_a_direct_mlknn_run(folds):
    knn = {"k": 7, "s": 0.5, "distance": "hamming", "neighbours": "authors"}
    ev = evaluate(folds[:2], sets={"pair": [3, 1], "all": range(folds[0].n_features)}, knn=knn)
    assert list(ev.frame.columns) == ["protocol", "split", "feature_set", "n_features",
                                      "metric", "value", "seconds"]
    assert (ev.frame["seconds"] == 0).all()
    assert ev.sets[0]["pair"] == (1, 3)
    for fi, fold in enumerate(folds[:2]):
        model = MLkNN(**knn).fit(fold.X_train[:, [1, 3]], fold.Yb_train)
        scores = model.predict_proba(fold.X_test[:, [1, 3]])
        expected = evaluate_all(fold.Yb_test, (scores > 0.5).astype(int), scores)
        got = ev.frame[(ev.frame.split == fi) & (ev.frame.feature_set == "pair")]
        assert dict(zip(got["metric"], got["value"], strict=True)) == pytest.approx(
            expected, rel=1e-12)
    assert ev.settings["s"] == 0.5 and ev.settings["distance"] == "hamming"
    with pytest.raises(ParameterError):
        evaluate(folds, sets={"bad": [0, 999]})
    with pytest.raises(ParameterError):
        evaluate(folds, sets={"x": FeatureSet("nobody")})
    with pytest.raises(ParameterError):
        evaluate(folds, sets={"x": [0]}, knn={"k": 0})


def test_feature_sets_from_selectors_and_parts(folds):
    ev = evaluate(folds[:1], {"ca": camcf.CaMCF(delta1=0.02)},
                  sets={"p2": FeatureSet("ca", "phase2"), "final": FeatureSet("ca"),
                        "two": [0, 1]})
    sel = ev.selections[("ca", 0)]
    direct = camcf.run(folds[0].X_train, folds[0].Y_train, delta1=0.02)
    assert ev.sets[0]["final"] == sel.support == tuple(direct.selected_indices.tolist())
    assert ev.sets[0]["p2"] == tuple(direct.selected_after("phase2").tolist())
    assert list(dict.fromkeys(ev.frame["feature_set"])) == ["p2", "final", "two"]
    row = ev.frame[ev.frame.feature_set == "final"].iloc[0]
    assert row["seconds"] == sel.seconds > 0


# ---------------------------------------------------------------------------- ablation
def test_ablation_shape_order_and_sets(folds, demo):
    ev = ablation(folds, {"delta1": 0.02})
    frame = ev.frame
    assert len(frame) == len(folds) * len(ABLATION_SETS) * len(METRICS)
    assert list(dict.fromkeys(frame["feature_set"])) == list(ABLATION_SETS)
    assert set(frame["metric"]) == set(METRICS)
    m = demo[0].shape[1]
    assert (frame.loc[frame.feature_set == "all", "n_features"] == m).all()
    assert (frame.loc[frame.feature_set == "all", "seconds"] == 0).all()
    assert len(ev.sets) == len(folds)
    for fold, sets in zip(folds, ev.sets, strict=True):
        # the final blanket union is the Phase 4 union; Phase 4 only removes from Phase 3
        assert sets["camcf"] == sets["phase4"]
        assert set(sets["phase4"]) <= set(sets["phase3"])
        rows = frame[(frame.split == fold.split) & (frame.feature_set == "camcf")]
        assert (rows["n_features"] == len(sets["camcf"])).all()
    assert len(summarise(frame)) == len(ABLATION_SETS) * len(METRICS)


def test_ablation_values_match_a_direct_mlknn_run(folds):
    ev = ablation(folds[:1], {"delta1": 0.02}, knn={"neighbours": "authors"})
    fold = folds[0]
    idx = np.array(ev.sets[0]["camcf"])
    model = MLkNN(k=10, neighbours="authors").fit(fold.X_train[:, idx], fold.Yb_train)
    scores = model.predict_proba(fold.X_test[:, idx])
    expected = evaluate_all(fold.Yb_test, (scores > 0.5).astype(int), scores)
    got = ev.frame[ev.frame.feature_set == "camcf"].set_index("metric")["value"]
    for metric, value in expected.items():
        assert got[metric] == pytest.approx(value, rel=1e-12)


def test_selection_sees_only_training_rows(folds):
    fold = folds[0]
    ev = ablation([fold], {"delta1": 0.02}, sets=("camcf",))
    direct = camcf.run(fold.X_train, fold.Y_train, delta1=0.02)
    assert list(ev.sets[0]["camcf"]) == direct.selected_indices.tolist()
    # scrambling the test rows' features and labels leaves the selection unchanged
    rng = np.random.default_rng(5)
    other = type(fold)(**{**{name: getattr(fold, name) for name in fold.__dataclass_fields__},
                          "X_test": rng.integers(0, 3, size=fold.X_test.shape),
                          "Yb_test": 1 - fold.Yb_test, "key": "scrambled"})
    again = ablation([other], {"delta1": 0.02}, sets=("camcf",))
    assert again.sets[0]["camcf"] == ev.sets[0]["camcf"]


def test_empty_selection_gives_nan_and_failures_raise(folds):
    frame = ablation(folds[:1], {"delta1": 5.0}, sets=("all", "camcf")).frame
    camcf_rows = frame[frame.feature_set == "camcf"]
    assert (camcf_rows["n_features"] == 0).all() and camcf_rows["value"].isna().all()
    assert frame[frame.feature_set == "all"]["value"].notna().all()
    with pytest.raises(CamcfError, match="cannot work"):
        evaluate(folds[:1], {"f": _Fails()}, on_failure="raise")


# ---------------------------------------------------------------------------- sensitivity
def test_grid_covers_every_combination(folds):
    grid = {"delta1": [0.01, 0.05, 0.2], "k1": [0.3, 1.0]}
    frame = sensitivity(folds, grid, {"delta2": 0.1}, metrics=["hamming_loss", "micro_f1"])
    combos = set(itertools.product(*grid.values()))
    assert set(map(tuple, frame[["delta1", "k1"]].drop_duplicates().to_numpy().tolist())) == combos
    counts = frame.groupby(["delta1", "k1"]).size()
    assert (counts == len(folds) * 2).all()
    assert len(sensitivity_summary(frame)) == len(combos) * 2
    mat = sensitivity_matrix(frame, "hamming_loss", "delta1", "k1")
    assert mat.shape == (3, 2)
    assert mat.index.tolist() == [0.01, 0.05, 0.2]
    nf = sensitivity_matrix(frame, "hamming_loss", "delta1", "k1", value="n_features")
    assert nf.loc[0.2].max() <= nf.loc[0.01].max()  # a higher δ1 cannot admit more candidates


def test_grid_point_equals_ablation_with_those_parameters(folds):
    cache = KnnCache()
    frame = sensitivity(folds, {"delta1": [0.02, 0.05]}, cache=cache)
    abl = ablation(folds, {"delta1": 0.05}, sets=("camcf",), cache=cache).frame
    assert cache.hits >= len(folds)  # the ablation reused the grid's classifications
    a = frame[frame.delta1 == 0.05].sort_values(["split", "metric"])["value"].to_numpy()
    b = abl.sort_values(["split", "metric"])["value"].to_numpy()
    np.testing.assert_allclose(a, b)


def test_parameter_errors(folds):
    for bad in ({}, {"delta1": []}, {"k1": [1.5]}):
        with pytest.raises(ParameterError):
            sensitivity(folds, bad)
    with pytest.raises(ParameterError):
        sensitivity(folds, {"delta1": [0.1]}, metrics="accuracy")
    with pytest.raises(ParameterError):
        ablation(folds, {"alpha": 1})
    with pytest.raises(ParameterError):
        ablation(folds, sets=("phase1",))
    with pytest.raises(ParameterError):
        ablation([], {})


# ---------------------------------------------------------------------------- progress
def test_parallel_equals_serial_and_progress_is_monotone(folds):
    seen: list[tuple[int, int]] = []
    serial = sensitivity(folds[:2], {"k1": [0.5, 1.0]},
                         progress=lambda d, t, msg: seen.append((d, t)))
    parallel = sensitivity(folds[:2], {"k1": [0.5, 1.0]}, n_jobs=2)
    np.testing.assert_allclose(serial["value"], parallel["value"])
    done = [d for d, _ in seen]
    assert done == sorted(done) and all(d <= t for d, t in seen)
    assert seen[-1][0] == seen[-1][1]


def test_plan_is_known_before_and_counted_by_progress(folds):
    plan = ablation.plan(folds, {"delta1": 0.02})
    assert (plan.n_splits, plan.selections, plan.classifications) == (3, 3, 15)
    assert ablation.plan(3, {"delta1": 0.02}) == plan
    seen: list[tuple[int, int]] = []
    ev = ablation(folds, {"delta1": 0.02}, progress=lambda d, t, m: seen.append((d, t)))
    assert seen[0][1] == plan.units  # the first report says the plan
    distinct = {(fi, f) for fi, s in enumerate(ev.sets) for f in s.values() if f}
    assert len(distinct) < plan.classifications  # some sets coincide: classified once …
    # … and the total stays the plan's (issue 34: Corel's step total went from 40 to 36
    # mid-run): the classifications not needed count as done when the classifying starts
    assert {t for _, t in seen} == {plan.units} and seen[-1] == (plan.units,) * 2
    assert sensitivity.plan(folds, {"delta1": [0.01, 0.05], "k1": [0.5]}).selections == 6
    assert compare.plan(2, ["all", "random"]).units == 2 * 2 + 2 * 2


class _StopAfter:
    def __init__(self, units: int) -> None:
        self.units, self.calls = units, []

    def __call__(self, done: int, total: int, message: str) -> None:
        self.calls.append(done)
        if done >= self.units:
            raise Cancelled(f"stopped after {done} of {total}", done=done, total=total)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_progress_that_raises_stops_the_study(folds, n_jobs):
    cache = KnnCache()
    stop = _StopAfter(2)
    with pytest.raises(Cancelled):
        ablation(folds, {"delta1": 0.02}, cache=cache, progress=stop, n_jobs=n_jobs)
    assert max(stop.calls) == 2  # no unit reported after the one that stopped
    assert len(cache) == 0  # nothing half-written
    stop = _StopAfter(4)  # in the classification stage this time
    with pytest.raises(Cancelled):
        evaluate(folds, sets={"a": [0, 1], "b": [2, 3]}, cache=cache, progress=stop)
    assert len(cache) == 0


# ---------------------------------------------------------------------------- comparison
class _ByVariance(RankingSelector):
    """Test-only ranking method: features by training variance, descending (stable)."""

    params = (N_FEATURES_TO_SELECT,)

    def __init__(self, n_features_to_select=None):
        self.n_features_to_select = n_features_to_select

    def fit(self, X, Y):
        self._checked_params()
        X, Y = self._validate_xy(X, Y)
        self.scores_ = X.var(axis=0)
        self.ranking_ = np.argsort(-self.scores_, kind="stable")
        return self


class _Fails(SubsetSelector):
    """Test-only method that fails on every split with a CamcfError."""

    def __init__(self):
        pass

    def fit(self, X, Y):
        raise InvalidDataError("cannot work on this split")


def test_compare_same_splits_ranking_cut_to_camcf_size(folds):
    methods = {"camcf": camcf.CaMCF(delta1=0.02), "all": AllFeatures(),
               "random": RandomSubset(random_state=1), "variance": _ByVariance()}
    seen: list[tuple[int, int]] = []
    cmp = compare(folds, methods, progress=lambda d, t, m: seen.append((d, t)))
    assert cmp.kinds == {"camcf": "subset", "all": "subset", "random": "ranking",
                         "variance": "ranking"}
    assert set(cmp.frame["split"]) == {f.split for f in folds}
    for fi, fold in enumerate(folds):
        sets = cmp.sets[fi]
        direct = camcf.run(fold.X_train, fold.Y_train, delta1=0.02).selected_indices.tolist()
        assert list(sets["camcf"]) == direct
        assert len(sets["random"]) == len(sets["variance"]) == len(direct)
        order = np.argsort(-fold.X_train.var(axis=0), kind="stable")
        assert set(sets["variance"]) == set(order[: len(direct)].tolist())
        assert len(sets["all"]) == fold.n_features
    s = cmp.summary
    assert {"n", "n_splits", "n_empty"} <= set(s.columns)
    assert (s["n_splits"] == len(folds)).all()
    fractions = [d / t for d, t in seen if t]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    ranks = cmp.split_ranks("hamming_loss")
    assert ranks.shape == (len(folds), 4)
    assert np.allclose(ranks.sum(axis=1), 4 * 5 / 2)
    fs = cmp.friedman_over_splits("hamming_loss")
    assert np.allclose(fs.average_ranks, ranks.mean(axis=0))


def test_compare_fixed_k_and_registry_names(folds):
    a = compare(folds[:2], ["all", "random"], n_features=3)
    assert all(len(sets["random"]) == 3 for sets in a.sets)
    b = compare(folds[:2], ["all", "random"], n_features=0.5)
    assert all(len(sets["random"]) == 12 for sets in b.sets)  # half of the demo's 24
    with pytest.raises(ParameterError):
        compare(folds[:1], ["all"], n_features="most")
    with pytest.raises(ParameterError):
        compare(folds[:1], {"bad": object()})
    sel = select_on_folds(folds[:2], {"a": AllFeatures(), "b": AllFeatures()})
    assert sel[("a", 1)] is sel[("b", 1)]  # equal selectors are fitted once


def test_empty_and_failed_selections_are_counted_not_hidden(folds):
    cmp = compare(folds, {"camcf": camcf.CaMCF(delta1=5.0), "all": AllFeatures(),
                          "fails": _Fails()})
    s = cmp.summary.set_index(["feature_set", "metric"])
    assert s.loc[("camcf", "hamming_loss"), "n_empty"] == len(folds)
    assert s.loc[("camcf", "hamming_loss"), "n"] == 0
    assert s.loc[("all", "hamming_loss"), "n"] == len(folds)
    assert [split for split, _ in cmp.failures["fails"]] == [f.split for f in folds]
    assert "cannot work" in cmp.failures["fails"][0][1]
    # a method without a value on a split ranks last there
    assert (cmp.split_ranks("micro_f1")["all"] == 1).all()


def test_compare_data_sets_passes_every_knn_setting(demo):
    X, Y = demo
    knn = {"k": 5, "s": 0.5, "distance": "euclidean", "neighbours": "authors"}
    cv = make_splitter("holdout", seed=2)
    got = compare_data_sets({"a": (X, Y), "b": (X[:200], Y[:200], X[200:], Y[200:])},
                            ["all"], cv, discretize=None, knn=knn)
    for name in ("a", "b"):
        assert {k: got[name].settings[k] for k in knn} == knn
    direct = compare(make_folds(X, Y, cv, discretize=None), ["all"], knn=knn)
    pd.testing.assert_frame_equal(got["a"].frame.drop(columns="seconds"),
                                  direct.frame.drop(columns="seconds"))
    other = compare(make_folds(X, Y, cv, discretize=None), ["all"], knn={"k": 5})
    assert not np.allclose(other.frame["value"], direct.frame["value"])
    with pytest.raises(ParameterError, match="fixed train/test split"):
        compare_data_sets({"b": (X[:200], Y[:200], X[200:], Y[200:])}, ["all"],
                          make_splitter("kfold"), discretize=None)


# ---------------------------------------------------------------------------- summaries
def test_display_says_over_how_many_splits():
    from camcf.evaluation.display import cell, metrics_table

    assert cell(0.25, 0.01, 5, 5) == "0.2500 ± 0.0100"
    assert cell(0.25, float("nan"), 1, 5) == "0.2500 ± n/a (n = 1 of 5)"
    assert cell(float("nan"), float("nan"), 0, 5) == "nothing selected"
    rows = []
    for split in range(3):
        for name, n_feat, value in (("all", 4, 0.3), ("sel", 0 if split else 2, 0.2)):
            for metric in METRICS:
                rows.append({"protocol": "repeated", "split": split, "feature_set": name,
                             "n_features": n_feat, "metric": metric,
                             "value": value if n_feat else np.nan, "seconds": 0.1})
    table = metrics_table(summarise(pd.DataFrame(rows)), ["all", "sel"], {"sel": "Selected"})
    assert table.loc[0, "Selected"] == "0.2000 ± n/a (n = 1 of 3)"
    assert table.loc[0, "all"] == "0.3000 ± 0.0000"
    empty = table.set_index("metric").loc["Splits with nothing selected"]
    assert empty["Selected"] == "2 of 3" and empty["all"] == "0 of 3"

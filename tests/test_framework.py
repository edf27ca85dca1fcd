"""The evaluation framework: splits, per-split discretisation, ablation, sensitivity, method
comparison with any scikit-learn selector, honest summaries."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import camcf
from camcf.baselines._base import N_FEATURES_TO_SELECT, RankingSelector, SubsetSelector
from camcf.baselines.reference import AllFeatures, RandomSubset
from camcf.datasets import make_causal_multilabel
from camcf.errors import InvalidDataError, NotFittedError, ParameterError
from camcf.evaluation import (
    ABLATION_SETS,
    METRICS,
    Discretizer,
    KnnCache,
    MLkNN,
    ablation,
    binarize_labels,
    compare,
    evaluate_all,
    evaluate_feature_sets,
    make_folds,
    make_splits,
    sensitivity,
    sensitivity_matrix,
    sensitivity_summary,
    summarise,
)


@pytest.fixture(scope="module")
def demo():
    ds = make_causal_multilabel(300, seed=1).dataset
    return ds.X, ds.Y


@pytest.fixture(scope="module")
def folds(demo):
    X, Y = demo
    return make_folds(X, Y, make_splits(X.shape[0], n_repeats=3), discretize=None)


# ---------------------------------------------------------------------------- discretiser
def test_discretizer_transform_of_training_rows_reproduces_fit_codes():
    rng = np.random.default_rng(0)
    X = np.column_stack(
        [
            rng.normal(size=80),  # binned
            rng.integers(0, 4, 80),  # as-is
            np.full(80, 7.0),  # constant
            rng.exponential(size=80),  # binned, skewed
        ]
    )
    for strategy in ("uniform", "quantile"):
        d = Discretizer(bins=4, strategy=strategy).fit(X)
        assert np.array_equal(d.transform(X), d.codes_)


def test_discretizer_codes_new_rows_with_training_edges():
    X_tr = np.array([[0.0, 1, 5], [1.0, 2, 5], [2.0, 1, 5], [3.0, 2, 5], [0.5, 1, 5]])
    d = Discretizer(bins=3).fit(X_tr)  # column 0 binned on [0, 3], edges 0, 1, 2, 3
    X_te = np.array([[-10.0, 2, 5], [2.5, 9, 6], [100.0, 1, 5]])
    codes = d.transform(X_te)
    assert codes[:, 0].tolist() == [0, 2, 2]  # clipped to the first / last bin
    assert codes[:, 1].tolist() == [1, 2, 0]  # unseen value 9 gets a code of its own (2)
    assert codes[:, 2].tolist() == [0, 1, 0]  # constant column: 0 = the training value
    with pytest.raises(InvalidDataError):
        d.transform(np.array([[np.nan, 1, 5]]))
    with pytest.raises(NotFittedError):
        Discretizer().transform(X_te)


# ---------------------------------------------------------------------------- folds
def test_folds_partition_rows_and_bins_see_only_training_rows():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 3))
    Y = (X[:, :2] > 0).astype(int)
    splits = make_splits(60, n_repeats=2, seed=3)
    base = make_folds(X, Y, splits)
    moved = X.copy()
    test0 = splits[0][1]
    moved[test0] = moved[test0] * 1000 + 50  # test rows far outside the training range
    changed = make_folds(X=moved, Y=Y, splits=splits)
    for f in base:
        assert np.intersect1d(f.train, f.test).size == 0
        assert f.train.size + f.test.size == 60
    assert np.array_equal(base[0].X_train, changed[0].X_train)  # bins ignore the test rows
    assert base[0].key != changed[0].key


def test_fixed_pair_is_one_holdout_fold(demo):
    X, Y = demo
    folds = make_folds(X[:200], Y[:200], X_test=X[200:], Y_test=Y[200:], discretize=None)
    assert len(folds) == 1 and folds[0].protocol == "holdout"
    assert folds[0].train.tolist() == list(range(200))
    assert folds[0].test.tolist() == list(range(200, 300))


def test_make_splits_protocols():
    assert len(make_splits(50, "repeated", n_repeats=4)) == 4
    folds = make_splits(50, "kfold", n_folds=5)
    assert sorted(np.concatenate([t for _, t in folds]).tolist()) == list(range(50))
    assert len(make_splits(50, "holdout", test_size=0.2)[0][1]) == 10
    with pytest.raises(ParameterError):
        make_splits(50, "bootstrap")


# ---------------------------------------------------------------------------- ablation
def test_ablation_shape_order_and_sets(folds, demo):
    selections: list = []
    frame = ablation(folds, {"delta1": 0.02}, selections=selections)
    assert len(frame) == len(folds) * len(ABLATION_SETS) * len(METRICS)
    assert list(dict.fromkeys(frame["feature_set"])) == list(ABLATION_SETS)
    assert set(frame["metric"]) == set(METRICS)
    m = demo[0].shape[1]
    assert (frame.loc[frame.feature_set == "all", "n_features"] == m).all()
    assert (frame.loc[frame.feature_set == "all", "seconds"] == 0).all()
    for fold, sets in zip(folds, selections, strict=True):
        # the final blanket union is the Phase 4 union; Phase 4 only removes from Phase 3
        assert sets["camcf"] == sets["phase4"]
        assert set(sets["phase4"]) <= set(sets["phase3"])
        rows = frame[(frame.split == fold.split) & (frame.feature_set == "camcf")]
        assert (rows["n_features"] == len(sets["camcf"])).all()
    s = summarise(frame)
    assert len(s) == len(ABLATION_SETS) * len(METRICS)


def test_ablation_values_match_a_direct_mlknn_run(folds):
    selections: list = []
    frame = ablation(folds[:1], {"delta1": 0.02}, neighbours="authors", selections=selections)
    fold = folds[0]
    idx = np.array(selections[0]["camcf"])
    model = MLkNN(k=10, neighbours="authors").fit(fold.X_train[:, idx], fold.Yb_train)
    scores = model.predict_proba(fold.X_test[:, idx])
    expected = evaluate_all(fold.Yb_test, (scores > 0.5).astype(int), scores)
    got = frame[frame.feature_set == "camcf"].set_index("metric")["value"]
    for metric, value in expected.items():
        assert got[metric] == pytest.approx(value)


def test_selection_sees_only_training_rows(folds):
    fold = folds[0]
    selections: list = []
    ablation([fold], {"delta1": 0.02}, feature_sets=("camcf",), selections=selections)
    direct = camcf.run(fold.X_train, fold.Y_train, delta1=0.02)
    assert list(selections[0]["camcf"]) == direct.selected_indices.tolist()
    # scrambling the test rows' features and labels leaves the selection unchanged
    rng = np.random.default_rng(5)
    other = type(fold)(
        **{
            **{name: getattr(fold, name) for name in fold.__dataclass_fields__},
            "X_test": rng.integers(0, 3, size=fold.X_test.shape),
            "Yb_test": 1 - fold.Yb_test,
            "key": "scrambled",
        }
    )
    again: list = []
    ablation([other], {"delta1": 0.02}, feature_sets=("camcf",), selections=again)
    assert again[0]["camcf"] == selections[0]["camcf"]


def test_empty_selection_gives_nan(folds):
    frame = ablation(folds[:1], {"delta1": 5.0}, feature_sets=("all", "camcf"))
    camcf_rows = frame[frame.feature_set == "camcf"]
    assert (camcf_rows["n_features"] == 0).all() and camcf_rows["value"].isna().all()
    assert frame[frame.feature_set == "all"]["value"].notna().all()


# ---------------------------------------------------------------------------- sensitivity
def test_grid_covers_every_combination(folds):
    grid = {"delta1": [0.01, 0.05, 0.2], "k1": [0.3, 1.0]}
    frame = sensitivity(folds, grid, {"delta2": 0.1}, metrics=["hamming_loss", "micro_f1"])
    combos = set(itertools.product(*grid.values()))
    assert set(map(tuple, frame[["delta1", "k1"]].drop_duplicates().to_numpy().tolist())) == combos
    counts = frame.groupby(["delta1", "k1"]).size()
    assert (counts == len(folds) * 2).all()
    summary = sensitivity_summary(frame)
    assert len(summary) == len(combos) * 2
    mat = sensitivity_matrix(frame, "hamming_loss", "delta1", "k1")
    assert mat.shape == (3, 2)
    assert mat.index.tolist() == [0.01, 0.05, 0.2]
    nf = sensitivity_matrix(frame, "hamming_loss", "delta1", "k1", value="n_features")
    assert nf.loc[0.2].max() <= nf.loc[0.01].max()  # a higher δ1 cannot admit more candidates


def test_grid_point_equals_ablation_with_those_parameters(folds):
    cache = KnnCache()
    frame = sensitivity(folds, {"delta1": [0.02, 0.05]}, cache=cache)
    abl = ablation(folds, {"delta1": 0.05}, feature_sets=("camcf",), cache=cache)
    assert cache.hits >= len(folds)  # the ablation reused the grid's classifications
    a = frame[frame.delta1 == 0.05].sort_values(["split", "metric"])["value"].to_numpy()
    b = abl.sort_values(["split", "metric"])["value"].to_numpy()
    np.testing.assert_allclose(a, b)


def test_parallel_equals_serial_and_progress_is_monotone(folds):
    seen: list[tuple[int, int]] = []
    serial = sensitivity(
        folds[:2], {"k1": [0.5, 1.0]}, progress=lambda d, t, msg: seen.append((d, t))
    )
    parallel = sensitivity(folds[:2], {"k1": [0.5, 1.0]}, n_jobs=2)
    np.testing.assert_allclose(serial["value"], parallel["value"])
    fractions = [d / t for d, t in seen if t]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0


def test_parameter_errors(folds):
    with pytest.raises(ParameterError):
        sensitivity(folds, {})
    with pytest.raises(ParameterError):
        sensitivity(folds, {"delta1": []})
    with pytest.raises(ParameterError):
        sensitivity(folds, {"delta1": [0.1]}, metrics="accuracy")
    with pytest.raises(ParameterError):
        sensitivity(folds, {"k1": [1.5]})
    with pytest.raises(ParameterError):
        ablation(folds, {"alpha": 1})
    with pytest.raises(ParameterError):
        ablation(folds, feature_sets=("phase1",))
    with pytest.raises(ParameterError):
        ablation([], {})
    with pytest.raises(ParameterError):
        evaluate_feature_sets(folds, {"bad": [0, 999]})


def test_multiclass_labels_are_selected_as_codes_and_scored_one_hot(demo):
    X, Y = demo
    assert any(np.unique(Y[:, j]).size > 2 for j in range(Y.shape[1]))
    folds = make_folds(X, Y, make_splits(X.shape[0], n_repeats=1), discretize=None)
    Yb, _ = binarize_labels(Y)
    assert folds[0].Y_train.shape[1] == Y.shape[1]
    assert folds[0].Yb_train.shape[1] == Yb.shape[1] > Y.shape[1]


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


def test_display_says_over_how_many_splits():
    import pandas as pd

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

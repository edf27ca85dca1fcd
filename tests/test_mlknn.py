"""ML-kNN against a case worked out by hand, a naive reference, the plain search path (ties and
duplicates), scikit-learn's estimator checks and pipelines, and its error paths."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from camcf.errors import InvalidDataError, NotFittedError, ParameterError
from camcf.evaluation import METRICS, MLkNN
from camcf.evaluation import neighbours as neighbours_module
from camcf.evaluation.neighbours import NeighbourIndex, patterns

# ----------------------------------------------------------------------------- the hand case
# Five training rows, two features; row 2 duplicates row 0.
X_TRAIN = np.array([[0, 0], [0, 1], [0, 0], [1, 1], [1, 0]])
Y_TRAIN = np.array([[1, 0], [1, 1], [0, 0], [0, 1], [1, 0]])
# Hamming distances (rows = from, columns = to):
#   r0: [0 1 0 2 1]   r1: [1 0 1 1 2]   r2: [0 1 0 2 1]   r3: [2 1 2 0 1]   r4: [1 2 1 1 0]
#
# strict, k = 2 (own index removed, then stable order, ties -> lower index):
#   r0 -> [2, 1]  r1 -> [0, 2]  r2 -> [0, 1]  r3 -> [1, 4]  r4 -> [0, 2]
# authors, k = 2 (3 nearest in stable order, drop the first):
#   r2: stable order is r0 (0), r2 (0), r1 (1) -> drop r0 -> [2, 1]: r2 is its own neighbour.
#   All other rows come first in their own order, so they match strict.
STRICT_NB = [[2, 1], [0, 2], [0, 1], [1, 4], [0, 2]]
AUTHORS_NB = [[2, 1], [0, 2], [2, 1], [1, 4], [0, 2]]
# Priors, s = 1, n = 5: label 0 has 3 positives -> (1+3)/(2+5) = 4/7; label 1 has 2 -> 3/7.
#
# Neighbour counts C (label 0, label 1), strict:
#   r0 (1, 1) r1 (1, 0) r2 (2, 1) r3 (2, 1) r4 (1, 0)
# label 0: with = r0 r1 r4 -> C = 1 1 1 -> c1 = [0, 3, 0]; without = r2 r3 -> C = 2 2 -> c0 = [0, 0, 2]
# label 1: with = r1 r3 -> C = 0 1 -> c1 = [1, 1, 0]; without = r0 r2 r4 -> C = 1 1 0 -> c0 = [1, 2, 0]
# authors: r2's neighbours are [2, 1] -> C = (1, 1), so label 0's c0 becomes [0, 1, 1].
STRICT_C1 = [[0, 3, 0], [1, 1, 0]]
STRICT_C0 = [[0, 0, 2], [1, 2, 0]]
AUTHORS_C0 = [[0, 1, 1], [1, 2, 0]]
# Likelihoods (s + c) / (s (k + 1) + sum c) = (1 + c) / (3 + sum c):
#   label 0: H1 [1/6, 4/6, 1/6]; H0 strict [1/5, 1/5, 3/5]; H0 authors [1/5, 2/5, 2/5]
#   label 1: H1 [2/5, 2/5, 1/5]; H0 [2/6, 3/6, 1/6]
#
# Test rows and their 2 nearest training rows (stable):
#   t0 = (0, 0): distances [0 1 0 2 1] -> [0, 2] -> C = (1, 0)
#   t1 = (1, 1): distances [2 1 2 0 1] -> [3, 1] -> C = (1, 2)
#   t2 = (0, 2): value 2 never seen, distances [1 1 1 2 2] -> [0, 1] -> C = (2, 1)
X_TEST = np.array([[0, 0], [1, 1], [0, 2]])
TEST_NB = [[0, 2], [3, 1], [0, 1]]
# Posteriors P1 / (P1 + P0):
#   label 0, C=1, strict:  (4/7 * 4/6) / (4/7 * 4/6 + 3/7 * 1/5) = (40/105) / (49/105) = 40/49
#   label 0, C=1, authors: (40/105) / (40/105 + 3/7 * 2/5 = 18/105) = 40/58 = 20/29
#   label 0, C=2, strict:  (4/7 * 1/6 = 10/105) / (10/105 + 3/7 * 3/5 = 27/105) = 10/37
#   label 0, C=2, authors: (10/105) / (10/105 + 18/105) = 10/28 = 5/14
#   label 1, C=0: (3/7 * 2/5 = 18/105) / (18/105 + 4/7 * 2/6 = 20/105) = 18/38 = 9/19
#   label 1, C=2: (3/7 * 1/5 = 9/105) / (9/105 + 4/7 * 1/6 = 10/105) = 9/19
#   label 1, C=1: (18/105) / (18/105 + 4/7 * 3/6 = 30/105) = 18/48 = 3/8
STRICT_POST = [[40 / 49, 9 / 19], [40 / 49, 9 / 19], [10 / 37, 3 / 8]]
AUTHORS_POST = [[20 / 29, 9 / 19], [20 / 29, 9 / 19], [5 / 14, 3 / 8]]


def test_hand_case_strict() -> None:
    model = MLkNN(k=2, s=1.0, neighbours="strict").fit(X_TRAIN, Y_TRAIN)
    np.testing.assert_allclose(model.prior_, [4 / 7, 3 / 7])
    np.testing.assert_array_equal(model.train_neighbours_, STRICT_NB)
    np.testing.assert_array_equal(model.c1_, STRICT_C1)
    np.testing.assert_array_equal(model.c0_, STRICT_C0)
    np.testing.assert_allclose(model.likelihood1_, [[1 / 6, 4 / 6, 1 / 6], [2 / 5, 2 / 5, 1 / 5]])
    np.testing.assert_allclose(model.likelihood0_, [[1 / 5, 1 / 5, 3 / 5], [2 / 6, 3 / 6, 1 / 6]])
    np.testing.assert_array_equal(model.kneighbors(X_TEST), TEST_NB)
    np.testing.assert_allclose(model.predict_proba(X_TEST), STRICT_POST, rtol=1e-12)
    np.testing.assert_array_equal(model.predict(X_TEST), [[1, 0], [1, 0], [0, 0]])


def test_hand_case_authors_differs_from_strict() -> None:
    model = MLkNN(k=2, s=1.0, neighbours="authors").fit(X_TRAIN, Y_TRAIN)
    np.testing.assert_array_equal(model.train_neighbours_, AUTHORS_NB)
    np.testing.assert_array_equal(model.c1_, STRICT_C1)
    np.testing.assert_array_equal(model.c0_, AUTHORS_C0)
    np.testing.assert_allclose(model.likelihood0_[0], [1 / 5, 2 / 5, 2 / 5])
    np.testing.assert_allclose(model.predict_proba(X_TEST), AUTHORS_POST, rtol=1e-12)
    strict = MLkNN(k=2, neighbours="strict").fit(X_TRAIN, Y_TRAIN)
    assert not np.allclose(model.predict_proba(X_TEST), strict.predict_proba(X_TEST))


def test_hand_case_float_values_are_compared_for_equality() -> None:
    # Relabelling the values (codes -> arbitrary floats) must not change Hamming results.
    X_tr = np.where(X_TRAIN == 0, -2.5, 7.25)
    X_te = np.array([[-2.5, -2.5], [7.25, 7.25], [-2.5, 3.0]])
    model = MLkNN(k=2).fit(X_tr, Y_TRAIN)
    np.testing.assert_allclose(model.predict_proba(X_te), STRICT_POST, rtol=1e-12)


def test_euclidean_and_hamming_rank_differently() -> None:
    X_tr = np.array([[0, 3], [1, 1], [5, 5]])
    Y_tr = np.array([[1], [0], [0]])
    query = np.array([[0, 0]])
    # Hamming: [1, 2, 2] -> row 0 nearest.  Euclidean: [3, sqrt 2, sqrt 50] -> row 1 nearest.
    ham = MLkNN(k=1, distance="hamming").fit(X_tr, Y_tr)
    euc = MLkNN(k=1, distance="euclidean").fit(X_tr, Y_tr)
    assert ham.kneighbors(query).tolist() == [[0]]
    assert euc.kneighbors(query).tolist() == [[1]]
    # Training neighbours agree here (strict: r0 -> r1, r1 -> r0, r2 -> r0 in both), so the
    # likelihood tables are equal and only the query's neighbour count differs: 1 vs 0.
    # prior 2/5; c1 = [1, 0], c0 = [0, 2]; H1: [2/3, 1/3], H0: [1/4, 3/4].
    # Hamming, C = 1: (2/5 * 1/3) / (2/5 * 1/3 + 3/5 * 3/4) = 8/35
    # Euclidean, C = 0: (2/5 * 2/3) / (2/5 * 2/3 + 3/5 * 1/4) = 16/25
    np.testing.assert_array_equal(ham.train_neighbours_, euc.train_neighbours_)
    np.testing.assert_allclose(ham.predict_proba(query), [[8 / 35]])
    np.testing.assert_allclose(euc.predict_proba(query), [[16 / 25]])


def test_euclidean_ties_go_to_lower_index() -> None:
    X_tr = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0], [3.0, 3.0]])
    model = MLkNN(k=3, distance="euclidean").fit(X_tr, np.eye(5, 2, dtype=int))
    assert model.kneighbors(np.zeros((1, 2))).tolist() == [[0, 1, 2]]


def _reference(X_tr, Y_tr, X_te, k, s, distance, neighbours):
    """Direct transcription with Python loops (slow, obvious)."""
    n, q = Y_tr.shape

    def dist(a, b):
        if distance == "hamming":
            return float(sum(x != y for x, y in zip(a, b, strict=True)))
        return float(np.sqrt(sum((x - y) ** 2 for x, y in zip(a, b, strict=True))))

    def nearest(row, exclude=None, take=k):
        d = [(dist(row, X_tr[j]), j) for j in range(n) if j != exclude]
        d.sort()  # (distance, index): ties -> lower index
        return [j for _, j in d[:take]]

    nbs = []
    for i in range(n):
        if neighbours == "strict":
            nbs.append(nearest(X_tr[i], exclude=i))
        else:
            nbs.append(nearest(X_tr[i], take=k + 1)[1:])
    post = np.zeros((len(X_te), q))
    for lab in range(q):
        prior = (s + Y_tr[:, lab].sum()) / (2 * s + n)
        c1 = np.zeros(k + 1)
        c0 = np.zeros(k + 1)
        for i in range(n):
            c = sum(Y_tr[j, lab] for j in nbs[i])
            if Y_tr[i, lab]:
                c1[c] += 1
            else:
                c0[c] += 1
        for t, row in enumerate(X_te):
            c = sum(Y_tr[j, lab] for j in nearest(row))
            p1 = prior * (s + c1[c]) / (s * (k + 1) + c1.sum())
            p0 = (1 - prior) * (s + c0[c]) / (s * (k + 1) + c0.sum())
            post[t, lab] = p1 / (p1 + p0)
    return post


@pytest.mark.parametrize("distance", ["hamming", "euclidean"])
@pytest.mark.parametrize("neighbours", ["strict", "authors"])
def test_matches_naive_reference(distance: str, neighbours: str) -> None:
    rng = np.random.default_rng(3)
    X_tr = rng.integers(0, 3, size=(40, 3))  # 27 possible rows: many duplicates and ties
    Y_tr = rng.integers(0, 2, size=(40, 3))
    X_te = rng.integers(0, 3, size=(15, 3))
    expected = _reference(X_tr, Y_tr, X_te, 4, 0.7, distance, neighbours)
    got = MLkNN(k=4, s=0.7, distance=distance, neighbours=neighbours).fit(X_tr, Y_tr)
    np.testing.assert_allclose(got.predict_proba(X_te), expected, rtol=1e-12)


def _stable_neighbours(X_tr, X_q, take, distance):
    """Every distance, then a stable sort: the order SPEC fixes."""
    if distance == "hamming":
        D = (X_q[:, None, :] != X_tr[None, :, :]).sum(axis=2)
    else:
        D = ((X_q[:, None, :] - X_tr[None, :, :]) ** 2).sum(axis=2)
    return np.argsort(D, axis=1, kind="stable")[:, :take]


@pytest.mark.parametrize(("distance", "values", "sparse"), [
    ("hamming", 3, 0.0), ("hamming", 2, 1.0), ("hamming", 2, 0.0), ("euclidean", 3, 0.0)])
@pytest.mark.parametrize("neighbours", ["strict", "authors"])
def test_fast_search_equals_the_reference_path_with_ties_and_duplicates(
        distance, values, sparse, neighbours, monkeypatch) -> None:
    """Random codes with many ties and duplicate rows, values unseen in training, more rows
    than a block, and a feature subset: the BLAS search (dense or sparse products, ternary or
    binary features), the reference path (forced by a zero one-hot budget) and a plain stable
    sort give the same neighbours and posteriors."""
    rng = np.random.default_rng(11)
    n, m = 300, 6
    monkeypatch.setattr(neighbours_module, "SPARSE_DENSITY", sparse)
    X_tr = rng.integers(0, values, size=(n, m)).astype(float)
    X_tr[::7] = X_tr[1::7][: len(X_tr[::7])]  # extra duplicate rows
    X_te = rng.integers(0, values + 1, size=(120, m)).astype(float)  # the last is unseen
    Y_tr = (rng.random((n, 5)) < 0.3).astype(int)
    monkeypatch.setattr(neighbours_module, "BLOCK_BYTES", 12 * n * 16)  # 16-row blocks
    monkeypatch.setattr(neighbours_module, "CHUNK", 8)  # the chunk bound is used
    monkeypatch.setattr(neighbours_module, "SQUARE_BLOCK", 37)  # last block: 4 < k + 1 rows
    fast = MLkNN(k=5, distance=distance, neighbours=neighbours).fit(X_tr, Y_tr)
    monkeypatch.setattr(neighbours_module, "ONEHOT_BUDGET", 0)
    plain = MLkNN(k=5, distance=distance, neighbours=neighbours).fit(X_tr, Y_tr)
    np.testing.assert_array_equal(fast.train_neighbours_, plain.train_neighbours_)
    np.testing.assert_array_equal(fast.kneighbors(X_te), plain.kneighbors(X_te))
    np.testing.assert_array_equal(fast.kneighbors(X_te),
                                  _stable_neighbours(X_tr, X_te, 5, distance))
    own = _stable_neighbours(X_tr, X_tr, 6, distance)
    if neighbours == "authors":
        np.testing.assert_array_equal(fast.train_neighbours_, own[:, 1:])
    np.testing.assert_array_equal(fast.predict_proba(X_te), plain.predict_proba(X_te))
    # a column subset searched on a shared index equals a model fitted on those columns
    index = NeighbourIndex(X_tr, distance)
    cols = np.array([1, 4, 5])
    sub = MLkNN(k=5, distance=distance, neighbours=neighbours)._fit_index(index, cols, Y_tr)
    direct = MLkNN(k=5, distance=distance, neighbours=neighbours).fit(X_tr[:, cols], Y_tr)
    np.testing.assert_array_equal(sub.train_neighbours_, direct.train_neighbours_)
    np.testing.assert_array_equal(sub._posterior(index.encode(X_te)),
                                  direct.predict_proba(X_te[:, cols]))


def test_patterns_are_exact() -> None:
    rows = np.array([[0.5, -0.0], [0.5, 0.0], [0.25, 1.0], [0.5, 0.0]])
    first, inverse = patterns(rows)
    assert len(first) == 2 and np.array_equal(rows[first][inverse], rows)
    codes = np.array([[3, -1], [3, -1], [2, 7]])
    first, inverse = patterns(codes)
    assert len(first) == 2 and np.array_equal(codes[first][inverse], codes)


def test_modes_differ_on_duplicates_only() -> None:
    # No duplicate rows and no ties at distance 0: the first of k+1 is always the row itself.
    X = np.arange(20).reshape(10, 2)
    Y = np.tile([[1, 0], [0, 1]], (5, 1))
    a = MLkNN(k=3, neighbours="authors").fit(X, Y)
    b = MLkNN(k=3, neighbours="strict").fit(X, Y)
    np.testing.assert_array_equal(a.train_neighbours_, b.train_neighbours_)


def test_empty_feature_selection_is_a_typed_error() -> None:
    with pytest.raises(InvalidDataError, match="no features were selected"):
        MLkNN(k=2).fit(np.zeros((5, 0)), Y_TRAIN)
    model = MLkNN(k=2).fit(X_TRAIN, Y_TRAIN)
    with pytest.raises(InvalidDataError, match="no features were selected"):
        model.predict_proba(np.zeros((3, 0)))


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({"k": 0}, "k"), ({"k": 2.5}, "k"), ({"s": 0.0}, "s"), ({"s": -1}, "s"),
     ({"distance": "cosine"}, "distance"), ({"neighbours": "loose"}, "neighbours")],
)
def test_parameter_errors(kwargs: dict, name: str) -> None:
    model = MLkNN(**kwargs)  # scikit-learn's rule: __init__ only stores
    with pytest.raises(ParameterError) as e:
        model.fit(X_TRAIN, Y_TRAIN)
    assert e.value.name == name and str(e.value).startswith(name)


def test_k_must_be_below_n_train() -> None:
    with pytest.raises(ParameterError, match="k=5"):
        MLkNN(k=5).fit(X_TRAIN, Y_TRAIN)
    MLkNN(k=4).fit(X_TRAIN, Y_TRAIN)  # k = n - 1 is fine


def test_data_errors() -> None:
    with pytest.raises(InvalidDataError, match="binary"):
        MLkNN(k=2).fit(X_TRAIN, Y_TRAIN + 1)
    with pytest.raises(InvalidDataError, match="one row per row"):
        MLkNN(k=2).fit(X_TRAIN, Y_TRAIN[:4])
    with pytest.raises(InvalidDataError, match="NaN"):
        MLkNN(k=2).fit(np.where(X_TRAIN == 1, np.nan, 0.0), Y_TRAIN)
    with pytest.raises(InvalidDataError, match="binary classification"):
        MLkNN(k=2).fit(X_TRAIN, np.array([0, 1, 2, 1, 0]))
    model = MLkNN(k=2).fit(X_TRAIN, Y_TRAIN)
    with pytest.raises(InvalidDataError, match="3 features"):
        model.predict(np.zeros((2, 3)))
    with pytest.raises(NotFittedError, match="not fitted"):
        MLkNN().predict(X_TEST)


def test_binary_y_is_one_label_with_its_classes() -> None:
    y = np.where(Y_TRAIN[:, 0] == 1, "yes", "no")
    model = MLkNN(k=2).fit(X_TRAIN, y)
    multi = MLkNN(k=2).fit(X_TRAIN, Y_TRAIN[:, :1])
    assert model.classes_.tolist() == ["no", "yes"]
    proba = model.predict_proba(X_TEST)
    np.testing.assert_allclose(proba[:, 1], multi.predict_proba(X_TEST)[:, 0], rtol=1e-12)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert model.predict(X_TEST).tolist() == ["yes", "yes", "no"]


# ------------------------------------------------------------------ scikit-learn's contract
@parametrize_with_checks(
    [MLkNN(k=3), MLkNN(k=3, distance="euclidean", neighbours="authors"), MLkNN()],
    expected_failed_checks=lambda est: (
        {name: "scikit-learn fits these checks on 10 rows; ML-kNN needs k < n_train (k = 10)"
         for name in ("check_estimators_nan_inf", "check_fit2d_1feature")}
        if est.k >= 10 else {}),
)
def test_scikit_learn_estimator_checks(estimator, check) -> None:
    check(estimator)


def _pipeline_data():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(120, 6))
    noise = rng.random((120, 3)) < 0.1
    Y = np.column_stack([(X[:, 0] == 0) ^ noise[:, 0], (X[:, 1] > 0) ^ noise[:, 1],
                         X[:, 2] == 2]).astype(int)
    return X, Y


def test_pipeline_with_camcf_under_cross_validate_and_cross_val_score() -> None:
    from sklearn.model_selection import KFold, cross_val_score, cross_validate
    from sklearn.pipeline import Pipeline

    import camcf
    from camcf.evaluation import SCORERS, evaluate_all, get_scorer

    X, Y = _pipeline_data()
    pipe = Pipeline([("select", camcf.CaMCF(delta1=0.02)), ("clf", camcf.MLkNN(k=5))])
    cv = KFold(3)
    scores = cross_validate(pipe, X, Y, cv=cv, scoring=SCORERS)
    train, test = next(cv.split(X))
    fitted = pipe.fit(X[train], Y[train])
    post = fitted.predict_proba(X[test])
    direct = evaluate_all(Y[test], (post > 0.5).astype(int), post)
    for name, value in direct.items():  # losses are negated, as scikit-learn expects
        sign = 1 if METRICS[name]["higher_is_better"] else -1
        assert scores[f"test_{name}"][0] == pytest.approx(sign * value, rel=1e-12)
    micro = cross_val_score(pipe, X, Y, cv=cv, scoring=get_scorer("micro_f1"))
    np.testing.assert_allclose(micro, scores["test_micro_f1"])


def test_pipeline_under_grid_search() -> None:
    from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
    from sklearn.pipeline import Pipeline

    import camcf
    from camcf.evaluation import get_scorer

    X, Y = _pipeline_data()
    pipe = Pipeline([("select", camcf.CaMCF()), ("clf", camcf.MLkNN())])
    grid = {"select__delta1": [0.01, 0.05], "clf__k": [3, 7]}
    scorer = get_scorer("hamming_loss")
    search = GridSearchCV(pipe, grid, scoring=scorer, cv=KFold(3)).fit(X, Y)
    means = search.cv_results_["mean_test_score"]
    assert search.best_score_ == pytest.approx(means.max()) and search.best_score_ <= 0
    point = dict(zip(grid, (0.05, 7), strict=True))
    i = search.cv_results_["params"].index(point)
    again = cross_val_score(pipe.set_params(**point), X, Y, cv=KFold(3), scoring=scorer)
    assert means[i] == pytest.approx(again.mean(), rel=1e-12)
    assert search.predict(X[:4]).shape == (4, 3)


def test_integer_codes_take_the_look_up_path_with_the_same_answer() -> None:
    rng = np.random.default_rng(2)
    X = rng.integers(-3, 5, size=(60, 4))
    Q = rng.integers(-5, 8, size=(25, 4))  # some values never seen in training
    ints, floats = NeighbourIndex(X), NeighbourIndex(X.astype(float))
    assert ints._lut is not None and floats._lut is None
    np.testing.assert_array_equal(ints.train, floats.train)
    np.testing.assert_array_equal(ints.encode(Q), floats.encode(Q.astype(float)))
    a, ia = ints.search(ints.encode(Q), 7)
    b, ib = floats.search(floats.encode(Q.astype(float)), 7)
    np.testing.assert_array_equal(a[ia], b[ib])

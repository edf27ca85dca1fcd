"""The seven metrics on hand-worked cases, tie rules, and agreement with scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

from camcf.errors import InvalidDataError, ParameterError
from camcf.evaluation import (
    METRICS,
    average_precision,
    coverage,
    evaluate_all,
    hamming_loss,
    macro_f1,
    micro_f1,
    ranking_loss,
    ranks,
    subset_accuracy,
)

# Four instances, three labels. Row 2 has no true label, row 3 has all; row 3's scores tie.
Y_TRUE = np.array([[1, 0, 1], [0, 1, 0], [0, 0, 0], [1, 1, 1]])
Y_PRED = np.array([[1, 0, 0], [0, 1, 1], [0, 0, 0], [1, 1, 1]])
SCORES = np.array([[0.9, 0.5, 0.2], [0.3, 0.5, 0.8], [0.4, 0.6, 0.1], [0.2, 0.2, 0.9]])
# Ranks (stable descending; row 3: labels 0 and 1 tie, label 0 is listed first):
#   row 0: [1, 2, 3]   row 1: [3, 2, 1]   row 2: [2, 1, 3]   row 3: [2, 3, 1]
RANKS = [[1, 2, 3], [3, 2, 1], [2, 1, 3], [2, 3, 1]]


def test_ranks_stable_descending() -> None:
    np.testing.assert_array_equal(ranks(SCORES), RANKS)


def test_hamming_loss_by_hand() -> None:
    # Wrong pairs: (row 0, label 2) and (row 1, label 2) -> 2 / 12.
    assert hamming_loss(Y_TRUE, Y_PRED) == pytest.approx(2 / 12)


def test_subset_accuracy_by_hand() -> None:
    # Rows 2 and 3 are exact -> 2 / 4.
    assert subset_accuracy(Y_TRUE, Y_PRED) == pytest.approx(0.5)


def test_average_precision_by_hand() -> None:
    # row 0: true {0 (rank 1), 2 (rank 3)}: (1/1 + 2/3) / 2 = 5/6
    # row 1: true {1 (rank 2)}: 1/2
    # row 2: no true label -> 0
    # row 3: all true -> 1
    assert average_precision(Y_TRUE, SCORES) == pytest.approx((5 / 6 + 1 / 2 + 0 + 1) / 4)


def test_coverage_by_hand() -> None:
    # (worst true rank - 1) / (q - 1): row 0 (3-1)/2 = 1, row 1 (2-1)/2, row 2 -> 0, row 3 1.
    assert coverage(Y_TRUE, SCORES) == pytest.approx((1 + 0.5 + 0 + 1) / 4)


def test_ranking_loss_by_hand() -> None:
    # row 0: pairs (0,1) ok, (2,1) wrong -> 1/2; row 1: (1,0) ok, (1,2) wrong -> 1/2;
    # row 2 (no true) and row 3 (all true) -> 0.
    assert ranking_loss(Y_TRUE, SCORES) == pytest.approx((0.5 + 0.5) / 4)


def test_f1_by_hand() -> None:
    y_true = np.array([[1, 0, 0], [1, 1, 0], [0, 0, 0]])
    y_pred = np.array([[1, 1, 0], [0, 1, 0], [0, 0, 0]])
    # label 0: TP 1, FP 0, FN 1 -> 2/3; label 1: TP 1, FP 1, FN 0 -> 2/3;
    # label 2: no positives and no predictions -> 0.
    assert macro_f1(y_true, y_pred) == pytest.approx((2 / 3 + 2 / 3 + 0) / 3)
    # micro: TP 2, FP 1, FN 1 -> 4 / 6
    assert micro_f1(y_true, y_pred) == pytest.approx(4 / 6)
    assert micro_f1(np.zeros((2, 2), int), np.zeros((2, 2), int)) == 0.0


def test_ties_follow_listing_order() -> None:
    tie = np.array([[0.5, 0.5]])
    # True label listed second: ranked 2nd, below the false one.
    assert ranking_loss([[0, 1]], tie) == 1.0
    assert average_precision([[0, 1]], tie) == 0.5
    assert coverage([[0, 1]], tie) == 1.0
    # True label listed first: ranked 1st.
    assert ranking_loss([[1, 0]], tie) == 0.0
    assert average_precision([[1, 0]], tie) == 1.0
    assert coverage([[1, 0]], tie) == 0.0


def test_instances_without_true_labels_count_zero() -> None:
    y = np.array([[0, 0, 0], [0, 1, 0]])
    s = np.array([[0.1, 0.2, 0.3], [0.1, 0.2, 0.3]])
    # Second row alone: AvP 1/2, coverage (2-1)/2, ranking loss 1/2; first row contributes 0.
    assert average_precision(y, s) == pytest.approx(0.25)
    assert coverage(y, s) == pytest.approx(0.25)
    assert ranking_loss(y, s) == pytest.approx(0.25)


def test_evaluate_all_keys_and_table() -> None:
    out = evaluate_all(Y_TRUE, Y_PRED, SCORES)
    expected = [
        "hamming_loss",
        "subset_accuracy",
        "average_precision",
        "coverage",
        "ranking_loss",
        "macro_f1",
        "micro_f1",
    ]
    assert list(out) == expected
    assert list(METRICS) == expected
    lower = {name for name, info in METRICS.items() if not info["higher_is_better"]}
    assert lower == {"hamming_loss", "coverage", "ranking_loss"}
    assert all(isinstance(info["name"], str) and info["name"] for info in METRICS.values())
    assert out["average_precision"] == pytest.approx(average_precision(Y_TRUE, SCORES))


def test_shape_and_value_errors() -> None:
    with pytest.raises(InvalidDataError, match="shape"):
        hamming_loss(Y_TRUE, Y_PRED[:, :2])
    with pytest.raises(InvalidDataError, match="0 and 1"):
        macro_f1(Y_TRUE, Y_PRED * 2)
    with pytest.raises(InvalidDataError, match="NaN"):
        coverage(Y_TRUE, np.full(Y_TRUE.shape, np.nan))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agrees_with_sklearn_without_ties(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, q = 60, 5
    y_true = (rng.random((n, q)) < 0.4).astype(int)
    y_true[np.arange(n), rng.integers(0, q, n)] = 1  # every instance has a true label
    scores = rng.random((n, q))  # continuous: no ties
    y_pred = (rng.random((n, q)) < 0.4).astype(int)
    assert hamming_loss(y_true, y_pred) == pytest.approx(skm.hamming_loss(y_true, y_pred))
    assert subset_accuracy(y_true, y_pred) == pytest.approx(skm.accuracy_score(y_true, y_pred))
    assert average_precision(y_true, scores) == pytest.approx(
        skm.label_ranking_average_precision_score(y_true, scores)
    )
    assert coverage(y_true, scores) == pytest.approx(
        (skm.coverage_error(y_true, scores) - 1) / (q - 1)
    )
    assert ranking_loss(y_true, scores) == pytest.approx(skm.label_ranking_loss(y_true, scores))
    assert macro_f1(y_true, y_pred) == pytest.approx(
        skm.f1_score(y_true, y_pred, average="macro", zero_division=0)
    )
    assert micro_f1(y_true, y_pred) == pytest.approx(
        skm.f1_score(y_true, y_pred, average="micro", zero_division=0)
    )


def test_ranking_loss_agrees_with_sklearn_with_empty_and_full_rows() -> None:
    # sklearn also lets rows with no true label / all labels true contribute 0 to ranking loss.
    rng = np.random.default_rng(7)
    y_true = (rng.random((40, 4)) < 0.5).astype(int)
    y_true[0] = 0
    y_true[1] = 1
    scores = rng.random((40, 4))
    assert ranking_loss(y_true, scores) == pytest.approx(skm.label_ranking_loss(y_true, scores))


def test_macro_f1_with_an_empty_label_agrees_with_sklearn() -> None:
    y_true = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0]])
    y_pred = np.array([[1, 1, 0], [0, 1, 0], [0, 1, 0]])
    assert macro_f1(y_true, y_pred) == pytest.approx(
        skm.f1_score(y_true, y_pred, average="macro", zero_division=0)
    )


def test_evaluate_all_shares_one_sort_and_equals_each_metric() -> None:
    rng = np.random.default_rng(5)
    y_true = (rng.random((50, 6)) < 0.3).astype(int)
    scores = rng.integers(0, 4, size=(50, 6)) / 4  # many ties
    y_pred = (scores > 0.5).astype(int)
    got = evaluate_all(y_true, y_pred, scores)
    assert got == {name: globals()[name](y_true, y_pred if name in (
        "hamming_loss", "subset_accuracy", "macro_f1", "micro_f1") else scores)
        for name in METRICS}


def test_scorers_have_the_right_sign_and_output() -> None:
    from camcf.evaluation import SCORERS, MLkNN, get_scorer

    assert list(SCORERS) == list(METRICS)
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, size=(60, 4))
    Y = (rng.random((60, 3)) < 0.4).astype(int)
    model = MLkNN(k=4).fit(X[:40], Y[:40])
    post = model.predict_proba(X[40:])
    direct = evaluate_all(Y[40:], model.predict(X[40:]), post)
    for name, scorer in SCORERS.items():
        sign = 1 if METRICS[name]["higher_is_better"] else -1
        assert scorer(model, X[40:], Y[40:]) == pytest.approx(sign * direct[name], rel=1e-12)
    assert get_scorer("coverage") is SCORERS["coverage"]
    with pytest.raises(ParameterError) as e:
        get_scorer("accuracy")
    assert e.value.name == "scoring"

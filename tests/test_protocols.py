"""Protocols with fake selectors: frame shapes, determinism, no leakage, folds, grid."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from camcf.errors import InvalidDataError, ParameterError
from camcf.evaluation import (
    COLUMNS,
    METRICS,
    binarize_labels,
    camcf_selector,
    holdout,
    kfold,
    kfold_splits,
    parameter_grid,
    repeated_holdout,
    repeated_holdout_splits,
    summarise,
)

N, M = 60, 6


def _data(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Column 0 holds the row id, so a selector can see which rows it was given."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(N, M))
    X[:, 0] = np.arange(N)
    Y = np.column_stack(
        [
            (X[:, 1] == 0).astype(int),  # binary, driven by feature 1
            (X[:, 2] + rng.integers(0, 2, N)) % 3,  # multi-class (3 categories)
        ]
    )
    return X, Y


class FixedSelector:
    """Module-level, hence picklable: always the same three sets (one of them empty)."""

    def __call__(self, X: np.ndarray, Y: np.ndarray) -> dict[str, np.ndarray]:
        return {"all": np.arange(1, X.shape[1]), "pair": np.array([1, 2]), "none": np.array([])}


class RecordingSelector:
    """Records the row ids and labels it sees; picks the 2 features most tied to label 0."""

    def __init__(self) -> None:
        self.rows: list[np.ndarray] = []
        self.labels: list[np.ndarray] = []
        self.picked: list[list[int]] = []

    def __call__(self, X: np.ndarray, Y: np.ndarray) -> dict[str, np.ndarray]:
        self.rows.append(X[:, 0].copy())
        self.labels.append(Y.copy())
        scores = [abs(np.corrcoef(X[:, f], Y[:, 0])[0, 1]) for f in range(1, X.shape[1])]
        picked = sorted(1 + int(i) for i in np.argsort(scores)[::-1][:2])
        self.picked.append(picked)
        return {"all": np.arange(1, X.shape[1]), "top2": np.array(picked)}


def test_binarize_labels() -> None:
    Y = np.array([[0, 2, -1], [1, 0, 1], [1, 5, 1]])
    Ybin, names = binarize_labels(Y, ["a", "b", "c"])
    assert names == ["a", "b=0", "b=2", "b=5", "c"]
    np.testing.assert_array_equal(Ybin, [[0, 0, 1, 0, 0], [1, 1, 0, 0, 1], [1, 0, 0, 1, 1]])
    frame = pd.DataFrame({"x": [0, 1], "y": [1, 1]})
    assert binarize_labels(frame)[1] == ["x", "y"]
    assert binarize_labels(np.array([0, 1, 1]))[0].shape == (3, 1)


def test_holdout_frame_shape_and_empty_set() -> None:
    X, Y = _data()
    calls: list[tuple[int, int, str]] = []
    frame = holdout(
        X[:40], Y[:40], X[40:], Y[40:], FixedSelector(), k=5, progress=lambda *a: calls.append(a)
    )
    assert list(frame.columns) == COLUMNS
    assert len(frame) == 3 * len(METRICS)
    assert set(frame["protocol"]) == {"holdout"} and set(frame["split"]) == {0}
    assert frame["feature_set"].unique().tolist() == ["all", "pair", "none"]
    counts = frame.groupby("feature_set")["n_features"].first()
    assert counts.to_dict() == {"all": M - 1, "pair": 2, "none": 0}
    assert frame.loc[frame.feature_set == "none", "value"].isna().all()
    assert frame.loc[frame.feature_set != "none", "value"].notna().all()
    assert calls[-1][:2] == (1, 1)


def test_holdout_selector_sees_exactly_the_training_rows() -> None:
    X, Y = _data()
    sel = RecordingSelector()
    holdout(X[:40], Y[:40], X[40:], Y[40:], sel, k=5)
    np.testing.assert_array_equal(sel.rows[0], np.arange(40))
    np.testing.assert_array_equal(sel.labels[0], Y[:40])


def test_repeated_holdout_no_leakage_and_test_labels_do_not_change_selection() -> None:
    X, Y = _data()
    splits = repeated_holdout_splits(N, n_repeats=4, test_size=0.25, seed=3)
    sel = RecordingSelector()
    frame = repeated_holdout(X, Y, sel, n_repeats=4, test_size=0.25, seed=3, k=5)
    assert len(sel.rows) == 4
    for (train, test), rows in zip(splits, sel.rows, strict=True):
        np.testing.assert_array_equal(rows, train)
        assert len(test) == 15 and not set(test) & set(train)
    # Scramble the labels of every row that is a test row in split 0: split 0's selection
    # must not move (its selector never saw those labels).
    _, test0 = splits[0]
    Y2 = Y.copy()
    Y2[test0, 0] = 1 - Y2[test0, 0]
    Y2[test0, 1] = (Y2[test0, 1] + 1) % 3
    sel2 = RecordingSelector()
    frame2 = repeated_holdout(X, Y2, sel2, n_repeats=4, test_size=0.25, seed=3, k=5)
    assert sel2.picked[0] == sel.picked[0]
    np.testing.assert_array_equal(sel2.labels[0], sel.labels[0])
    # ... while the scores of split 0 do change (the test labels are used for scoring).
    v1 = frame.query("split == 0 and feature_set == 'top2'")["value"].to_numpy()
    v2 = frame2.query("split == 0 and feature_set == 'top2'")["value"].to_numpy()
    assert not np.allclose(v1, v2)


def test_repeated_holdout_shape_and_determinism() -> None:
    X, Y = _data()
    a = repeated_holdout(X, Y, FixedSelector(), n_repeats=3, seed=1, k=5)
    b = repeated_holdout(X, Y, FixedSelector(), n_repeats=3, seed=1, k=5)
    c = repeated_holdout(X, Y, FixedSelector(), n_repeats=3, seed=2, k=5)
    assert list(a.columns) == COLUMNS
    assert len(a) == 3 * 3 * len(METRICS)
    assert sorted(a["split"].unique()) == [0, 1, 2]
    cols = [col for col in COLUMNS if col != "seconds"]
    pd.testing.assert_frame_equal(a[cols], b[cols])
    assert not a["value"].equals(c["value"])
    assert [t.tolist() for t, _ in repeated_holdout_splits(N, 3, 0.3, 1)] != [
        t.tolist() for t, _ in repeated_holdout_splits(N, 3, 0.3, 2)
    ]


def test_kfold_covers_every_row_once() -> None:
    X, Y = _data()
    sel = RecordingSelector()
    frame = kfold(X, Y, sel, n_splits=4, seed=5, k=5)
    assert len(frame) == 4 * 2 * len(METRICS)
    test_rows = [np.setdiff1d(np.arange(N), rows) for rows in sel.rows]
    all_test = np.concatenate(test_rows)
    assert sorted(all_test.tolist()) == list(range(N))  # each row a test row exactly once
    for (train, test), rows, held in zip(kfold_splits(N, 4, 5), sel.rows, test_rows, strict=True):
        np.testing.assert_array_equal(rows, train)
        np.testing.assert_array_equal(held, test)
    assert sorted(len(t) for t in test_rows) == [15, 15, 15, 15]


def test_parallel_equals_serial() -> None:
    X, Y = _data()
    seen: list[tuple[int, int, str]] = []
    serial = kfold(X, Y, FixedSelector(), n_splits=3, k=5)
    parallel = kfold(
        X, Y, FixedSelector(), n_splits=3, k=5, n_jobs=2, progress=lambda *a: seen.append(a)
    )
    cols = [col for col in COLUMNS if col != "seconds"]
    pd.testing.assert_frame_equal(serial[cols], parallel[cols])
    assert seen[0][:2] == (0, 3) and seen[-1][:2] == (3, 3)


def test_summarise_mean_sd() -> None:
    X, Y = _data()
    frame = kfold(X, Y, FixedSelector(), n_splits=3, k=5)
    summary = summarise(frame)
    assert list(summary.columns) == [
        "feature_set",
        "metric",
        "mean",
        "sd",
        "n",
        "n_features",
        "seconds",
    ]
    assert summary["feature_set"].unique().tolist() == ["all", "pair", "none"]
    assert summary["metric"].tolist()[: len(METRICS)] == list(METRICS)
    row = summary.query("feature_set == 'pair' and metric == 'hamming_loss'").iloc[0]
    values = frame.query("feature_set == 'pair' and metric == 'hamming_loss'")["value"].to_numpy()
    assert row["mean"] == pytest.approx(values.mean())
    assert row["sd"] == pytest.approx(values.std(ddof=1))
    assert row["n"] == 3 and row["n_features"] == 2
    empty = summary.query("feature_set == 'none'")
    assert (empty["n"] == 0).all() and empty["mean"].isna().all()


def test_protocol_errors() -> None:
    X, Y = _data()
    with pytest.raises(ParameterError, match="n_splits"):
        kfold(X, Y, FixedSelector(), n_splits=1)
    with pytest.raises(ParameterError, match="test_size"):
        repeated_holdout(X, Y, FixedSelector(), test_size=1.5)
    with pytest.raises(ParameterError, match="distance"):
        kfold(X, Y, FixedSelector(), distance="manhattan")
    with pytest.raises(InvalidDataError, match="outside"):
        holdout(X[:40], Y[:40], X[40:], Y[40:], lambda X, Y: {"bad": [M]}, k=5)
    with pytest.raises(ParameterError, match="picklable"):
        kfold(X, Y, lambda X, Y: {"a": [1]}, n_splits=2, k=5, n_jobs=2)
    with pytest.raises(InvalidDataError, match="dict"):
        holdout(X[:40], Y[:40], X[40:], Y[40:], lambda X, Y: [1, 2], k=5)


def _top_factory(top: int, offset: int = 1) -> FixedSelector:
    class Top:
        def __call__(self, X: np.ndarray, Y: np.ndarray) -> dict[str, np.ndarray]:
            return {"camcf": np.arange(offset, offset + top)}

    return Top()


def test_parameter_grid() -> None:
    X, Y = _data()
    seen: list[tuple[int, int, str]] = []
    frame = parameter_grid(
        X[:40],
        Y[:40],
        X[40:],
        Y[40:],
        {"top": [0, 1, 3], "offset": [1, 2]},
        metric=["hamming_loss", "macro_f1"],
        selector_factory=_top_factory,
        k=5,
        progress=lambda *a: seen.append(a),
    )
    assert list(frame.columns) == ["top", "offset", "metric", "value", "n_features", "seconds"]
    assert len(frame) == 3 * 2 * 2
    assert frame["n_features"].tolist() == [0, 0, 0, 0, 1, 1, 1, 1, 3, 3, 3, 3]
    assert frame.loc[frame.top == 0, "value"].isna().all()
    assert frame.loc[frame.top > 0, "value"].notna().all()
    assert seen[-1][:2] == (6, 6)
    # Same value as a holdout on that one feature set.
    one = holdout(X[:40], Y[:40], X[40:], Y[40:], _top_factory(3, 2), k=5)
    expected = one.query("metric == 'macro_f1'")["value"].iloc[0]
    got = frame.query("top == 3 and offset == 2 and metric == 'macro_f1'")["value"].iloc[0]
    assert got == pytest.approx(expected)
    with pytest.raises(ParameterError, match="metric"):
        parameter_grid(X, Y, X, Y, {"top": [1]}, metric="accuracy", selector_factory=_top_factory)


def test_camcf_selector_end_to_end() -> None:
    try:
        from camcf import run  # noqa: F401
    except ImportError:
        try:
            from camcf.algorithm import run  # noqa: F401
        except ImportError:
            pytest.skip("camcf.run not available yet")
    X, Y = _data()
    select = camcf_selector(delta1=0.05, delta2=0.1, k1=0.7, k2=1.0)
    sets = select(X[:40], Y[:40])
    assert set(sets) == {"all", "camcf", "phase2", "phase3", "phase4"}
    np.testing.assert_array_equal(sets["camcf"], sets["phase4"])
    frame = holdout(X[:40], Y[:40], X[40:], Y[40:], select, k=5)
    assert set(frame["feature_set"]) == set(sets)

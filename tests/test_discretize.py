"""Discretisation (SPEC "Discretisation")."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from camcf.discretize import discretize
from camcf.discretizer import Discretizer
from camcf.errors import InvalidDataError, NotFittedError, ParameterError
from camcf.io import load


def test_small_integer_column_used_as_is():
    col = np.array([7, 0, 3, 3, 7, 0], dtype=float)
    codes, info = discretize(col[:, None])
    np.testing.assert_array_equal(codes[:, 0], [2, 0, 1, 1, 2, 0])
    assert codes.dtype == np.int8  # the smallest signed type holding the codes
    assert info == [
        {"column": 0, "kind": "as-is", "n_codes": 3, "edges": None, "values": [0, 3, 7]}
    ]


def test_codes_widen_past_int8_and_blocks_change_nothing(monkeypatch):
    import camcf.discretize as d

    rng = np.random.default_rng(3)
    X = np.column_stack([np.arange(300.0), rng.integers(0, 3, 300), rng.normal(size=300),
                         np.full(300, 4.0), rng.integers(-5, 900, 300)]).astype(float)
    codes, info = discretize(X, discretize="auto")
    assert codes.dtype == np.int8 and codes.flags.c_contiguous
    wide, wide_info = discretize(X, bins=200)
    assert wide.dtype == np.int16 and int(wide.max()) > 127  # 200 bins: more than int8 holds
    none = discretize(np.column_stack([np.arange(300.0), X[:, 1]]), discretize="none")[0]
    assert none.dtype == np.int16
    np.testing.assert_array_equal(none[:, 0], np.arange(300))
    monkeypatch.setattr(d, "_BLOCK_CELLS", 300)  # one column per block
    for bins in (3, 200):
        blocked, blocked_info = discretize(X, bins=bins)
        again, again_info = (codes, info) if bins == 3 else (wide, wide_info)
        np.testing.assert_array_equal(blocked, again)
        assert blocked.dtype == again.dtype and blocked_info == again_info


def test_ten_distinct_integers_stay_eleven_are_binned():
    ten = np.arange(10, dtype=float)
    codes, info = discretize(ten[:, None])
    assert info[0]["kind"] == "as-is"
    np.testing.assert_array_equal(codes[:, 0], np.arange(10))

    eleven = np.arange(11, dtype=float)  # 0..10: three equal-width bins of width 10/3
    codes, info = discretize(eleven[:, None])
    assert info[0]["kind"] == "binned"
    assert info[0]["n_codes"] == 3
    np.testing.assert_allclose(info[0]["edges"], [0.0, 10 / 3, 20 / 3, 10.0])
    np.testing.assert_array_equal(codes[:, 0], [0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 2])


def test_float_column_binned_uniform():
    col = np.array([0.0, 0.25, 0.5, 0.75, 1.0, 0.1])
    codes, info = discretize(col[:, None])
    np.testing.assert_allclose(info[0]["edges"], [0.0, 1 / 3, 2 / 3, 1.0])
    np.testing.assert_array_equal(codes[:, 0], [0, 0, 1, 2, 2, 0])
    codes4, info4 = discretize(col[:, None], bins=4)
    np.testing.assert_allclose(info4[0]["edges"], [0.0, 0.25, 0.5, 0.75, 1.0])
    np.testing.assert_array_equal(codes4[:, 0], [0, 1, 2, 3, 3, 0])


def test_quantile_strategy():
    col = np.array([1, 2, 3, 4, 5, 6, 100, 200, 300, 400, 500, 600], dtype=float)
    uniform, _ = discretize(col[:, None])
    np.testing.assert_array_equal(uniform[:, 0], [0] * 8 + [1, 1, 2, 2])
    quantile, info = discretize(col[:, None], strategy="quantile")
    np.testing.assert_array_equal(quantile[:, 0], [0] * 4 + [1] * 4 + [2] * 4)
    assert info[0]["kind"] == "binned" and info[0]["n_codes"] == 3


def test_quantile_with_tied_edges_is_quiet():
    col = np.array([0.0] * 10 + [1.5, 2.5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        codes, info = discretize(col[:, None], strategy="quantile")
    assert info[0]["n_codes"] == len(info[0]["edges"]) - 1
    assert codes[:10, 0].tolist() == [0] * 10
    assert codes[11, 0] == info[0]["n_codes"] - 1


def test_constant_column():
    X = np.column_stack([np.full(5, 2.5), np.array([0, 1, 0, 1, 1.0])])
    codes, info = discretize(X)
    np.testing.assert_array_equal(codes[:, 0], 0)
    assert info[0] == {"column": 0, "kind": "constant", "n_codes": 1, "edges": None, "values": [2.5]}
    assert info[1]["kind"] == "as-is"


def test_mode_none_maps_integers():
    X = np.array([[5, -1], [2, -1], [9, 4], [2, 0]], dtype=float)
    codes, info = discretize(X, discretize="none")
    np.testing.assert_array_equal(codes, [[1, 0], [0, 0], [2, 2], [0, 1]])
    assert [i["values"] for i in info] == [[2, 5, 9], [-1, 0, 4]]
    many = np.arange(30, dtype=float)[:, None]  # no binning even with many values
    codes, info = discretize(many, discretize="none")
    assert info[0]["n_codes"] == 30 and info[0]["kind"] == "as-is"


def test_mode_none_rejects_non_integers():
    X = np.array([[0, 1.5], [1, 2.0]])
    with pytest.raises(InvalidDataError, match=r"column\(s\) 1 .*non-integer"):
        discretize(X, discretize="none")


def test_nan_rejected_naming_columns():
    X = np.array([[0.0, 1.0, np.nan], [1.0, np.nan, 2.0], [0.0, 1.0, 3.0]])
    with pytest.raises(InvalidDataError, match=r"2 column\(s\): 1, 2.*impute"):
        discretize(X)


def test_missing_arff_value_reaches_the_discretiser(tmp_path):
    p = tmp_path / "m.arff"
    p.write_text("@relation m\n@attribute f numeric\n@attribute y {0,1}\n@data\n1,0\n?,1\n2,1\n")
    ds = load(p, labels="last:1")
    assert np.isnan(ds.X[1, 0])
    with pytest.raises(InvalidDataError, match="NaN"):
        discretize(ds.X)


def test_infinite_rejected():
    with pytest.raises(InvalidDataError, match="infinite"):
        discretize(np.array([[0.0], [np.inf]]))


@pytest.mark.parametrize("bins", [1, 0, -3, 2.5, True, "3"])
def test_bad_bins(bins):
    with pytest.raises(ParameterError, match=r"^bins must be .*got " + re.escape(repr(bins))) as e:
        discretize(np.zeros((3, 1)), bins=bins)
    assert (e.value.name, e.value.value) == ("bins", bins)


def test_bad_strategy_and_mode():
    with pytest.raises(ParameterError, match="strategy must be one of .*got 'kmeans'"):
        discretize(np.zeros((3, 1)), strategy="kmeans")
    with pytest.raises(ParameterError, match="discretize must be one of .*got 'bin'"):
        discretize(np.zeros((3, 1)), discretize="bin")


def test_not_two_dimensional_or_not_numeric():
    with pytest.raises(InvalidDataError, match="2-D"):
        discretize(np.arange(4.0))
    with pytest.raises(InvalidDataError, match="numbers"):
        discretize(np.array([["a", "b"]], dtype=object))


def test_mixed_matrix_codes_are_in_range():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=50), rng.integers(0, 4, 50), rng.integers(0, 40, 50)])
    codes, info = discretize(X, bins=5)
    assert [i["kind"] for i in info] == ["binned", "as-is", "binned"]
    for j, i in enumerate(info):
        assert codes[:, j].min() >= 0 and codes[:, j].max() < i["n_codes"]


# ---------------------------------------------------------------------------- fitted discretiser
def _mixed(n: int = 80, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.column_stack([
        rng.normal(size=n),  # binned
        rng.integers(0, 4, n),  # as-is
        np.full(n, 7.0),  # constant
        rng.exponential(size=n),  # binned, skewed
        rng.integers(-3, 3, n) * 1000.0,  # as-is, negative, wide steps
        rng.integers(0, 5000, n),  # integers over a wide range: binned
    ])


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_fitted_discretizer_on_its_own_rows_is_discretize(strategy):
    X = _mixed()
    codes, info = discretize(X, bins=4, strategy=strategy)
    d = Discretizer(bins=4, strategy=strategy).fit(X)
    assert d.info_ == info and d.n_features_in_ == X.shape[1]
    np.testing.assert_array_equal(d.codes_, codes)
    np.testing.assert_array_equal(d.transform(X), codes)
    assert d.transform(X).dtype == codes.dtype == np.int8  # the smallest type, both ways
    np.testing.assert_array_equal(Discretizer(bins=4, strategy=strategy).fit_transform(X), codes)
    none = Discretizer(discretize="none").fit(X[:, [1, 2, 4, 5]])
    np.testing.assert_array_equal(none.transform(X[:, [1, 2, 4, 5]]),
                                  discretize(X[:, [1, 2, 4, 5]], discretize="none")[0])


def test_fitted_discretizer_codes_new_rows_with_training_edges():
    X_tr = np.array([[0.0, 1, 5], [1.0, 2, 5], [2.0, 1, 5], [3.0, 2, 5], [0.5, 1, 5]])
    d = Discretizer(bins=3).fit(X_tr)  # column 0 binned on [0, 3], edges 0, 1, 2, 3
    X_te = np.array([[-10.0, 2, 5], [2.5, 9, 6], [100.0, 1, 5]])
    codes = d.transform(X_te)
    assert codes[:, 0].tolist() == [0, 2, 2]  # clipped to the first / last bin
    assert codes[:, 1].tolist() == [1, 2, 0]  # unseen value 9 gets a code of its own (2)
    assert codes[:, 2].tolist() == [0, 1, 0]  # constant column: 0 = the training value
    assert d.describe()["columns"] == {"as-is": 1, "binned": 1, "constant": 1}
    with pytest.raises(InvalidDataError):
        d.transform(np.array([[np.nan, 1, 5]]))
    with pytest.raises(InvalidDataError, match="3 columns"):
        d.transform(np.zeros((2, 2)))
    with pytest.raises(NotFittedError):
        Discretizer().transform(X_te)
    with pytest.raises(ParameterError):
        Discretizer(bins=1).fit(X_tr)


def test_fitted_discretizer_is_a_scikit_learn_transformer():
    from sklearn.base import clone

    d = clone(Discretizer(bins=5, strategy="quantile"))
    assert d.get_params() == {"discretize": "auto", "bins": 5, "strategy": "quantile"}
    X = sp.csr_matrix(np.array([[0, 1.0], [0, 0], [2, 3], [0, 1]]))
    fitted = d.fit(X)
    assert sp.issparse(fitted.codes_)  # discretize keeps sparse codes sparse
    np.testing.assert_array_equal(fitted.transform(X), fitted.codes_.toarray())


def test_counting_path_equals_sorting_path():
    """Integer columns are coded by counting (all at once); the codes and values are those of
    numpy.unique column by column, for any small span, negative values and ±0.0."""
    rng = np.random.default_rng(4)
    for _ in range(30):
        n = int(rng.integers(1, 50))
        X = rng.integers(-5, 6, size=(n, 4)) * rng.choice([1, 7, 300], size=4)
        X = np.where(rng.random(X.shape) < 0.2, -0.0, X.astype(float))
        codes, info = discretize(X, discretize="none")
        for j in range(X.shape[1]):
            values, inverse = np.unique(X[:, j], return_inverse=True)
            if values.size > 1:
                assert info[j]["values"] == [int(v) for v in values]
                np.testing.assert_array_equal(codes[:, j], inverse)

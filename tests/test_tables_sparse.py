"""The unconditional tables counted from sparse category indicators (each column or its
complement, whichever is sparser) equal those counted from the dense float32 indicators."""

import numpy as np
import scipy.sparse as sp

from camcf import fast_engine
from camcf.fast_engine import FastEngine


def _data(sparse_x: bool):
    rng = np.random.default_rng(3)
    n = 400
    X = (rng.random((n, 30)) < 0.05).astype(np.uint8)
    X[:, :5] += (rng.random((n, 5)) < 0.05).astype(np.uint8)  # some codes 2
    Y = np.column_stack([rng.random(n) < 0.04, rng.random(n) < 0.96,  # rare and common
                         rng.integers(0, 3, n) * (rng.random(n) < 0.1)])  # multi-class
    C = np.column_stack([Y[:, i] == v for i in range(Y.shape[1])
                         for v in np.unique(Y[:, i])]).astype(np.uint8)
    return (sp.csc_matrix(X) if sparse_x else np.asfortranarray(X)), np.asfortranarray(C)


def _tables(X, C):
    eng = FastEngine(X, C, **FastEngine.shared(X, C))
    return eng.mi_table(), eng.category_mi_table(), eng._sparse_categories() is not None


def test_sparse_category_counts_equal_dense_ones(monkeypatch):
    for sparse_x in (True, False):
        X, C = _data(sparse_x)
        # small data (n × categories under _SPARSE_CATEGORIES_FROM) counts dense by default
        assert not _tables(X, C)[2]
        monkeypatch.setattr(fast_engine, "_SPARSE_CATEGORIES_FROM", 0)
        feat, cat, used = _tables(X, C)
        assert used  # the data is sparse enough for the sparse route
        monkeypatch.setattr(fast_engine, "_SPARSE_CATEGORIES", -1.0)  # dense route
        feat0, cat0, used0 = _tables(X, C)
        monkeypatch.undo()
        assert not used0
        assert np.array_equal(feat, feat0) and np.array_equal(cat, cat0)
        assert cat.shape == (C.shape[1], C.shape[1]) and np.allclose(cat, cat.T)

"""The evaluation protocols as scikit-learn cross-validation splitters.

Each protocol of :data:`camcf.evaluation.settings.PROTOCOLS` is a splitter object with
scikit-learn's interface — ``split(X, y=None, groups=None)`` yields ``(train, test)`` row
indices, ``get_n_splits()`` says how many — so it works wherever scikit-learn takes ``cv=``
(``cross_validate``, ``GridSearchCV``), and every study of :mod:`camcf.evaluation` takes any
such splitter (scikit-learn's own too). Both parts are sorted ascending. The splits are fixed by
the seed:

:class:`HoldoutSplit` (``"holdout"``)
    One seeded random split: ``numpy.random.default_rng(seed).permutation(n)``, the first
    ``ceil(test_size · n)`` permuted rows are the test part (the first split of
    :class:`RepeatedHoldout` with the same seed).
:class:`RepeatedHoldout` (``"repeated"``)
    ``n_repeats`` such splits from one generator (one permutation per repeat); test parts may
    overlap between repeats.
:class:`ShuffledKFold` (``"kfold"``)
    The rows permuted once (``default_rng(seed)``) and cut into ``n_folds`` near-equal folds
    (``numpy.array_split``); fold ``i`` is the test part of split ``i``; every row is a test row
    exactly once.

:func:`make_splitter` builds one from the settings (:data:`~camcf.evaluation.settings.EVAL_PARAMS`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np
from sklearn.model_selection import BaseCrossValidator

from ..errors import ParameterError
from .settings import N_FOLDS, N_REPEATS, PROTOCOL, SEED, TEST_SIZE, check_eval

__all__ = ["HoldoutSplit", "RepeatedHoldout", "ShuffledKFold", "make_splits", "make_splitter",
           "protocol_of"]


def _n_rows(X) -> int:
    if X is None:
        raise ParameterError("split(X) needs X (or a number of rows) to know how many rows to "
                             "split")
    if isinstance(X, int | np.integer):
        return int(X)
    return int(X.shape[0] if hasattr(X, "shape") else len(X))


class _Splitter(BaseCrossValidator):
    """Common part: the rows are counted from ``X`` (an array, or an int: the number of rows)."""

    protocol = ""

    def split(self, X, y=None, groups=None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(train, test)`` row indices (int64, sorted) for each split.

        Parameters
        ----------
        X : array-like of shape (n, m), or int
            The data (only its number of rows is read), or the number of rows.
        y, groups : ignored
        """
        yield from self._splits(_n_rows(X))

    def _splits(self, n: int) -> list[tuple[np.ndarray, np.ndarray]]:  # pragma: no cover
        raise NotImplementedError


class RepeatedHoldout(_Splitter):
    """``n_repeats`` seeded random hold-out splits of ``test_size`` (protocol ``"repeated"``).

    Parameters
    ----------
    n_repeats : int, default 5
    test_size : float, default 0.3
        In (0, 1); the test part has ``ceil(test_size · n)`` rows.
    seed : int, default 0
    """

    protocol = "repeated"

    def __init__(self, n_repeats: int = N_REPEATS.default, test_size: float = TEST_SIZE.default,
                 seed: int = SEED.default) -> None:
        self.n_repeats = n_repeats
        self.test_size = test_size
        self.seed = seed

    def get_n_splits(self, X=None, y=None, groups=None) -> int:
        """``n_repeats``."""
        return int(N_REPEATS.validate(self.n_repeats))

    def _splits(self, n: int) -> list[tuple[np.ndarray, np.ndarray]]:
        n_repeats = N_REPEATS.validate(self.n_repeats)
        test_size = TEST_SIZE.validate(self.test_size)
        n_test = math.ceil(test_size * n)
        if n_test >= n:
            raise ParameterError(f"test_size={test_size} leaves no training rows out of {n}",
                                 name="test_size", value=test_size, allowed=TEST_SIZE.describe())
        rng = np.random.default_rng(SEED.validate(self.seed))
        out = []
        for _ in range(n_repeats):
            perm = rng.permutation(n)
            out.append((np.sort(perm[n_test:]), np.sort(perm[:n_test])))
        return out


class HoldoutSplit(RepeatedHoldout):
    """One seeded random hold-out split of ``test_size`` (protocol ``"holdout"``).

    Parameters
    ----------
    test_size : float, default 0.3
    seed : int, default 0
    """

    protocol = "holdout"

    def __init__(self, test_size: float = TEST_SIZE.default, seed: int = SEED.default) -> None:
        self.test_size = test_size
        self.seed = seed

    @property
    def n_repeats(self) -> int:
        return 1


class ShuffledKFold(_Splitter):
    """``n_folds`` shuffled folds, every row a test row once (protocol ``"kfold"``).

    Parameters
    ----------
    n_folds : int, default 5
        Between 2 and the number of rows.
    seed : int, default 0
    """

    protocol = "kfold"

    def __init__(self, n_folds: int = N_FOLDS.default, seed: int = SEED.default) -> None:
        self.n_folds = n_folds
        self.seed = seed

    def get_n_splits(self, X=None, y=None, groups=None) -> int:
        """``n_folds``."""
        return int(N_FOLDS.validate(self.n_folds))

    def _splits(self, n: int) -> list[tuple[np.ndarray, np.ndarray]]:
        n_folds = N_FOLDS.validate(self.n_folds)
        if n_folds > n:
            raise ParameterError(
                f"n_folds must be between 2 and the number of rows ({n}); got n_folds={n_folds}",
                name="n_folds", value=n_folds, allowed=f"in [2, {n}]")
        perm = np.random.default_rng(SEED.validate(self.seed)).permutation(n)
        folds = np.array_split(perm, n_folds)
        out = []
        for i, fold in enumerate(folds):
            train = np.concatenate([f for j, f in enumerate(folds) if j != i])
            out.append((np.sort(train), np.sort(fold)))
        return out


def make_splitter(protocol: str = PROTOCOL.default, **settings: Any) -> _Splitter:
    """The splitter of a protocol from the evaluation settings.

    Parameters
    ----------
    protocol : {"repeated", "kfold", "holdout"}, default "repeated"
    **settings
        ``n_repeats``, ``n_folds``, ``test_size``, ``seed`` (:data:`EVAL_PARAMS`; those the
        protocol does not use are validated and ignored).

    Returns
    -------
    RepeatedHoldout, ShuffledKFold or HoldoutSplit
    """
    p = check_eval(protocol=protocol, **settings)
    if p["protocol"] == "repeated":
        return RepeatedHoldout(p["n_repeats"], p["test_size"], p["seed"])
    if p["protocol"] == "kfold":
        return ShuffledKFold(p["n_folds"], p["seed"])
    return HoldoutSplit(p["test_size"], p["seed"])


def make_splits(n: int, protocol: str = PROTOCOL.default, **settings: Any
                ) -> list[tuple[np.ndarray, np.ndarray]]:
    """The ``(train, test)`` row indices of ``make_splitter(protocol, **settings)`` on ``n``
    rows (each part sorted ascending)."""
    return list(make_splitter(protocol, **settings).split(n))


def protocol_of(cv: Any) -> str:
    """The protocol name of a splitter: its ``protocol`` attribute (camcf's splitters), else its
    class name (e.g. scikit-learn's ``KFold``)."""
    return str(getattr(cv, "protocol", "") or type(cv).__name__)

"""Reference "methods" every feature selector must beat: all features, and a seeded random
subset of a given size.

* :class:`AllFeatures` — a subset method that keeps every feature.
* :class:`RandomSubset` — a ranking method whose ranking is a seeded random permutation of the
  features (``numpy.random.default_rng(random_state).permutation(m)``), so its cut at
  ``n_features_to_select`` is a random subset of that size (the same size as another method's
  selection when the comparison asks for it). It never looks at X's values or at Y.
"""

from __future__ import annotations

import numpy as np

from . import params as _declared
from ._base import RankingSelector, SubsetSelector

__all__ = ["AllFeatures", "RandomSubset"]


class AllFeatures(SubsetSelector):
    """Keep every feature (the "no selection" reference). No parameters."""

    params = _declared.ALL

    def __init__(self) -> None:
        pass

    def fit(self, X, Y) -> AllFeatures:
        """Check X (n × m) and Y (n × q or a 1-D y); ``support_`` = every feature."""
        self._checked_params()
        X, Y = self._validate_xy(X, Y)
        self.support_ = np.ones(X.shape[1], dtype=bool)
        return self


class RandomSubset(RankingSelector):
    """A seeded random order of the features; cut at ``n_features_to_select``.

    Parameters
    ----------
    n_features_to_select : int ≥ 1, float in (0, 1], or None, default None
        How many to keep (None: half, rounded up).
    random_state : int ≥ 0, default 0
        Seed of ``numpy.random.default_rng``.

    Attributes
    ----------
    ranking_ : ndarray of int, shape (n_features,)
        The random order, 0-based.
    """

    params = _declared.RANDOM

    def __init__(self, n_features_to_select=None, random_state: int = 0) -> None:
        self.n_features_to_select = n_features_to_select
        self.random_state = random_state

    def fit(self, X, Y) -> RandomSubset:
        p = self._checked_params()
        X, Y = self._validate_xy(X, Y)
        self.ranking_ = np.random.default_rng(p["random_state"]).permutation(X.shape[1])
        self.scores_ = None
        return self

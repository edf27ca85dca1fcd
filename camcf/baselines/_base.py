"""The contract every feature-selection method in camcf follows (scikit-learn's).

A method is a scikit-learn estimator: ``BaseEstimator`` + ``SelectorMixin``; ``__init__`` only
stores its arguments; the parameters are declared once in ``params`` (a tuple of
:class:`camcf.params.Param`), which drives validation (:meth:`MultiLabelSelector._checked_params`),
the CLI flags, the app's widgets and the exported command. ``fit(X, Y)`` takes X (n_samples,
n_features) and Y (n_samples, n_labels), or a 1-D y, which is one label. Every error that leaves
``fit``/``transform`` is a :class:`camcf.CamcfError` (scikit-learn's ``ValueError`` messages are
kept word for word).

Two kinds:

* :class:`RankingSelector` — the method orders every feature (``ranking_``: 0-based indices, best
  first; ``scores_``: one score per feature where the method has one); ``n_features_to_select``
  cuts the ranking. Subclasses implement ``_rank(X, Y) -> (ranking, scores or None)``.
* :class:`SubsetSelector` — the method returns a subset. Subclasses implement
  ``_select(X, Y) -> sorted feature indices``.
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ..errors import InvalidDataError, NotFittedError
from ..params import Param
from ..params import validate as validate_params
from .params import N_FEATURES_TO_SELECT

__all__ = ["N_FEATURES_TO_SELECT", "MultiLabelSelector", "RankingSelector", "SubsetSelector",
           "labels_2d"]

def labels_2d(Y) -> np.ndarray:
    """Y as a 2-D array (a 1-D y is one label)."""
    Y = np.asarray(Y)
    if Y.ndim == 1:
        Y = Y[:, None]
    if Y.ndim != 2:
        raise InvalidDataError(f"Y must be 1-D (one label) or 2-D (samples × labels), got shape "
                               f"{Y.shape}")
    return Y


class MultiLabelSelector(SelectorMixin, BaseEstimator):
    """Shared parameter and data validation for every method."""

    #: the method's parameters, declared once
    params: ClassVar[tuple[Param, ...]] = ()
    #: "ranking" or "subset"
    kind: ClassVar[str] = "subset"

    def _checked_params(self) -> dict:
        return validate_params(self.params, self.get_params(deep=False))

    #: whether fit() takes a scipy.sparse X as it is (else: a clear error, not a TypeError)
    accepts_sparse: ClassVar[bool] = False

    def _validate_xy(self, X, Y, *, dtype="numeric"):
        import scipy.sparse as sp

        if sp.issparse(X) and not self.accepts_sparse:
            n, m = X.shape
            raise InvalidDataError(
                f"{type(self).__name__} needs a dense X; this one is sparse ({n} × {m}): pass "
                f"X.toarray() ({n * m * 8 / 2**20:.0f} MB as float64) or use camcf.CaMCF, which "
                f"keeps sparse data sparse")
        sparse = ("csc", "csr") if self.accepts_sparse else False
        try:
            X, Y = validate_data(self, X, Y, dtype=dtype, multi_output=True, y_numeric=False,
                                 accept_sparse=sparse)
        except ValueError as e:
            raise InvalidDataError(str(e)) from None
        return X, labels_2d(Y)

    def _check_fitted(self, attr: str) -> None:
        try:
            check_is_fitted(self, attr)
        except ValueError:  # scikit-learn's NotFittedError
            raise NotFittedError(f"this {type(self).__name__} instance is not fitted yet; call "
                                 f"fit(X, Y) first") from None

    def transform(self, X):
        self._check_fitted("n_features_in_")
        try:
            return super().transform(X)
        except NotFittedError:
            raise
        except ValueError as e:
            raise InvalidDataError(str(e)) from None

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        tags.input_tags.sparse = self.accepts_sparse
        return tags


class RankingSelector(MultiLabelSelector):
    """A method that ranks every feature; the support is the first ``n_features_to_select``.

    ``n_features_to_select``: an int ≥ 1 (capped at the number of features), a float in (0, 1)
    (that share, rounded up), or None (half of the features, rounded up, as scikit-learn's RFE).
    """

    kind = "ranking"

    def _rank(self, X, Y):  # pragma: no cover - abstract
        raise NotImplementedError

    def _n_selected(self, m: int) -> int:
        k = self.n_features_to_select
        if k is None:
            return math.ceil(m / 2)
        if isinstance(k, float) and k <= 1:
            return min(m, math.ceil(k * m))
        return min(int(k), m)

    def _get_support_mask(self):
        self._check_fitted("ranking_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.ranking_[: self._n_selected(self.n_features_in_)]] = True
        return mask


class SubsetSelector(MultiLabelSelector):
    """A method whose output is a subset of the features (``support_``)."""

    kind = "subset"

    def _get_support_mask(self):
        self._check_fitted("support_")
        return self.support_

"""The fitted form of :func:`camcf.discretize.discretize`: a scikit-learn transformer that codes
other rows (e.g. a test part) with the values and edges learned on the rows it was fitted on.

Kept apart from :mod:`camcf.discretize` so that a run, which only calls ``discretize``, does not
import scikit-learn.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin

from ._sparse import issparse
from .dataset import code_dtype
from .discretize import _DISC, _finite_2d, _fit_codes
from .errors import InvalidDataError, NotFittedError


class Discretizer(TransformerMixin, BaseEstimator):
    """:func:`discretize` fitted on some rows (e.g. a training part) and applied to others.

    ``fit`` runs the one implementation of :func:`discretize` and keeps what it decided per
    column (``info_``: as-is values, bin edges, or a constant) together with the codes of the
    rows it saw (``codes_``); ``transform`` codes new rows with those stored values and edges —
    nothing is derived again:

    * an as-is column: a value seen in fitting gets its code; an unseen value gets the code
      ``n_codes`` (it matches no fitted row, which is what ML-kNN's Hamming distance makes of
      it anyway);
    * a binned column: the fitted bin edges; values below the first / above the last edge go
      to the first / last bin (as scikit-learn's ``KBinsDiscretizer.transform`` does);
    * a constant column: 0 for the fitted value, 1 for anything else.

    ``Discretizer(...).fit(X).transform(X)`` equals ``discretize(X, ...)[0]`` (dense).

    Parameters
    ----------
    discretize : {"auto", "none"}, default "auto"
    bins : int, default 3
    strategy : {"uniform", "quantile"}, default "uniform"
        As for :func:`discretize` (declared in
        :data:`camcf.algorithm_params.DISCRETIZE_PARAMS`).

    Attributes
    ----------
    codes_ : ndarray of shape (n_samples, n_features), signed integers
        The codes of the rows ``fit`` saw, as :func:`discretize` gives them (the smallest
        signed integer type; sparse for a sparse X).
    info_ : list of dict
        Per column, as :func:`discretize` returns it.
    n_features_in_ : int
    """

    def __init__(self, discretize: str = _DISC["discretize"].default,
                 bins: int = _DISC["bins"].default,
                 strategy: str = _DISC["strategy"].default) -> None:
        self.discretize = discretize
        self.bins = bins
        self.strategy = strategy

    def fit(self, X, y=None, *, names: list[str] | None = None) -> Discretizer:
        """Decide every column's coding on the rows of ``X`` (``y`` is ignored).

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        y : ignored
        names : list of str, optional
            Feature names for messages.

        Returns
        -------
        Discretizer
        """
        self.codes_, self.info_ = _fit_codes(X, self.bins, self.strategy, self.discretize,
                                             names)
        self.n_features_in_ = len(self.info_)
        self._tables = [_table(info) for info in self.info_]
        return self

    def fit_transform(self, X, y=None, **fit_params) -> np.ndarray:
        """The codes of the rows fitted on (:attr:`codes_`)."""
        return self.fit(X, y, **fit_params).codes_

    def transform(self, X) -> np.ndarray:
        """Code new rows with the fitted values and edges.

        Parameters
        ----------
        X : array-like of shape (n, n_features_in_)

        Returns
        -------
        ndarray of shape (n, n_features_in_), signed integers
            In the smallest signed integer type holding every code this coding can give
            (:func:`camcf.dataset.code_dtype`).
        """
        if not hasattr(self, "info_"):
            raise NotFittedError("this Discretizer is not fitted yet; call fit(X_train) first")
        if issparse(X):
            from .limits import check_memory

            check_memory(16 * X.shape[0] * X.shape[1], f"the dense form of X {X.shape}")
            X = X.toarray()
        A = _finite_2d(X)
        if A.shape[1] != self.n_features_in_:
            raise InvalidDataError(
                f"X must be 2-D with {self.n_features_in_} columns (as fitted); got shape "
                f"{A.shape}"
            )
        # the largest code: an as-is column's unseen value gets len(values), a constant one's 1
        top = max((len(t) if k == "as-is" else 1 if k == "constant" else len(t) - 2
                   for k, t in self._tables), default=0)
        out = np.empty(A.shape, dtype=code_dtype(0, top))
        for j, (kind, table) in enumerate(self._tables):
            col = A[:, j]
            if kind == "constant":
                out[:, j] = col != table
            elif kind == "as-is":
                pos = np.minimum(np.searchsorted(table, col), len(table) - 1)
                out[:, j] = np.where(table[pos] == col, pos, len(table))
            else:
                out[:, j] = np.clip(np.searchsorted(table[1:-1], col, side="right"), 0,
                                    len(table) - 2)
        return out

    def describe(self) -> dict:
        """Settings and, if fitted, how many columns were used as-is / binned / constant."""
        out: dict = {"discretize": self.discretize, "bins": self.bins, "strategy": self.strategy}
        if hasattr(self, "info_"):
            kinds = [i["kind"] for i in self.info_]
            out["columns"] = {k: kinds.count(k) for k in ("as-is", "binned", "constant")}
        return out


def _table(info: dict) -> tuple[str, object]:
    """What :meth:`Discretizer.transform` reads of one column's ``info``: the fitted value of a
    constant column (NaN without rows), the sorted values of an as-is column, the edges of a
    binned one."""
    if info["kind"] == "constant":
        return "constant", float(info["values"][0]) if info["values"] else np.nan
    if info["kind"] == "as-is":
        return "as-is", np.asarray(info["values"], dtype=float)
    return "binned", np.asarray(info["edges"], dtype=float)



__all__ = ["Discretizer"]

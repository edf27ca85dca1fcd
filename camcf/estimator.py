"""A scikit-learn style selector around :func:`camcf.run`.

``__init__`` only stores parameters; ``fit`` validates them and the data and stores what it
learned in attributes with a trailing underscore (scikit-learn's convention). The class follows
``sklearn.feature_selection.SelectorMixin``'s interface (``get_support``, ``transform``,
``inverse_transform``-free) without requiring scikit-learn at import time.
"""

from __future__ import annotations

import warnings

import numpy as np

from .algorithm import DEFAULTS, CamcfWarning, check_params, run
from .errors import CamcfError, InvalidDataError


class CaMCF:
    """Ca-MCF feature selector.

    Parameters
    ----------
    delta1, delta2 : float ≥ 0, default 0.05, 0.1
        Feature–category and category–category thresholds (bits).
    k1, k2 : float in (0, 1], default 0.7, 1.0
        Share of Phase 2 candidates kept; share of the blanket kept in Phase 4.
    gamma : float > 0, default 1.2
        Redundancy margin.
    min_category_size : int ≥ 1, default 5
    recovery : {"first", "all"}, default "first"
    discretize : {"auto", "none"}, default "auto"
        "auto" bins continuous columns as SPEC.md says (``bins`` equal-width bins) before
        selecting; "none" expects integer codes.
    bins : int, default 3
    strategy : {"uniform", "quantile"}, default "uniform"

    Attributes
    ----------
    result_ : camcf.Result
        The full run, with its decision record.
    support_ : ndarray of bool, shape (n_features,)
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from camcf import CaMCF
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 3, size=(300, 5))
    >>> Y = np.column_stack([(X[:, 0] > 0), (X[:, 2] == 1)]).astype(int)
    >>> sel = CaMCF().fit(X, Y)
    >>> sel.get_support(indices=True).tolist()
    [0, 2]
    >>> sel.transform(X).shape
    (300, 2)
    """

    def __init__(self, delta1: float = DEFAULTS["delta1"], delta2: float = DEFAULTS["delta2"],
                 k1: float = DEFAULTS["k1"], k2: float = DEFAULTS["k2"],
                 gamma: float = DEFAULTS["gamma"],
                 min_category_size: int = DEFAULTS["min_category_size"],
                 recovery: str = DEFAULTS["recovery"], discretize: str = "auto",
                 bins: int = 3, strategy: str = "uniform", n_jobs: int | None = None) -> None:
        self.n_jobs = n_jobs  # target categories in parallel (camcf.run)
        self.delta1 = delta1
        self.delta2 = delta2
        self.k1 = k1
        self.k2 = k2
        self.gamma = gamma
        self.min_category_size = min_category_size
        self.recovery = recovery
        self.discretize = discretize
        self.bins = bins
        self.strategy = strategy

    # scikit-learn's get_params/set_params protocol, so clone() and grid searches work
    _PARAMS = ("delta1", "delta2", "k1", "k2", "gamma", "min_category_size", "recovery",
               "discretize", "bins", "strategy", "n_jobs")

    def get_params(self, deep: bool = True) -> dict:
        return {k: getattr(self, k) for k in self._PARAMS}

    def set_params(self, **params) -> CaMCF:
        for k, v in params.items():
            if k not in self._PARAMS:
                raise ValueError(f"invalid parameter {k!r} for CaMCF; valid: {self._PARAMS}")
            setattr(self, k, v)
        return self

    def fit(self, X, Y, *, feature_names=None, label_names=None) -> CaMCF:
        """Select features for the labels ``Y`` (n × q) from ``X`` (n × m)."""
        from .discretize import discretize

        params = check_params(self.delta1, self.delta2, self.k1, self.k2, self.gamma,
                              self.min_category_size, self.recovery)
        X = np.asarray(X)
        if X.ndim != 2:
            raise InvalidDataError(f"X must be 2-D (samples × features), got shape {X.shape}")
        codes, _ = discretize(X, bins=self.bins, strategy=self.strategy, mode=self.discretize)
        Y = np.asarray(Y)
        if Y.ndim == 1:
            Y = Y[:, None]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CamcfWarning)
            self.result_ = run(codes, Y, feature_names=feature_names, label_names=label_names,
                               n_jobs=self.n_jobs, **params)
        self.n_features_in_ = X.shape[1]
        self.support_ = np.zeros(X.shape[1], dtype=bool)
        self.support_[self.result_.selected_indices] = True
        if not self.support_.any():
            warnings.warn("No features were selected: transform() will return an empty array; "
                          "lower delta1 or raise k1/k2", CamcfWarning, stacklevel=2)
        return self

    def _check_fitted(self) -> None:
        if not hasattr(self, "support_"):
            raise CamcfError("this CaMCF instance is not fitted yet; call fit(X, Y) first")

    def get_support(self, indices: bool = False) -> np.ndarray:
        """Mask (or, with ``indices``, the sorted indices) of the selected features."""
        self._check_fitted()
        return np.flatnonzero(self.support_) if indices else self.support_.copy()

    def transform(self, X) -> np.ndarray:
        """``X`` restricted to the selected columns."""
        self._check_fitted()
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != self.n_features_in_:
            raise InvalidDataError(f"X has shape {X.shape}; the selector was fitted on "
                                   f"{self.n_features_in_} features")
        return X[:, self.support_]

    def fit_transform(self, X, Y, **kw) -> np.ndarray:
        return self.fit(X, Y, **kw).transform(X)

    def __repr__(self) -> str:
        diff = {k: v for k, v in self.get_params().items()
                if v != CaMCF().get_params()[k]}
        return "CaMCF(" + ", ".join(f"{k}={v!r}" for k, v in diff.items()) + ")"

"""Ca-MCF as a scikit-learn feature selector (:class:`CaMCF`).

A real scikit-learn estimator: ``BaseEstimator`` + ``SelectorMixin`` through
:class:`camcf.baselines._base.SubsetSelector`; ``__init__`` only stores its arguments; the
parameters are declared once in :data:`camcf.algorithm_params.CAMCF_PARAMS` and validated from
there; ``fit`` stores what it learned in attributes with a trailing underscore. ``clone``,
pipelines and grid searches work; every error that leaves it is a :class:`camcf.CamcfError`
(before ``fit``: :class:`camcf.NotFittedError`).

The rule: continuous columns are discretised on the rows ``fit`` sees (``discretize="auto"``:
integer columns with ≤ 10 values as they are, others ``bins`` equal-width or quantile bins), then
:func:`camcf.run` selects; ``support_`` marks the union of the final blankets.
"""

from __future__ import annotations

import warnings

import numpy as np

from .algorithm import CamcfWarning, run
from .algorithm_params import ALGORITHM_PARAMS, CAMCF_PARAMS
from .algorithm_params import by_name as _by_name
from .baselines._base import SubsetSelector
from .errors import InvalidDataError
from .truth import found_indices

_D = {p.name: p.default for p in CAMCF_PARAMS}


class CaMCF(SubsetSelector):
    """Ca-MCF feature selector.

    Parameters
    ----------
    delta1, delta2 : float ≥ 0 or "auto", default 0.05, 0.1
        Feature–category and category–category thresholds (bits). ``"auto"``: derived at
        ``fit`` from the significance level and the training rows
        (:func:`camcf.significance.suggest_thresholds`); the numbers used are in
        :attr:`thresholds_` (the parameter keeps the word, as scikit-learn requires).
    k1, k2 : float in (0, 1], default 0.7, 1.0
        Share of Phase 2 candidates kept; share of the blanket kept in Phase 4.
    gamma : float > 0, default 1.2
        Redundancy margin.
    min_category_size : int ≥ 1, default 5
    recovery : {"first", "all"}, default "first"
    significance : float in (0, 1), default 0.01
        The level α an "auto" threshold is derived from (unused otherwise).
    discretize : {"auto", "none"}, default "auto"
        "auto" bins continuous columns as SPEC.md says (``bins`` bins) before selecting;
        "none" expects integer codes.
    bins : int ≥ 2, default 3
    strategy : {"uniform", "quantile"}, default "uniform"
    n_jobs : int or None, default None
        Target categories in parallel (joblib, passed to :func:`camcf.run`); -1 = all cores.

    The declarations (ranges, help, display names) are :data:`params` =
    :data:`camcf.algorithm_params.CAMCF_PARAMS`.

    Attributes
    ----------
    result_ : camcf.Result
        The full run, with its decision record (its ``params`` hold the numeric thresholds).
    thresholds_ : dict
        ``{"delta1": bits, "delta2": bits}`` as the run used them (resolved when "auto").
    support_ : ndarray of bool, shape (n_features,)
    blankets_ : tuple of tuple of int
        Per label (column of Y), the features found for it: the union of its categories'
        blankets (:func:`camcf.truth.found_indices`); the selection is their union.
    label_blankets_ : tuple of tuple of int
        Per label, the other labels its categories' label skeletons R hold.
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

    params = CAMCF_PARAMS
    kind = "subset"
    #: Ca-MCF flattens multi-class labels itself: the evaluation hands it the label codes
    accepts_label_codes = True
    #: a scipy.sparse X stays sparse: the engine counts codes from their stored entries
    accepts_sparse = True

    def __init__(self, delta1: float = _D["delta1"], delta2: float = _D["delta2"],
                 k1: float = _D["k1"], k2: float = _D["k2"], gamma: float = _D["gamma"],
                 min_category_size: int = _D["min_category_size"],
                 recovery: str = _D["recovery"], significance: float = _D["significance"],
                 discretize: str = _D["discretize"],
                 bins: int = _D["bins"], strategy: str = _D["strategy"],
                 n_jobs: int | None = _D["n_jobs"]) -> None:
        self.delta1 = delta1
        self.delta2 = delta2
        self.k1 = k1
        self.k2 = k2
        self.gamma = gamma
        self.min_category_size = min_category_size
        self.recovery = recovery
        self.significance = significance
        self.discretize = discretize
        self.bins = bins
        self.strategy = strategy
        self.n_jobs = n_jobs

    def fit(self, X, Y, *, feature_names=None, label_names=None, category_names=None,
            progress=None) -> CaMCF:
        """Select features for the labels ``Y`` (n × q, or a 1-D y: one label) from ``X``
        (n × m). Names, when given, label the decision record (``result_``)."""
        from .discretize import discretize

        p = self._checked_params()
        X, Y = self._validate_xy(X, Y)
        if X.shape[0] < 2:
            raise InvalidDataError(f"X has n_samples = {X.shape[0]}; Ca-MCF needs at least 2 "
                                   "samples (dependence cannot be measured on one sample)")
        codes, _ = discretize(X, bins=p["bins"], strategy=p["strategy"],
                              discretize=p["discretize"])
        algo = {name: p[name] for name in _by_name(ALGORITHM_PARAMS)}
        algo["n_jobs"] = p["n_jobs"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CamcfWarning)
            self.result_ = run(codes, Y, feature_names=feature_names, label_names=label_names,
                               category_names=category_names, progress=progress, **algo)
        self.thresholds_ = {k: self.result_.params[k] for k in ("delta1", "delta2")}
        self.blankets_, self.label_blankets_ = found_indices(self.result_)
        self.support_ = np.zeros(X.shape[1], dtype=bool)
        self.support_[self.result_.selected_indices] = True
        if not self.support_.any():
            warnings.warn("No features were selected: transform() will return an empty array; "
                          "lower delta1 or raise k1/k2", CamcfWarning, stacklevel=2)
        return self

"""Ca-MCF's parameters, declared once (:class:`camcf.params.Param`).

Everything that lists Ca-MCF's parameters reads this module: :data:`camcf.algorithm.DEFAULTS`
and :func:`camcf.algorithm.check_params` (validation), :class:`camcf.CaMCF` (the estimator),
the CLI flags of ``camcf select``/``evaluate``/``compare``, the app's sidebar widgets and the
exported reproduce-command. A parameter added here appears in all of them.

* :data:`ALGORITHM_PARAMS` — what :func:`camcf.run` takes (thresholds in bits or ``"auto"``,
  shares in (0, 1], the significance level an ``"auto"`` threshold is derived from).
* :data:`DISCRETIZE_PARAMS` — how the estimator codes continuous columns before selecting.
* :data:`CAMCF_PARAMS` — the estimator's parameters: both of the above and ``n_jobs``.

Each number parameter declares the range a user interface offers (``widget``: slider min, max
and step); :data:`WIDGETS` lists them by name.

This module imports nothing from camcf but :mod:`camcf.params` (no import cycles).
"""

from __future__ import annotations

from .params import Param

ALGORITHM_PARAMS: tuple[Param, ...] = (
    # widget ranges of the thresholds: up to 1 bit, the most information a binary category
    # indicator can share with anything (a threshold of 1 or more keeps nothing)
    Param("delta1", 0.05, float, low=0, symbol="δ1", widget=(0.0, 1.0, 0.005),
          words=("auto",),
          help="feature–category threshold in bits: a feature enters a category's candidates "
               "when its mutual information with the category exceeds it; 'auto': the G-test "
               "threshold at the significance level for the data's typical feature × "
               "category table (camcf.significance)"),
    Param("delta2", 0.1, float, low=0, symbol="δ2", widget=(0.0, 1.0, 0.01),
          words=("auto",),
          help="category–category threshold in bits: a category joins the label skeleton when "
               "its dependence on the target exceeds it; 'auto': the G-test threshold at the "
               "significance level for a category × category table (1 degree of freedom)"),
    Param("k1", 0.7, float, low=0, high=1, low_closed=False, symbol="k1",
          widget=(0.05, 1.0, 0.05),
          help="share of the Phase 2 candidates kept, in (0, 1]"),
    Param("k2", 1.0, float, low=0, high=1, low_closed=False, symbol="k2",
          widget=(0.05, 1.0, 0.05),
          help="share of the blanket kept in Phase 4, in (0, 1]"),
    Param("gamma", 1.2, float, low=0, low_closed=False, symbol="γ", advanced=True,
          widget=(0.1, 5.0, 0.05),
          help="redundancy margin (> 0)"),
    Param("min_category_size", 5, int, low=1, symbol="minimum category size", advanced=True,
          widget=(1, 10_000, 1),
          help="skip label categories with fewer positive samples"),
    Param("recovery", "first", str, options=("first", "all"), symbol="recovery", advanced=True,
          help="Phase 3: stop after the first recovered feature (authors' code) or try all "
               "(paper)"),
    # off by default (the published algorithm); a run records it only when it is on
    Param("adequacy", 0.0, float, low=0, symbol="h (rows per cell)", advanced=True,
          widget=(0.0, 20.0, 1.0),
          help="test adequacy, the heuristic power rule of Tsamardinos et al. (2006): a "
               "backward-elimination test I(t; X_f | S) whose table has fewer than h rows per "
               "cell, n / (|X_f| · |t| · strata of S) < h, is not trusted and f stays (the "
               "record says 'untrusted'); h = 5 is the rule's usual value; 0 (default): every "
               "test is trusted, as in the paper"),
    # used only by a threshold given as 'auto'; a run records it only then
    Param("significance", 0.01, float, low=0, high=1, low_closed=False, high_closed=False,
          symbol="α", advanced=True, widget=(0.001, 0.1, 0.001),
          help="significance level α in (0, 1) from which delta1/delta2 'auto' are derived: "
               "δ = χ²₁₋α(df) / (2·n·ln 2), the bits a G test at level α amounts to on n rows"),
)

DISCRETIZE_PARAMS: tuple[Param, ...] = (
    Param("discretize", "auto", str, options=("auto", "none"), symbol="discretisation",
          help="auto: integer columns with ≤ 10 values as they are, others binned; none: the "
               "data already holds integer codes"),
    # at most 10,000: the bin edges are allocated, so a huge count would take the machine's
    # memory before anything could be binned
    Param("bins", 3, int, low=2, high=10_000, symbol="bins", widget=(2, 20, 1),
          help="bins for continuous columns"),
    Param("strategy", "uniform", str, options=("uniform", "quantile"), symbol="strategy",
          help="binning strategy: uniform (equal width) or quantile (equal frequency)"),
)

N_JOBS = Param("n_jobs", None, int, low=-1, exclude=(0,), none_ok=True, symbol="n_jobs",
               advanced=True,
               help="target categories in parallel (joblib); -1 = all cores, none = 1")

CAMCF_PARAMS: tuple[Param, ...] = (*ALGORITHM_PARAMS, *DISCRETIZE_PARAMS, N_JOBS)

#: (min, max, step) a user interface offers, per number parameter (from the declarations)
WIDGETS: dict[str, tuple[float, float, float]] = {
    p.name: p.widget for p in CAMCF_PARAMS if p.widget is not None}


def significance_used(params) -> bool:
    """Whether ``significance`` is a parameter of a run with these ``params`` (a mapping): only
    when delta1 or delta2 is "auto". A run records it (and an exported command spells it) only
    then."""
    return "auto" in (params.get("delta1"), params.get("delta2"))


def adequacy_used(params) -> bool:
    """Whether the test-adequacy rule is on in these ``params`` (a mapping): a run records
    ``adequacy`` (and an exported command spells it) only then."""
    return float(params.get("adequacy") or 0.0) > 0


def by_name(params: tuple[Param, ...] = CAMCF_PARAMS) -> dict[str, Param]:
    """``{name: Param}``."""
    return {p.name: p for p in params}

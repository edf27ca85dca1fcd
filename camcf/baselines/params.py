"""Every baseline's and reference's parameters, declared once (:class:`camcf.params.Param`).

The selector classes read their ``params`` from here, and so does everything that lists a
method's parameters without running it (:func:`camcf.methods.params`, the command line's
flags, the app's widgets). This module imports nothing but :mod:`camcf.params`, so listing the
parameters — ``camcf select --help`` — does not import scikit-learn or the methods' code.

A parameter's name is the method's own (``k1`` of MI-MCF is not Ca-MCF's ``k1``); the command
line keeps them apart by the method's name (``--mi-mcf-k1``), see :mod:`camcf.cli.flags`.
"""

from __future__ import annotations

from ..params import Param

__all__ = ["ALL", "D2F", "FIMF", "JFSC", "M2LC", "MCLS", "MDFS", "MIMCF",
           "N_FEATURES_TO_SELECT", "PC", "RANDOM"]

#: how many of the ranked features a ranking method keeps (the cut; every ranking method)
N_FEATURES_TO_SELECT = Param(
    "n_features_to_select", None, int, low=0, high=None, low_closed=False, none_ok=True,
    also=float, help="how many of the ranked features to keep: an integer ≥ 1, a share in (0, 1], "
                     "or none for half of them")

# ---------------------------------------------------------------- MI-MCF (Ma et al. 2025)
MIMCF_ALPHA = Param("alpha", 0.05, float, low=0, high=1, low_closed=False, high_closed=False,
                    symbol="α", help="significance level of the G² tests")
MIMCF_K1 = Param("k1", 0.7, float, low=0, high=1, low_closed=False,
                 help="share of the label-dependent features kept as phase-2 candidates")
MIMCF_K2 = Param("k2", 0.1, float, low=0, high=1,
                 help="share of each label's weakest PC features re-checked in phase 3")
MIMCF_VARIANT = Param("variant", "code", str, options=("code", "paper"),
                      help="'code': the authors' code exactly; 'paper': true conditional mutual "
                           "information in its two CMI computations", advanced=True)
MIMCF_MAX_SECONDS = Param("max_seconds", None, float, low=0, low_closed=False, none_ok=True,
                          help="time budget in seconds: past it the run stops with a message "
                               "naming where it was (none: no limit)", advanced=True)
MIMCF: tuple[Param, ...] = (MIMCF_ALPHA, MIMCF_K1, MIMCF_K2, MIMCF_VARIANT, MIMCF_MAX_SECONDS)

# ---------------------------------------------------------------- D2F, FIMF (Lee & Kim 2015)
D2F: tuple[Param, ...] = (N_FEATURES_TO_SELECT,)

FIMF_F_COUNT = Param("f_count", None, int, low=1, none_ok=True,
                     help="score only this many features of highest entropy (none: all)",
                     advanced=True)
FIMF_L_COUNT = Param("l_count", None, int, low=1, none_ok=True,
                     help="take label pairs among this many labels of highest entropy (none: all)",
                     advanced=True)
FIMF: tuple[Param, ...] = (FIMF_F_COUNT, FIMF_L_COUNT, N_FEATURES_TO_SELECT)

# ---------------------------------------------------------------- MDFS (Zhang et al. 2019)
MDFS: tuple[Param, ...] = (
    Param("alpha", 1.0, float, low=0, low_closed=False, symbol="α",
          help="weight of the regression and label-fit terms"),
    Param("beta", 1.0, float, low=0, symbol="β", help="weight of the label-graph term"),
    Param("gamma", 100.0, float, low=0, low_closed=False, symbol="γ",
          help="weight of the ℓ2,1 sparsity term"),
    Param("k", None, int, low=1, none_ok=True, advanced=True,
          help="neighbours in the instance and label graphs; none for q − 1 (the authors')"),
    Param("random_state", 0, int, low=0, none_ok=True, advanced=True,
          help="seed of the random start of W; none for a fresh one"),
    Param("max_iter", 1000, int, low=1, advanced=True,
          help="at most this many iterations (the authors' loop has no cap)"),
    N_FEATURES_TO_SELECT,
)

# ---------------------------------------------------------------- JFSC (Huang et al. 2018)
JFSC: tuple[Param, ...] = (
    Param("lambda1", 1.0, float, low=0, symbol="λ1", help="weight of the label-correlation term"),
    Param("lambda2", 2.0 ** -8, float, low=0, symbol="λ2",
          help="weight of the sample-similarity (Fisher) term"),
    Param("lambda3", 2.0, float, low=0, symbol="λ3", help="weight of the ℓ1 sparsity term"),
    Param("gamma", 1.0, float, low=0, low_closed=False, symbol="γ",
          help="ridge of the least-squares start"),
    Param("max_iter", 100, int, low=1, advanced=True, help="at most this many iterations"),
    Param("tol", 1e-4, float, low=0, advanced=True,
          help="stop when the objective changes by at most this much"),
    Param("variant", "corrected", str, options=("corrected", "reproduction"), advanced=True,
          help="'reproduction': the public code (Sasworld/JFSC) exactly, its get_S bug "
               "included; 'corrected': the same with S_k built from squared deviations"),
    N_FEATURES_TO_SELECT,
)

# ---------------------------------------------------------------- MCLS (Huang et al. 2018)
MCLS: tuple[Param, ...] = (
    Param("knear", 5, int, low=1, symbol="k",
          help="neighbours in the graphs and the local reconstructions"),
    N_FEATURES_TO_SELECT,
)

# ---------------------------------------------------------------- M2LC: not implemented
M2LC: tuple[Param, ...] = ()

# ---------------------------------------------------------------- PC (pgmpy), a whole-graph learner
PC: tuple[Param, ...] = (
    Param("alpha", 0.01, float, low=0, high=1, low_closed=False, high_closed=False, symbol="α",
          help="significance level of pgmpy's G² tests (an edge goes when p ≥ α)"),
    Param("max_cond_vars", 3, int, low=0, high=10, symbol="max conditioning set",
          help="the largest conditioning set PC tries (bounds its cost; pgmpy's default is 5)"),
)

# ---------------------------------------------------------------- references
ALL: tuple[Param, ...] = ()
RANDOM: tuple[Param, ...] = (
    N_FEATURES_TO_SELECT,
    Param("random_state", 0, int, low=0, symbol="seed", help="seed of the random order"),
)

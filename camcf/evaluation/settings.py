"""The evaluation's settings, declared once (:class:`camcf.params.Param`).

Two groups, each a tuple of declarations that validation, command-line flags, app widgets and
exported commands read:

* :data:`EVAL_PARAMS` — the protocol that cuts the rows into training and test parts:
  ``protocol`` (:data:`PROTOCOLS`), ``n_repeats``, ``n_folds``, ``test_size`` and ``seed``;
  :func:`camcf.evaluation.make_splitter` turns them into a splitter object;
* :data:`KNN_PARAMS` — the classifier, ML-kNN (SPEC "Evaluation protocol"): ``k``, ``s``,
  ``distance`` and ``neighbours``; :class:`camcf.evaluation.MLkNN` declares its parameters with
  them, and every study takes them as one mapping ``knn`` (:func:`check_knn`).

This module imports nothing heavy (only :mod:`camcf.params`), so a command line can build its
flags from it without loading numpy's evaluation stack.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..errors import ParameterError
from ..params import Param, defaults, validate

__all__ = [
    "DISTANCE",
    "EVAL_DEFAULTS",
    "EVAL_PARAMS",
    "K",
    "KNN_DEFAULTS",
    "KNN_PARAMS",
    "NEIGHBOURS",
    "N_FOLDS",
    "N_REPEATS",
    "PROTOCOL",
    "PROTOCOLS",
    "PROTOCOL_SETTINGS",
    "S",
    "SEED",
    "TEST_SIZE",
    "check_eval",
    "check_knn",
    "parse_n_features",
]

#: Protocol names and their display names, in the order a user interface lists them.
PROTOCOLS: dict[str, str] = {
    "repeated": "Repeated hold-out",
    "kfold": "k-fold cross-validation",
    "holdout": "One random hold-out",
}

PROTOCOL = Param(
    "protocol", "repeated", str, options=tuple(PROTOCOLS),
    help="how rows are split into training and test parts: repeated (n_repeats random "
         "hold-out splits of test_size), kfold (n_folds shuffled folds, every row tested once) "
         "or holdout (one random split of test_size)")
N_REPEATS = Param(
    "n_repeats", 5, int, low=1, widget=(1, 20, 1),
    help="repeated hold-out: number of random training/test splits")
N_FOLDS = Param(
    "n_folds", 5, int, low=2, widget=(2, 20, 1),
    help="k-fold: number of folds (at most the number of rows)")
TEST_SIZE = Param(
    "test_size", 0.3, float, low=0, high=1, low_closed=False, high_closed=False,
    widget=(0.1, 0.5, 0.05),
    help="hold-out protocols: share of the rows in each test part (rounded up)")
SEED = Param(
    "seed", 0, int, low=0, widget=(0, 10_000, 1),
    help="seed of the random splits (numpy.random.default_rng)")

#: The protocol's settings, in the order of :func:`camcf.evaluation.make_splitter`.
EVAL_PARAMS: tuple[Param, ...] = (PROTOCOL, N_REPEATS, N_FOLDS, TEST_SIZE, SEED)

#: The settings each protocol uses (:func:`camcf.evaluation.make_splitter` validates and
#: ignores the others): a user interface offers only these for the chosen protocol.
PROTOCOL_SETTINGS: dict[str, tuple[str, ...]] = {
    "repeated": ("n_repeats", "test_size", "seed"),
    "kfold": ("n_folds", "seed"),
    "holdout": ("test_size", "seed"),
}

K = Param(
    "k", 10, int, low=1, widget=(1, 50, 1), symbol="k",
    help="ML-kNN: number of neighbours (smaller than the number of training rows)")
S = Param(
    "s", 1.0, float, low=0, low_closed=False, widget=(0.1, 5.0, 0.1), symbol="s",
    advanced=True, help="ML-kNN: Laplace smoothing of the prior and the likelihoods")
DISTANCE = Param(
    "distance", "hamming", str, options=("hamming", "euclidean"),
    help="ML-kNN: hamming (the number of features in which two rows differ, as in the authors' "
         "code) or euclidean")
NEIGHBOURS = Param(
    "neighbours", "strict", str, options=("strict", "authors"),
    help="ML-kNN training neighbours: strict (Zhang & Zhou: a row is never its own neighbour) "
         "or authors (the paper's code: the k + 1 nearest rows, the first dropped; a duplicate "
         "row can keep a row among its own neighbours)")

#: ML-kNN's parameters, in the order of :class:`camcf.evaluation.MLkNN`'s signature.
KNN_PARAMS: tuple[Param, ...] = (K, S, DISTANCE, NEIGHBOURS)

#: ``{name: default}`` of :data:`EVAL_PARAMS` and :data:`KNN_PARAMS`.
EVAL_DEFAULTS: dict[str, Any] = defaults(EVAL_PARAMS)
KNN_DEFAULTS: dict[str, Any] = defaults(KNN_PARAMS)


def check_knn(knn: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ML-kNN settings, validated against :data:`KNN_PARAMS`; missing ones take their
    defaults, an unknown name or a bad value is a :class:`camcf.ParameterError` naming it.

    >>> check_knn({"k": 5})
    {'k': 5, 's': 1.0, 'distance': 'hamming', 'neighbours': 'strict'}
    """
    return validate(KNN_PARAMS, dict(knn or {}))


def check_eval(**settings: Any) -> dict[str, Any]:
    """The protocol's settings (:data:`EVAL_PARAMS`), validated; missing ones take their
    defaults.

    >>> check_eval(protocol="kfold")["n_folds"]
    5
    """
    return validate(EVAL_PARAMS, settings)


def parse_n_features(text: str, *, name: str = "n_features") -> int | float | str:
    """How ranking methods are cut, as typed (a flag, a text box): ``"match"`` (as many
    features as the reference selected on the same split, the paper's protocol), an integer
    ≥ 1 (that many) or a share in (0, 1) of the features; ``name`` is what the message calls
    it.

    >>> parse_n_features("match"), parse_n_features("20"), parse_n_features("0.25")
    ('match', 20, 0.25)
    """
    text = str(text).strip()
    if text == "match":
        return "match"
    allowed = "'match', an integer >= 1 or a share in (0, 1)"
    try:
        value = float(text)
    except ValueError:
        raise ParameterError(f"{name} must be {allowed}; got {text!r}", name=name, value=text,
                             allowed=allowed) from None
    if not math.isfinite(value) or value <= 0:
        raise ParameterError(f"{name} must be positive ({allowed}); got {text}", name=name,
                             value=text, allowed=allowed)
    return int(value) if value >= 1 and value.is_integer() else value

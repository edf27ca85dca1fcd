"""Evaluation of feature selectors: ML-kNN, the paper's seven metrics, the protocols and the
studies built on them.

Modules, by concern:

* :mod:`~camcf.evaluation.settings` — the settings declared once (``EVAL_PARAMS``,
  ``KNN_PARAMS``, ``PROTOCOLS``); imports nothing heavy;
* :mod:`~camcf.evaluation.splits` — the protocols as scikit-learn splitters
  (``make_splitter``);
* :mod:`~camcf.evaluation.folds` — folds discretised on their training rows (``make_folds``);
* :mod:`~camcf.evaluation.running` — the core: ``evaluate(folds, selectors, sets=…)``;
* :mod:`~camcf.evaluation.studies` — ``compare``, ``ablation``, ``sensitivity``,
  ``compare_data_sets`` (each with a ``.plan(...)``);
* :mod:`~camcf.evaluation.reproduction` — ``reproduce``: the paper's whole comparison (tuned
  Ca-MCF, defaults, baselines) beside its published values (:mod:`~camcf.evaluation.paper`);
* :mod:`~camcf.evaluation.summaries` — mean ± SD over splits, matrices, Friedman;
* :mod:`~camcf.evaluation.mlknn`, :mod:`~camcf.evaluation.neighbours` — ML-kNN as a
  scikit-learn classifier and its exact neighbour search;
* :mod:`~camcf.evaluation.metrics`, :mod:`~camcf.evaluation.scorers` — the seven metrics, and
  as scikit-learn scorers.

Names are loaded on first use (``import camcf.evaluation`` loads no numpy stack by itself).
"""

from __future__ import annotations

import importlib
from typing import Any

#: public name -> module (relative to this package) that defines it
_NAMES: dict[str, str] = {
    # settings
    "EVAL_DEFAULTS": "settings", "EVAL_PARAMS": "settings", "KNN_DEFAULTS": "settings",
    "KNN_PARAMS": "settings", "PROTOCOLS": "settings", "check_eval": "settings",
    "check_knn": "settings",
    # splits
    "HoldoutSplit": "splits", "RepeatedHoldout": "splits", "ShuffledKFold": "splits",
    "make_splits": "splits", "make_splitter": "splits",
    # folds
    "Fold": "folds", "binarize_labels": "folds", "make_folds": "folds",
    # the core
    "COLUMNS": "summaries", "Evaluation": "running", "FeatureSet": "running",
    "KnnCache": "running", "Plan": "running", "Selection": "running", "evaluate": "running",
    "SelectionCache": "running",
    "select_on_folds": "running",
    # studies
    "ABLATION_SETS": "studies", "Comparison": "studies", "ablation": "studies",
    "compare": "studies", "compare_data_sets": "studies", "sensitivity": "studies",
    # the paper's comparison
    "PAPER_DATA_SETS": "reproduction", "PAPER_GRID": "reproduction", "PAPER_KNN": "reproduction",
    "reproduce": "reproduction", "write_reproduction": "reproduction",
    # summaries
    "friedman_over_data_sets": "summaries", "mean_sd": "summaries", "mean_table": "summaries",
    "sensitivity_matrix": "summaries", "sensitivity_summary": "summaries",
    "summarise": "summaries",
    # classifier, metrics, scorers
    "MLkNN": "mlknn", "METRICS": "metrics", "average_precision": "metrics",
    "coverage": "metrics", "evaluate_all": "metrics", "hamming_loss": "metrics",
    "macro_f1": "metrics", "micro_f1": "metrics", "ranking_loss": "metrics",
    "ranks": "metrics", "subset_accuracy": "metrics", "SCORERS": "scorers",
    "get_scorer": "scorers",
    # the fitted discretiser lives in camcf.discretize
    "Discretizer": "camcf.discretizer",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str) -> Any:
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    path = module if module.startswith("camcf.") else f"{__name__}.{module}"
    value = getattr(importlib.import_module(path), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_NAMES))

"""Evaluation of selected feature sets: ML-kNN, the paper's seven metrics, and protocols."""

from .metrics import (
    METRICS,
    average_precision,
    coverage,
    evaluate_all,
    hamming_loss,
    macro_f1,
    micro_f1,
    ranking_loss,
    ranks,
    subset_accuracy,
)
from .mlknn import MLkNN
from .protocols import (
    COLUMNS,
    CamcfSelector,
    binarize_labels,
    camcf_selector,
    holdout,
    kfold,
    kfold_splits,
    parameter_grid,
    repeated_holdout,
    repeated_holdout_splits,
    summarise,
)

__all__ = [
    "COLUMNS",
    "METRICS",
    "CamcfSelector",
    "MLkNN",
    "average_precision",
    "binarize_labels",
    "camcf_selector",
    "coverage",
    "evaluate_all",
    "hamming_loss",
    "holdout",
    "kfold",
    "kfold_splits",
    "macro_f1",
    "micro_f1",
    "parameter_grid",
    "ranking_loss",
    "ranks",
    "repeated_holdout",
    "repeated_holdout_splits",
    "subset_accuracy",
    "summarise",
]

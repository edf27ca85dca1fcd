"""The seven multi-label metrics of the paper (Appendix A), as the SPEC fixes them.

All functions take ``Y_true`` (n x q, 0/1), and either ``Y_pred`` (n x q, 0/1) or ``scores``
(n x q, real confidence scores, higher = more confident).

Ranks and ties
--------------
``rank_i(l)`` is the 1-based position of label ``l`` in a **stable descending sort** of row
``i`` of ``scores``: labels with equal scores are ranked in the order they are listed (the lower
column index gets the better rank). Every ranking metric (average precision, coverage, ranking
loss) uses these ranks and nothing else, so a tie is never counted twice or half: a true label
tied with a false label listed after it counts as ranked above it, one tied with a false label
listed before it counts as ranked below it. On scores without ties this coincides with the
usual definitions (and with scikit-learn).

Instances without true labels
-----------------------------
Average precision, coverage and ranking loss are averaged over **all** test instances; an
instance with no true label contributes 0 to each, and for ranking loss an instance whose
labels are all true contributes 0 as well.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InvalidDataError

__all__ = [
    "METRICS",
    "average_precision",
    "coverage",
    "evaluate_all",
    "hamming_loss",
    "macro_f1",
    "micro_f1",
    "ranking_loss",
    "ranks",
    "subset_accuracy",
]

#: For each metric (in report order): display name, short name, and whether higher is better.
METRICS: dict[str, dict[str, Any]] = {
    "hamming_loss": {"name": "Hamming loss", "short": "HL", "higher_is_better": False},
    "subset_accuracy": {"name": "Subset accuracy", "short": "SA", "higher_is_better": True},
    "average_precision": {"name": "Average precision", "short": "AvP", "higher_is_better": True},
    "coverage": {"name": "Coverage", "short": "Cov", "higher_is_better": False},
    "ranking_loss": {"name": "Ranking loss", "short": "RL", "higher_is_better": False},
    "macro_f1": {"name": "Macro-F1", "short": "Fma", "higher_is_better": True},
    "micro_f1": {"name": "Micro-F1", "short": "Fmi", "higher_is_better": True},
}


def _binary(Y: np.ndarray, name: str) -> np.ndarray:
    Y = np.asarray(Y)
    if Y.ndim == 1:
        Y = Y[:, None]
    if Y.ndim != 2:
        raise InvalidDataError(f"{name} must be 2-D (n_samples x n_labels); got shape {Y.shape}")
    if Y.dtype != bool and Y.size and not _zero_one(Y):
        raise InvalidDataError(f"{name} must hold only 0 and 1")
    return Y.astype(bool)


def _zero_one(Y: np.ndarray) -> bool:
    """Whether every value is 0 or 1 (a bound check for integers, else a comparison)."""
    if np.issubdtype(Y.dtype, np.integer):
        return bool(Y.min() >= 0 and Y.max() <= 1)
    return bool(((Y == 0) | (Y == 1)).all())


def _pair(Y_true: np.ndarray, other: np.ndarray, name: str, binary: bool) -> tuple:
    T = _binary(Y_true, "Y_true")
    if binary:
        U = _binary(other, name)
    else:
        U = np.asarray(other, dtype=np.float64)
        if U.ndim == 1:
            U = U[:, None]
        if np.isnan(U).any():
            raise InvalidDataError(f"{name} contains NaN")
    if U.shape != T.shape:
        raise InvalidDataError(f"Y_true has shape {T.shape} but {name} has shape {U.shape}")
    if T.shape[0] == 0:
        raise InvalidDataError("no instances to evaluate (0 rows)")
    return T, U


def ranks(scores: np.ndarray) -> np.ndarray:
    """1-based rank of every label in a stable descending sort of each row.

    Parameters
    ----------
    scores : array-like of shape (n, q)

    Returns
    -------
    ndarray of shape (n, q), int64
        ``ranks[i, l]`` is the position of label ``l`` for instance ``i``; tied scores are
        ranked in column order (the label listed first gets the better rank).
    """
    return _ranked(np.asarray(scores, dtype=np.float64))[1]


def _ranked(S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(order, R)``: the labels of each row in a stable descending sort of the scores, and
    each label's 1-based position in it (:func:`ranks`)."""
    order = np.argsort(-S, axis=1, kind="stable")
    R = np.empty_like(order)
    rows = np.arange(S.shape[0])[:, None]
    R[rows, order] = np.arange(1, S.shape[1] + 1)[None, :]
    return order, R


def hamming_loss(Y_true: np.ndarray, Y_pred: np.ndarray) -> float:
    """Fraction of instance-label pairs predicted wrongly (lower is better).

    Parameters
    ----------
    Y_true, Y_pred : array-like of shape (n, q), 0/1

    Returns
    -------
    float
    """
    T, P = _pair(Y_true, Y_pred, "Y_pred", binary=True)
    return float(np.mean(T != P))


def subset_accuracy(Y_true: np.ndarray, Y_pred: np.ndarray) -> float:
    """Fraction of instances whose whole predicted label vector is right (higher is better).

    Parameters
    ----------
    Y_true, Y_pred : array-like of shape (n, q), 0/1

    Returns
    -------
    float
    """
    T, P = _pair(Y_true, Y_pred, "Y_pred", binary=True)
    return float(np.mean((T == P).all(axis=1)))


def average_precision(Y_true: np.ndarray, scores: np.ndarray) -> float:
    """Average precision (higher is better).

    For instance ``i`` with true set ``Y_i``:
    ``(1/|Y_i|) sum_{l in Y_i} |{l' in Y_i : rank(l') <= rank(l)}| / rank(l)``,
    averaged over all instances; an instance with no true label contributes 0. Ranks come from
    a stable descending sort (ties go to the label listed first).

    Parameters
    ----------
    Y_true : array-like of shape (n, q), 0/1
    scores : array-like of shape (n, q)

    Returns
    -------
    float
    """
    T, S = _pair(Y_true, scores, "scores", binary=False)
    return _average_precision(T, _ranked(S)[0])


def _average_precision(T: np.ndarray, order: np.ndarray) -> float:
    q = T.shape[1]
    # Labels in rank order; the running count of true labels gives |{l' in Y: rank(l') <= r}|.
    T_sorted = np.take_along_axis(T, order, axis=1)
    hits = np.cumsum(T_sorted, axis=1)
    precision_at = hits / np.arange(1, q + 1)[None, :]
    n_true = T.sum(axis=1)
    per_instance = np.where(
        n_true > 0, (precision_at * T_sorted).sum(axis=1) / np.maximum(n_true, 1), 0.0
    )
    return float(per_instance.mean())


def coverage(Y_true: np.ndarray, scores: np.ndarray) -> float:
    """Normalised coverage (lower is better).

    Mean over instances of ``(max_{l in Y_i} rank(l) - 1) / (q - 1)``; an instance with no true
    label contributes 0; with a single label (``q = 1``) the value is 0. Ranks come from a stable
    descending sort (ties go to the label listed first).

    Parameters
    ----------
    Y_true : array-like of shape (n, q), 0/1
    scores : array-like of shape (n, q)

    Returns
    -------
    float
    """
    T, S = _pair(Y_true, scores, "scores", binary=False)
    if T.shape[1] <= 1:
        return 0.0
    return _coverage(T, _ranked(S)[1])


def _coverage(T: np.ndarray, R: np.ndarray) -> float:
    q = T.shape[1]
    if q <= 1:
        return 0.0
    worst = np.where(T, R, 0).max(axis=1)  # 0 when no true label
    per_instance = np.maximum(worst - 1, 0) / (q - 1)
    return float(per_instance.mean())


def ranking_loss(Y_true: np.ndarray, scores: np.ndarray) -> float:
    """Ranking loss (lower is better).

    For instance ``i``: the share of (true, false) label pairs in which the true label is ranked
    below the false one, ``|{(a, b): a in Y_i, b not in Y_i, rank(a) > rank(b)}| /
    (|Y_i| |not Y_i|)``, averaged over all instances; an instance with no true label or with all
    labels true contributes 0. Ranks come from a stable descending sort, so a tied pair counts as
    mis-ordered only when the false label is listed before the true one.

    Parameters
    ----------
    Y_true : array-like of shape (n, q), 0/1
    scores : array-like of shape (n, q)

    Returns
    -------
    float
    """
    T, S = _pair(Y_true, scores, "scores", binary=False)
    return _ranking_loss(T, _ranked(S)[0])


def _ranking_loss(T: np.ndarray, order: np.ndarray) -> float:
    q = T.shape[1]
    T_sorted = np.take_along_axis(T, order, axis=1)
    # For each true label at a position, count false labels at earlier positions.
    false_before = np.cumsum(~T_sorted, axis=1) - (~T_sorted)
    wrong = (false_before * T_sorted).sum(axis=1)
    n_true = T.sum(axis=1)
    pairs = n_true * (q - n_true)
    per_instance = np.where(pairs > 0, wrong / np.maximum(pairs, 1), 0.0)
    return float(per_instance.mean())


def _counts(Y_true: np.ndarray, Y_pred: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    T, P = _pair(Y_true, Y_pred, "Y_pred", binary=True)
    tp = (T & P).sum(axis=0)
    fp = (~T & P).sum(axis=0)
    fn = (T & ~P).sum(axis=0)
    return tp, fp, fn


def macro_f1(Y_true: np.ndarray, Y_pred: np.ndarray) -> float:
    """Mean over labels of ``2 TP / (2 TP + FP + FN)`` (higher is better).

    A label with no positives and no predictions (denominator 0) has F1 = 0.

    Parameters
    ----------
    Y_true, Y_pred : array-like of shape (n, q), 0/1

    Returns
    -------
    float
    """
    tp, fp, fn = _counts(Y_true, Y_pred)
    denom = 2 * tp + fp + fn
    f1 = np.where(denom > 0, 2 * tp / np.maximum(denom, 1), 0.0)
    return float(f1.mean()) if f1.size else 0.0


def micro_f1(Y_true: np.ndarray, Y_pred: np.ndarray) -> float:
    """``2 sum TP / (2 sum TP + sum FP + sum FN)`` over all labels (higher is better).

    0 when there are no positives and no predictions at all.

    Parameters
    ----------
    Y_true, Y_pred : array-like of shape (n, q), 0/1

    Returns
    -------
    float
    """
    tp, fp, fn = (int(c.sum()) for c in _counts(Y_true, Y_pred))
    denom = 2 * tp + fp + fn
    return 2 * tp / denom if denom > 0 else 0.0


def evaluate_all(Y_true: np.ndarray, Y_pred: np.ndarray, scores: np.ndarray) -> dict[str, float]:
    """All seven metrics.

    Parameters
    ----------
    Y_true, Y_pred : array-like of shape (n, q), 0/1
    scores : array-like of shape (n, q)
        Confidence scores (ML-kNN posteriors).

    Returns
    -------
    dict
        Keys, in this order: ``hamming_loss, subset_accuracy, average_precision, coverage,
        ranking_loss, macro_f1, micro_f1`` (the keys of :data:`METRICS`).
    """
    T, P = _pair(Y_true, Y_pred, "Y_pred", binary=True)
    _, S = _pair(Y_true, scores, "scores", binary=False)
    order, R = _ranked(S)  # one sort of the scores for the three ranking metrics
    return {
        "hamming_loss": hamming_loss(T, P),
        "subset_accuracy": subset_accuracy(T, P),
        "average_precision": _average_precision(T, order),
        "coverage": _coverage(T, R),
        "ranking_loss": _ranking_loss(T, order),
        "macro_f1": macro_f1(T, P),
        "micro_f1": micro_f1(T, P),
    }

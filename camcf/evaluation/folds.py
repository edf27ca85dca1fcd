"""Folds: the rows of one split, discretised on its training part, ready for selection and
ML-kNN; and the binary label columns ML-kNN and the metrics read.

:func:`make_folds` cuts the data with a splitter (:mod:`camcf.evaluation.splits`, any
scikit-learn splitter, or a list of ``(train, test)`` index pairs) or takes a fixed train/test
pair, and discretises each fold on its training rows only
(:class:`camcf.discretizer.Discretizer`): the test rows are coded with the training part's values
and bin edges, so no test row influences the codes, the selection or the classifier.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..algorithm_params import DISCRETIZE_PARAMS, by_name
from ..errors import InvalidDataError, ParameterError
from .splits import protocol_of

_DISC = by_name(DISCRETIZE_PARAMS)

__all__ = ["Fold", "binarize_labels", "label_of_columns", "make_folds"]

#: The ``protocol`` column of the frames, per protocol (kept as the frames always spelled it).
_FRAME_PROTOCOL = {"repeated": "repeated_holdout", "kfold": "kfold", "holdout": "holdout"}


def binarize_labels(
    Y: np.ndarray | pd.DataFrame, names: Sequence[str] | None = None
) -> tuple[np.ndarray, list[str]]:
    """Turn label codes into binary 0/1 columns for ML-kNN and the metrics.

    A label whose values are all in {0, 1} stays one column; a label with values {−1, +1} is
    read as 0/1 (+1 → 1). Any other label is multi-class: it becomes one binary column per
    distinct value, in ascending order of the value (one-hot), named ``"<label>=<value>"``.

    Parameters
    ----------
    Y : array-like of shape (n, q) or DataFrame
        Label codes, one column per label (a 1-D array is one label).
    names : sequence of str, optional
        Label names; by default the DataFrame's column names, else ``y0, y1, ...``.

    Returns
    -------
    Ybin : ndarray of shape (n, q_bin), int64
        Binary labels.
    names : list of str
        Name of each binary column.
    """
    if isinstance(Y, pd.DataFrame):
        if names is None:
            names = [str(c) for c in Y.columns]
        Y = Y.to_numpy()
    Y = np.asarray(Y)
    if Y.ndim == 1:
        Y = Y[:, None]
    if Y.ndim != 2:
        raise InvalidDataError(f"Y must be 2-D (n_samples x n_labels); got shape {Y.shape}")
    if names is None:
        names = [f"y{i}" for i in range(Y.shape[1])]
    if len(names) != Y.shape[1]:
        raise InvalidDataError(f"{len(names)} label names for {Y.shape[1]} label columns")
    binary = ((Y == 0) | (Y == 1)).all(axis=0)
    if binary.all():  # the usual case, all at once
        return Y.astype(np.int64), [str(v) for v in names]
    columns: list[np.ndarray] = []
    out_names: list[str] = []
    for i in range(Y.shape[1]):
        col = Y[:, i]
        if binary[i]:
            columns.append(col.astype(np.int64))
            out_names.append(str(names[i]))
            continue
        values = np.unique(col)
        if set(values.tolist()) == {-1, 1}:
            columns.append((col == 1).astype(np.int64))
            out_names.append(str(names[i]))
        else:
            for v in values:
                columns.append((col == v).astype(np.int64))
                shown = int(v) if float(v).is_integer() else v
                out_names.append(f"{names[i]}={shown}")
    Ybin = np.column_stack(columns) if columns else np.zeros((Y.shape[0], 0), dtype=np.int64)
    return Ybin, out_names


def label_of_columns(Y: np.ndarray) -> list[int]:
    """The label (column of ``Y``) each column of :func:`binarize_labels` ``(Y)`` comes from.

    >>> label_of_columns(np.array([[0, 2], [1, 0], [1, 1]]))
    [0, 1, 1, 1]
    """
    Y = np.asarray(Y)
    _, names = binarize_labels(Y, [str(i) for i in range(Y.shape[1] if Y.ndim == 2 else 1)])
    return [int(name.split("=")[0]) for name in names]


@dataclass(frozen=True, eq=False)
class Fold:
    """One train/test split, ready for selection and classification.

    Attributes
    ----------
    split : int
        Split number (0-based).
    protocol : str
        ``"holdout"``, ``"repeated_holdout"``, ``"kfold"`` (camcf's splitters) or the
        splitter's class name.
    train, test : ndarray of int
        Row indices into the data the folds were made from (for a given train/test pair: the
        rows of the two files one after the other).
    X_train, X_test : ndarray of int64
        Discrete codes (the test part coded with the training part's values and bins).
    Y_train : ndarray
        Label codes of the training rows, as selection needs them (multi-class labels kept).
    Yb_train, Yb_test : ndarray of int64
        Binary label columns (:func:`binarize_labels`, fixed on all rows) for ML-kNN.
    key : str
        A hash of the fold's content: equal keys, equal folds (caches use it).
    """

    split: int
    protocol: str
    train: np.ndarray
    test: np.ndarray
    X_train: np.ndarray
    X_test: np.ndarray
    Y_train: np.ndarray
    Yb_train: np.ndarray
    Yb_test: np.ndarray
    key: str = field(default="", repr=False)

    @property
    def n_features(self) -> int:
        return int(self.X_train.shape[1])


def _compact(a: np.ndarray) -> np.ndarray:
    """``a`` in the smallest integer type holding its values (a cheaper hash, the same
    content)."""
    if a.size and np.issubdtype(a.dtype, np.integer):
        lo, hi = int(a.min()), int(a.max())
        for t in (np.int8, np.int16, np.int32):
            if np.iinfo(t).min <= lo and hi <= np.iinfo(t).max:
                return a.astype(t)
    return a


def _fold_key(*arrays: np.ndarray) -> str:
    h = hashlib.blake2b(digest_size=8)
    for a in arrays:
        a = np.ascontiguousarray(_compact(np.asarray(a)))
        h.update(str((a.shape, a.dtype.str)).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _dense(X) -> np.ndarray:
    """X as a dense array. The folds hold each split's discretised rows densely (every method
    and ML-kNN read them so), so a sparse X is made dense here, after a memory check
    (:class:`camcf.ResourceLimitError` names the size when it does not fit)."""
    import scipy.sparse as sp

    if isinstance(X, pd.DataFrame):
        X = X.to_numpy()
    if sp.issparse(X):
        from ..limits import check_memory

        n, m = X.shape
        check_memory(n * m * 8, f"the evaluation's dense copy of the sparse X ({n} × {m}); "
                                f"camcf.run and `camcf select` keep it sparse")
        return X.toarray()
    return np.asarray(X)


def _labels_2d(Y) -> np.ndarray:
    Y = np.asarray(Y.to_numpy() if isinstance(Y, pd.DataFrame) else Y)
    return Y[:, None] if Y.ndim == 1 else Y


def make_folds(
    X,
    Y,
    cv: Any = None,
    *,
    X_test=None,
    Y_test=None,
    discretize: str | None = _DISC["discretize"].default,
    bins: int = _DISC["bins"].default,
    strategy: str = _DISC["strategy"].default,
) -> list[Fold]:
    """Cut the data into folds and discretise each fold on its training rows.

    Either give ``cv`` (how to split ``X``), or a second part ``X_test``/``Y_test`` (a fixed
    train/test pair: one fold, protocol ``"holdout"``).

    Parameters
    ----------
    X : array-like of shape (n, m), or scipy.sparse
        Raw feature values (``discretize="auto"`` or ``"none"``) or codes (``discretize=None``:
        used as they are).
    Y : array-like of shape (n, q)
        Label codes.
    cv : splitter or iterable of (train, test), optional
        A splitter object (``split(X)``; :func:`camcf.evaluation.make_splitter`, or any
        scikit-learn splitter) or the ``(train, test)`` row indices themselves.
    X_test, Y_test : array-like, optional
        The test part of a fixed split (then ``X``, ``Y`` are the training part).
    discretize : {"auto", "none"} or None, default "auto"
        Discretisation fitted on each fold's training rows
        (:class:`camcf.discretizer.Discretizer`); ``None``: ``X`` already holds codes.
    bins, strategy
        As for :func:`camcf.discretize.discretize` (with ``discretize``, exactly the keys of
        :data:`camcf.algorithm_params.DISCRETIZE_PARAMS`: ``make_folds(X, Y, cv, **disc)``).

    Returns
    -------
    list of Fold
    """
    from ..discretizer import Discretizer

    X = _dense(X)
    Y = _labels_2d(Y)
    if X.ndim != 2 or Y.ndim != 2 or X.shape[0] != Y.shape[0]:
        raise InvalidDataError(
            f"X and Y must be 2-D with the same number of rows; got {X.shape} and {Y.shape}"
        )
    if X_test is not None or Y_test is not None:
        if X_test is None or Y_test is None or cv is not None:
            raise ParameterError("give either cv (how to split X), or both X_test and Y_test")
        X_test, Y_test = _dense(X_test), _labels_2d(Y_test)
        if X_test.ndim != 2 or X_test.shape[1] != X.shape[1] or Y_test.shape[1] != Y.shape[1]:
            raise InvalidDataError(
                f"train and test must have the same columns; got X {X.shape} / X_test "
                f"{X_test.shape}, Y {Y.shape} / Y_test {Y_test.shape}"
            )
        n = X.shape[0]
        splits: Iterable = [(np.arange(n), np.arange(n, n + X_test.shape[0]))]
        X, Y = np.concatenate([X, X_test]), np.concatenate([Y, Y_test])
        protocol = "holdout"
    elif cv is None:
        raise ParameterError("give cv (e.g. make_splitter(...)) or X_test and Y_test")
    elif hasattr(cv, "split"):
        splits, protocol = cv.split(X, Y), protocol_of(cv)
    else:
        splits, protocol = cv, "repeated"
    if discretize not in (None, "auto", "none"):
        raise ParameterError(
            f"discretize must be 'auto', 'none' or None; got discretize={discretize!r}",
            name="discretize", value=discretize, allowed="'auto', 'none' or None")
    if ((Y == 0) | (Y == 1)).all():  # binary labels: their binary columns are themselves
        def binary(rows: np.ndarray) -> np.ndarray:
            return Y[rows].astype(np.int64)
    else:
        Ybin, _ = binarize_labels(Y)

        def binary(rows: np.ndarray) -> np.ndarray:
            return Ybin[rows]
    name = _FRAME_PROTOCOL.get(protocol, protocol)
    folds = []
    for i, (train, test) in enumerate(splits):
        train = np.asarray(train, dtype=np.int64)
        test = np.asarray(test, dtype=np.int64)
        if np.intersect1d(train, test).size:
            raise InvalidDataError(f"split {i}: a row is both a training and a test row")
        if discretize is None:
            X_tr = np.asarray(X[train], dtype=np.int64)
            X_te = np.asarray(X[test], dtype=np.int64)
        else:
            disc = Discretizer(discretize=discretize, bins=bins, strategy=strategy)
            X_tr = disc.fit_transform(X[train])
            X_te = disc.transform(X[test])
        Y_tr, Yb_tr, Yb_te = Y[train], binary(train), binary(test)
        folds.append(Fold(split=i, protocol=name, train=train, test=test, X_train=X_tr,
                          X_test=X_te, Y_train=Y_tr, Yb_train=Yb_tr, Yb_test=Yb_te,
                          key=_fold_key(X_tr, X_te, Y_tr, Yb_tr, Yb_te)))
    if not folds:
        raise ParameterError("the splitter gave no split")
    return folds

"""The one in-memory form every reader produces."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from ._sparse import issparse
from .errors import InvalidDataError


def code_dtype(lo: int, hi: int) -> np.dtype:
    """The smallest signed integer type holding every code in ``lo..hi`` (int8 for 0/1).

    Parameters
    ----------
    lo, hi : int
        The smallest and the largest code.

    Returns
    -------
    numpy.dtype
        int8, int16, int32 or int64.
    """
    for dt in (np.int8, np.int16, np.int32):
        bounds = np.iinfo(dt)
        if bounds.min <= lo and hi <= bounds.max:
            return np.dtype(dt)
    return np.dtype(np.int64)


def narrow_codes(Y) -> np.ndarray:
    """Label codes ``Y`` in :func:`code_dtype` of their range, without an int64 copy of
    integer input (float or other input is converted as ``astype(np.int64)`` first: truncated).

    Parameters
    ----------
    Y : array-like of integer codes

    Returns
    -------
    ndarray
        The same values, in the smallest signed integer type (memory order kept).
    """
    A = np.asarray(Y)
    if A.dtype.kind == "b":
        return A.astype(np.int8)
    if A.dtype.kind not in "iu":
        A = A.astype(np.int64)
    if A.size == 0:
        return A.astype(np.int8)
    return A.astype(code_dtype(int(A.min()), int(A.max())), copy=False)


@dataclass(frozen=True, eq=False)
class Dataset:
    """A multi-label data set.

    Attributes
    ----------
    X : ndarray of shape (n_samples, n_features), float64
        Raw feature values as read (not yet discretised). NaN marks a missing value. A large
        sparse file (sparse ARFF) gives a ``scipy.sparse`` CSC matrix instead, which
        :func:`camcf.discretize.discretize` and :func:`camcf.run` keep sparse.
    Y : ndarray of shape (n_samples, n_labels), signed integers
        Label codes, in the smallest signed integer type that holds them (:func:`code_dtype`:
        int8 for 0/1 labels; float input is truncated to integers first). Binary labels are 0/1
        (−1/+1 is read as 0/1); a multi-class label holds its integer category codes.
    feature_names, label_names : list of str
    category_names : list of dict[int, str]
        Per label, a display name for each category code (e.g. the ARFF nominal value).
    source : str
        Where the data came from (file names, split), for display.
    """

    X: np.ndarray
    Y: np.ndarray
    feature_names: list[str]
    label_names: list[str]
    source: str = ""
    category_names: list[dict[int, str]] | None = None
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if issparse(self.X):
            import scipy.sparse as sp

            X = sp.csc_matrix(self.X, dtype=float)
        else:
            X = np.asarray(self.X, dtype=float)
        Y = np.asarray(self.Y)
        if X.ndim != 2 or Y.ndim != 2:
            raise InvalidDataError(
                f"X and Y must be 2-D; got X with shape {X.shape} and Y with shape {Y.shape}"
            )
        if X.shape[0] != Y.shape[0]:
            raise InvalidDataError(
                f"X has {X.shape[0]} rows but Y has {Y.shape[0]}; give one label row per sample"
            )
        if len(self.feature_names) != X.shape[1]:
            raise InvalidDataError(
                f"{len(self.feature_names)} feature names for {X.shape[1]} feature columns"
            )
        if len(self.label_names) != Y.shape[1]:
            raise InvalidDataError(
                f"{len(self.label_names)} label names for {Y.shape[1]} label columns"
            )
        object.__setattr__(self, "X", X)
        Y = narrow_codes(Y)
        object.__setattr__(self, "Y", Y)
        if self.category_names is None:
            names = [{int(v): str(v) for v in np.unique(Y[:, i])} for i in range(Y.shape[1])]
            object.__setattr__(self, "category_names", names)

    @property
    def truth(self):
        """The :class:`camcf.truth.Truth` of data sampled from a known network
        (:mod:`camcf.networks`, the built-in demo), else None (``meta["truth"]``)."""
        return self.meta.get("truth")

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def n_labels(self) -> int:
        return int(self.Y.shape[1])

    def categories(self, i: int) -> np.ndarray:
        """Distinct codes of label ``i`` in ascending order."""
        return np.unique(self.Y[:, i])

    @property
    def label_cardinality(self) -> float:
        """Mean number of positive labels per sample (binary labels only count code 1)."""
        binary = [i for i in range(self.n_labels) if set(np.unique(self.Y[:, i])) <= {0, 1}]
        if not binary:
            return float("nan")
        return float(self.Y[:, binary].sum(axis=1).mean())

    def fingerprint(self) -> str:
        """A content hash (values, shapes, dtypes and names) for caching."""
        h = hashlib.sha256()
        parts = ([self.X.data, self.X.indices, self.X.indptr] if issparse(self.X)
                 else [self.X])
        for a in (*parts, self.Y):
            h.update(str((a.shape, a.dtype.str)).encode())
            h.update(np.ascontiguousarray(a).tobytes())
        h.update("\x1f".join(self.feature_names + ["|"] + self.label_names).encode())
        return h.hexdigest()[:20]

    def subset(self, rows: np.ndarray, source_suffix: str = "") -> Dataset:
        """The same data set restricted to ``rows`` (an index array or boolean mask)."""
        return Dataset(
            X=self.X[rows],
            Y=self.Y[rows],
            feature_names=list(self.feature_names),
            label_names=list(self.label_names),
            source=self.source + source_suffix,
            category_names=[dict(c) for c in self.category_names],
            meta=dict(self.meta),
        )

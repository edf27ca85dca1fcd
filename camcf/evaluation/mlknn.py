"""ML-kNN (Zhang & Zhou, 2007), exactly as the project's SPEC fixes it.

The classifier is the one the paper evaluates selected feature subsets with. Everything that
changes a number is pinned down here:

* **Prior.** ``P(H1_l) = (s + count_l) / (2 s + n_train)`` where ``count_l`` is the number of
  training rows with label ``l``; ``P(H0_l) = 1 - P(H1_l)``.
* **Neighbour counts.** For a row, ``C_l`` is how many of its ``k`` neighbours carry label ``l``
  (``0 <= C_l <= k``).
* **Likelihoods.** ``c1[l, j]`` is the number of training rows *with* label ``l`` whose
  neighbourhood has exactly ``j`` rows with ``l``; ``c0[l, j]`` the same for rows *without*
  ``l``. Then ``P(E_j | H1_l) = (s + c1[l, j]) / (s (k + 1) + sum_j c1[l, j])`` and likewise
  for ``H0`` with ``c0``.
* **Posterior.** ``P(H1_l | E_j) = P(H1_l) P(E_j|H1_l) / (P(H1_l) P(E_j|H1_l) + P(H0_l)
  P(E_j|H0_l))``; it is the confidence score, and label ``l`` is predicted iff it is
  ``> 0.5`` (a posterior of exactly 0.5 predicts 0).
* **Distances.** ``"hamming"`` (default): the number of features in which two rows differ
  (values are compared for equality, so codes and floats both work). ``"euclidean"``: ordinary
  Euclidean distance.
* **Ties.** Neighbours are taken from a *stable* ascending sort of the distances, so among rows
  at equal distance the one with the lower training row index comes first.
* **Training neighbours.** ``"strict"`` (default, Zhang & Zhou): a training row is never its own
  neighbour — its own index is removed and the ``k`` nearest of the rest are taken in stable
  order. ``"authors"`` (reproduces the authors' MATLAB code): take the ``k + 1`` nearest training
  rows in stable order and drop the first. When a duplicate of a row exists at a lower index the
  duplicate is dropped instead, and the row itself stays among its own neighbours.
* **Test neighbours.** The ``k`` nearest training rows in stable order.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..errors import InvalidDataError, NotFittedError, ParameterError

__all__ = ["MLkNN"]

_DISTANCES = ("hamming", "euclidean")
_NEIGHBOURS = ("strict", "authors")
# Largest one-hot width for which Hamming distances are computed as a matrix product (memory:
# n_train x width float32, ~130 MB at 2000 training rows; counts stay exact below 2**24).
_MAX_ONEHOT_WIDTH = 16384  # e.g. PlantGO: 3091 binary features = 6182 columns
# Number of query rows per distance block (bounds memory at block x n_train distances).
_BLOCK_ROWS = 1024


class MLkNN:
    """Multi-label k-nearest-neighbour classifier (Zhang & Zhou 2007).

    Parameters
    ----------
    k : int, default 10
        Number of neighbours; ``1 <= k < n_train`` (checked in :meth:`fit`).
    s : float, default 1.0
        Laplace smoothing, ``s > 0``.
    distance : {"hamming", "euclidean"}, default "hamming"
        ``"hamming"`` counts the features in which two rows differ (equality of values);
        ``"euclidean"`` is the ordinary Euclidean distance.
    neighbours : {"strict", "authors"}, default "strict"
        How the neighbours of a *training* row are chosen (see the module docstring):
        ``"strict"`` never lets a row be its own neighbour; ``"authors"`` takes the ``k + 1``
        nearest rows in stable order and drops the first.

    Attributes
    ----------
    prior_ : ndarray of shape (q,)
        ``P(H1_l)`` for each label.
    c1_, c0_ : ndarray of shape (q, k + 1), int64
        ``c1_[l, j]`` / ``c0_[l, j]``: training rows with / without label ``l`` having exactly
        ``j`` neighbours with label ``l``.
    likelihood1_, likelihood0_ : ndarray of shape (q, k + 1)
        ``P(E_j | H1_l)`` and ``P(E_j | H0_l)``.
    train_neighbours_ : ndarray of shape (n_train, k), int64
        Indices of the neighbours of each training row, nearest first.

    Notes
    -----
    Ties in distance always go to the lower training row index (stable sort). A posterior of
    exactly 0.5 predicts 0.
    """

    def __init__(
        self,
        k: int = 10,
        s: float = 1.0,
        distance: str = "hamming",
        neighbours: str = "strict",
    ) -> None:
        if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
            raise ParameterError(f"k must be an integer >= 1; got k={k!r}")
        if not np.isfinite(s) or s <= 0:
            raise ParameterError(f"s (Laplace smoothing) must be > 0; got s={s!r}")
        if distance not in _DISTANCES:
            raise ParameterError(f"distance must be one of {_DISTANCES}; got distance={distance!r}")
        if neighbours not in _NEIGHBOURS:
            raise ParameterError(
                f"neighbours must be one of {_NEIGHBOURS}; got neighbours={neighbours!r}"
            )
        self.k = int(k)
        self.s = float(s)
        self.distance = distance
        self.neighbours = neighbours

    # ------------------------------------------------------------------ validation
    @staticmethod
    def _check_X(X: np.ndarray, name: str) -> np.ndarray:
        X = np.asarray(X)
        if X.ndim == 1:
            raise InvalidDataError(
                f"{name} must be 2-D (n_samples x n_features); got a 1-D array of length "
                f"{X.shape[0]}. Use X.reshape(-1, 1) for a single feature"
            )
        if X.ndim != 2:
            raise InvalidDataError(f"{name} must be 2-D; got shape {X.shape}")
        if X.shape[1] == 0:
            raise InvalidDataError(
                f"{name} has no feature columns: no features were selected. ML-kNN needs at "
                "least one feature; lower the selection thresholds (delta1, delta2) or raise "
                "k1/k2 so that the selection keeps some features, or evaluate another feature set"
            )
        if not np.issubdtype(X.dtype, np.number) and X.dtype != bool:
            raise InvalidDataError(f"{name} must be numeric; got dtype {X.dtype}")
        X = X.astype(np.float64, copy=False)
        if not np.all(np.isfinite(X)):
            raise InvalidDataError(
                f"{name} contains NaN or infinite values; discretise or impute the features first"
            )
        return X

    def _check_fitted(self) -> None:
        if not hasattr(self, "prior_"):
            raise NotFittedError("this MLkNN is not fitted yet; call fit(X, Y) first")

    # ------------------------------------------------------------------ distances
    def _encode(self, X: np.ndarray) -> np.ndarray:
        """Hamming: replace values by per-column codes of the training values (-1 = unseen)."""
        codes = np.empty(X.shape, dtype=np.int64)
        for f, values in enumerate(self._values):
            pos = np.searchsorted(values, X[:, f])
            pos_c = np.minimum(pos, len(values) - 1)
            codes[:, f] = np.where(values[pos_c] == X[:, f], pos_c, -1)
        return codes

    def _onehot(self, codes: np.ndarray) -> np.ndarray:
        n = codes.shape[0]
        out = np.zeros((n, self._width), dtype=np.float32)
        rows = np.arange(n)
        for f in range(codes.shape[1]):
            c = codes[:, f]
            seen = c >= 0
            out[rows[seen], self._offsets[f] + c[seen]] = 1.0
        return out

    def _distance_blocks(self, X: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
        """Yield ``(start, D)`` with ``D[i, j]`` the distance of query ``start+i`` to train ``j``."""
        m = self._train.shape[1]
        if self.distance == "euclidean":
            from scipy.spatial.distance import cdist

            for start in range(0, X.shape[0], _BLOCK_ROWS):
                block = X[start : start + _BLOCK_ROWS]
                # Squared distances are computed pair by pair (not via |a|^2+|b|^2-2ab), so
                # equal differences give bit-identical values and ties stay ties.
                yield start, cdist(block, self._train, metric="sqeuclidean")
            return
        codes = self._encode(X)
        int_type = np.int16 if m < np.iinfo(np.int16).max else np.int32
        if self._train_onehot is not None:
            for start in range(0, X.shape[0], _BLOCK_ROWS):
                block = self._onehot(codes[start : start + _BLOCK_ROWS])
                matches = block @ self._train_onehot.T  # exact: integer counts <= m < 2**24
                yield start, (m - np.rint(matches)).astype(int_type)
        else:
            for start in range(0, X.shape[0], _BLOCK_ROWS):
                block = codes[start : start + _BLOCK_ROWS]
                D = np.zeros((block.shape[0], self._train_codes.shape[0]), dtype=int_type)
                for f in range(m):
                    D += block[:, f, None] != self._train_codes[None, :, f]
                yield start, D

    def _neighbours(self, X: np.ndarray, training: bool) -> np.ndarray:
        k = self.k
        n = X.shape[0]
        out = np.empty((n, k), dtype=np.int64)
        take = k + 1 if training else k
        for start, D in self._distance_blocks(X):
            order = np.argsort(D, axis=1, kind="stable")[:, :take]
            if not training:
                out[start : start + D.shape[0]] = order
            elif self.neighbours == "authors":
                out[start : start + D.shape[0]] = order[:, 1:]
            else:  # strict: remove the row's own index (or, if absent, the (k+1)-th)
                own = np.arange(start, start + D.shape[0])[:, None]
                keep = order != own
                no_self = keep.all(axis=1)
                keep[no_self, k] = False
                out[start : start + D.shape[0]] = order[keep].reshape(-1, k)
        return out

    # ------------------------------------------------------------------ API
    def fit(self, X: np.ndarray, Y: np.ndarray) -> MLkNN:
        """Learn priors and neighbour-count likelihoods.

        Parameters
        ----------
        X : array-like of shape (n_train, m)
            Feature values (discrete codes or floats), ``m >= 1``.
        Y : array-like of shape (n_train, q)
            Binary 0/1 labels (use :func:`camcf.evaluation.binarize_labels` for multi-class
            labels). A 1-D array is read as one label.

        Returns
        -------
        MLkNN
            ``self``.

        Raises
        ------
        InvalidDataError
            No feature columns (empty selection), mismatched rows, non-binary labels, NaN.
        ParameterError
            ``k >= n_train``.
        """
        X = self._check_X(X, "X")
        Y = np.asarray(Y)
        if Y.ndim == 1:
            Y = Y[:, None]
        if Y.ndim != 2 or Y.shape[0] != X.shape[0]:
            raise InvalidDataError(
                f"Y must be 2-D with one row per row of X ({X.shape[0]}); got shape {Y.shape}"
            )
        if Y.size and not np.isin(Y, (0, 1)).all():
            raise InvalidDataError(
                "ML-kNN needs binary 0/1 labels; one-hot multi-class labels first with "
                "camcf.evaluation.binarize_labels"
            )
        n = X.shape[0]
        if self.k >= n:
            raise ParameterError(
                f"k must be smaller than the number of training rows ({n}); got k={self.k}"
            )
        Y = Y.astype(np.int64)
        self._train = X
        if self.distance == "hamming":
            self._values = [np.unique(X[:, f]) for f in range(X.shape[1])]
            sizes = np.array([len(v) for v in self._values])
            self._offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
            self._width = int(sizes.sum())
            self._train_codes = self._encode(X)
            self._train_onehot = (
                self._onehot(self._train_codes) if self._width <= _MAX_ONEHOT_WIDTH else None
            )
        self._Y = Y
        k, s = self.k, self.s
        q = Y.shape[1]
        self.prior_ = (s + Y.sum(axis=0)) / (2 * s + n)
        nb = self._neighbours(X, training=True)
        self.train_neighbours_ = nb
        counts = Y[nb].sum(axis=1)  # (n, q): neighbours with label l
        c1 = np.zeros((q, k + 1), dtype=np.int64)
        c0 = np.zeros((q, k + 1), dtype=np.int64)
        for lab in range(q):
            c1[lab] = np.bincount(counts[Y[:, lab] == 1, lab], minlength=k + 1)
            c0[lab] = np.bincount(counts[Y[:, lab] == 0, lab], minlength=k + 1)
        self.c1_, self.c0_ = c1, c0
        self.likelihood1_ = (s + c1) / (s * (k + 1) + c1.sum(axis=1, keepdims=True))
        self.likelihood0_ = (s + c0) / (s * (k + 1) + c0.sum(axis=1, keepdims=True))
        return self

    def kneighbors(self, X: np.ndarray) -> np.ndarray:
        """Indices of the ``k`` nearest training rows of each row of ``X``, nearest first.

        Parameters
        ----------
        X : array-like of shape (n, m)

        Returns
        -------
        ndarray of shape (n, k), int64
            Ties in distance go to the lower training row index.
        """
        self._check_fitted()
        X = self._check_X(X, "X")
        if X.shape[1] != self._train.shape[1]:
            raise InvalidDataError(
                f"X has {X.shape[1]} features but the model was fitted on "
                f"{self._train.shape[1]}; use the same feature columns"
            )
        return self._neighbours(X, training=False)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Posterior ``P(H1_l | E)`` of every label for every row.

        Parameters
        ----------
        X : array-like of shape (n, m)

        Returns
        -------
        ndarray of shape (n, q), float64
        """
        nb = self.kneighbors(X)
        counts = self._Y[nb].sum(axis=1)  # (n, q)
        lab = np.arange(self._Y.shape[1])[None, :]
        p1 = self.prior_[None, :] * self.likelihood1_[lab, counts]
        p0 = (1.0 - self.prior_)[None, :] * self.likelihood0_[lab, counts]
        return p1 / (p1 + p0)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Predicted 0/1 labels: 1 iff the posterior is ``> 0.5``.

        Parameters
        ----------
        X : array-like of shape (n, m)

        Returns
        -------
        ndarray of shape (n, q), int64
        """
        return (self.predict_proba(X) > 0.5).astype(np.int64)

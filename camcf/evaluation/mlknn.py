"""ML-kNN (Zhang & Zhou, 2007), exactly as the project's SPEC fixes it, as a scikit-learn
classifier.

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
* **Ties.** Neighbours are taken in the order of a *stable* ascending sort of the distances, so
  among rows at equal distance the one with the lower training row index comes first.
* **Training neighbours.** ``"strict"`` (default, Zhang & Zhou): a training row is never its own
  neighbour — its own index is removed and the ``k`` nearest of the rest are taken in stable
  order. ``"authors"`` (reproduces the authors' MATLAB code): take the ``k + 1`` nearest training
  rows in stable order and drop the first. When a duplicate of a row exists at a lower index the
  duplicate is dropped instead, and the row itself stays among its own neighbours.
* **Test neighbours.** The ``k`` nearest training rows in stable order.

The neighbours come from :class:`camcf.evaluation.neighbours.NeighbourIndex` (exact; BLAS
products on one-hot codes for Hamming, one search per distinct row).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MultiOutputMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ..errors import InvalidDataError, NotFittedError, ParameterError
from .metrics import _zero_one
from .neighbours import NeighbourIndex
from .settings import KNN_DEFAULTS, KNN_PARAMS, check_knn

__all__ = ["MLkNN"]


class MLkNN(MultiOutputMixin, ClassifierMixin, BaseEstimator):
    """Multi-label k-nearest-neighbour classifier (Zhang & Zhou 2007), a scikit-learn estimator.

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

    The declarations (ranges, help) are :data:`params` =
    :data:`camcf.evaluation.settings.KNN_PARAMS`; they are checked in :meth:`fit` (a
    :class:`camcf.ParameterError` names a bad one).

    Attributes
    ----------
    classes_ : ndarray or list of ndarray
        A 1-D ``y`` (binary): its two classes, the second is the positive one. A 2-D ``Y``
        (multi-label): ``[array([0, 1])] * q``, scikit-learn's multi-output convention.
    prior_ : ndarray of shape (q,)
        ``P(H1_l)`` for each label.
    c1_, c0_ : ndarray of shape (q, k + 1), int64
        ``c1_[l, j]`` / ``c0_[l, j]``: training rows with / without label ``l`` having exactly
        ``j`` neighbours with label ``l``.
    likelihood1_, likelihood0_ : ndarray of shape (q, k + 1)
        ``P(E_j | H1_l)`` and ``P(E_j | H0_l)``.
    train_neighbours_ : ndarray of shape (n_train, k), int64
        Indices of the neighbours of each training row, nearest first.
    n_features_in_ : int

    Notes
    -----
    ``fit(X, Y)`` with a 0/1 label matrix ``Y`` (n × q) is multi-label ML-kNN:
    :meth:`predict_proba` returns the (n, q) posteriors (SPEC's confidence scores) and
    :meth:`predict` the 0/1 matrix. ``fit(X, y)`` with a 1-D ``y`` of two classes is the same
    with one label (``y == classes_[1]``): :meth:`predict_proba` is (n, 2) and :meth:`predict`
    returns classes, as any scikit-learn binary classifier. Multi-class ``y``: one-hot it first
    (:func:`camcf.evaluation.binarize_labels`).

    The estimator tags say ``poor_score``: Hamming distance compares values for equality, so on
    continuous features (scikit-learn's generic checks) every training row is equally far and
    the prediction is the prior's; discretise first (:class:`camcf.discretizer.Discretizer`).

    Examples
    --------
    >>> import numpy as np
    >>> from camcf.evaluation import MLkNN
    >>> X = np.array([[0, 0], [0, 1], [0, 0], [1, 1], [1, 0]])
    >>> Y = np.array([[1, 0], [1, 1], [0, 0], [0, 1], [1, 0]])
    >>> MLkNN(k=2).fit(X, Y).predict(np.array([[0, 0], [1, 1]])).tolist()
    [[1, 0], [1, 0]]
    """

    params = KNN_PARAMS

    def __init__(self, k: int = KNN_DEFAULTS["k"], s: float = KNN_DEFAULTS["s"],
                 distance: str = KNN_DEFAULTS["distance"],
                 neighbours: str = KNN_DEFAULTS["neighbours"]) -> None:
        self.k = k
        self.s = s
        self.distance = distance
        self.neighbours = neighbours

    # ------------------------------------------------------------------ validation
    def _settings(self) -> dict:
        return check_knn(self.get_params(deep=False))

    @staticmethod
    def _no_columns(X) -> None:
        shape = getattr(X, "shape", None)
        if shape is not None and len(shape) == 2 and shape[1] == 0:
            raise InvalidDataError(
                f"X has 0 feature(s) (shape={tuple(shape)}) while a minimum of 1 is required: "
                "no features were selected. ML-kNN needs at least one feature; lower the "
                "selection thresholds (delta1, delta2) or raise k1/k2 so that the selection "
                "keeps some features, or evaluate another feature set")

    def _validate(self, X, Y=None, *, reset: bool):
        """scikit-learn's validation; its ValueErrors become :class:`InvalidDataError` with the
        same message (a TypeError — values that are not numbers — stays a TypeError)."""
        self._no_columns(X)
        try:
            if reset:
                return validate_data(self, X, Y, dtype="numeric", multi_output=True,
                                     y_numeric=False)
            return validate_data(self, X, reset=False, dtype="numeric")
        except ValueError as e:
            raise InvalidDataError(str(e)) from None
        except TypeError as e:
            if "sparse" in str(e).lower():  # a sparse X
                raise InvalidDataError(f"{e} (ML-kNN reads dense arrays)") from None
            raise

    def _labels(self, y) -> np.ndarray:
        """The 0/1 label matrix to learn, setting :attr:`classes_`."""
        Y = np.asarray(y)
        try:
            check_classification_targets(Y)
        except ValueError as e:
            raise InvalidDataError(str(e)) from None
        if Y.ndim == 1:
            classes = np.unique(Y)
            if classes.size > 2:
                raise InvalidDataError(
                    f"Only binary classification is supported. y has {classes.size} classes; "
                    "ML-kNN is a multi-label classifier: give a "
                    "0/1 label matrix (one-hot a multi-class label with "
                    "camcf.evaluation.binarize_labels)")
            if classes.size < 2:
                raise InvalidDataError(
                    "y has only one class; ML-kNN needs two classes, or a 0/1 label matrix")
            self.classes_ = classes
            self._binary = True
            return (Y == classes[1]).astype(np.uint8)[:, None]
        if Y.ndim != 2:
            raise InvalidDataError(f"Y must be 1-D or 2-D (samples × labels); got shape {Y.shape}")
        if Y.size and not _zero_one(Y):
            raise InvalidDataError(
                "ML-kNN needs binary 0/1 labels; one-hot multi-class labels first with "
                "camcf.evaluation.binarize_labels")
        self.classes_ = [np.array([0, 1])] * Y.shape[1]
        self._binary = False
        return Y.astype(np.uint8)

    def _check_fitted(self) -> None:
        try:
            check_is_fitted(self, "prior_")
        except ValueError:  # scikit-learn's NotFittedError
            raise NotFittedError("this MLkNN is not fitted yet; call fit(X, Y) first") from None

    # ------------------------------------------------------------------ API
    def fit(self, X, Y) -> MLkNN:
        """Learn priors and neighbour-count likelihoods.

        Parameters
        ----------
        X : array-like of shape (n_train, m)
            Feature values (discrete codes or floats), ``m >= 1``.
        Y : array-like of shape (n_train, q), or (n_train,)
            Binary 0/1 labels (use :func:`camcf.evaluation.binarize_labels` for multi-class
            labels), or a 1-D ``y`` of two classes.

        Returns
        -------
        MLkNN
            ``self``.

        Raises
        ------
        InvalidDataError
            No feature columns (empty selection), mismatched rows, non-binary labels, NaN.
        ParameterError
            A bad setting, or ``k >= n_train``.
        """
        knn = self._settings()
        shape_x, shape_y = getattr(X, "shape", None), getattr(Y, "shape", None)
        if shape_x is not None and shape_y is not None and shape_x[:1] != shape_y[:1]:
            raise InvalidDataError(
                f"Y must have one row per row of X ({shape_x[0]}); got shape {tuple(shape_y)}")
        X, Y = self._validate(X, Y, reset=True)
        Y = self._labels(Y)
        self._fit_index(NeighbourIndex(X, knn["distance"]), None, Y, knn)
        return self

    def _fit_index(self, index: NeighbourIndex, features, Y: np.ndarray,
                   knn: dict | None = None) -> MLkNN:
        """Learn from the training rows of ``index`` restricted to ``features`` (None: all) and
        the 0/1 label matrix ``Y`` (the evaluation shares one index between feature sets)."""
        knn = knn or self._settings()
        k, s = knn["k"], knn["s"]
        n, q = Y.shape
        if k >= n:
            raise ParameterError(
                f"k must be smaller than the number of training rows (n_samples = {n}); got k={k}",
                name="k", value=k, allowed=f"in [1, {n - 1}]")
        Y = np.ascontiguousarray(Y, dtype=np.uint8)
        self._index, self._features, self._Y = index, features, Y
        self.n_features_in_ = (index.n_features if features is None else len(features))
        nb, inverse = index.search(index.train, k + 1, features)
        rows = nb[inverse]
        if knn["neighbours"] == "authors":
            drop = np.zeros(n, dtype=np.int64)
        else:  # strict: remove the row's own index, or, when it is not among them, the last
            own = rows == np.arange(n)[:, None]
            drop = np.where(own.any(axis=1), own.argmax(axis=1), k)
        keep = np.ones(rows.shape, dtype=bool)
        keep[np.arange(n), drop] = False
        self.train_neighbours_ = rows[keep].reshape(n, k)
        counts = _label_counts(Y, nb)[inverse] - Y[rows[np.arange(n), drop]]
        self.prior_ = (s + Y.sum(axis=0, dtype=np.int64)) / (2 * s + n)
        self.c1_, self.c0_ = _histograms(counts, Y, k)
        self.likelihood1_ = (s + self.c1_) / (s * (k + 1) + self.c1_.sum(axis=1, keepdims=True))
        self.likelihood0_ = (s + self.c0_) / (s * (k + 1) + self.c0_.sum(axis=1, keepdims=True))
        self._k = k
        return self

    def _search(self, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self._index.search(queries, self._k, self._features)

    def _posterior(self, queries: np.ndarray) -> np.ndarray:
        """(n, q) posteriors of rows already in the index's query form."""
        nb, inverse = self._search(queries)
        counts = _label_counts(self._Y, nb)
        lab = np.arange(self._Y.shape[1])[None, :]
        p1 = self.prior_[None, :] * self.likelihood1_[lab, counts]
        p0 = (1.0 - self.prior_)[None, :] * self.likelihood0_[lab, counts]
        return (p1 / (p1 + p0))[inverse]

    def _queries(self, X) -> np.ndarray:
        self._check_fitted()
        return self._index.encode(self._validate(X, reset=False))

    def kneighbors(self, X) -> np.ndarray:
        """Indices of the ``k`` nearest training rows of each row of ``X``, nearest first.

        Parameters
        ----------
        X : array-like of shape (n, m)

        Returns
        -------
        ndarray of shape (n, k), int64
            Ties in distance go to the lower training row index.
        """
        nb, inverse = self._search(self._queries(X))
        return nb[inverse]

    def predict_proba(self, X) -> np.ndarray:
        """Posterior ``P(H1_l | E)`` of every label for every row.

        Parameters
        ----------
        X : array-like of shape (n, m)

        Returns
        -------
        ndarray of shape (n, q), float64
            Multi-label: the posterior of each label (SPEC's confidence scores). Binary (fitted
            on a 1-D ``y``): shape (n, 2), the probabilities of ``classes_[0]`` and
            ``classes_[1]``.
        """
        post = self._posterior(self._queries(X))
        if self._binary:
            return np.column_stack([1.0 - post[:, 0], post[:, 0]])
        return post

    def predict(self, X) -> np.ndarray:
        """Predicted labels: label ``l`` is 1 iff its posterior is ``> 0.5``.

        Parameters
        ----------
        X : array-like of shape (n, m)

        Returns
        -------
        ndarray of shape (n, q), int64 — or, fitted on a 1-D ``y``, shape (n,) of its classes.
        """
        positive = self._posterior(self._queries(X)) > 0.5
        if self._binary:
            return self.classes_[positive[:, 0].astype(np.int64)]
        return positive.astype(np.int64)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.classifier_tags.multi_label = True
        tags.classifier_tags.poor_score = True  # Hamming on continuous data: see Notes
        tags.target_tags.required = True
        tags.target_tags.single_output = True
        tags.target_tags.multi_output = True
        tags.input_tags.sparse = False
        return tags


def _label_counts(Y: np.ndarray, neighbours: np.ndarray) -> np.ndarray:
    """``(u, q)``: for each neighbour list, how many of its rows carry each label."""
    dtype = np.int16 if neighbours.shape[1] < 1 << 15 else np.int64
    out = np.zeros((neighbours.shape[0], Y.shape[1]), dtype=dtype)
    for t in range(neighbours.shape[1]):
        out += Y[neighbours[:, t]]
    return out


def _histograms(counts: np.ndarray, Y: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``c1, c0`` (q × (k + 1)): per label, how many rows with / without it have each count."""
    n, q = Y.shape
    width = 2 * (k + 1)
    hist = np.zeros(q * width, dtype=np.int64)
    base = np.arange(q, dtype=np.int64) * width
    step = max(1, (1 << 22) // max(q, 1))
    dtype = np.int32 if q * width < 1 << 31 else np.int64
    base = base.astype(dtype)
    for start in range(0, n, step):
        c = Y[start:start + step].astype(dtype)
        c *= k + 1
        c += counts[start:start + step]
        c += base
        hist += np.bincount(c.ravel(), minlength=q * width)
    hist = hist.reshape(q, 2, k + 1)
    return np.ascontiguousarray(hist[:, 1]), np.ascontiguousarray(hist[:, 0])

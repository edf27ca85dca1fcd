"""Exact k-nearest training rows for ML-kNN, in SPEC's order (distance, then row index).

:class:`NeighbourIndex` holds one set of training rows and answers "the ``take`` nearest
training rows of each query row, nearest first, ties to the lower training row index" for any
subset of the columns. It is built once per split and shared by every feature set classified on
that split (:mod:`camcf.evaluation.running`); :class:`camcf.evaluation.MLkNN` builds one on its
own training rows.

Hamming distance (the default)
------------------------------
The values of each column are coded by the training values (a value never seen in training gets
no code: it matches no training row). For a column ``f`` with ``V`` training values and a
reference value ``v0`` (code 0), ``[a == b] = [a = v0] + sum_{v != v0} ([a = v] − [a = v0]) [b = v]``,
so the number of matching columns of a query row ``a`` and a training row ``b`` over a column
set ``S`` is ``C_a + q_a · t_b``: ``t_b`` is the training row's one-hot code without the
reference column (width ``V − 1`` per column, one column for a binary feature), ``q_a`` the query
row's entries in {−1, 0, 1} and ``C_a`` its number of reference values. The products of a block
of query rows with every training row are one BLAS call (float32 sums of integers below 2**24
are exact); the distance is ``|S| − matches``. The one-hot training block is built once per
index and sliced for a column subset.

Order and ties
--------------
Each distance becomes the integer key ``distance · n_train + row``; keys are distinct, so the
``take`` smallest keys (``numpy.argpartition``, then a sort of those ``take``) are exactly the
first ``take`` rows of a stable sort of the distances — the order SPEC fixes.

Duplicate query rows
--------------------
Query rows identical on the columns searched have identical distances, hence identical neighbour
lists: each distinct row is searched once (:func:`patterns`), and the answer is shared by its
copies. On discretised data with few selected features (hundreds of distinct rows among
thousands), this removes most of the work.

Euclidean distance and the reference path
-----------------------------------------
Euclidean distances are computed pair by pair (``scipy.spatial.distance.cdist``, squared), so
equal differences give bit-identical values and ties stay ties; the order is a stable sort of
each row. :func:`reference_kneighbors` is that plain method for both distances (every distance,
then a stable sort); it is what Hamming falls back to when the one-hot block would not fit in
:data:`ONEHOT_BUDGET` bytes, and what the tests compare the fast path with.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["ONEHOT_BUDGET", "NeighbourIndex", "patterns", "reference_kneighbors"]

#: Largest one-hot training block (bytes, float32) built for the BLAS path; wider data uses
#: :func:`reference_kneighbors`' column-by-column distances.
ONEHOT_BUDGET = 1 << 30
#: Bytes of distance keys per block of query rows (bounds the working memory of a search).
BLOCK_BYTES = 1 << 25
#: Columns per chunk in the bound of :func:`_smallest`.
CHUNK = 128


def patterns(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a matrix: ``(first, inverse)`` with ``rows[first]`` the distinct
    rows (in no particular order) and ``rows[first][inverse] == rows``. Integers are compared as
    such, floats by value (``-0.0`` equals ``0.0``)."""
    n = rows.shape[0]
    if rows.shape[1] == 0 or n == 0:
        return np.zeros(min(n, 1), dtype=np.int64), np.zeros(n, dtype=np.int64)
    if np.issubdtype(rows.dtype, np.integer):
        lo = int(rows.min())
        span = int(rows.max()) - lo
        dtype = np.uint8 if span < 1 << 8 else np.uint16 if span < 1 << 16 else np.uint32 \
            if span < 1 << 32 else np.uint64
        packed = np.ascontiguousarray((rows - lo).astype(dtype))
    else:
        packed = np.ascontiguousarray(rows, dtype=np.float64) + 0.0  # -0.0 -> 0.0
    keys = packed.view(np.dtype((np.void, packed.dtype.itemsize * packed.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return first.astype(np.int64), inverse.reshape(-1).astype(np.int64)


def _block_rows(n_train: int) -> int:
    return int(max(16, min(4096, BLOCK_BYTES // (12 * max(n_train, 1)))))


def _smallest(keys: np.ndarray, take: int) -> np.ndarray:
    """Column indices of the ``take`` smallest keys of each row (keys distinct within a row),
    smallest first.

    The minimum of every chunk of :data:`CHUNK` columns is computed first; the ``take``-th
    smallest of those minima is a bound ``T`` with at least ``take`` keys ``<= T`` in the row,
    so the ``take`` smallest keys are among the (few) keys ``<= T``, which are then sorted.
    """
    n_rows, n = keys.shape
    n_chunks = n // CHUNK
    if n_chunks < 2 * take:
        part = (np.argpartition(keys, take - 1, axis=1)[:, :take] if take < n
                else np.broadcast_to(np.arange(n), keys.shape))
        order = np.argsort(np.take_along_axis(keys, part, axis=1), axis=1)
        return np.take_along_axis(part, order, axis=1)
    minima = keys[:, :n_chunks * CHUNK].reshape(n_rows, n_chunks, CHUNK).min(axis=2)
    bound = np.partition(minima, take - 1, axis=1)[:, take - 1]
    row, col = np.nonzero(keys <= bound[:, None])
    order = np.lexsort((keys[row, col], row))  # by row, then key
    col = col[order]
    first = np.searchsorted(row[order], np.arange(n_rows))
    return col[first[:, None] + np.arange(take)].astype(np.int64)


def reference_kneighbors(train: np.ndarray, queries: np.ndarray, take: int,
                         distance: str = "hamming") -> np.ndarray:
    """The first ``take`` training rows of a stable sort of each query row's distances.

    The plain method (every distance, then ``numpy.argsort(kind="stable")``), by blocks of query
    rows. Hamming counts unequal values column by column (a query value ``-1`` — unseen in
    training — differs from every training code).

    Parameters
    ----------
    train : ndarray of shape (n_train, m)
    queries : ndarray of shape (n, m)
    take : int
        At most ``n_train``.
    distance : {"hamming", "euclidean"}

    Returns
    -------
    ndarray of shape (n, take), int64
    """
    n_train, m = train.shape
    out = np.empty((queries.shape[0], take), dtype=np.int64)
    step = _block_rows(n_train)
    for start in range(0, queries.shape[0], step):
        block = queries[start:start + step]
        if distance == "euclidean":
            from scipy.spatial.distance import cdist

            # pair by pair (not |a|^2 + |b|^2 - 2ab): equal differences, bit-identical values
            D = cdist(block, train, metric="sqeuclidean")
        else:
            D = np.zeros((block.shape[0], n_train), dtype=np.int32)
            for f in range(m):
                D += block[:, f, None] != train[None, :, f]
        out[start:start + block.shape[0]] = np.argsort(D, axis=1, kind="stable")[:, :take]
    return out


class NeighbourIndex:
    """Training rows, ready for exact nearest-neighbour searches on any subset of columns.

    Parameters
    ----------
    X : ndarray of shape (n_train, m)
        Training rows: any numbers (Hamming compares values for equality).
    distance : {"hamming", "euclidean"}, default "hamming"

    Notes
    -----
    :meth:`encode` turns rows into the index's query form once (e.g. a split's test rows), and
    :meth:`search` answers for a column subset of those. A search returns one neighbour list per
    distinct query row (:func:`patterns`) and the map from rows to lists.
    """

    def __init__(self, X: np.ndarray, distance: str = "hamming") -> None:
        X = np.asarray(X)
        self.distance = distance
        self.n_train, self.n_features = X.shape
        if distance == "euclidean":
            self.train = np.asarray(X, dtype=np.float64)
            return
        self.values = [np.unique(X[:, f]) for f in range(self.n_features)]
        sizes = np.array([v.size for v in self.values], dtype=np.int64)
        #: first column of each feature in the one-hot block (V − 1 columns per feature)
        self.offsets = np.concatenate([[0], np.cumsum(np.maximum(sizes - 1, 0))])
        self.sizes = sizes
        self.train = self.encode(X)
        self._onehot: np.ndarray | None = None

    # ------------------------------------------------------------------ queries
    def encode(self, X: np.ndarray) -> np.ndarray:
        """Rows in the index's query form: Hamming — per column the code of the value among the
        training values (``-1``: never seen in training); Euclidean — float64 values."""
        X = np.asarray(X)
        if self.distance == "euclidean":
            return np.asarray(X, dtype=np.float64)
        width = max((v.size for v in self.values), default=1)
        dtype = np.int16 if width < 1 << 15 else np.int32 if width < 1 << 31 else np.int64
        codes = np.empty(X.shape, dtype=dtype)
        for f, values in enumerate(self.values):
            col = X[:, f]
            pos = np.minimum(np.searchsorted(values, col), len(values) - 1)
            codes[:, f] = np.where(values[pos] == col, pos, -1)
        return codes

    def _columns(self, features: np.ndarray) -> np.ndarray:
        starts, stops = self.offsets[features], self.offsets[features + 1]
        return np.concatenate([np.arange(a, b) for a, b in zip(starts, stops, strict=True)]
                              ) if features.size else np.zeros(0, dtype=np.int64)

    def _onehot_block(self, features: np.ndarray) -> np.ndarray | None:
        """The training rows' one-hot codes (reference value dropped) on ``features``, float32;
        None when the whole block would pass :data:`ONEHOT_BUDGET`."""
        width = int(self.offsets[-1])
        if 4 * self.n_train * width > ONEHOT_BUDGET:
            return None
        if self._onehot is None:
            block = np.zeros((self.n_train, width), dtype=np.float32)
            rows, cols = np.nonzero(self.train > 0)
            block[rows, self.offsets[cols] + self.train[rows, cols] - 1] = 1.0
            self._onehot = block
        if features.size == self.n_features:
            return self._onehot
        return self._onehot[:, self._columns(features)]

    def _query_block(self, codes: np.ndarray, features: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
        """(q, C): the query rows' {−1, 0, 1} entries on the one-hot columns of ``features``
        and their number of reference values (code 0)."""
        sizes = self.sizes[features] - 1
        starts = np.concatenate([[0], np.cumsum(np.maximum(sizes, 0))])
        q = np.zeros((codes.shape[0], int(starts[-1])), dtype=np.float32)
        ref = codes == 0
        for i in range(features.size):
            c = codes[:, i]
            hit = c > 0
            q[np.flatnonzero(hit), starts[i] + c[hit] - 1] = 1.0
            if sizes[i] > 0:
                q[ref[:, i], starts[i]:starts[i + 1]] = -1.0
        return q, ref.sum(axis=1).astype(np.float32)

    def search(self, queries: np.ndarray, take: int,
               features: Sequence[int] | np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
        """The ``take`` nearest training rows of each distinct query row.

        Parameters
        ----------
        queries : ndarray of shape (n, m)
            Rows in query form (:meth:`encode`; the index's own training rows are
            :attr:`train`).
        take : int
            ``1 <= take <= n_train``.
        features : sequence of int, optional
            The columns the distance is measured on (default: all).

        Returns
        -------
        neighbours : ndarray of shape (u, take), int64
            Training row indices, nearest first (ties: lower index first), one row per distinct
            query row.
        inverse : ndarray of shape (n,), int64
            ``neighbours[inverse]`` is the answer for every query row.
        """
        features = (np.arange(self.n_features) if features is None
                    else np.asarray(features, dtype=np.int64))
        sub = queries[:, features]
        first, inverse = patterns(sub)
        distinct = sub[first]
        if self.distance == "euclidean":
            return reference_kneighbors(self.train[:, features], distinct, take,
                                        "euclidean"), inverse
        block = self._onehot_block(features)
        if block is None:
            return reference_kneighbors(self.train[:, features], distinct, take), inverse
        # key of training row j for query row a: j − n · (q_a · t_j). Within a row it orders as
        # distance · n + j (the distance is |S| − C_a − q_a · t_j, C_a constant in the row) and
        # the keys are distinct; float sums of integers are exact below 2**24 (float32) or
        # 2**53 (float64).
        n = self.n_train
        dtype = np.float32 if (features.size + 1) * n < 1 << 24 else np.float64
        block = block.astype(dtype, copy=False)
        rows = np.arange(n, dtype=dtype)
        out = np.empty((distinct.shape[0], take), dtype=np.int64)
        step = _block_rows(n)
        for start in range(0, distinct.shape[0], step):
            q, _ = self._query_block(distinct[start:start + step], features)
            keys = (q.astype(dtype, copy=False) * -float(n)) @ block.T
            keys += rows
            out[start:start + keys.shape[0]] = _smallest(keys, take)
        return out, inverse

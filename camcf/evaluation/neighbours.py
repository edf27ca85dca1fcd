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
#: Largest share of non-zero entries for which query rows are multiplied as a sparse matrix
#: (scipy's CSR product); denser ones go to BLAS.
SPARSE_DENSITY = 0.1
#: Rows per block in the training rows' symmetric products (a block pair's product is
#: SQUARE_BLOCK² floats).
SQUARE_BLOCK = 2048


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


def _integer_codes(X: np.ndarray) -> tuple[int, np.ndarray] | None:
    """For integers spanning at most 1,024 values: ``(lo, table)`` with ``table[f, v − lo]``
    the code of value ``v`` in column ``f`` (its rank among the column's values; −1: absent).
    None for other data."""
    if not np.issubdtype(X.dtype, np.integer) or X.size == 0:
        return None
    lo, hi = int(X.min()), int(X.max())
    span = hi - lo + 1
    if span > 1024 or span * X.shape[1] > 1 << 24:
        return None
    shifted = (X.astype(np.int64) - lo) + np.arange(X.shape[1]) * span
    present = (np.bincount(shifted.ravel(), minlength=span * X.shape[1]) > 0).reshape(-1, span)
    table = np.where(present, np.cumsum(present, axis=1) - 1, -1)
    return lo, table


def _block_rows(n_train: int) -> int:
    return int(max(16, min(4096, BLOCK_BYTES // (12 * max(n_train, 1)))))


def _smallest(keys: np.ndarray, take: int) -> np.ndarray:
    """Column indices of the ``take`` smallest keys of each row (keys distinct within a row),
    smallest first.

    The columns are cut into chunks (at most :data:`CHUNK` columns) and each chunk's minimum is
    taken; a key among the row's ``take`` smallest lies in one of the ``take`` chunks with the
    smallest minima (else ``take`` chunk minima, all distinct keys, would be smaller), or in
    the columns after the last whole chunk. Only those candidates are sorted.
    """
    n_rows, n = keys.shape
    chunk = min(CHUNK, int(2 * np.sqrt(n / take)))  # balances minima and candidates
    n_chunks = n // chunk if chunk >= 4 else 0
    if n_chunks < 2 * take:
        return _sorted_smallest(keys, take)
    minima = keys[:, :n_chunks * chunk].reshape(n_rows, n_chunks, chunk).min(axis=2)
    chunks = np.argpartition(minima, take - 1, axis=1)[:, :take]
    cols = (chunks[:, :, None] * chunk + np.arange(chunk)).reshape(n_rows, take * chunk)
    if n_chunks * chunk < n:
        tail = np.arange(n_chunks * chunk, n)
        cols = np.concatenate([cols, np.broadcast_to(tail, (n_rows, tail.size))], axis=1)
    best = _sorted_smallest(np.take_along_axis(keys, cols, axis=1), take)
    return np.take_along_axis(cols, best, axis=1)


def _sorted_smallest(keys: np.ndarray, take: int) -> np.ndarray:
    if take < keys.shape[1]:
        part = np.argpartition(keys, take - 1, axis=1)[:, :take]
    else:
        part = np.broadcast_to(np.arange(keys.shape[1]), keys.shape)
    order = np.argsort(np.take_along_axis(keys, part, axis=1), axis=1)
    return np.take_along_axis(part, order, axis=1)


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
        self._lut = _integer_codes(X)
        if self._lut is not None:  # small integers (e.g. a fold's codes): a look-up table
            lo, table = self._lut
            self.values = [lo + np.flatnonzero(row >= 0) for row in table]
        else:
            self.values = [np.unique(X[:, f]) for f in range(self.n_features)]
        self.sizes = np.array([v.size for v in self.values], dtype=np.int64)
        #: one-hot columns per feature: none (constant), one (binary: "is the second value"),
        #: or one per value
        self.widths = np.where(self.sizes == 2, 1, np.where(self.sizes == 1, 0, self.sizes))
        self.offsets = np.concatenate([[0], np.cumsum(self.widths)])
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
        if self._lut is not None and np.issubdtype(X.dtype, np.integer) and X.size:
            lo, table = self._lut
            pos = X.astype(np.int64) - lo
            inside = (pos >= 0) & (pos < table.shape[1])
            pos = np.where(inside, pos, 0) + np.arange(X.shape[1]) * table.shape[1]
            return np.where(inside, table.ravel()[pos], -1).astype(dtype)
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
        """``P``: the training rows' one-hot codes on ``features`` (a binary feature: one column,
        1 for its second value), float32; None when the whole block would pass
        :data:`ONEHOT_BUDGET`."""
        width = int(self.offsets[-1])
        if 4 * self.n_train * width > ONEHOT_BUDGET:
            return None
        if self._onehot is None:
            block = np.zeros((self.n_train, width), dtype=np.float32)
            t = self.train
            rows, cols = np.nonzero((t > 0) | (self.sizes > 2)[None, :])
            codes = t[rows, cols]
            block[rows, self.offsets[cols] + np.where(self.sizes[cols] == 2, 0, codes)] = 1.0
            self._onehot = block
        if features.size == self.n_features:
            return self._onehot
        return self._onehot[:, self._columns(features)]

    def _query_block(self, codes: np.ndarray, features: np.ndarray, dtype):
        """``Q``: the query rows ``codes`` (on ``features``) in the form that makes the key of
        training row ``b`` ``n · (|u_b| − Q_a · P_b) + b`` (module docstring): a binary feature's
        column holds 2 for its second value, 1 for a value never seen in training, 0 for the
        first value; any other feature its one-hot code (nothing when unseen). A CSR matrix when
        at most :data:`SPARSE_DENSITY` of it is non-zero, else a dense array."""
        import scipy.sparse as sp

        sizes = self.sizes[features]
        widths = self.widths[features]
        starts = np.concatenate([[0], np.cumsum(widths)])[:-1]
        binary, multi = np.flatnonzero(sizes == 2), np.flatnonzero(sizes > 2)
        cb, cm = codes[:, binary], codes[:, multi]
        r1, f1 = np.nonzero(cb != 0)
        r2, f2 = np.nonzero(cm >= 0)
        rows = np.concatenate([r1, r2])
        cols = np.concatenate([starts[binary][f1], starts[multi][f2] + cm[r2, f2]])
        vals = np.concatenate([np.where(cb[r1, f1] == 1, 2.0, 1.0), np.ones(r2.size)])
        shape = (codes.shape[0], int(widths.sum()))
        if rows.size <= SPARSE_DENSITY * shape[0] * shape[1]:
            return sp.csr_matrix((vals.astype(dtype), (rows, cols)), shape=shape)
        q = np.zeros(shape, dtype=dtype)
        q[rows, cols] = vals
        return q

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
        # exact: the float sums are of integers below 2**24 (float32) or 2**53 (float64)
        n = self.n_train
        dtype = np.float32 if (2 * features.size + 2) * n < 1 << 24 else np.float64
        block = block.astype(dtype, copy=False)
        binary = (self.sizes[features] == 2)[np.repeat(np.arange(features.size),
                                                       self.widths[features])]
        base = block[:, binary].sum(axis=1, dtype=dtype) * n + np.arange(n, dtype=dtype)
        if queries is self.train and 2 * distinct.shape[0] > n:
            return self._search_training_rows(block, base, features, take, dtype), \
                np.arange(n, dtype=np.int64)
        out = np.empty((distinct.shape[0], take), dtype=np.int64)
        step = _block_rows(n)
        columns = np.ascontiguousarray(block.T)  # the right operand of every product
        for start in range(0, distinct.shape[0], step):
            q = self._query_block(distinct[start:start + step], features, dtype)
            keys = base - n * np.asarray(q @ columns)
            out[start:start + keys.shape[0]] = _smallest(keys, take)
        return out, inverse

    def _search_training_rows(self, block: np.ndarray, base: np.ndarray,
                              features: np.ndarray, take: int, dtype) -> np.ndarray:
        """Every training row against every training row: ``Q_a · P_b`` is symmetric here (a
        training row's ``Q`` is its ``P`` with the binary columns doubled), so one product per
        pair of row blocks is read both ways."""
        n = self.n_train
        best = np.full((n, take), np.inf, dtype=dtype)
        where = np.zeros((n, take), dtype=np.int64)
        step = max(1, min(n, SQUARE_BLOCK))
        starts = list(range(0, n, step))
        for i, a in enumerate(starts):
            ia = slice(a, min(a + step, n))
            q = self._query_block(self.train[ia][:, features], features, dtype)
            for b in starts[i:]:
                ib = slice(b, min(b + step, n))
                G = n * np.asarray(q @ np.ascontiguousarray(block[ib].T))
                _merge(best, where, ia, base[ib] - G, b, take)
                if b != a:
                    _merge(best, where, ib, base[ia] - G.T, a, take)
        return where


def _merge(best: np.ndarray, where: np.ndarray, rows: slice, keys: np.ndarray, first: int,
           take: int) -> None:
    """Fold a block of keys (columns ``first``, ``first + 1``, …) into the running ``take``
    smallest keys (``best``) and their columns (``where``) of ``rows``."""
    top = _smallest(keys, min(take, keys.shape[1]))
    k = np.concatenate([best[rows], np.take_along_axis(keys, top, axis=1)], axis=1)
    j = np.concatenate([where[rows], top + first], axis=1)
    order = np.argsort(k, axis=1)[:, :take]
    best[rows] = np.take_along_axis(k, order, axis=1)
    where[rows] = np.take_along_axis(j, order, axis=1)

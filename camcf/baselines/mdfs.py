"""MDFS — manifold regularised discriminative feature selection (Zhang et al., Pattern Recognit.
95, 2019), following the author's own MATLAB code (jiazhang-ml/MDFS) wherever it and the paper
differ.

The rule. With X (n × d) the data, Y (n × q) the labels in {−1, +1}, H = I − 11ᵀ/n the centring
matrix, L the Laplacian of the instance kNN graph and L0 that of the label graph, MDFS minimises

    tr(FᵀLF) + α‖HXW − HF‖²_F + α‖F − Y‖²_F + β tr(F L0 Fᵀ) + γ Σ_i √(‖wᵢ‖² + ε)

over F (n × q) and W (d × q), alternating

* F: the Sylvester equation A·F + F·B + C = 0 with A = L + αH + αI, B = βL0,
  C = −αHXW − αY (MATLAB ``lyap(A, B, C)``; here F solves A·F + F·B = −C);
* W: W = (αXᵀHX + γD + εI)⁻¹ αXᵀHF with D = diag(0.5 / √(‖wᵢ‖² + ε)) from the previous W,

starting from W = ``rand(d, q)`` (a seeded numpy Generator), and stops at the first iteration
after the first whose relative objective change is below 10⁻³. Features are ranked by ‖wᵢ‖²,
descending, ties to the lower index. ε is the machine epsilon (MATLAB ``eps``).

The graphs (``Laplacian_GK`` of the author's code): every point is linked, with weight 1, to the
k points that follow the first one in its row of Euclidean distances sorted stably (the first
sorted point is dropped as "the point itself"; when an earlier duplicate sorts first the point
itself stays in the list as a self-loop, which a Laplacian ignores); W = (W + Wᵀ)/2, L = D − W.
k = q − 1 for both graphs (the author's demo): the instance graph over the n rows of X and the
label graph over the q columns of Y (with k = q − 1, complete apart from the dropped point).

Parity notes (what differs from the author's code, and why):

* the random start: MATLAB's ``rand`` stream cannot be reproduced; the seed is ``random_state``.
  With the loose stopping rule the seed moves the ranking a little (top-10 overlap 8–10).
* the Sylvester equation is solved through the eigendecompositions of the symmetric A and B,
  computed once, instead of a Schur decomposition at every iteration (``lyap``); the solution is
  the same up to rounding (the tests compare it with ``scipy.linalg.solve_sylvester``).
* when d > n the W-update uses the push-through identity
  (Dg + αXcᵀXc)⁻¹Xcᵀ = Dg⁻¹Xcᵀ(I + αXc Dg⁻¹Xcᵀ)⁻¹ (an n × n solve instead of d × d); same
  solution up to rounding.
* k is capped at n − 1 (the author's code fails when k + 1 > n); the author's loop has no
  iteration cap, here ``max_iter`` (default 1000) stops a run that never meets the rule.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from ..limits import check_memory
from . import params as _declared
from ._base import RankingSelector

EPS = float(np.finfo(float).eps)

#: rows of distances computed at once in the neighbour searches (bounded memory)
_BLOCK_BYTES = 64 * 2**20


def sorted_neighbours(P: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """For each row of P (points × dims), the ``count`` nearest points (itself included) by
    squared Euclidean distance, sorted stably (ties: the lower index first).

    Distances are ‖a‖² + ‖b‖² − 2a·b clipped at 0, as the authors' MATLAB helpers compute them;
    on integer data this is exact in float64 (so ties are found exactly). Returns (indices,
    squared distances), both (points × count). Memory is bounded by computing blocks of rows.
    """
    P = np.asarray(P, dtype=float)
    n = P.shape[0]
    count = min(count, n)
    sq = np.einsum("ij,ij->i", P, P)
    idx = np.empty((n, count), dtype=np.intp)
    dist = np.empty((n, count))
    block = max(1, _BLOCK_BYTES // (8 * max(n, 1)))
    for start in range(0, n, block):
        stop = min(n, start + block)
        D = sq[start:stop, None] + sq[None, :] - 2.0 * (P[start:stop] @ P.T)
        np.maximum(D, 0.0, out=D)
        order = np.argsort(D, axis=1, kind="stable")[:, :count]
        idx[start:stop] = order
        dist[start:stop] = np.take_along_axis(D, order, axis=1)
    return idx, dist


def knn_laplacian(P: np.ndarray, k: int) -> np.ndarray:
    """Laplacian (points × points, dense) of the 0/1 kNN graph of ``Laplacian_GK``: each point
    linked to the k points after the first in its stably sorted distance row, W symmetrised by
    (W + Wᵀ)/2, L = D − W. k is capped at points − 1."""
    n = P.shape[0]
    k = max(0, min(k, n - 1))
    W = np.zeros((n, n))
    if k > 0:
        nb = sorted_neighbours(P, k + 1)[0][:, 1:]
        W[np.repeat(np.arange(n), k), nb.ravel()] = 1.0
    W = (W + W.T) / 2.0
    L = -W
    L[np.diag_indices(n)] += W.sum(axis=1)
    return L


def signed_labels(Y: np.ndarray) -> np.ndarray:
    """Labels as −1/+1 (the authors' convention): values > 0 become +1, all others −1."""
    return np.where(np.asarray(Y, dtype=float) > 0, 1.0, -1.0)


def solve_f(eig_a: tuple[np.ndarray, np.ndarray], eig_b: tuple[np.ndarray, np.ndarray],
            rhs: np.ndarray) -> np.ndarray:
    """F with A·F + F·B = rhs, A = U diag(λ) Uᵀ and B = V diag(μ) Vᵀ symmetric (given as
    ``np.linalg.eigh`` results) with λᵢ + μⱼ ≠ 0: F = U [(Uᵀ·rhs·V) / (λᵢ + μⱼ)] Vᵀ. Equals
    ``scipy.linalg.solve_sylvester(A, B, rhs)`` (MATLAB ``lyap(A, B, -rhs)``)."""
    lam, U = eig_a
    mu, V = eig_b
    return U @ ((U.T @ rhs @ V) / (lam[:, None] + mu[None, :])) @ V.T


def update_w(Xc: np.ndarray, F: np.ndarray, dg: np.ndarray, alpha: float,
             G: np.ndarray | None = None,
             sparse_x: tuple[sp.csr_matrix, np.ndarray] | None = None) -> np.ndarray:
    """W = (α·XcᵀXc + diag(dg))⁻¹ α·XcᵀF for centred Xc (n × d), F (n × q), dg (d,) > 0.

    With ``G`` = α·XcᵀXc given, a d × d solve; without it, the push-through identity
    (diag(dg) + αXcᵀXc)⁻¹Xcᵀ = dg⁻¹Xcᵀ(I + αXc dg⁻¹Xcᵀ)⁻¹, an n × n solve (for d > n). With
    ``sparse_x`` = (X as CSR, column means), Xc dg⁻¹Xcᵀ is formed from the sparse X and rank-one
    corrections (the same matrix, far fewer operations on sparse data)."""
    if G is not None:
        M = G.copy()
        M[np.diag_indices(len(dg))] += dg
        return scipy.linalg.solve(M, alpha * (Xc.T @ F), assume_a="pos")
    inv = 1.0 / dg
    if sparse_x is not None:
        Xs, mean = sparse_x
        XD = Xs.multiply(inv[None, :]).tocsr()
        K = np.asarray((XD @ Xs.T).todense())
        v = XD @ mean                                  # X dg⁻¹ m
        K -= v[:, None] + v[None, :] - float(mean @ (inv * mean))
    else:
        K = (Xc * inv) @ Xc.T
    M = alpha * K
    M[np.diag_indices(len(Xc))] += 1.0
    return alpha * (inv[:, None] * (Xc.T @ scipy.linalg.solve(M, F, assume_a="pos")))


def mdfs_solve(X: np.ndarray, Y: np.ndarray, *, alpha: float = 1.0, beta: float = 1.0,
               gamma: float = 100.0, k: int | None = None, random_state: int | None = 0,
               tol: float = 1e-3, max_iter: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """Run MDFS on X (n × d, float) and Y (n × q, −1/+1). Returns (W (d × q), objective values,
    one per iteration). ``k`` defaults to q − 1."""
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    n, d = X.shape
    q = Y.shape[1]
    k = q - 1 if k is None else k
    check_memory(8.0 * (4 * n * n + min(n, d) ** 2 + 4 * n * d),
                 f"MDFS on {n} samples × {d} features (dense n × n graph matrices)")

    L = knn_laplacian(X, k)
    L0 = knn_laplacian(Y.T, k)
    H = np.eye(n) - 1.0 / n
    A = L + alpha * H + alpha * np.eye(n)
    eig_a = np.linalg.eigh(A)
    eig_b = np.linalg.eigh(beta * L0)

    Xc = X - X.mean(axis=0)                 # H X
    G = alpha * (Xc.T @ Xc) if d <= n else None
    sparse_x = None
    if G is None and np.count_nonzero(X) <= 0.1 * X.size:
        sparse_x = (sp.csr_matrix(X), X.mean(axis=0))

    rng = np.random.default_rng(random_state)
    W = rng.random((d, q))
    objective: list[float] = []
    obji = 1.0
    it = 1
    while True:
        # F-update: A F + F B + C = 0 with C = -alpha (H X W + Y)
        F = solve_f(eig_a, eig_b, alpha * (Xc @ W + Y))
        Fc = F - F.mean(axis=0)             # H F
        W = update_w(Xc, F, gamma * (0.5 / np.sqrt(np.einsum("ij,ij->i", W, W) + EPS)) + EPS,
                     alpha, G, sparse_x)
        R = Xc @ W - Fc
        obj = (np.einsum("ij,ij->", F, L @ F) + alpha * np.einsum("ij,ij->", R, R)
               + alpha * np.sum((F - Y) ** 2) + beta * np.einsum("ij,ij->", F @ L0, F)
               + gamma * np.sum(np.sqrt(np.einsum("ij,ij->i", W, W) + EPS)))
        objective.append(float(obj))
        cver = abs((obj - obji) / obji)
        obji = obj
        it += 1
        if (cver < tol and it > 2) or it > max_iter:
            break
    return W, np.asarray(objective)


class MDFS(RankingSelector):
    """MDFS (Zhang et al. 2019) as its author's code runs it; ranks features by ‖wᵢ‖².

    Parameters: ``alpha``, ``beta``, ``gamma`` (the author's demo: 1, 1, 100), ``k`` (neighbours
    in both graphs; None = q − 1, the demo's choice), ``random_state`` (seed of the random start
    W = rand(d, q)), ``max_iter``, ``n_features_to_select``. Labels 0/1 (or −1/+1) are mapped to
    −1/+1; features are used as given (integer codes or floats).

    Attributes after ``fit``: ``ranking_`` (all features, 0-based, best first), ``scores_``
    (‖wᵢ‖² per feature), ``coef_`` (W, d × q), ``objective_`` (one value per iteration),
    ``n_iter_``.
    """

    params = _declared.MDFS

    def __init__(self, alpha: float = 1.0, beta: float = 1.0, gamma: float = 100.0,
                 k: int | None = None, random_state: int | None = 0, max_iter: int = 1000,
                 n_features_to_select: int | float | None = None) -> None:
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma
        self.k = k
        self.random_state = random_state
        self.max_iter = max_iter
        self.n_features_to_select = n_features_to_select

    def fit(self, X, Y) -> MDFS:
        """Fit on X (n_samples × n_features) and Y (n_samples × n_labels, or 1-D: one label)."""
        p = self._checked_params()
        X, Y = self._validate_xy(X, Y)
        W, obj = mdfs_solve(X, signed_labels(Y), alpha=p["alpha"], beta=p["beta"],
                            gamma=p["gamma"], k=p["k"], random_state=p["random_state"],
                            max_iter=p["max_iter"])
        self.coef_ = W
        self.objective_ = obj
        self.n_iter_ = len(obj)
        self.scores_ = np.einsum("ij,ij->i", W, W)
        self.ranking_ = np.argsort(-self.scores_, kind="stable")
        return self

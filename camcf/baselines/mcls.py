"""MCLS — manifold-based constraint Laplacian score (Huang, Jiang & Sun, Pattern Recognit. Lett.
112, 2018), following the authors' MIT-licensed MATLAB code (RuiHuang2018/MCLS-code).

The rule, with knear = 5 neighbours, X (n × m) the raw data and Y (n × q) the labels in {−1, +1}:

1. Label manifold (the ML² construction the code borrows). For every sample i, its K = knear
   nearest samples (Euclidean, the first sorted point dropped as "the point itself", ties to the
   lower index) give the local Gram matrix Z = (x_j − x_i)(x_l − x_i)ᵀ (K × K); the weights w
   solve Z·w = 1 and are scaled to sum to 1. Like the code, Z is regularised by
   10⁻³·trace(Z)·I only when K > m. With M = (I − W)ᵀ(I − W), each label k gets the numerical
   labels μ_k = argmin μᵀMμ subject to y_ik·μ_ik ≥ 1 (a convex QP with one-sided bounds per
   coordinate; solved here by projected Newton on ν = y∘μ ≥ 1, see :func:`_bounded_qp`).
2. Affinity: W = W_PKN(X) ∘ W_PKN(rows of MU normalised to unit length), where W_PKN is the
   "probabilistic k-nearest neighbours" graph: for point i with its k + 1 nearest points after
   the first sorted one at squared distances d₁ ≤ … ≤ d_{k+1},
   W_ij = (d_{k+1} − d_j) / (k·d_{k+1} − Σ_{l≤k} d_l + ε), then (W + Wᵀ)/2.
3. Score: the code's ``LaplacianScore`` on X with every sample (row) scaled to unit length
   (``NormalizeFea``; rows of norm < 10⁻⁷ stay put), with D = diag(W·1):
   L′_f = fᵀWf − (fᵀD1)²/1ᵀD1, D′_f = fᵀDf − (fᵀD1)²/1ᵀD1, D′ < 10⁻¹² replaced by 10000,
   score = L′/D′ (larger is better), times the constraint ratio fᵀL_M f / fᵀL_C f on the raw
   feature f, where L_M is the Laplacian of the binary knear-NN graph of the raw data (the
   knear + 1 nearest points including the point itself, self-loops removed, symmetric by max)
   and L_C that of its complement (ones − W_M, diagonal included).
4. Rank by the product, descending; ties to the lower index; undefined scores (0/0, e.g. a
   constant feature) last, as MATLAB's sort puts NaN.

Parity notes (what differs from the authors' code, and why):

* Singular local Gram matrices. The code solves Z·w = 1 without regularisation; Z is singular
  when neighbours duplicate the point or are linearly dependent (common with integer codes),
  and there MATLAB's backslash returns Inf/NaN or arbitrary numbers (Octave differs again), which
  the code then zeroes in M. Here a Z with smallest singular value ≤ K·ε·largest is regularised
  by 10⁻³·trace(Z)·I (the code's own regulariser for K > m), and when all K neighbours
  coincide with the point (trace 0) the weights are 1/K. Results match the code only where every
  Z is well posed. ``n_singular_`` counts the samples concerned.
* The QP is solved by projected Newton (projected gradient ≤ 10⁻¹⁰ relative) instead of
  MATLAB's ``quadprog`` (interior point); both reach the optimum up to their tolerances (checked
  against an exact active-set solver in the tests). Where the optimum is not unique (e.g. a label
  of one sign only: any μ = c·y with c ≥ 1) the two may return different optimal points; here
  the search starts from μ = y and a tiny ridge on singular Newton systems keeps it near there.
* Neighbour searches use ‖a‖² + ‖b‖² − 2a·b, as the code's ``EuDist2``/``L2_distance_1`` do;
  the code's ``knnsearch`` (step 1) uses exact differences and, for m ≤ 10, a k-d tree whose
  order among equal distances may differ. On integer data all distances are exact.
* knear is capped at n − 2 for tiny samples (the code fails there).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from ..errors import InvalidDataError
from . import params as _declared
from ._base import RankingSelector
from .mdfs import EPS, signed_labels, sorted_neighbours

#: samples whose local Gram matrices are built at once (bounded memory)
_GRAM_BLOCK_BYTES = 64 * 2**20


def pkn_graph(P: np.ndarray, k: int) -> sp.csr_matrix:
    """The authors' ``constructW_PKN(P', k, 1)`` on the rows of P (points × dims): sparse,
    symmetric (points × points)."""
    n = P.shape[0]
    idx, dist = sorted_neighbours(P, k + 2)
    nb, d = idx[:, 1:k + 2], dist[:, 1:k + 2]
    last = d[:, k:k + 1]
    w = (last - d) / (k * last - d[:, :k].sum(axis=1, keepdims=True) + EPS)
    W = sp.csr_matrix((w.ravel(), (np.repeat(np.arange(n), k + 1), nb.ravel())), shape=(n, n))
    return ((W + W.T) / 2.0).tocsr()


def local_weights(X: np.ndarray, K: int) -> tuple[sp.csr_matrix, int]:
    """The authors' ``estimate_top_struct(X, K)``: reconstruction weights of each sample from
    its K nearest samples (rows sum to 1), with the regularisation of singular local Gram
    matrices described in the module docstring. Returns (W, number of regularised samples)."""
    n, m = X.shape
    nb = sorted_neighbours(X, K + 1)[0][:, 1:]
    tol = 1e-3 if K > m else 0.0
    weights = np.empty((n, K))
    n_singular = 0
    block = max(1, _GRAM_BLOCK_BYTES // (8 * K * max(m, 1)))
    eye = np.eye(K)
    for start in range(0, n, block):
        stop = min(n, start + block)
        z = X[nb[start:stop]] - X[start:stop, None, :]          # (b, K, m)
        Z = np.einsum("bkm,blm->bkl", z, z)
        tr = np.trace(Z, axis1=1, axis2=2)
        Z = Z + eye * (tol * tr)[:, None, None]
        s = np.linalg.svd(Z, compute_uv=False)
        bad = s[:, -1] <= s[:, 0] * K * EPS
        if bad.any():
            n_singular += int(bad.sum())
            Z[bad] += eye * (1e-3 * tr[bad])[:, None, None]
        w = np.full((stop - start, K), 1.0 / K)
        ok = tr > 0
        w[ok] = np.linalg.solve(Z[ok], np.ones((int(ok.sum()), K, 1)))[:, :, 0]
        weights[start:stop] = w / w.sum(axis=1, keepdims=True)
    W = sp.csr_matrix((weights.ravel(), (np.repeat(np.arange(n), K), nb.ravel())), shape=(n, n))
    return W, n_singular


def _bounded_qp(M: sp.csr_matrix, y: np.ndarray, *, max_iter: int = 500,
                rtol: float = 1e-10) -> np.ndarray:
    """argmin μᵀMμ subject to y∘μ ≥ 1 (M symmetric PSD, sparse; y in {−1, +1}).

    Projected Newton (Bertsekas 1982) on ν = y∘μ ≥ 1 from ν = 1: the binding set is
    {ν_i = 1 and ∂f/∂ν_i > 0}; on the other coordinates an exact Newton step (sparse LU of
    M_FF + δI, δ = 10⁻¹² · max diag, which keeps the step defined where M_FF is singular), then an
    Armijo search along the projected path. Stops when the projected gradient is at most
    ``rtol`` × the initial gradient (inf-norms), or when a step lowers the objective by less
    than 10⁻¹⁴ of its value (optimal to rounding); every step decreases the objective.
    """
    n = len(y)
    nu = np.ones(n)

    def f_g(v):
        mu = y * v
        Mm = M @ mu
        return float(mu @ Mm), 2.0 * y * Mm

    f, g = f_g(nu)
    scale = max(1.0, float(np.abs(g).max()))
    for _ in range(max_iter):
        free = np.flatnonzero(~((nu <= 1.0 + 1e-12) & (g > 0)))
        if not len(free) or float(np.abs(g[free]).max()) <= rtol * scale:
            break
        Mff = M[free][:, free].tocsc()
        Mff = Mff + (1e-12 * max(1.0, float(Mff.diagonal().max()))) * sp.identity(
            len(free), format="csc")
        yf = y[free]
        step = np.zeros(n)
        step[free] = yf * splu(Mff, permc_spec="MMD_AT_PLUS_A").solve(-(yf * g[free]) / 2.0)
        t = 1.0
        while True:
            new = np.maximum(1.0, nu + t * step)
            fn, gn = f_g(new)
            if fn <= f + 1e-4 * float(g @ (new - nu)) or t < 1e-12:
                break
            t *= 0.5
        if fn > f:
            break
        stalled = f - fn <= 1e-14 * abs(f)
        nu, f, g = new, fn, gn
        if stalled:   # the objective is at its optimum to rounding (singular M_FF)
            break
    return y * nu


def label_manifold(Ys: np.ndarray, W: sp.csr_matrix) -> np.ndarray:
    """The authors' ``build_label_manifold(Y, W, 1)``: per label, argmin μᵀMμ subject to
    y·μ ≥ 1 with M = (I − W)ᵀ(I − W). Ys (n × q) in {−1, +1}; returns MU (n × q)."""
    n, q = Ys.shape
    A = (sp.identity(n, format="csr") - W).tocsr()
    M = (A.T @ A).tocsr()
    MU = np.empty((n, q))
    for k in range(q):
        MU[:, k] = _bounded_qp(M, Ys[:, k])
    return MU


def normalize_rows(P: np.ndarray) -> np.ndarray:
    """``NormalizeFea(P)`` with its default: every row scaled to unit length (norm floored at
    10⁻⁷, so zero rows stay zero)."""
    return P / np.sqrt(np.maximum(1e-14, np.einsum("ij,ij->i", P, P)))[:, None]


def laplacian_score(Xn: np.ndarray, W: sp.csr_matrix) -> np.ndarray:
    """The code's ``LaplacianScore(X, W)``: L′/D′ per feature (larger is better)."""
    D = np.asarray(W.sum(axis=1)).ravel()
    tmp1 = D @ Xn
    total = D.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        c = tmp1 * tmp1 / total
        dprime = D @ (Xn * Xn) - c
        lprime = np.einsum("ij,ij->j", Xn, W @ Xn) - c
        dprime[dprime < 1e-12] = 10000.0
        return lprime / dprime


def constraint_ratio(X: np.ndarray, k: int) -> np.ndarray:
    """fᵀL_M f / fᵀL_C f per raw feature f: L_M from the binary kNN graph (``constructW`` with
    KNN/Binary, self-loops removed, max-symmetric), L_C from its complement ones − W_M."""
    n = X.shape[0]
    nb = sorted_neighbours(X, k + 1)[0]
    Wm = sp.csr_matrix((np.ones(nb.size), (np.repeat(np.arange(n), nb.shape[1]), nb.ravel())),
                       shape=(n, n))
    Wm.setdiag(0)
    Wm.eliminate_zeros()
    Wm = Wm.maximum(Wm.T).tocsr()
    deg = np.asarray(Wm.sum(axis=1)).ravel()
    X2 = X * X
    fwf = np.einsum("ij,ij->j", X, Wm @ X)
    num = deg @ X2 - fwf
    s = X.sum(axis=0)
    den = (n - deg) @ X2 - s * s + fwf
    with np.errstate(divide="ignore", invalid="ignore"):
        return num / den


def mcls_scores(X: np.ndarray, Ys: np.ndarray, knear: int = 5) -> tuple[np.ndarray, int]:
    """MCLS scores of the columns of X (n × m, float) for labels Ys (n × q, −1/+1). Returns
    (scores (m,), number of samples whose local Gram matrix was regularised)."""
    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    if n < 3:
        raise InvalidDataError(f"MCLS needs at least 3 samples; got {n} sample(s). Use more "
                               f"samples")
    k = min(knear, n - 2)
    Wx = pkn_graph(X, k)
    Wada, n_singular = local_weights(X, k)
    MU = label_manifold(np.asarray(Ys, dtype=float), Wada)
    Wl = pkn_graph(normalize_rows(MU), k)
    W = Wx.multiply(Wl).tocsr()
    score = laplacian_score(normalize_rows(X), W) * constraint_ratio(X, k)
    return score, n_singular


class MCLS(RankingSelector):
    """MCLS (Huang, Jiang & Sun 2018) as its authors' code runs it.

    Parameters: ``knear`` (neighbours in every graph, the authors' 5), ``n_features_to_select``.
    Labels 0/1 (or −1/+1) are mapped to −1/+1; features are used as given.

    Attributes after ``fit``: ``ranking_`` (all features, 0-based, best first), ``scores_``
    (the constraint Laplacian score per feature; NaN where undefined, ranked last),
    ``n_singular_`` (samples whose local Gram matrix had to be regularised, see the module
    docstring).
    """

    params = _declared.MCLS

    def __init__(self, knear: int = 5,
                 n_features_to_select: int | float | None = None) -> None:
        self.knear = knear
        self.n_features_to_select = n_features_to_select

    def fit(self, X, Y) -> MCLS:
        """Fit on X (n_samples × n_features) and Y (n_samples × n_labels, or 1-D: one label)."""
        p = self._checked_params()
        X, Y = self._validate_xy(X, Y)
        scores, n_singular = mcls_scores(X, signed_labels(Y), p["knear"])
        self.scores_ = scores
        self.n_singular_ = n_singular
        self.ranking_ = np.argsort(-scores, kind="stable")
        return self

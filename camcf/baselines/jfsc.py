"""JFSC — joint feature selection and classification for multilabel learning (Huang, Li, Huang &
Wu, IEEE Trans. Cybern. 48, 2018).

No code by the authors and no text of the paper beyond its abstract could be found. The only
public code is a third-party MATLAB reproduction (GitHub ``Sasworld/JFSC``, built on the LLSF
model); this module follows what that code does (facts about it, written anew here), in two
variants that differ in one place only, the sample-similarity matrices ``S_k``:

* ``variant="reproduction"`` — the public code exactly, its ``get_S`` bug included;
* ``variant="corrected"`` (the default) — the same, except that ``S_k`` is built from **squared**
  deviations, as a Fisher-type scatter is (the public code sums the centred values without
  squaring them, which is zero up to rounding, so its ``S_k`` is ``−|P_k|·(m_P − m_N)²``:
  negative semi-definite, a term that rewards weights instead of penalising them).

The model. With X̃ = [X, 1] (n × (d + 1): a column of ones appended as a bias — the public
code's driver appends it before calling the solver, so the ridge start, ``S_k`` and the
penalties see it too; its row of W is never ranked), Y (n × q) in {0, 1} and W ((d + 1) × q):

    J(W) = ½·tr((X̃W − Y)ᵀ D (X̃W − Y)) + (λ1/2)·tr(W R Wᵀ) + (λ2/2)·Σ_k w_kᵀ S_k w_k + λ3·‖W‖₁

* D = diag(1/‖x̃ᵢW − yᵢ‖₂), recomputed from the current W at the start of every iteration (an
  IRLS-style ℓ2,1 loss);
* R (q × q): cosine distances between the label columns of Y + ε (MATLAB's
  ``pdist2(Y' + eps, Y' + eps, 'cosine')``);
* S_k = diag(s_k) per label, with P_k / N_k the rows with y_k = 1 / y_k = 0 and m_P, m_N their
  column means: s_k = c_P + (|P_k|/|N_k|)·c_N − |P_k|·(m_P − m_N)², where ``corrected`` takes
  c_P = Σ_{i∈P_k}(x̃ᵢ − m_P)² (element-wise squares; empty sums and the gap of an empty class
  are 0) and ``reproduction`` takes c_P = Σ_{i∈P_k}(x̃ᵢ − m_P) (zero up to rounding; computed
  here as Σx̃ᵢ − |P_k|·m_P) and, like MATLAB, NaN where a label has no positive or no negative
  row (the mean of no rows is NaN);
* ‖W‖₁ = Σ|w_ij| (soft thresholding).

The solver (both variants): W₀ = (X̃ᵀX̃ + γI)⁻¹X̃ᵀY; D₀ from W₀; the step 1/Lip with
Lip = √(3·(‖X̃ᵀD₀X̃‖₂² + ‖λ1R‖₂² + max_jk (λ2·s_jk)²)) computed **once**; then for at most
``max_iter`` iterations: D from the current W; momentum point W_k = W + ((b_{t−1} − 1)/b_t)·(W −
W_prev) with b₀ = b₋₁ = 1 and b_{t+1} = (1 + √(4b_t² + 1))/2; gradient X̃ᵀD X̃W_k − X̃ᵀD Y +
λ1·W_k R + (λ2·s) ∘ W_k; W = soft-threshold(W_k − gradient/Lip, λ3/Lip); J of the new W with the
iteration's D. Stop when |J_prev − J| ≤ ``tol`` (J before the first iteration taken as 0), else
when J ≤ 0, else go on. NaN follows MATLAB's ``max``, which ignores NaN: the soft threshold of a
NaN is 0 and the maximum in Lip skips NaN; so a label with a NaN ``s_k`` (reproduction variant)
has its column of W set to 0 by the first step and J stays NaN (no stop before ``max_iter``).

Ranking (the public code has none): features by the squared 2-norm of their row of W, the
bias row dropped, descending; ties — all-zero rows in particular, which come last — in index
order. Defaults: the reproduction's Flags row λ1 = 1, λ2 = 2⁻⁸, λ3 = 2, γ = 1 (its Yeast row:
λ1 = 2⁻², λ2 = 2⁻⁸, λ3 = 2⁻¹, γ = 10), ``max_iter`` = 100, ``tol`` = 10⁻⁴. Labels: values > 0
are 1, the others 0. The public driver z-scores the Flags features; camcf uses the features as
given.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh

from ..limits import check_memory
from . import params as _declared
from ._base import RankingSelector

__all__ = ["JFSC", "cosine_distances", "jfsc_solve", "sample_similarity", "soft_threshold"]

EPS = float(np.finfo(float).eps)
VARIANTS = ("corrected", "reproduction")


def cosine_distances(Y: np.ndarray) -> np.ndarray:
    """R (q × q): 1 − cosine similarity between the columns of Y + ε."""
    Z = np.asarray(Y, dtype=float) + EPS
    norms = np.sqrt(np.einsum("ij,ij->j", Z, Z))
    return 1.0 - (Z.T @ Z) / np.outer(norms, norms)


def sample_similarity(X, Y01: np.ndarray, *, variant: str = "corrected") -> np.ndarray:
    """The diagonals s_k of the S_k, as columns: (n_features × q). X dense or sparse (n × d).

    All labels at once from class sums: Σ_{i∈P}(x_i − m_P)² = Σ_P x² − (Σ_P x)²/|P| for
    ``"corrected"``; Σ_{i∈P}(x_i − m_P) = Σ_P x − |P|·(Σ_P x/|P|) for ``"reproduction"`` (zero up
    to rounding; NaN where a class is empty, as MATLAB's mean of no rows)."""
    Y = np.asarray(Y01, dtype=float)
    n = Y.shape[0]
    sum_p = np.asarray(X.T @ Y).T                  # (q × d)
    sum_n = np.asarray(X.sum(axis=0)).ravel()[None, :] - sum_p
    n_p = Y.sum(axis=0)[:, None]
    n_n = n - n_p
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_p, mean_n = sum_p / n_p, sum_n / n_n
        if variant == "reproduction":
            # MATLAB: mean of no rows is NaN; the sum over no rows is 0; 0·NaN and 0/0 are NaN
            c_p = np.where(n_p > 0, sum_p - n_p * mean_p, 0.0)
            c_n = np.where(n_n > 0, sum_n - n_n * mean_n, 0.0)
            return (c_p + n_p * c_n / n_n - n_p * (mean_p - mean_n) ** 2).T
        if variant != "corrected":
            raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
        X2 = X.multiply(X) if sp.issparse(X) else X * X
        sq_p = np.asarray(X2.T @ Y).T
        sq_n = np.asarray(X2.sum(axis=0)).ravel()[None, :] - sq_p
        within_p = np.where(n_p > 0, sq_p - sum_p * mean_p, 0.0)
        within_n = np.where(n_n > 0, sq_n - sum_n * mean_n, 0.0)
        ratio = np.where(n_n > 0, n_p / n_n, 0.0)
        gap = np.where((n_p > 0) & (n_n > 0), mean_p - mean_n, 0.0)
    return (within_p + ratio * within_n - n_p * gap * gap).T


def soft_threshold(W: np.ndarray, t: float) -> np.ndarray:
    """max(W − t, 0) − max(−W − t, 0), with MATLAB's ``max`` (NaN is ignored: NaN → 0)."""
    return np.fmax(W - t, 0.0) - np.fmax(-W - t, 0.0)


def _top_eigenvalue(G: np.ndarray) -> float:
    """The largest eigenvalue of a symmetric positive semi-definite matrix."""
    size = len(G)
    if size == 0:
        return 0.0
    if size <= 300:
        return float(scipy.linalg.eigvalsh(G, subset_by_index=[size - 1, size - 1])[0])
    return float(eigsh(G, k=1, which="LA", v0=np.ones(size), tol=0,
                       return_eigenvectors=False)[0])


def _dense(M) -> np.ndarray:
    return M.toarray() if sp.issparse(M) else np.asarray(M)


def _weighted_gram_norm(Xb, d: np.ndarray) -> float:
    """‖X̃ᵀ diag(d) X̃‖₂ (d ≥ 0) = the top eigenvalue of the smaller Gram matrix of √d·X̃."""
    Z = sp.diags(np.sqrt(d)) @ Xb if sp.issparse(Xb) else np.sqrt(d)[:, None] * Xb
    n, m = Z.shape
    return _top_eigenvalue(_dense(Z @ Z.T) if n < m else _dense(Z.T @ Z))


def _ridge(Xb, Y: np.ndarray, gamma: float) -> np.ndarray:
    """(X̃ᵀX̃ + γI)⁻¹X̃ᵀY (an n × n solve when n < m: X̃ᵀ(X̃X̃ᵀ + γI)⁻¹Y)."""
    n, m = Xb.shape
    if n < m:
        K = _dense(Xb @ Xb.T).astype(float, copy=True)
        K[np.diag_indices(n)] += gamma
        return np.asarray(Xb.T @ scipy.linalg.solve(K, Y, assume_a="pos"))
    M = _dense(Xb.T @ Xb).astype(float, copy=True)
    M[np.diag_indices(m)] += gamma
    return scipy.linalg.solve(M, np.asarray(Xb.T @ Y), assume_a="pos")


def _row_weights(Xb, W: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """D's diagonal: 1/‖x̃ᵢW − yᵢ‖₂ (inf for an exact row, as in MATLAB)."""
    E = np.asarray(Xb @ W) - Y
    with np.errstate(divide="ignore"):
        return 1.0 / np.sqrt(np.einsum("ij,ij->i", E, E))


def jfsc_solve(X: np.ndarray, Y01: np.ndarray, *, lambda1: float = 1.0,
               lambda2: float = 2.0 ** -8, lambda3: float = 2.0, gamma: float = 1.0,
               max_iter: int = 100, tol: float = 1e-4, variant: str = "corrected"
               ) -> tuple[np.ndarray, np.ndarray]:
    """Run JFSC on X (n × d) and Y01 (n × q, 0/1) as the module docstring says. Returns
    (W ((d + 1) × q, the last row the bias), J after each iteration)."""
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y01, dtype=float)
    n = X.shape[0]
    m = X.shape[1] + 1
    check_memory(8.0 * (2 * min(n, m) ** 2 + 2 * n * m),
                 f"JFSC on {n} samples × {m - 1} features (a {min(n, m)}² Gram matrix)")
    Xb = np.hstack([X, np.ones((n, 1))])
    if np.count_nonzero(Xb) <= 0.1 * Xb.size:  # bag-of-words-like data: products as CSR
        Xb = sp.csr_matrix(Xb)
    R = cosine_distances(Y)
    S = sample_similarity(Xb, Y, variant=variant)     # (m × q): the diagonals of the S_k
    A = lambda2 * S
    with np.errstate(invalid="ignore", over="ignore"):
        W = _ridge(Xb, Y, gamma)
        W_prev = W
        d0 = _row_weights(Xb, W, Y)
        a2 = A * A
        a_max = float(np.nanmax(a2)) if np.any(~np.isnan(a2)) else np.nan
        r_norm = float(np.linalg.norm(lambda1 * R, 2)) if R.size else 0.0
        lip = float(np.sqrt(3.0 * (_weighted_gram_norm(Xb, d0) ** 2 + r_norm ** 2 + a_max)))
        bk = bk_1 = 1.0
        old = 0.0
        history: list[float] = []
        for _ in range(max_iter):
            d = _row_weights(Xb, W, Y)
            Wk = W + (bk_1 - 1.0) / bk * (W - W_prev)
            E = np.asarray(Xb @ Wk) - Y
            grad = np.asarray(Xb.T @ (d[:, None] * E)) + lambda1 * (Wk @ R) + A * Wk
            bk_1, bk = bk, (1.0 + np.sqrt(4.0 * bk * bk + 1.0)) / 2.0
            W_prev = W
            W = soft_threshold(Wk - grad / lip, lambda3 / lip)
            E = np.asarray(Xb @ W) - Y
            prediction = float(np.einsum("i,ij,ij->", d, E, E))
            correlation = float(np.einsum("ij,ij->", W @ R, W))
            sample = float(np.einsum("ij,ij,ij->", S, W, W))
            sparsity = float(np.abs(W).sum())
            J = (prediction / 2 + lambda1 * correlation / 2 + lambda2 * sample / 2
                 + lambda3 * sparsity)
            history.append(J)
            if abs(old - J) <= tol or J <= 0:
                break
            old = J
    return W, np.asarray(history)


class JFSC(RankingSelector):
    """JFSC (Huang et al. 2018) as its only public code runs it (see the module docstring);
    ranks features by ‖wᵢ‖² of the learned W (the bias row excluded; all-zero rows last, in
    index order).

    Parameters
    ----------
    lambda1, lambda2, lambda3 : float ≥ 0, default 1, 2⁻⁸, 2
        Weights of the label-correlation, sample-similarity and ℓ1 terms.
    gamma : float > 0, default 1
        Ridge of the least-squares start.
    max_iter : int ≥ 1, default 100
    tol : float ≥ 0, default 1e-4
        Stop when the objective changes by at most this much (or when it is ≤ 0).
    variant : {"corrected", "reproduction"}, default "corrected"
        ``"reproduction"`` is the public code exactly, its ``get_S`` bug included (S_k from
        centred values that are not squared: S_k = −|P_k|·diag((m_P − m_N)²)).
        ``"corrected"`` **fixes get_S**: S_k from squared deviations (within-class scatter
        minus between-class scatter, per feature); everything else is the same.
    n_features_to_select : int, float or None, default None

    Labels: values > 0 are 1, the others 0.

    Attributes after ``fit``: ``ranking_``, ``scores_`` (‖wᵢ‖² per feature), ``coef_`` (W without
    the bias row, d × q), ``intercept_`` (q,), ``objective_`` (J per iteration), ``n_iter_``.
    """

    params = _declared.JFSC

    def __init__(self, lambda1: float = 1.0, lambda2: float = 2.0 ** -8, lambda3: float = 2.0,
                 gamma: float = 1.0, max_iter: int = 100, tol: float = 1e-4,
                 variant: str = "corrected",
                 n_features_to_select: int | float | None = None) -> None:
        self.lambda1 = lambda1
        self.lambda2 = lambda2
        self.lambda3 = lambda3
        self.gamma = gamma
        self.max_iter = max_iter
        self.tol = tol
        self.variant = variant
        self.n_features_to_select = n_features_to_select

    def fit(self, X, Y) -> JFSC:
        """Fit on X (n_samples × n_features) and Y (n_samples × n_labels, or 1-D: one label)."""
        p = self._checked_params()
        X, Y = self._validate_xy(X, Y)
        W, history = jfsc_solve(X, (np.asarray(Y, dtype=float) > 0).astype(float),
                                lambda1=p["lambda1"], lambda2=p["lambda2"],
                                lambda3=p["lambda3"], gamma=p["gamma"],
                                max_iter=p["max_iter"], tol=p["tol"], variant=p["variant"])
        self.coef_ = W[:-1]
        self.intercept_ = W[-1]
        self.objective_ = history
        self.n_iter_ = len(history)
        self.scores_ = np.einsum("ij,ij->i", self.coef_, self.coef_)
        self.ranking_ = np.argsort(-self.scores_, kind="stable")
        return self

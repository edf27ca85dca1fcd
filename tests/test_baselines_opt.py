"""MDFS, JFSC and MCLS: the solvers do what their rules say, planted signals rank on top, runs
are deterministic, MCLS handles singular neighbourhoods, and every selector is a scikit-learn
estimator."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse
from scipy.optimize import lsq_linear
from sklearn.utils.estimator_checks import parametrize_with_checks

from camcf.baselines import jfsc as jfsc_mod
from camcf.baselines import mcls as mcls_mod
from camcf.baselines import mdfs as mdfs_mod
from camcf.baselines.jfsc import JFSC
from camcf.baselines.mcls import MCLS
from camcf.baselines.mdfs import MDFS
from camcf.errors import InvalidDataError, ParameterError

EPS = np.finfo(float).eps


def planted(n=160, n_noise=16, seed=0):
    """Integer codes: features 0-3 decide the three labels, the others are noise."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, 4 + n_noise))
    Y = np.column_stack([
        (X[:, 0] + X[:, 1] >= 2),
        (X[:, 2] >= 1),
        (X[:, 3] + X[:, 0] >= 3),
    ]).astype(int)
    return X, Y


# ---------------------------------------------------------------------------------------- MDFS


def test_knn_graph_drops_first_sorted_point_and_keeps_ties_to_lower_index():
    # points 0 and 1 coincide: for point 1 the first sorted is point 0 (lower index), so its
    # one neighbour is itself (a self-loop a Laplacian ignores)
    P = np.array([[0.0], [0.0], [1.0], [3.0]])
    idx, dist = mdfs_mod.sorted_neighbours(P, 2)
    assert idx.tolist() == [[0, 1], [0, 1], [2, 0], [3, 2]]
    assert dist[:, 0].tolist() == [0, 0, 0, 0]
    L = mdfs_mod.knn_laplacian(P, 1)
    W = np.zeros((4, 4))
    W[0, 1] = W[1, 1] = W[2, 0] = W[3, 2] = 1
    W = (W + W.T) / 2
    expected = np.diag(W.sum(axis=1)) - W
    np.testing.assert_array_equal(L, expected)
    assert np.allclose(L.sum(axis=1), 0)


def test_f_update_is_the_sylvester_solution_with_lyap_sign():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 5))
    Y = np.where(rng.random((30, 4)) > 0.5, 1.0, -1.0)
    L = mdfs_mod.knn_laplacian(X, 3)
    L0 = mdfs_mod.knn_laplacian(Y.T, 3)
    n = len(X)
    H = np.eye(n) - 1 / n
    A = L + H + np.eye(n)
    B = 0.7 * L0
    W = rng.random((5, 4))
    C = -(H @ X @ W) - Y                      # MATLAB lyap(A, B, C): A F + F B + C = 0
    F = mdfs_mod.solve_f(np.linalg.eigh(A), np.linalg.eigh(B), -C)
    np.testing.assert_allclose(A @ F + F @ B + C, 0, atol=1e-10)
    np.testing.assert_allclose(F, scipy.linalg.solve_sylvester(A, B, -C), atol=1e-10)


def test_w_update_push_through_equals_direct_solve():
    rng = np.random.default_rng(2)
    Xc = rng.normal(size=(12, 40))
    Xc -= Xc.mean(axis=0)
    F = rng.normal(size=(12, 3))
    dg = rng.random(40) * 5 + 0.1
    direct = mdfs_mod.update_w(Xc, F, dg, 1.5, 1.5 * Xc.T @ Xc)
    pushed = mdfs_mod.update_w(Xc, F, dg, 1.5, None)
    np.testing.assert_allclose(pushed, direct, rtol=1e-8, atol=1e-12)
    X = (rng.random((12, 40)) > 0.9).astype(float)           # sparse data, uncentred
    Xc = X - X.mean(axis=0)
    direct = mdfs_mod.update_w(Xc, F, dg, 1.5, 1.5 * Xc.T @ Xc)
    sparse = mdfs_mod.update_w(Xc, F, dg, 1.5, None,
                               (scipy.sparse.csr_matrix(X), X.mean(axis=0)))
    np.testing.assert_allclose(sparse, direct, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose((1.5 * Xc.T @ Xc + np.diag(dg)) @ direct, 1.5 * Xc.T @ F,
                               atol=1e-9)


@pytest.mark.parametrize("d", [20, 200])  # d < n and d > n (push-through) paths
def test_mdfs_objective_never_increases_and_stops_by_the_rule(d):
    X, Y = planted(n=120, n_noise=d - 4, seed=3)
    W, obj = mdfs_mod.mdfs_solve(X, mdfs_mod.signed_labels(Y), max_iter=1000)
    assert len(obj) >= 2
    assert np.all(np.diff(obj) <= 1e-9 * obj[:-1]), obj
    # stopped at the first relative change below 1e-3 (after the second iteration)
    rel = np.abs(np.diff(obj)) / obj[:-1]
    assert rel[-1] < 1e-3 and np.all(rel[:-1] >= 1e-3)
    assert W.shape == (d, 3)


def test_mdfs_planted_signal_ranks_on_top_and_seed_is_deterministic():
    X, Y = planted()
    a = MDFS(random_state=7).fit(X, Y)
    b = MDFS(random_state=7).fit(X, Y)
    c = MDFS(random_state=8).fit(X, Y)
    assert set(a.ranking_[:4]) == {0, 1, 2, 3}
    np.testing.assert_array_equal(a.ranking_, b.ranking_)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert not np.array_equal(a.coef_, c.coef_)       # the seed is used
    assert sorted(a.ranking_) == list(range(X.shape[1]))
    np.testing.assert_allclose(a.scores_, (a.coef_ ** 2).sum(axis=1))
    # labels 0/1 and -1/+1 are the same run
    d = MDFS(random_state=7).fit(X, 2 * Y - 1)
    np.testing.assert_array_equal(a.coef_, d.coef_)


def test_mdfs_rejects_bad_parameters():
    X, Y = planted(n=30)
    with pytest.raises(ParameterError, match="gamma"):
        MDFS(gamma=0).fit(X, Y)
    with pytest.raises(ParameterError, match="alpha"):
        MDFS(alpha=-1).fit(X, Y)


# ---------------------------------------------------------------------------------------- JFSC


def _jfsc_literal(X, Y, lam1, lam2, lam3, gamma, max_iter, tol, variant):
    """The public code's steps one by one, dense and with loops (the test's own transcription of
    what BASELINES.md and the module docstring say), as an oracle for the vectorised solver."""
    Xb = np.hstack([X.astype(float), np.ones((len(X), 1))])
    Y = Y.astype(float)
    m, q = Xb.shape[1], Y.shape[1]
    W = np.linalg.solve(Xb.T @ Xb + gamma * np.eye(m), Xb.T @ Y)
    W1 = W.copy()
    Z = Y + EPS
    R = np.array([[1 - Z[:, a] @ Z[:, b] / np.linalg.norm(Z[:, a]) / np.linalg.norm(Z[:, b])
                   for b in range(q)] for a in range(q)])
    S = []
    for k in range(q):
        P, N = Xb[Y[:, k] == 1], Xb[Y[:, k] == 0]
        mp = P.mean(0) if len(P) else np.full(m, np.nan)
        mn = N.mean(0) if len(N) else np.full(m, np.nan)
        if variant == "reproduction":
            sp_, sn_ = (P - mp).sum(0), (N - mn).sum(0)
        else:
            sp_, sn_ = ((P - mp) ** 2).sum(0), ((N - mn) ** 2).sum(0)
        with np.errstate(invalid="ignore", divide="ignore"):
            S.append(np.diag(sp_ + len(P) * sn_ / len(N) - len(P) * (mp - mn) ** 2))
    A = np.column_stack([lam2 * np.diag(Sk) for Sk in S])

    def dmat(W):
        return np.diag(1 / np.sqrt(((Xb @ W - Y) ** 2).sum(1)))

    D = dmat(W)
    lip = np.sqrt(3 * (np.linalg.norm(Xb.T @ D @ Xb, 2) ** 2 + np.linalg.norm(lam1 * R, 2) ** 2
                       + np.nanmax(A ** 2)))
    bk = bk1 = 1.0
    old, hist = 0.0, []
    for _ in range(max_iter):
        D = dmat(W)
        Wk = W + (bk1 - 1) / bk * (W - W1)
        G = Wk - 1 / lip * (Xb.T @ D @ Xb @ Wk - Xb.T @ D @ Y + lam1 * Wk @ R + A * Wk)
        bk1, bk = bk, (1 + np.sqrt(4 * bk ** 2 + 1)) / 2
        W1 = W
        W = np.fmax(G - lam3 / lip, 0) - np.fmax(-G - lam3 / lip, 0)
        E = Xb @ W - Y
        loss = (np.trace(E.T @ D @ E) / 2 + lam1 * np.trace(W @ R @ W.T) / 2
                + lam2 * sum(W[:, a] @ S[a] @ W[:, a] for a in range(q)) / 2
                + lam3 * np.abs(W).sum())
        hist.append(loss)
        if abs(old - loss) <= tol:
            break
        if loss <= 0:
            break
        old = loss
    return W, np.array(hist)


def test_jfsc_get_s_by_hand_both_variants():
    # one feature: positives {1, 3} (mean 2), negatives {2, 4} (mean 3)
    X = np.array([[1.0], [3.0], [2.0], [4.0]])
    Y = np.array([[1.0], [1.0], [0.0], [0.0]])
    rep = jfsc_mod.sample_similarity(X, Y, variant="reproduction")
    cor = jfsc_mod.sample_similarity(X, Y, variant="corrected")
    # reproduction: Σ(x − m) = 0 on both sides, so s = −|P|·(2 − 3)² = −2
    assert rep[0, 0] == pytest.approx(-2.0, abs=1e-12)
    # corrected: Σ(x − m)² = 2 on both sides: s = 2 + (2/2)·2 − 2·1 = 2
    assert cor[0, 0] == pytest.approx(2.0, abs=1e-12)
    # a label with no negative row: NaN in the reproduction (MATLAB's mean of no rows)
    Y1 = np.ones((4, 1))
    assert np.isnan(jfsc_mod.sample_similarity(X, Y1, variant="reproduction")).all()
    assert jfsc_mod.sample_similarity(X, Y1)[0, 0] == pytest.approx(5.0)   # Σ(x − 2.5)²
    # on random data the reproduction's S is −|P|·gap² up to rounding: never positive
    rng = np.random.default_rng(4)
    Xr = rng.normal(size=(25, 6))
    Yr = (rng.random((25, 2)) > 0.4).astype(float)
    Sr = jfsc_mod.sample_similarity(Xr, Yr, variant="reproduction")
    for k in range(2):
        P, N = Xr[Yr[:, k] == 1], Xr[Yr[:, k] == 0]
        np.testing.assert_allclose(Sr[:, k], -len(P) * (P.mean(0) - N.mean(0)) ** 2,
                                   atol=1e-9)


def test_jfsc_first_iteration_by_hand():
    # n = 3, one feature, one label: every quantity of the first step written out
    X = np.array([[0.0], [1.0], [2.0]])
    Y = np.array([[1.0], [1.0], [0.0]])
    lam1, lam2, lam3, gamma = 1.0, 0.5, 0.1, 1.0
    Xb = np.hstack([X, np.ones((3, 1))])
    W0 = np.linalg.solve(Xb.T @ Xb + gamma * np.eye(2), Xb.T @ Y)
    d0 = 1 / np.abs(Xb @ W0 - Y).ravel()
    # R of one label is 0 (up to rounding); reproduction S: positives {0, 1} mean 0.5,
    # negative {2}: s = 0 + 2·0/1 − 2·(0.5 − 2)² = −4.5 for the feature, 0 for the bias
    s = np.array([-4.5, 0.0])
    lip = np.sqrt(3 * (np.linalg.eigvalsh(Xb.T @ np.diag(d0) @ Xb).max() ** 2
                       + (lam2 * 4.5) ** 2))
    grad = Xb.T @ (d0[:, None] * (Xb @ W0 - Y)) + lam2 * s[:, None] * W0
    G = W0 - grad / lip
    W1 = np.sign(G) * np.maximum(np.abs(G) - lam3 / lip, 0)
    E = Xb @ W1 - Y
    J1 = (d0 @ (E[:, 0] ** 2)) / 2 + lam2 * (s @ W1[:, 0] ** 2) / 2 + lam3 * np.abs(W1).sum()
    W, hist = jfsc_mod.jfsc_solve(X, Y, lambda1=lam1, lambda2=lam2, lambda3=lam3, gamma=gamma,
                                  max_iter=1, variant="reproduction")
    np.testing.assert_allclose(W, W1, rtol=1e-9, atol=1e-12)
    assert hist.tolist() == pytest.approx([J1], rel=1e-9)


@pytest.mark.parametrize("variant", ["reproduction", "corrected"])
@pytest.mark.parametrize("seed, lam, tol", [
    (0, (1.0, 2.0 ** -8, 2.0, 1.0), 1e-4),       # the Flags row: stops on |ΔJ| ≤ tol
    (1, (0.25, 2.0 ** -8, 0.5, 10.0), 1e-4),     # the Yeast row
    (2, (1.0, 4.0, 0.01, 1.0), 1e-4),            # a large λ2: J may go ≤ 0 (reproduction)
    (3, (0.5, 0.1, 1.0, 1.0), 0.0),              # tol 0: runs to max_iter
])
def test_jfsc_solver_follows_the_steps(variant, seed, lam, tol):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(30, 5)).astype(float)
    Y = (rng.random((30, 3)) > 0.5).astype(float)
    lam1, lam2, lam3, gamma = lam
    W, hist = jfsc_mod.jfsc_solve(X, Y, lambda1=lam1, lambda2=lam2, lambda3=lam3, gamma=gamma,
                                  max_iter=40, tol=tol, variant=variant)
    W_ref, hist_ref = _jfsc_literal(X, Y, lam1, lam2, lam3, gamma, 40, tol, variant)
    assert len(hist) == len(hist_ref)
    np.testing.assert_allclose(hist, hist_ref, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(W, W_ref, rtol=1e-6, atol=1e-9)


def test_jfsc_stop_rules():
    rng = np.random.default_rng(2)
    X = rng.integers(0, 3, size=(30, 5)).astype(float)
    Y = (rng.random((30, 3)) > 0.5).astype(float)
    # the reproduction's S_k ≤ 0: with a large λ2 the objective goes below 0 and the run stops
    _, hist = jfsc_mod.jfsc_solve(X, Y, lambda1=1.0, lambda2=64.0, lambda3=0.01,
                                  variant="reproduction")
    assert hist[-1] <= 0 and (hist[:-1] > 0).all() and len(hist) < 100
    # otherwise at |ΔJ| ≤ tol, or after max_iter iterations
    _, hist = jfsc_mod.jfsc_solve(X, Y, variant="reproduction")
    assert len(hist) < 100 and abs(hist[-1] - hist[-2]) <= 1e-4
    _, hist = jfsc_mod.jfsc_solve(X, Y, variant="reproduction", tol=0.0, max_iter=7)
    assert len(hist) == 7


def test_jfsc_constant_label_zeroes_its_column_in_the_reproduction():
    rng = np.random.default_rng(6)
    X = rng.integers(0, 3, size=(30, 4)).astype(float)
    Y = np.column_stack([(X[:, 0] > 0), np.ones(30)]).astype(float)
    W, hist = jfsc_mod.jfsc_solve(X, Y, variant="reproduction", max_iter=5)
    assert np.isnan(hist).all() and len(hist) == 5     # J is NaN: no stop rule fires
    assert not np.isnan(W).any() and (W[:, 1] == 0).all()
    W_ref, _ = _jfsc_literal(X, Y, 1.0, 2.0 ** -8, 2.0, 1.0, 5, 1e-4, "reproduction")
    np.testing.assert_allclose(W, W_ref, rtol=1e-7, atol=1e-12)


def test_jfsc_ranking_puts_zero_rows_last_in_index_order():
    X, Y = planted(n=80, n_noise=6, seed=3)
    est = JFSC(lambda3=10.0, variant="reproduction").fit(X, Y)
    zero = np.flatnonzero(est.scores_ == 0)
    assert 0 < len(zero) < X.shape[1]
    assert est.ranking_[-len(zero):].tolist() == zero.tolist()
    nonzero = est.ranking_[:-len(zero)]
    assert (np.diff(est.scores_[nonzero]) <= 0).all()
    np.testing.assert_allclose(est.scores_, (est.coef_ ** 2).sum(1))


@pytest.mark.parametrize("variant", ["corrected", "reproduction"])
def test_jfsc_defaults_stop_within_100_iterations_and_rank_planted_features_on_top(variant):
    X, Y = planted()
    est = JFSC(variant=variant).fit(X, Y)
    assert est.n_iter_ <= 100
    assert set(est.ranking_[:4]) == {0, 1, 2, 3}
    assert est.coef_.shape == (X.shape[1], 3) and est.intercept_.shape == (3,)
    assert sorted(est.ranking_) == list(range(X.shape[1]))   # the bias is not ranked
    again = JFSC(variant=variant).fit(X, Y)
    np.testing.assert_array_equal(est.ranking_, again.ranking_)
    np.testing.assert_array_equal(est.coef_, again.coef_)


def test_jfsc_sparse_and_dense_paths_agree():
    rng = np.random.default_rng(13)
    X = rng.integers(0, 3, size=(40, 60)) * (rng.random((40, 60)) > 0.95)   # n < m, sparse
    Y = (rng.random((40, 3)) > 0.5).astype(float)
    W, hist = jfsc_mod.jfsc_solve(X, Y, max_iter=10)
    W_ref, hist_ref = _jfsc_literal(X, Y, 1.0, 2.0 ** -8, 2.0, 1.0, 10, 1e-4, "corrected")
    np.testing.assert_allclose(hist, hist_ref, rtol=1e-7)
    np.testing.assert_allclose(W, W_ref, rtol=1e-6, atol=1e-9)

# ---------------------------------------------------------------------------------------- MCLS


def _ref_order(d_row, i):
    return sorted(range(len(d_row)), key=lambda j: (d_row[j], j))


def _mcls_reference(X, Y, knear):
    """A literal, loop-by-loop reading of the authors' MATLAB code (well-posed data only)."""
    n, m = X.shape
    Ys = np.where(Y > 0, 1.0, -1.0)
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)

    def pkn(P, k):
        DP = ((P[:, None, :] - P[None, :, :]) ** 2).sum(-1)
        W = np.zeros((len(P), len(P)))
        for i in range(len(P)):
            ids = _ref_order(DP[i], i)[1:k + 2]
            di = DP[i, ids]
            W[i, ids] = (di[k] - di) / (k * di[k] - di[:k].sum() + EPS)
        return (W + W.T) / 2

    Wx = pkn(X, knear)
    Wada = np.zeros((n, n))
    for i in range(n):
        nb = _ref_order(D[i], i)[1:knear + 1]
        z = X[nb] - X[i]
        w = np.linalg.solve(z @ z.T, np.ones(knear))
        Wada[i, nb] = w / w.sum()
    A = np.eye(n) - Wada
    MU = np.empty_like(Ys)
    for k in range(Ys.shape[1]):
        y = Ys[:, k]
        lb = np.where(y > 0, 1.0, -np.inf)
        ub = np.where(y > 0, np.inf, -1.0)
        MU[:, k] = lsq_linear(A, np.zeros(n), bounds=(lb, ub), method="bvls", tol=1e-14).x
    MUn = MU / np.sqrt(np.maximum(1e-14, (MU ** 2).sum(1)))[:, None]
    Wn = Wx * pkn(MUn, knear)
    Xn = X / np.sqrt(np.maximum(1e-14, (X ** 2).sum(1)))[:, None]
    Dg = np.diag(Wn.sum(1))
    one = np.ones(n)
    lap = np.empty(m)
    for j in range(m):
        f = Xn[:, j]
        c = (f @ Dg @ one) ** 2 / (one @ Dg @ one)
        dp = f @ Dg @ f - c
        lp = f @ Wn @ f - c
        lap[j] = lp / (10000.0 if dp < 1e-12 else dp)
    Wm = np.zeros((n, n))
    for i in range(n):
        Wm[i, _ref_order(D[i], i)[:knear + 1]] = 1
    np.fill_diagonal(Wm, 0)
    Wm = np.maximum(Wm, Wm.T)
    LM = np.diag(Wm.sum(1)) - Wm
    Wz = np.ones((n, n)) - Wm
    LC = np.diag(Wz.sum(1)) - Wz
    cr = np.array([X[:, j] @ LM @ X[:, j] / (X[:, j] @ LC @ X[:, j]) for j in range(m)])
    return lap * cr, MU


def test_mcls_matches_a_literal_reading_of_the_authors_code_on_well_posed_data():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(40, 8))
    Y = np.column_stack([X[:, 0] + 0.3 * rng.normal(size=40) > 0,
                         X[:, 1] - X[:, 2] > 0.2]).astype(int)
    ref, MU_ref = _mcls_reference(X, Y, 5)
    Wada, n_singular = mcls_mod.local_weights(X, 5)
    assert n_singular == 0
    MU = mcls_mod.label_manifold(np.where(Y > 0, 1.0, -1.0), Wada)
    A = np.eye(40) - Wada.toarray()
    for k in range(2):   # same optimum value as the exact active-set solver
        assert np.sum((A @ MU[:, k]) ** 2) == pytest.approx(np.sum((A @ MU_ref[:, k]) ** 2),
                                                            rel=1e-8, abs=1e-10)
    est = MCLS().fit(X, Y)
    np.testing.assert_allclose(est.scores_, ref, rtol=1e-6, atol=1e-12)
    np.testing.assert_array_equal(est.ranking_, np.argsort(-ref, kind="stable"))


def test_mcls_regularises_singular_neighbourhoods():
    X, Y = planted(n=60, n_noise=2, seed=8)       # integer codes: many duplicated rows
    X = np.vstack([X, X[:5]]).astype(float)
    Y = np.vstack([Y, Y[:5]])
    W, n_singular = mcls_mod.local_weights(X, 5)
    assert n_singular > 0
    w = W.toarray()
    assert np.all(np.isfinite(w))
    np.testing.assert_allclose(w.sum(axis=1), 1.0)
    # a point whose five neighbours all coincide with it gets equal weights
    Xd = np.vstack([np.zeros((6, 3)), np.eye(3)])
    Wd, _ = mcls_mod.local_weights(Xd, 5)
    np.testing.assert_allclose(Wd.toarray()[0][Wd.toarray()[0] != 0], 0.2)
    est = MCLS().fit(X, Y)
    assert est.n_singular_ == n_singular
    assert np.all(np.isfinite(est.scores_))
    assert sorted(est.ranking_) == list(range(X.shape[1]))


def test_mcls_qp_meets_its_constraints_and_optimality():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(50, 6))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    W, _ = mcls_mod.local_weights(X, 5)
    A = np.eye(50) - W.toarray()
    M = A.T @ A
    mu = mcls_mod.label_manifold(y[:, None], W)[:, 0]
    assert np.all(y * mu >= 1 - 1e-12)
    g = y * (M @ mu)                 # KKT: g >= 0 where the bound holds, g = 0 elsewhere
    at_bound = y * mu <= 1 + 1e-9
    assert np.all(g[at_bound] >= -1e-8)
    assert np.abs(g[~at_bound]).max(initial=0) <= 1e-8


def test_mcls_planted_cluster_signal_ranks_on_top():
    # features 0-2 are the group indicator the labels follow; features 3-9 are wider noise
    # codes that dominate the distances, so only the label manifold makes 0-2 smooth
    rng = np.random.default_rng(10)
    g = np.repeat([0, 1], 60)
    X = np.column_stack([g, g, g] + [rng.integers(0, 5, 120) for _ in range(7)])
    Y = np.column_stack([g, 1 - g, (g == 1) & (rng.random(120) > 0.3)]).astype(int)
    est = MCLS().fit(X, Y)
    assert set(est.ranking_[:3]) == {0, 1, 2}
    again = MCLS().fit(X, Y)
    np.testing.assert_array_equal(est.scores_, again.scores_)


def test_mcls_constant_feature_ranks_last_and_tiny_samples_are_refused():
    X, Y = planted(n=50, n_noise=3, seed=11)
    X = np.column_stack([np.full(50, 2), X])
    est = MCLS().fit(X, Y)
    assert np.isnan(est.scores_[0]) and est.ranking_[-1] == 0
    with pytest.raises(InvalidDataError, match="at least 3 samples"):
        MCLS().fit(X[:2], Y[:2])


# --------------------------------------------------------------------------- scikit-learn API


@parametrize_with_checks([MDFS(), JFSC(), MCLS()])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("cls", [MDFS, JFSC, MCLS])
def test_params_are_declared_once_and_match_init(cls):
    import inspect

    names = [p.name for p in cls.params]
    assert names == list(inspect.signature(cls.__init__).parameters)[1:]
    est = cls()
    for p in cls.params:
        assert getattr(est, p.name) == p.default
    X, Y = planted(n=40, n_noise=4, seed=12)
    sel = cls(n_features_to_select=3).fit(X, Y)
    assert sel.transform(X).shape == (40, 3)
    np.testing.assert_array_equal(np.flatnonzero(sel.get_support()), np.sort(sel.ranking_[:3]))

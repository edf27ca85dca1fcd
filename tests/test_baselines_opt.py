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


def test_jfsc_sample_similarity_is_the_fisher_term_with_squares():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(25, 6))
    Y = (rng.random((25, 2)) > 0.4).astype(float)
    S = jfsc_mod.sample_similarity(X, Y)
    for k in range(2):
        P, N = X[Y[:, k] == 1], X[Y[:, k] == 0]
        mp, mn = P.mean(0), N.mean(0)
        expected = (((P - mp) ** 2).sum(0) + len(P) / len(N) * ((N - mn) ** 2).sum(0)
                    - len(P) * (mp - mn) ** 2)
        np.testing.assert_allclose(S[:, k], expected, rtol=1e-9, atol=1e-9)
    Ys = Y.copy()
    Ys[:, 1] = 1                                 # a label present everywhere
    S1 = jfsc_mod.sample_similarity(scipy.sparse.csr_matrix(X), Ys)
    np.testing.assert_allclose(S1[:, 0], S[:, 0], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(S1[:, 1], ((X - X.mean(0)) ** 2).sum(0), rtol=1e-9)
    # the reproduction's sum of (unsquared) deviations would make the within part vanish
    assert np.any(S > 0)


def test_jfsc_label_correlation_is_cosine_distance():
    Y = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1], [1, 0, 1]], dtype=float)
    R = jfsc_mod.cosine_distances(Y)
    np.testing.assert_allclose(np.diag(R), 0, atol=1e-12)
    np.testing.assert_allclose(R, R.T)
    assert R[0, 1] == pytest.approx(1 - 2 / np.sqrt(3 * 2))
    assert R[1, 2] == pytest.approx(1.0)


def test_jfsc_decreases_the_objective_and_meets_the_kkt_conditions():
    X, Y = planted(n=100, n_noise=8, seed=5)
    X = X.astype(float)
    lam1, lam2, lam3 = 0.5, 2.0 ** -8, 4.0
    W, hist = jfsc_mod.jfsc_solve(X, Y, lambda1=lam1, lambda2=lam2, lambda3=lam3, gamma=1.0,
                                  max_iter=20000, tol=0.0)
    Xb = np.hstack([X, np.ones((len(X), 1))])
    XtX, XtY = Xb.T @ Xb, Xb.T @ Y
    R = jfsc_mod.cosine_distances(Y)
    A = lam2 * jfsc_mod.sample_similarity(Xb, Y.astype(float))
    W0 = np.linalg.solve(XtX + np.eye(len(XtX)), XtY)
    J0 = jfsc_mod.jfsc_objective(W0, jfsc_mod._Gram(Xb, Y.astype(float)), R, A, lam1, lam3)
    assert hist[-1] < J0
    assert hist[-1] == pytest.approx(hist.min(), rel=1e-9)
    grad = XtX @ W - XtY + lam1 * W @ R + A * W
    norms = np.linalg.norm(W, axis=1)
    on = norms > 1e-10
    assert on.any()
    # rows in the support: gradient + lam3 * w / ||w|| = 0; rows at zero: ||gradient|| <= lam3
    resid = grad[on] + lam3 * W[on] / norms[on, None]
    assert np.abs(resid).max() < 1e-4 * max(1.0, np.abs(grad).max())
    if (~on).any():
        assert np.linalg.norm(grad[~on], axis=1).max() <= lam3 * (1 + 1e-6)


def test_jfsc_defaults_stop_within_100_iterations_and_rank_planted_features_on_top():
    X, Y = planted()
    est = JFSC().fit(X, Y)
    assert est.n_iter_ <= 100
    assert set(est.ranking_[:4]) == {0, 1, 2, 3}
    assert est.coef_.shape == (X.shape[1], 3) and est.intercept_.shape == (3,)
    assert sorted(est.ranking_) == list(range(X.shape[1]))   # the bias is not ranked
    again = JFSC().fit(X, Y)
    np.testing.assert_array_equal(est.ranking_, again.ranking_)
    np.testing.assert_array_equal(est.coef_, again.coef_)


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


def test_jfsc_gram_paths_agree():
    rng = np.random.default_rng(13)
    Y = (rng.random((15, 3)) > 0.5).astype(float)
    for m, sparse in ((8, False), (40, False), (200, True), (8, True)):
        # n >= m: Gram matrix; n < m: through X; sparse data as CSR
        Z = rng.normal(size=(15, m - 1))
        if sparse:
            Z *= rng.random(Z.shape) > 0.97
        Xb = np.hstack([Z, np.ones((15, 1))])
        if sparse and m == 8:
            Xb = np.vstack([Xb, np.zeros((200, 8))])      # n >= m and sparse
            Y = np.vstack([Y, np.zeros((200, 3))])
        gram = jfsc_mod._Gram(Xb, Y)
        W = rng.normal(size=(m, 3))
        is_sparse = np.count_nonzero(Xb) <= 0.1 * Xb.size
        assert scipy.sparse.issparse(gram.Xb) == is_sparse
        assert (gram.G is None) == (m > len(Xb) or is_sparse)
        np.testing.assert_allclose(gram.xtx(W), Xb.T @ Xb @ W, atol=1e-9)
        assert gram.loss(W) == pytest.approx(0.5 * np.sum((Xb @ W - Y) ** 2))
        np.testing.assert_allclose(gram.ridge(0.5),
                                   np.linalg.solve(Xb.T @ Xb + 0.5 * np.eye(m), Xb.T @ Y),
                                   atol=1e-9)
        assert gram.top_eigenvalue() == pytest.approx(np.linalg.norm(Xb, 2) ** 2)


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

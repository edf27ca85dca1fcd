"""Ca-MCF's phases on tiny data sets built so that the right decision follows from the
construction, plus the run-wide guarantees (mirroring, determinism, fast == reference, errors)."""

from __future__ import annotations

import itertools
import json
import math
import warnings

import numpy as np
import pytest

import camcf
from camcf import CamcfWarning, InvalidDataError, ParameterError
from camcf.engine import mutual_information

AUTHORS = dict(delta1=0.05, delta2=0.1, k1=0.7, k2=1.0)


def h2(p):
    return -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


# ---------------------------------------------------------------------------------------------
# a collider t → x ← z yields the spouse z
# ---------------------------------------------------------------------------------------------
def collider():
    # every combination of (t, z, w) 25 times: t, z, w exactly independent fair bits
    rows = np.array(list(itertools.product([0, 1], repeat=3)) * 25)
    t, z, w = rows.T
    x = t | z  # the child: s_x = I(t; x) = 0.311 bits, I(t; z | x) = 0.189 bits
    X = np.column_stack([x, z, w])
    return X, t[:, None]


def test_collider_gives_a_spouse_induced_by_its_pc_partner():
    X, Y = collider()
    res = camcf.run(X, Y, **AUTHORS)
    t = res.target((0, 1))
    assert t.skeleton == ()
    assert t.candidates == (0,)  # only x has s_f > δ1 (z and w have exactly 0)
    assert t.pc == (0,)
    assert t.spouses == {1: (0,)}  # z, induced by x; w is not a spouse
    # R is empty, so the spouse has s_z ≤ δ1 and symmetry removes it (SPEC.md, Phase 4)
    assert t.symmetry_removed == (1,)
    assert t.blanket == (0,)
    rows = res.to_frame((0, 1))
    sp = rows[(rows.step == "spouse") & (rows.b == 1)].iloc[0]
    assert sp.value == pytest.approx(0.75 * (2 * h2(1 / 3) - math.log2(3)), abs=1e-12)
    assert sp.decision == "spouse" and sp.aux == 0


# ---------------------------------------------------------------------------------------------
# a feature masked by a correlated label is recovered in Phase 3
# ---------------------------------------------------------------------------------------------
def blocked():
    n = 1000
    f = np.arange(n) % 2  # the feature the target copies
    B = f.copy()  # target label
    A = f.copy()
    A[[0, 2, 4, 1, 3]] ^= 1  # label A: f with 5 flips, H(0.005) = 0.045 bits of doubt
    noise = (np.arange(n) // 2) % 2
    X = np.column_stack([noise, f])
    return X, np.column_stack([A, B])


def test_label_blocks_a_feature_and_phase3_recovers_it():
    X, Y = blocked()
    res = camcf.run(X, Y, **AUTHORS)
    t = res.target((1, 1))  # B = 1
    # Phase 1: both categories of A tie on I(t; C); the first listed is accepted, and the
    # second adds nothing given the first
    assert t.skeleton == (0,)  # category id 0 is A = 0
    rows = res.to_frame((1, 1))
    cmi = rows[rows.step == "label-cmi"]
    assert list(cmi.decision) == ["accepted", "rejected"]
    # Phase 2: I(t; f | A=0) = H(t | A) ≤ δ1, so backward elimination removes f
    back = rows[rows.step == "backward"].iloc[0]
    assert back.b == 1 and back.decision == "removed"
    assert back.value == pytest.approx(mutual_information(X[:, 1], Y[:, 1]) - mutual_information(
        Y[:, 0], Y[:, 1]), abs=1e-9)
    assert t.pc == ()
    # Phase 3: S_base = PC ∪ (R − r) is empty; I(t; f) = 1 bit beats I(t; A=0) ≈ 0.955 bits
    assert t.recovered == ((1, 0),)
    rec = rows[rows.step == "recovery"].iloc[0]
    assert rec.decision == "recovered" and rec.value > rec.threshold
    assert t.blanket == (1,)
    assert res.selected_indices.tolist() == [1]


def test_recovery_needs_a_skeleton():
    X, Y = collider()
    res = camcf.run(X, Y, **AUTHORS)
    assert all(t.recovered == () for t in res.targets)
    assert not (res.to_frame().step == "recovery").any()


# ---------------------------------------------------------------------------------------------
# a feature that another label explains better is removed for redundancy
# ---------------------------------------------------------------------------------------------
def redundant():
    n = 200
    A = np.arange(n) % 2
    B = A.copy()
    B[:70] ^= 1  # B agrees with A on 65 % of rows: I(A; B) = 1 − H(0.35) ≈ 0.066 ≤ δ2
    g = A.copy()  # a child of A, and through A weakly linked to B
    X = np.column_stack([g, (np.arange(n) // 2) % 2])
    return X, np.column_stack([A, B])


def test_feature_explained_better_by_another_label_is_removed():
    X, Y = redundant()
    res = camcf.run(X, Y, **AUTHORS)
    t = res.target((1, 0))
    assert t.skeleton == ()  # A does not pass δ2
    assert t.pc == (0,)
    assert t.after_symmetry == (0,)
    assert t.blanket == ()
    (f, d, v, sf), = t.redundancy_removed
    assert f == 0
    assert res.categories[d].label == "label0" and res.categories[d].value == 0
    assert v == pytest.approx(1.0)  # I(g; [A == 0]) = H(A)
    assert sf == pytest.approx(1 - h2(0.35), abs=1e-12)
    assert v > 1.2 * sf
    # for target A the same feature is its own parent and stays
    assert res.target((0, 1)).blanket == (0,)


def test_gamma_controls_redundancy():
    X, Y = redundant()
    res = camcf.run(X, Y, **AUTHORS, gamma=100.0)
    assert res.target((1, 0)).blanket == (0,)


# ---------------------------------------------------------------------------------------------
# Phase 1: greedy acceptance against δ2
# ---------------------------------------------------------------------------------------------
def test_skeleton_rejects_a_label_that_adds_nothing_given_the_accepted_one():
    rng = np.random.default_rng(0)
    n = 600
    T = rng.integers(0, 2, n)
    A = T ^ (rng.random(n) < 0.1)
    B = A.copy()  # a copy of A: I(T; B | A) = 0
    X = rng.integers(0, 2, size=(n, 3))
    res = camcf.run(X, np.column_stack([T, A, B]), **AUTHORS)
    t = res.target((0, 1))
    cats = [res.categories[q] for q in t.skeleton]
    assert [(c.label_index) for c in cats] == [1]
    rows = res.to_frame((0, 1))
    b_rows = rows[(rows.step == "label-cmi") & rows.b_name.str.startswith("label2")]
    assert (b_rows.decision == "rejected").all() and len(b_rows) >= 1


# ---------------------------------------------------------------------------------------------
# flattening, sizes, k1/k2 shares
# ---------------------------------------------------------------------------------------------
def multiclass():
    rng = np.random.default_rng(5)
    n = 300
    M = np.repeat([0, 1, 2], [150, 147, 3])  # category 2 has only 3 samples
    X = np.column_stack([M == 0, M == 1, rng.integers(0, 2, n)]).astype(int)
    B = rng.integers(0, 2, n)
    return X, np.column_stack([M, B])


def test_small_category_is_skipped_with_its_reason():
    X, Y = multiclass()
    res = camcf.run(X, Y, **AUTHORS)
    assert [t.category.display for t in res.targets] == [
        "label0=0", "label0=1", "label0=2", "label1=0", "label1=1"]
    small = res.target((0, 2))
    assert small.skipped and "3 positive samples < min_category_size = 5" in small.skip_reason
    assert res.target((0, 0)).blanket  # the big categories of the multi-class label run
    res2 = camcf.run(X, Y, **AUTHORS, min_category_size=3)
    assert not res2.target((0, 2)).skipped


def test_k1_keeps_the_ceiling_share_of_sorted_candidates():
    rng = np.random.default_rng(2)
    n = 500
    t = rng.integers(0, 2, n)
    X = np.column_stack([t ^ (rng.random(n) < p) for p in (0.05, 0.1, 0.15, 0.2, 0.5)])
    res = camcf.run(X, t[:, None], delta1=0.05, delta2=0.1, k1=0.5, k2=1.0)
    tr = res.target((0, 1))
    assert tr.candidates_all == (0, 1, 2, 3)  # sorted by s_f, descending
    assert tr.candidates == (0, 1)  # ⌈0.5 × 4⌉ = 2
    res = camcf.run(X, t[:, None], delta1=0.05, delta2=0.1, k1=0.6, k2=1.0)
    assert res.target((0, 1)).candidates == (0, 1, 2)  # ⌈0.6 × 4⌉ = 3


def test_k2_cut_is_a_share_of_the_blanket():
    X, Y = collider()
    res = camcf.run(X, Y, delta1=0.05, delta2=0.1, k1=1.0, k2=0.5)
    t = res.target((0, 1))
    assert t.cmb == (0, 1)
    assert t.after_cut == (0,) and t.cut == (1,)  # ⌈0.5 × 2⌉ = 1, highest s_f first


# ---------------------------------------------------------------------------------------------
# run-wide guarantees
# ---------------------------------------------------------------------------------------------
def random_problem(seed=0, n=400, m=25):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, m))
    L1 = ((X[:, 0] + X[:, 1]) > 2).astype(int) ^ (rng.random(n) < 0.1)
    L2 = L1 ^ (rng.random(n) < 0.15)
    L3 = np.where(X[:, 4] == 0, 0, np.where(X[:, 5] > 0, 1, 2))
    return X, np.column_stack([L1, L2, L3])


def _decisions(res):
    out = {}
    for t in res.targets:
        d = res.target_dict(t)
        d.pop("mirror_of")
        d.pop("label")
        d.pop("category")
        d.pop("category_name")
        d.pop("size")
        out[t.id] = d
    return out


def test_complementary_categories_are_identical_when_computed_separately():
    X, Y = random_problem(1)
    a = camcf.run(X, Y, **AUTHORS)
    flipped = Y.copy()
    flipped[:, 0] = 1 - flipped[:, 0]
    b = camcf.run(X, flipped, **AUTHORS)
    # in `b` the category that was mirrored in `a` is the one computed, and vice versa
    assert a.target((0, 1)).mirror_of == 0
    assert b.target((0, 1)).mirror_of == 0
    for cat in (0, 1):
        ta, tb = a.target((0, cat)), b.target((0, 1 - cat))
        for field in ("skeleton", "candidates", "pc", "spouses", "recovered", "blanket"):
            assert getattr(ta, field) == getattr(tb, field), field


def test_same_input_same_json_byte_for_byte():
    X, Y = random_problem(2)
    a = camcf.run(X, Y, **AUTHORS).to_json(include_trace=True)
    b = camcf.run(X.copy(), Y.copy(), **AUTHORS).to_json(include_trace=True)
    assert a == b
    assert json.loads(a)["selected_indices"] == sorted(json.loads(a)["selected_indices"])


@pytest.mark.parametrize("params", [
    AUTHORS,
    dict(delta1=0.01, delta2=0.02, k1=1.0, k2=0.3),
    dict(delta1=0.02, delta2=0.05, k1=0.9, k2=0.8, recovery="all"),
])
@pytest.mark.parametrize("seed", [0, 3])
def test_fast_engine_takes_the_reference_engines_decisions(params, seed):
    X, Y = random_problem(seed, n=300, m=15)
    fast = camcf.run(X, Y, **params)
    ref = camcf.run(X, Y, **params, engine="reference")
    assert _decisions(fast) == _decisions(ref)
    f, r = fast.to_frame(names=False), ref.to_frame(names=False)
    assert list(f.decision) == list(r.decision)
    np.testing.assert_allclose(f.value.to_numpy(), r.value.to_numpy(), atol=1e-12)


def test_trace_holds_every_decision_and_sets_agree_with_it():
    X, Y = random_problem(4)
    res = camcf.run(X, Y, **AUTHORS)
    for t in res.targets:
        if t.skipped:
            continue
        rows = res.to_frame(t.id)
        scores = rows[rows.step == "feature-mi"]
        assert sorted(scores.b) == list(range(X.shape[1]))  # every feature scored once
        kept = scores[scores.decision == "kept"]
        assert tuple(kept.b) == t.candidates
        removed = set(rows[(rows.step == "backward") & (rows.decision == "removed")].b)
        assert set(t.candidates) - removed == set(t.pc)
        assert set(rows[rows.decision == "spouse"].b) == set(t.spouses)
        assert t.blanket == tuple(sorted(set(t.after_symmetry) - {
            f for f, *_ in t.redundancy_removed}))
        g = res.to_networkx(t.id)
        assert g.nodes[t.category.display]["kind"] == "target"
        assert {g.nodes[n]["pool"] for n, k in g.nodes(data="kind") if k == "pc"} == set(t.pc)
    assert res.selected_after("phase4").tolist() == res.selected_indices.tolist()
    assert set(res.selected_after("phase4")) <= set(res.selected_after("phase3")) | set(
        res.selected_after("phase2"))


def test_dataset_input_is_discretised_and_named():
    X, Y = random_problem(0)
    Xf = X + np.random.default_rng(0).random(X.shape) * 0.3  # continuous: will be binned
    ds = camcf.Dataset(X=Xf, Y=Y, feature_names=[f"g{j}" for j in range(X.shape[1])],
                       label_names=["a", "b", "c"])
    res = camcf.run(ds, **AUTHORS)
    assert res.feature_names[0] == "g0" and res.label_names == ["a", "b", "c"]
    assert res.target(("c", 2)).category.display == "c=2"


def test_minus_one_plus_one_labels_read_as_zero_one():
    X, Y = random_problem(0)
    a = camcf.run(X, Y[:, :2], **AUTHORS)
    b = camcf.run(X, 2 * Y[:, :2] - 1, **AUTHORS)
    assert _decisions(a) == _decisions(b)


# ---------------------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw, match", [
    (dict(delta1=-0.1), "delta1"),
    (dict(delta2=float("nan")), "delta2"),
    (dict(k1=0), r"k1 .* \(0, 1\]"),
    (dict(k2=1.5), "k2"),
    (dict(gamma=0), "gamma"),
    (dict(min_category_size=0), "min_category_size"),
    (dict(min_category_size=2.5), "min_category_size"),
    (dict(recovery="some"), "recovery"),
    (dict(delta1="0.1"), "delta1"),
])
def test_parameter_errors_name_the_parameter(kw, match):
    X, Y = collider()
    with pytest.raises(ParameterError, match=match):
        camcf.run(X, Y, **kw)


def test_data_errors():
    X, Y = collider()
    Xn = X.astype(float)
    Xn[3, 1] = np.nan
    with pytest.raises(InvalidDataError, match="NaN"):
        camcf.run(Xn, Y)
    with pytest.raises(InvalidDataError, match="discretise"):
        camcf.run(X + 0.5, Y)
    with pytest.raises(InvalidDataError, match="rows"):
        camcf.run(X, Y[:-1])
    with pytest.raises(InvalidDataError, match="one category only"):
        camcf.run(X, np.zeros_like(Y))
    with pytest.raises(InvalidDataError, match="negative"):
        camcf.run(X, Y - 2)
    with pytest.raises(InvalidDataError, match="Y"):
        camcf.run(X)


def test_constant_label_is_skipped_with_a_warning():
    X, Y = collider()
    Y2 = np.column_stack([Y, np.ones(len(Y), dtype=int)])
    with pytest.warns(CamcfWarning, match="one category only"):
        res = camcf.run(X, Y2, **AUTHORS)
    assert res.target((1, 1)).skipped
    assert res.target((0, 1)).blanket == (0,)


def test_nothing_selected_warns():
    X, Y = collider()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        res = camcf.run(X, Y, delta1=0.9, delta2=0.1, k1=1.0, k2=1.0)
    assert res.selected_indices.size == 0
    assert any("selected no feature" in str(x.message) for x in w)


# ---------------------------------------------------------------------------------------------
# recovery="first" (authors' code) stops after one feature; "all" (paper) goes on
# ---------------------------------------------------------------------------------------------
def two_blockers():
    rows = np.array(list(itertools.product([0, 1], repeat=2)) * 250)
    f1, f2 = rows.T
    T = f1 | f2
    A1, A2 = f1.copy(), f2.copy()
    A1[[0, 1, 2, 3, 4]] ^= 1  # noisy copies: each masks its feature given the other labels
    A2[[10, 11, 12, 13, 14]] ^= 1
    noise = (np.arange(len(T)) // 4) % 2
    return np.column_stack([noise, f1, f2]), np.column_stack([T, A1, A2])


def test_recovery_first_stops_after_one_feature_and_all_goes_on():
    X, Y = two_blockers()
    first = camcf.run(X, Y, **AUTHORS, recovery="first").target((0, 1))
    every = camcf.run(X, Y, **AUTHORS, recovery="all").target((0, 1))
    # R = [A2 = 0, A1 = 0] (A2 is slightly more informative); f1 first loses against A2,
    # then beats A1 (its own mask); f2 then beats A2, the member left
    a2, a1 = first.skeleton
    assert first.pc == ()
    assert first.recovered == ((1, a1),)
    assert every.recovered == ((1, a1), (2, a2))  # each blocker consumed once
    assert first.cmb == (1,) and every.cmb == (1, 2)


@pytest.mark.parametrize("name", ["flags", "flags-mat"])
def test_fast_engine_agrees_with_reference_on_real_data(data_dir, name):
    from camcf.catalog import load_shared
    from camcf.discretize import discretize

    ds = load_shared(name, data_dir)
    X, _ = discretize(ds.X)
    params = dict(delta1=0.02, delta2=0.05, k1=1.0, k2=0.8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CamcfWarning)
        fast = camcf.run(X, ds.Y, **params)
        ref = camcf.run(X, ds.Y, **params, engine="reference")
    assert _decisions(fast) == _decisions(ref)
    assert fast.n_tests == ref.n_tests


# ---------------------------------------------------------------------------------------------
# one declaration of the parameters, one check of the data, the engines by name
# ---------------------------------------------------------------------------------------------
def test_defaults_of_run_and_estimator_are_the_declarations():
    import inspect

    from camcf.algorithm_params import ALGORITHM_PARAMS, CAMCF_PARAMS

    run_sig = inspect.signature(camcf.run).parameters
    est_sig = inspect.signature(camcf.CaMCF.__init__).parameters
    for p in ALGORITHM_PARAMS:
        assert run_sig[p.name].default == p.default, p.name
    for p in CAMCF_PARAMS:
        assert est_sig[p.name].default == p.default, p.name
    from camcf.algorithm import check_params

    # significance and adequacy are recorded only when they act ("auto" thresholds; h > 0)
    assert check_params() == {p.name: p.default for p in ALGORITHM_PARAMS
                              if p.name not in ("significance", "adequacy")}


@pytest.mark.parametrize("bad, match", [
    ("nan_x", "empty or non-finite"),
    ("inf_x", "empty or non-finite"),
    ("fraction", "discretise"),
    ("rows", "one label row per sample"),
    ("constant", "one category only"),
    ("negative", "negative"),
    ("names", "feature names"),
])
def test_run_and_the_load_check_refuse_the_same_data_alike(bad, match):
    """check_data is the one check: camcf.run and the app's load check (camcf.io's
    check_runnable) raise the same message for the same bad input."""
    from camcf.algorithm import check_data
    from camcf.dataset import Dataset
    from camcf.io import check_runnable

    X, Y = collider()
    X = X.astype(float)
    names = [f"f{j}" for j in range(X.shape[1])]
    if bad == "nan_x":
        X[3, 1] = np.nan
    elif bad == "inf_x":
        X[0, 0] = np.inf
    elif bad == "fraction":
        X[0, 0] = 0.5
    elif bad == "rows":
        Y = Y[:-1]
    elif bad == "constant":
        Y = np.zeros_like(Y)
    elif bad == "negative":
        Y = Y - 2
    elif bad == "names":
        names = names[:-1]
    with pytest.raises(InvalidDataError, match=match) as from_run:
        camcf.run(X, Y, feature_names=names)
    with pytest.raises(InvalidDataError, match=match) as from_check:
        check_data(X, Y, feature_names=names)
    assert str(from_run.value) == str(from_check.value)
    if bad not in ("rows", "names", "fraction"):  # a Dataset cannot be built with those
        ds = Dataset(X=X, Y=Y, feature_names=names, label_names=["t"], source="d.csv")
        with pytest.raises(InvalidDataError, match=match) as from_app:
            check_runnable(ds, discretize="none")
        assert str(from_app.value) == "d.csv: " + str(from_run.value)


def test_check_data_with_binning_accepts_fractions_and_checks_the_settings():
    from camcf.algorithm import check_data

    X, Y = collider()
    check_data(X + 0.5, Y, discretize="auto")  # binned: any finite value
    with pytest.raises(InvalidDataError, match="discretise"):
        check_data(X + 0.5, Y, discretize="none")
    with pytest.raises(ParameterError, match="bins"):
        check_data(X, Y, discretize="auto", bins=1)


def test_unknown_engine_names_the_registry():
    X, Y = collider()
    with pytest.raises(ParameterError, match="'fast', 'reference'") as e:
        camcf.run(X, Y, engine="quick")
    assert e.value.name == "engine" and e.value.allowed == ["fast", "reference"]


# ---------------------------------------------------------------------------------------------
# Phase 4 again for another k2, from a finished result
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("level", ["full", "decisions"])
def test_with_k2_is_a_run_with_that_k2(level):
    from camcf.phases import rerun_phase4, with_k2

    rng = np.random.default_rng(8)
    X = rng.integers(0, 3, size=(300, 16))
    Y = np.column_stack([(X[:, 0] + X[:, 1] > 2) ^ (rng.random(300) < 0.1),
                         (X[:, 2] > 0) ^ (rng.random(300) < 0.2),
                         np.where(X[:, 3] == 0, 0, np.where(X[:, 4] > 0, 1, 2))]).astype(int)
    params = dict(delta1=0.005, delta2=0.01, k1=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CamcfWarning)
        base = camcf.run(X, Y, **params, k2=1.0, trace=level)
        changed = 0
        for k2 in (0.2, 0.5, 0.8):
            direct = camcf.run(X, Y, **params, k2=k2, trace=level)
            again = with_k2(base, k2)
            assert again.to_json() == direct.to_json()
            a, b = again.to_frame(), direct.to_frame()
            assert a.drop(columns="cond").equals(b.drop(columns="cond"))
            assert list(a.cond) == list(b.cond)
            t = next(t for t in direct.targets if not t.skipped)
            one = rerun_phase4(base, t.id, k2)
            assert one.blanket == t.blanket and one.test_counts == t.test_counts
            changed += direct.selected_indices.size != base.selected_indices.size
        assert changed  # the k2 values matter on these data
        counts = with_k2(base, 0.8, trace="counters")
        assert counts.n_rows == 0 and counts.n_tests == direct.n_tests  # direct: k2 = 0.8
        assert counts.selected_indices.tolist() == direct.selected_indices.tolist()
    with pytest.raises(ParameterError, match="k2"):
        with_k2(base, 0)
    if level == "decisions":
        with pytest.raises(ParameterError, match="trace"):
            with_k2(base, 0.5, trace="full")  # rows the result does not keep


def test_landscape_has_no_engine_of_its_own():
    import camcf.landscape as landscape

    assert not hasattr(landscape, "_TableEngine")
    src = open(landscape.__file__, encoding="utf-8").read()
    assert "symmetry_and_redundancy" not in src.split('"""', 2)[2]  # only in the docstring


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.float64])
def test_check_data_reads_label_codes_of_any_numeric_type(dtype):
    """Integer label codes are checked as they are (no float copy) and say what a float copy
    said: −1/+1 is fine, other negative codes and codes beyond ±2**53 are named."""
    from camcf.algorithm import check_data
    from camcf.errors import InvalidDataError

    X = np.zeros((6, 2), dtype=np.uint8)
    ok = np.array([[0, 1, -1], [1, 0, 1], [2, 1, -1], [0, 0, 1], [1, 1, 1], [2, 0, -1]],
                  dtype=dtype)
    check_data(X, ok)
    bad = ok.copy()
    bad[3, 1] = -2
    with pytest.raises(InvalidDataError, match=r"label column 1 has negative codes \[-2\]"):
        check_data(X, bad)
    with pytest.raises(InvalidDataError, match="single value"):
        check_data(X, np.ones((6, 2), dtype=dtype))
    if dtype is np.int64:
        big = ok.copy()
        big[0, 0] = 2**60
        with pytest.raises(InvalidDataError, match=r"beyond ±2\*\*53"):
            check_data(X, big)

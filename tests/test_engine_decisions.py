"""The compiled engine (``engine="fast"``) takes the reference engine's decisions
(``engine="reference"``, every value from its own contingency table) at the four settings of
``benchmarks/bench_settings.py:CHECKS``: on generated data, and on every shared data set — a
seeded subset of the wide ones' columns and rows here, the whole of each in
``benchmarks/check_engines.py``.

The same decisions: ``Result.to_json()`` equal by :func:`camcf.result.compare_json` (numbers,
rounded to 12 decimals, to one unit of their last), ``mirror_of`` left out (the compiled engine
mirrors a binary label's second category, the reference computes it); and the same record:
every test in the same order with the same variables, sets, strata and decisions, values to
1e-12 bits.
"""

from __future__ import annotations

import json
import os
import warnings
import zlib

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import benchmark_module

import camcf
from camcf.catalog import CATALOG, available, load_shared
from camcf.discretize import discretize
from camcf.result import compare_json

CHECKS = benchmark_module("bench_settings").CHECKS  # the settings check_decisions runs
TOL = 1e-12  # bits
#: the shared sets are cut to at most this many features, rows and labels (seeded by the
#: set's name): the reference engine then runs each setting in a second or two (on the whole of
#: PlantGO it takes 25 to 143 s a setting, on Enron's 92 to 1,110 s);
#: benchmarks/check_engines.py compares the whole sets
MAX_FEATURES, MAX_ROWS, MAX_LABELS = 100, 400, 8

EXAMPLES = int(os.environ.get("CAMCF_FUZZ_EXAMPLES", "12"))
DECISIONS = settings(max_examples=EXAMPLES, deadline=None,
                     derandomize=not os.environ.get("CAMCF_FUZZ_RANDOM"),
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def assert_same_decisions(X, Y, params: dict, what: str) -> camcf.Result:
    """Run both engines on (X, Y) with ``params``; their decisions and records agree."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = camcf.run(X, Y, **params)
        ref = camcf.run(X, Y, **params, engine="reference")
    same, how = compare_json(json.loads(ref.to_json()), json.loads(fast.to_json()),
                             ignore=("mirror_of",))
    assert same, f"{what}: decisions differ ({how})"
    a, b = ref.to_frame(names=False), fast.to_frame(names=False)
    assert list(a.columns) == list(b.columns) and len(a) == len(b), what
    for col in a.columns:
        if col in ("g", "p_value", "log10_p"):  # functions of the value and the strata (df)
            continue
        if col in ("value", "threshold"):
            np.testing.assert_allclose(b[col].to_numpy(), a[col].to_numpy(), rtol=0, atol=TOL,
                                       err_msg=f"{what}: {col}")
        else:
            assert a[col].tolist() == b[col].tolist(), f"{what}: record column {col}"
    assert fast.n_tests == ref.n_tests
    return fast


# ---------------------------------------------------------------------------------------------
# generated data
# ---------------------------------------------------------------------------------------------
@st.composite
def data_sets(draw):
    """A small multi-label problem with structure for every phase: labels of 2–4 values
    (multi-class categories) copied from features with noise, labels copied from labels
    (a skeleton, blocking), features of 2–4 codes, mostly zeros or not, some codes ≥ 64;
    X dense or sparse."""
    n = draw(st.integers(12, 90), label="n")
    m = draw(st.integers(2, 9), label="m")
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1), label="seed"))
    X = rng.integers(0, 4, size=(n, m)) % rng.integers(2, 5, size=m)
    X *= rng.random((n, m)) >= rng.choice([0.0, 0.6], size=m)
    q = draw(st.integers(1, 3), label="labels")
    Y = np.empty((n, q), dtype=np.int64)
    for i in range(q):
        values = draw(st.integers(2, 4))
        src = X[:, rng.integers(m)] if i == 0 or rng.random() < 0.6 else Y[:, rng.integers(i)]
        noise = draw(st.sampled_from([0.05, 0.2, 0.5]))
        Y[:, i] = np.where(rng.random(n) < noise, rng.integers(0, values, n), src % values)
        Y[:2, i] = [0, 1]  # two values at least
    if draw(st.booleans(), label="codes ≥ 64"):
        X[:, 0] = np.where(X[:, 0] > 0, 64 + 11 * X[:, 0], 0)
    return (sp.csr_matrix(X) if draw(st.booleans(), label="sparse") else X), Y


#: the settings on generated data: CHECKS', and the heavier one with the test-adequacy rule
#: on (it reads each engine's levels and strata)
GENERATED = {**CHECKS, "heavier-adequacy": {**CHECKS["heavier"], "adequacy": 2.0}}


@pytest.mark.parametrize("setting", list(GENERATED))
@DECISIONS
@given(data_sets())
def test_same_decisions_on_generated_data(setting, problem):
    X, Y = problem
    assert_same_decisions(X, Y, GENERATED[setting], setting)


# ---------------------------------------------------------------------------------------------
# the shared data sets
# ---------------------------------------------------------------------------------------------
def subset(name: str, folder):
    """The shared set ``name`` discretised as check_decisions does, cut to a seeded choice of
    at most MAX_FEATURES features, MAX_ROWS rows and MAX_LABELS labels (in their order) of
    those that vary on these rows."""
    ds = load_shared(name, folder)
    X, _ = discretize(ds.X)
    Y = np.asarray(ds.Y)
    n, m = X.shape
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    rows = np.sort(rng.choice(n, MAX_ROWS, replace=False)) if n > MAX_ROWS else np.arange(n)
    cols = np.sort(rng.choice(m, MAX_FEATURES, replace=False)) if m > MAX_FEATURES else None
    X = X[rows] if cols is None else X[rows][:, cols]
    Y = Y[rows]
    varies = np.array([i for i in range(Y.shape[1]) if np.unique(Y[:, i]).size > 1])
    if varies.size > MAX_LABELS:
        varies = np.sort(rng.choice(varies, MAX_LABELS, replace=False))
    return X, Y[:, varies]


@pytest.mark.parametrize("setting", list(CHECKS))
@pytest.mark.parametrize("name", list(CATALOG))
def test_same_decisions_on_the_shared_data_sets(data_dir, name, setting):
    if name not in available(data_dir):
        pytest.skip(f"{CATALOG[name].path} not found in {data_dir}")
    X, Y = subset(name, data_dir)
    res = assert_same_decisions(X, Y, CHECKS[setting], f"{name} {setting}")
    assert res.n_tests > 500  # (a run that tests something)


def test_compare_json_tells_a_decision_from_a_last_decimal():
    """compare_json: a number one unit of its 12th decimal off is the same; a changed set, a
    key missing or added, an integer turned float beyond the tolerance, a string are not;
    ignored keys are left out at every depth."""
    a = {"targets": [{"pc": [1, 2], "value": 0.123456789012, "mirror_of": None}], "n": 3}
    assert compare_json(a, json.loads(json.dumps(a))) == (True, "identical")
    b = {"targets": [{"pc": [1, 2], "value": 0.123456789013, "mirror_of": None}], "n": 3}
    assert compare_json(a, b)[0]
    for change in ({"pc": [1]}, {"pc": [1, 3]}, {"value": 0.12345678901}, {"mirror_of": 0},
                   {"extra": 1}):
        c = json.loads(json.dumps(a))
        c["targets"][0].update(change)
        same, how = compare_json(a, c)
        assert not same and how.startswith("differs at .targets[0]"), change
    c = json.loads(json.dumps(a))
    c["targets"][0]["mirror_of"] = 0
    assert compare_json(a, c, ignore=("mirror_of",))[0]
    assert not compare_json(a, {**a, "n": "3"})[0] and not compare_json(a, {**a, "n": 3.5})[0]

"""The decision record: one Arrow table per target (Result.record_table), from which to_frame,
the files (parquet, csv, jsonl) and to_json's trace are derived by the libraries' writers. Each
format read back holds the content of to_frame(); the significance columns (n, g, df, p_value,
log10_p) agree with scipy on the data's own contingency tables."""

from __future__ import annotations

import io
import json
import math
import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chi2, chi2_contingency

import camcf
from camcf.engine import joint_codes

HEAVIER = dict(delta1=0.01, delta2=0.02, k1=1.0, k2=0.3)
FLOATS = ("value", "threshold", "g", "p_value", "log10_p")


def problem(seed=0, n=200, m=14):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, m))
    X[:, m - 1] = 1  # a constant feature: its tests have df = 0
    L = [((X[:, 0] + X[:, 1]) > 2) ^ (rng.random(n) < 0.1)]
    L.append(L[0] ^ (rng.random(n) < 0.2))
    L.append((X[:, 2] > 0) ^ (rng.random(n) < 0.1))
    L.append(np.where(X[:, 4] == 0, 0, np.where(X[:, 5] > 0, 1, 2)))
    return X, np.column_stack(L).astype(int)


# names a CSV must quote, JSON must escape (quotes, backslash, slash, newline, non-ASCII)
ODD = ['a,b', 'say "hi"', "back\\slash", "sl/ash", "new\nline", "ünï €", "tab\tx", "cr\rx"]


def run(seed=0, **kw):
    X, Y = problem(seed)
    names = [ODD[j] if j < len(ODD) else f"x{j}" for j in range(X.shape[1])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", camcf.CamcfWarning)
        return camcf.run(X, Y, feature_names=names, label_names=["L,0", 'L"1', "L2", "L/3"],
                         **{**HEAVIER, **kw})


def with_odd_values(res):
    """The same result with NaN, ±inf, −0.0, tiny and huge values in the record."""
    odd = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-300, 5e-324, 1.5e20, 1e16,
                    123456789.123456789, 1 / 3, 2e-5])
    targets = []
    for t in res.targets:
        if t.trace and t.trace["step"].size:
            tr = dict(t.trace)
            tr["value"] = tr["value"].copy()
            k = min(odd.size, tr["value"].size)
            tr["value"][:k] = odd[:k]
            tr["threshold"] = tr["threshold"].copy()
            tr["threshold"][-k:] = odd[::-1][:k]
            t = replace(t, trace=tr)
        targets.append(t)
    return replace(res, targets=targets, _cache={})


@pytest.fixture(scope="module")
def res():
    return with_odd_values(run())


def _is_text(col: pd.Series) -> bool:
    return col.name != "cond" and pd.api.types.is_string_dtype(col)


def _same_content(got: pd.DataFrame, want: pd.DataFrame, *, rtol: float = 0.0,
                  atol: float = 0.0, inf_as_nan: bool = False) -> None:
    assert list(got.columns) == list(want.columns)
    assert len(got) == len(want)
    assert [tuple(int(x) for x in c) for c in got["cond"]] == list(want["cond"])
    for c in want.columns:
        if c == "cond":
            continue
        a, b = got[c].to_numpy(), want[c].to_numpy()
        if c in FLOATS:
            b = b.astype(float)
            if inf_as_nan:
                b = np.where(np.isinf(b), np.nan, b)
            np.testing.assert_allclose(a.astype(float), b, rtol=rtol, atol=atol, err_msg=c)
        else:
            assert a.tolist() == b.tolist(), c


@pytest.mark.parametrize("names", [True, False])
def test_parquet_reads_back_as_to_frame(res, names):
    got = pd.read_parquet(io.BytesIO(res.record_bytes("parquet", names=names)))
    full = res.to_frame(names=names)
    assert len(full) == res.n_rows > 100
    assert any(len(c) for c in full["cond"])
    _same_content(got, full)
    pd.testing.assert_frame_equal(got.drop(columns="cond"), full.drop(columns="cond"))


@pytest.mark.parametrize("names", [True, False])
def test_csv_reads_back_as_to_frame(res, names):
    text = res.record_bytes("csv", names=names)
    want = res.to_frame(names=names)
    nan = {c: ["nan"] for c in FLOATS}
    texts = {c: str for c in want.columns if _is_text(want[c])}
    got = pd.read_csv(io.BytesIO(text), keep_default_na=False, na_values=nan, dtype=texts)
    got["cond"] = [tuple(int(x) for x in s.split()) if s else () for s in
                   got["cond"].astype(str)]
    _same_content(got, want)  # numbers exactly


@pytest.mark.parametrize("names", [True, False])
def test_jsonl_reads_back_as_to_frame(res, names):
    text = res.record_bytes("jsonl", names=names)
    assert text.count(b"\n") == res.n_rows
    want = res.to_frame(names=names)
    rows = [json.loads(line) for line in text.decode("utf-8").splitlines()]
    got = pd.DataFrame(rows, columns=list(rows[0]))
    got = got.astype({c: float for c in FLOATS})  # null → NaN
    # pandas' writer: 15 decimal places (exponent form below about 1e-9); NaN, ±inf as null
    _same_content(got, want, rtol=1e-14, atol=1e-15, inf_as_nan=True)


@pytest.mark.parametrize("indent", [1, None, 0, 3])
def test_to_json_trace_is_the_record(res, indent):
    text = res.to_json(include_trace=True, indent=indent)
    got = json.loads(text)
    plain = json.loads(res.to_json(indent=indent))
    assert {k: v for k, v in got.items() if k != "trace"} == plain
    records = res.trace_records()
    assert len(got["trace"]) == len(records) == res.n_rows
    assert got["trace"][0]["value"] is None and records[0]["value"] is None  # the NaN
    for a, b in zip(got["trace"], records, strict=True):
        assert a.keys() == b.keys()
        for k, v in b.items():
            if isinstance(v, float):
                assert a[k] == pytest.approx(v, rel=1e-14, abs=1e-15), k
            else:
                assert a[k] == v, k
    frame = res.to_frame(names=False)
    assert [r["cond"] for r in records] == [list(c) for c in frame["cond"]]


def test_to_json_of_a_run_without_rows():
    res = run(trace="counters")
    assert res.n_rows == 0
    text = res.to_json(include_trace=True)
    assert json.loads(text)["trace"] == []
    assert json.loads(text)["n_tests"] == res.n_tests > 0


def test_empty_record_files(tmp_path):
    res = run(trace="counters")
    assert res.write_record(tmp_path / "r.csv") == 0
    assert (tmp_path / "r.csv").read_text().startswith('"target","label","category","seq"')
    assert res.write_record(tmp_path / "r.jsonl") == 0
    assert (tmp_path / "r.jsonl").read_bytes() == b""
    assert res.write_record(tmp_path / "r.parquet") == 0
    back = pd.read_parquet(tmp_path / "r.parquet")
    assert len(back) == 0 and list(back.columns) == list(res.to_frame().columns)


def test_decisions_level_record():
    full, dec = run(seed=3), run(seed=3, trace="decisions")
    assert 0 < dec.n_rows < dec.n_tests == full.n_tests
    d = dec.to_frame()
    f = full.to_frame().set_index(["target", "seq"]).loc[list(zip(d.target, d.seq, strict=True))]
    for c in ("decision", "value", "n", "g", "df", "p_value", "cond"):
        assert list(f[c]) == list(d[c]), c
    back = pd.read_parquet(io.BytesIO(dec.record_bytes("parquet")))
    assert list(back["seq"]) == list(d["seq"])


def test_parquet_row_groups_hold_several_targets(res):
    import pyarrow.parquet as pq

    f = pq.ParquetFile(io.BytesIO(res.record_bytes("parquet")))
    assert f.metadata.num_rows == res.n_rows
    assert f.metadata.num_row_groups == 1  # a small record is one row group


def test_record_table_tests_and_frame_agree():
    res = run(seed=1)
    t = next(t for t in res.targets if t.trace and t.trace["step"].size)
    table = res.record_table(t.id)
    frame = res.to_frame(t.id)
    assert table.num_rows == len(frame) == len(res.tests(t.id))
    assert table.column_names == list(frame.columns)
    for test, row in zip(res.tests(t.id), frame.itertuples(index=False), strict=True):
        assert (test.seq, test.step, test.b, test.cond, test.decision) == (
            row.seq, row.step, row.b, row.cond, row.decision)
        assert (test.n, test.df) == (row.n, row.df)
        assert test.g == row.g and test.p_value == row.p_value
    assert res.record_table(res.skipped[0].id).num_rows == 0 if res.skipped else True


def test_fill_trace_refuses_an_unclear_place(res):
    assert res.fill_trace('{"trace": [], "x": {"trace": []}}', None) is None
    assert res.fill_trace('{"a": 1}', 1) is None
    assert res.fill_trace("{}", "  ") is None


def test_cli_select_with_trace_writes_the_record(tmp_path):
    from camcf.cli import main

    X, Y = problem(5)
    data = tmp_path / "d.csv"
    df = pd.DataFrame(X, columns=[ODD[j] if j < 3 else f"x{j}" for j in range(X.shape[1])])
    for i in range(Y.shape[1]):
        df[f"y{i}"] = Y[:, i]
    df.to_csv(data, index=False)
    args = ["select", str(data), "--labels", f"last:{Y.shape[1]}", "--discretize", "none",
            "--delta1", "0.01", "--delta2", "0.02", "--k1", "1", "--k2", "0.3"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", camcf.CamcfWarning)
        assert main([*args, "--trace", "-o", str(tmp_path / "t.json"),
                     "--record", str(tmp_path / "r.jsonl")]) == 0
        assert main([*args, "-o", str(tmp_path / "n.json")]) == 0
    got = json.loads((tmp_path / "t.json").read_text())
    plain = json.loads((tmp_path / "n.json").read_text())
    assert list(got) == [*[k for k in plain if k != "data"], "trace", "data"]
    assert len(got["trace"]) == got["n_tests"] > 0
    lines = (tmp_path / "r.jsonl").read_text().splitlines()
    assert len(lines) == got["n_tests"]
    first, want = json.loads(lines[0]), got["trace"][0]
    for k, v in want.items():
        assert first[k] == (pytest.approx(v, rel=1e-14, abs=1e-15) if isinstance(v, float)
                            else v), k


# ---------------------------------------------------------------------------------------------
# the significance columns
# ---------------------------------------------------------------------------------------------
def _column(X, C, m, p, target):
    if p == -1:
        return C[:, target]
    return X[:, p] if p < m else C[:, p - m]


def _indicators(res, Y):
    return np.column_stack([Y[:, c.label_index] == c.value for c in res.categories]).astype(int)


def test_g_and_p_agree_with_scipy_on_every_unconditional_table(data_dir):
    """Real data (Flags): every unconditional test's g, df and p are scipy's G test of
    independence (chi2_contingency, log-likelihood, no correction) on the actual table."""
    from camcf.catalog import load_shared
    from camcf.discretize import discretize

    ds = load_shared("flags", data_dir)
    X, _ = discretize(ds.X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", camcf.CamcfWarning)
        res = camcf.run(X, ds.Y, **HEAVIER)
    C = _indicators(res, np.asarray(ds.Y))
    m = X.shape[1]
    frame = res.to_frame(names=False)
    unc = frame[frame["cond"].map(len) == 0]
    assert len(unc) > 300 and set(unc.step) >= {"label-mi", "feature-mi", "k2-cut", "symmetry",
                                                 "redundancy"}
    seen = {}
    for row in unc.itertuples(index=False):
        key = (row.target if row.a == -1 else -2, row.a, row.b)
        if key not in seen:
            a = _column(X, C, m, row.a, row.target)
            b = _column(X, C, m, row.b, row.target)
            _, ia = np.unique(a, return_inverse=True)
            _, ib = np.unique(b, return_inverse=True)
            table = np.zeros((ia.max() + 1, ib.max() + 1))
            np.add.at(table, (ia.ravel(), ib.ravel()), 1)
            if min(table.shape) == 1:  # a constant variable: no test, G = 0, p = 1
                seen[key] = (0.0, 0, 1.0)
            else:
                stat, p, dof, _ = chi2_contingency(table, correction=False,
                                                   lambda_="log-likelihood")
                seen[key] = (stat, dof, p)
        stat, dof, p = seen[key]
        assert row.n == X.shape[0]
        assert row.df == dof
        assert row.g == pytest.approx(stat, rel=1e-9, abs=1e-9)
        assert row.p_value == pytest.approx(p, rel=1e-7, abs=1e-300)
        if p > 1e-300:
            assert row.log10_p == pytest.approx(math.log10(p), rel=1e-7, abs=1e-9)
    assert len(seen) > 150


def test_conditional_g_df_and_p_by_direct_computation():
    """A few conditional rows of every kind, recomputed from the data: G summed over the strata
    of the conditioning set (scipy's G test per stratum), df = (|A|−1)(|B|−1) × the strata that
    occur, p from the χ² survival function."""
    X, Y = problem(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", camcf.CamcfWarning)
        res = camcf.run(X, Y, **HEAVIER)
    C = _indicators(res, Y)
    m = X.shape[1]
    frame = res.to_frame(names=False)
    cond = frame[frame["cond"].map(len) > 0]
    picked = cond.groupby("step").head(3)
    assert set(picked.step) >= {"label-cmi", "backward", "spouse-screen", "spouse"}
    for row in picked.itertuples(index=False):
        a = _column(X, C, m, row.a, row.target)
        b = _column(X, C, m, row.b, row.target)
        S = np.column_stack([_column(X, C, m, p, row.target) for p in row.cond])
        z, nz = joint_codes(S)
        g = 0.0
        for s in range(nz):
            rows = z == s
            _, ia = np.unique(a[rows], return_inverse=True)
            _, ib = np.unique(b[rows], return_inverse=True)
            table = np.zeros((ia.max() + 1, ib.max() + 1))
            np.add.at(table, (ia.ravel(), ib.ravel()), 1)
            if min(table.shape) > 1:
                g += chi2_contingency(table, correction=False, lambda_="log-likelihood")[0]
        df = (np.unique(a).size - 1) * (np.unique(b).size - 1) * nz
        assert row.df == df, row.step
        assert row.g == pytest.approx(g, rel=1e-9, abs=1e-9), row.step
        assert row.p_value == pytest.approx(chi2.sf(g, df), rel=1e-7, abs=1e-300)


def test_a_constant_variable_has_df_0_and_p_1():
    res = run(seed=4)
    f = res.to_frame()
    const = f[(f.b == 13) & (f.cond.map(len) == 0)]  # feature 13 is constant
    assert len(const) > 0
    assert (const.df == 0).all() and (const.p_value == 1.0).all() and (const.log10_p == 0).all()
    assert (const.value.abs() < 1e-12).all()


def test_every_step_has_significance_and_tiny_p_values_do_not_vanish():
    X, Y = problem(6, n=3000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", camcf.CamcfWarning)
        res = camcf.run(X, Y, **HEAVIER)
    f = res.to_frame()
    assert (f.n == 3000).all()
    assert (f.df >= 0).all() and f.p_value.between(0, 1).all()
    np.testing.assert_allclose(f.g, 2 * 3000 * math.log(2) * f.value, rtol=1e-12)
    strong = f[f.p_value == 0.0]  # underflowed: the logarithm still tells how small
    assert len(strong) > 0 and np.isfinite(strong.log10_p).all() and (strong.log10_p < -300).all()


def test_tests_are_kept_for_the_last_targets_only_and_never_shared_or_pickled():
    """``Result.tests`` keeps the tests of the most recently asked targets (explanations ask
    again and again): the same tests each time, a fresh list (a caller's change stays its
    own), at most ``_TESTS_KEPT`` targets kept, and nothing of it in the pickled result."""
    import pickle

    from camcf import result as result_mod
    from camcf.trace import iter_tests

    res = run()
    ids = [t.id for t in res.targets if t.trace]
    assert len(ids) > result_mod._TESTS_KEPT  # enough targets to overflow the memory
    first = res.tests(ids[0])
    first.clear()
    again = res.tests(ids[0])
    t = res.target(ids[0])
    from camcf._record import significance

    want = list(iter_tests(t.trace, t.id, res.cond_sets, significance(res, t)))
    assert list(map(repr, again)) == list(map(repr, want))  # repr: NaN thresholds compare
    assert again and again is not res.tests(ids[0])
    for i in ids:
        res.tests(i)
    kept = result_mod._TESTS[res]
    assert list(kept) == ids[-result_mod._TESTS_KEPT:]
    copy = pickle.loads(pickle.dumps(res))  # kept beside the result, not in it
    assert copy not in result_mod._TESTS and res in result_mod._TESTS
    assert all(k[0] != "tests" for k in res._cache)

"""The decision record's exports (parquet, csv, jsonl, to_json with the trace) are built column-wise
(camcf._record); their content equals the pandas route through Result.to_frame, which these tests
keep as the reference."""

from __future__ import annotations

import io
import json
import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import camcf
from camcf.output import json_safe

HEAVIER = dict(delta1=0.01, delta2=0.02, k1=1.0, k2=0.3)


def problem(seed=0, n=200, m=14):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, m))
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
    return replace(res, targets=targets)


def reference(res, fmt, names=True) -> bytes:
    """The pandas route (what write_record wrote before it was column-wise)."""
    out = io.BytesIO()
    first = True
    for t in res.targets:
        if not t.trace or t.trace["step"].size == 0:
            continue
        df = res.to_frame(t.id, names=names)
        if fmt == "csv":
            out.write(df.assign(cond=[" ".join(map(str, c)) for c in df["cond"]]).to_csv(
                index=False, header=first).encode())
        else:
            out.write(df.assign(cond=[list(c) for c in df["cond"]]).to_json(
                orient="records", lines=True, force_ascii=False).encode())
        first = False
    return out.getvalue()


@pytest.fixture(scope="module")
def res():
    return with_odd_values(run())


@pytest.mark.parametrize("names", [True, False])
@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_text_record_is_the_pandas_text(res, fmt, names):
    got = res.record_bytes(fmt, names=names)
    assert res.n_rows > 100
    assert got.count(b"\n") >= res.n_rows
    assert got == reference(res, fmt, names)


@pytest.mark.parametrize("names", [True, False])
def test_parquet_record_reads_back_as_to_frame(res, names):
    got = pd.read_parquet(io.BytesIO(res.record_bytes("parquet", names=names)))
    full = res.to_frame(names=names)
    assert list(got.columns) == list(full.columns)
    assert len(got) == len(full) == res.n_rows
    assert [tuple(c) for c in got["cond"]] == list(full["cond"])
    assert any(len(c) for c in full["cond"])
    pd.testing.assert_frame_equal(got.drop(columns="cond"), full.drop(columns="cond"))


def test_parquet_schema_is_the_pandas_one(res):
    import pyarrow.parquet as pq

    got = pq.read_schema(io.BytesIO(res.record_bytes("parquet")))
    first = next(t for t in res.targets if t.trace and t.trace["step"].size)
    df = res.to_frame(first.id)
    ref = pa.Table.from_pandas(df.assign(cond=[list(c) for c in df["cond"]]),
                               preserve_index=False).schema
    assert got.field("cond").type == pa.list_(pa.int32())
    assert got.names == ref.names
    assert got.metadata[b"pandas"] == ref.metadata[b"pandas"]


@pytest.mark.parametrize("indent", [1, None, 0, 3])
def test_to_json_with_trace_is_json_dumps_of_the_dict(res, indent):
    ref = json.dumps(json_safe(res.to_dict(include_trace=True)), indent=indent,
                     ensure_ascii=False, allow_nan=False)
    got = res.to_json(include_trace=True, indent=indent)
    assert got == ref
    assert json.loads(got)["trace"][0]["value"] is None  # the NaN put first


def test_to_json_of_a_run_without_rows():
    res = run(trace="counters")
    assert res.n_rows == 0
    text = res.to_json(include_trace=True)
    assert text == json.dumps(json_safe(res.to_dict(include_trace=True)), indent=1,
                              ensure_ascii=False)
    assert json.loads(text)["trace"] == []


def test_empty_record_files(tmp_path):
    res = run(trace="counters")
    assert res.write_record(tmp_path / "r.csv") == 0
    assert (tmp_path / "r.csv").read_text().startswith("target,label,category,seq")
    assert res.write_record(tmp_path / "r.jsonl") == 0
    assert (tmp_path / "r.jsonl").read_bytes() == b""
    assert res.write_record(tmp_path / "r.parquet") == 0
    assert len(pd.read_parquet(tmp_path / "r.parquet")) == 0


def test_decisions_level_record(tmp_path):
    res = run(seed=3, trace="decisions")
    assert 0 < res.n_rows < res.n_tests
    assert res.record_bytes("csv") == reference(res, "csv")
    assert res.record_bytes("jsonl") == reference(res, "jsonl")
    back = pd.read_parquet(io.BytesIO(res.record_bytes("parquet")))
    assert list(back["seq"]) == list(res.to_frame()["seq"])


def test_parquet_row_groups_hold_several_targets(res):
    import pyarrow.parquet as pq

    f = pq.ParquetFile(io.BytesIO(res.record_bytes("parquet")))
    assert f.metadata.num_rows == res.n_rows
    assert f.metadata.num_row_groups == 1  # a small record is one row group


def test_fill_trace_refuses_an_unclear_place(res):
    assert res.fill_trace('{"trace": [], "x": {"trace": []}}', None) is None
    assert res.fill_trace('{"a": 1}', 1) is None
    assert res.fill_trace("{}", "  ") is None


def test_cli_select_with_trace_writes_the_same_json(tmp_path):
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
    text = (tmp_path / "t.json").read_text()
    got = json.loads(text)
    plain = json.loads((tmp_path / "n.json").read_text())
    assert list(got) == [*[k for k in plain if k != "data"], "trace", "data"]
    assert len(got["trace"]) == got["n_tests"] > 0
    assert len((tmp_path / "r.jsonl").read_text().splitlines()) == got["n_tests"]
    # the text is json.dumps of the parsed payload (the trace written as json.dumps would)
    assert text == json.dumps(got, indent=1, ensure_ascii=False) + "\n"

"""Fuzz: mutated real files and hostile parameters never end in anything but a result or a
CamcfError, within a memory bound (and a generous hang guard).

Seeds are small real files: the shared data sets when present (flags.arff, CHD_49.xml,
Flags-train.mat) and small files written here (dense/sparse ARFF, CSV, MULAN XML, MATLAB), so the
suite fuzzes even without the data folder. Mutations: truncate, flip bytes, insert random bytes,
duplicate or drop lines, swap delimiters, inject huge or odd tokens. Every outcome must be a
:class:`camcf.Dataset` (then discretised and run: a :class:`camcf.Result`) or a
:class:`camcf.CamcfError`. Peak memory is measured with tracemalloc (numpy reports its buffers
to it). A longer run of the same loop is ``benchmarks/fuzz_long.py``.
"""

from __future__ import annotations

import io
import math
import os
import signal
import tracemalloc
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
import scipy.io
from conftest import DATA_DIR
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import camcf
from camcf.discretize import discretize
from camcf.io import load_bytes, parse_mulan_xml

#: the memory limit readers and the engine are held to during the fuzz (the engine's own working
#: set budget is about 160 MiB), and the peak traced memory allowed for one case
MEMORY_LIMIT = "384M"
MEMORY_BOUND = 512 * 2**20
#: a case running longer than this is a hang (not a speed assertion: normal cases take ms)
HANG_GUARD_S = 60

#: examples per fuzz test; benchmarks/fuzz_long.py raises it (and lets hypothesis randomise)
EXAMPLES = int(os.environ.get("CAMCF_FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                derandomize=not os.environ.get("CAMCF_FUZZ_RANDOM"),
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])


# ------------------------------------------------------------------------------------------------
# Seeds
# ------------------------------------------------------------------------------------------------
def _dense_arff() -> bytes:
    rng = np.random.default_rng(0)
    lines = ["% a small dense ARFF", "@relation 'tiny: -C -2'"]
    lines += [f"@attribute f{j} numeric" for j in range(4)]
    lines += ["@attribute colour {red,green,blue}", "@attribute l1 {0,1}", "@attribute l2 {0,1}",
              "@data"]
    for i in range(30):
        vals = [f"{v:.3f}" for v in rng.normal(size=4)]
        lines.append(",".join(vals + [["red", "green", "blue"][i % 3], str(i % 2),
                                      str((i // 2) % 2)]))
    return ("\n".join(lines) + "\n").encode()


def _sparse_arff() -> bytes:
    lines = ["@relation sparse", *[f"@attribute a{j} numeric" for j in range(8)],
             "@attribute y1 {0,1}", "@attribute y2 {0,1}", "@data"]
    for i in range(25):
        cells = [f"{j} {((i * 7 + j) % 5) + 1}" for j in range(8) if (i + j) % 3 == 0]
        cells += [f"8 {i % 2}", f"9 {(i // 3) % 2}"]
        lines.append("{" + ", ".join(cells) + "}")
    return ("\n".join(lines) + "\n").encode()


def _csv() -> bytes:
    rng = np.random.default_rng(1)
    rows = ["x1,x2,x3,kind,y1,y2"]
    for i in range(30):
        rows.append(f"{rng.normal():.4f},{rng.integers(0, 4)},{rng.random():.3f},"
                    f"{'ab'[i % 2]},{i % 2},{(i // 3) % 2}")
    return ("\n".join(rows) + "\n").encode()


def _xml() -> bytes:
    return (b'<?xml version="1.0" encoding="utf-8"?>\n'
            b'<labels xmlns="http://mulan.sourceforge.net/labels">\n'
            b'<label name="y1"></label>\n<label name="y2"></label>\n</labels>\n')


def _mat() -> bytes:
    rng = np.random.default_rng(2)
    buf = io.BytesIO()
    scipy.io.savemat(buf, {"data": rng.normal(size=(20, 5)),
                           "target": (rng.random((3, 20)) < 0.5).astype(float) * 2 - 1})
    return buf.getvalue()


def _seed(name: str) -> bytes | None:
    p = DATA_DIR / name
    return p.read_bytes() if p.is_file() else None


SEEDS: dict[str, tuple[bytes, str, object]] = {
    "dense.arff": (_dense_arff(), "dense.arff", None),
    "sparse.arff": (_sparse_arff(), "sparse.arff", "last:2"),
    "table.csv": (_csv(), "table.csv", "y1,y2"),
    "data.mat": (_mat(), "data.mat", None),
}
for _name, _file, _labels in (("flags/flags.arff", "flags.arff", "last:7"),
                              ("flags/Flags-train.mat", "Flags-train.mat", "last:7"),
                              ("chd49/CHD_49.arff", "CHD_49.arff", "last:6")):
    _raw = _seed(_name)
    if _raw is not None:
        SEEDS[_file] = (_raw, _file, _labels)


# ------------------------------------------------------------------------------------------------
# Mutations
# ------------------------------------------------------------------------------------------------
ODD_TOKENS = [b"1e309", b"-1.7e308", b"1.7e308", b"18446744073709551616", b"9223372036854775808",
              b"nan", b"?", b"", b"\xef\xbb\xbf", b"\x00", b"{", b"}", b"'", b'"', b";", b"\t",
              b"@data", b"@attribute z numeric", b"%", b"<!ENTITY a 'b'>", b"0,5", b"-0",
              "é€".encode(), b"\r\n", b" " * 50]


@st.composite
def mutated(draw, data: bytes) -> bytes:
    """A few random edits of ``data``."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["truncate", "flip", "insert", "dupline", "dropline", "swap",
                                   "token"]))
        n = len(out)
        if n == 0:
            out += draw(st.binary(max_size=20))
            continue
        pos = draw(st.integers(0, n - 1))
        if op == "truncate":
            del out[pos:]
        elif op == "flip":
            out[pos] ^= 1 << draw(st.integers(0, 7))
        elif op == "insert":
            out[pos:pos] = draw(st.binary(min_size=1, max_size=16))
        elif op in ("dupline", "dropline"):
            lines = bytes(out).split(b"\n")
            k = draw(st.integers(0, len(lines) - 1))
            if op == "dupline":
                lines.insert(k, lines[k] * draw(st.integers(1, 3)))
            else:
                del lines[k]
            out = bytearray(b"\n".join(lines))
        elif op == "swap":
            a, b = draw(st.sampled_from([(b",", b";"), (b",", b"\t"), (b",", b" "), (b".", b","),
                                         (b"\n", b"\r"), (b"{", b"("), (b"0", b"-")]))
            out = bytearray(bytes(out).replace(a, b, draw(st.integers(1, 50))))
        else:
            out[pos:pos] = draw(st.sampled_from(ODD_TOKENS))
    return bytes(out)


@contextmanager
def bounded():
    """Measure peak traced memory; abort a hung case with an error (not a timing check)."""
    def on_alarm(signum, frame):  # pragma: no cover - only on a hang
        raise AssertionError(f"a fuzz case hung for more than {HANG_GUARD_S} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(HANG_GUARD_S)
    tracemalloc.start()
    try:
        yield
        _, peak = tracemalloc.get_traced_memory()
        assert peak < MEMORY_BOUND, f"peak memory {peak / 2**20:.0f} MiB"
    finally:
        tracemalloc.stop()
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def outcome_of_bytes(data: bytes, filename: str, labels) -> str:
    """Load, discretise, run; return what happened ("result" or the CamcfError's class)."""
    try:
        ds = load_bytes(data, filename, labels=labels)
        assert isinstance(ds, camcf.Dataset)
        assert ds.Y.dtype.kind == "i" and (ds.Y >= 0).all()
        if ds.n_samples * max(ds.n_features, 1) > 200_000:
            return "dataset"
        codes, _ = discretize(ds.X)
        res = camcf.run(codes, ds.Y, feature_names=ds.feature_names, label_names=ds.label_names,
                        category_names=ds.category_names)
        assert isinstance(res, camcf.Result)
        res.to_json()  # strict JSON: raises on NaN
        return "result"
    except camcf.CamcfError as e:
        assert str(e) and "\n" not in str(e).strip(), repr(e)
        return type(e).__name__


@pytest.fixture(autouse=True)
def _small_memory_limit(monkeypatch):
    monkeypatch.setenv("CAMCF_MEMORY_LIMIT", MEMORY_LIMIT)


def _fuzz_file(seed_name: str):
    data, filename, labels = SEEDS[seed_name]

    @FUZZ
    @given(st.data())
    def check(draw):
        blob = draw.draw(mutated(data), label="bytes")
        with bounded():
            outcome_of_bytes(blob, filename, labels)

    check()


@pytest.mark.parametrize("seed_name", sorted(SEEDS))
def test_mutated_files_give_a_dataset_or_a_camcf_error(seed_name):
    _fuzz_file(seed_name)


@pytest.mark.parametrize("seed_name", sorted(SEEDS))
def test_the_unmutated_seeds_load(seed_name):
    data, filename, labels = SEEDS[seed_name]
    assert outcome_of_bytes(data, filename, labels) in ("result", "dataset")


@FUZZ
@given(st.data())
def test_mutated_mulan_xml(draw):
    blob = draw.draw(mutated(_xml()), label="xml")
    with bounded():
        try:
            names = parse_mulan_xml(blob, "labels.xml")
            assert names and all(isinstance(n, str) for n in names)
        except camcf.CamcfError:
            pass


@FUZZ
@given(st.binary(max_size=400), st.sampled_from(["x.arff", "x.csv", "x.mat", "x.tsv", "x.txt"]),
       st.sampled_from([None, "last:1", "first:2", "a,b", "[\"a,b\"]", "[1", "last:-3", "",
                        "last:99999999999999999999"]))
def test_random_bytes_and_label_specs(blob, filename, labels):
    with bounded():
        outcome_of_bytes(blob, filename, labels)


HOSTILE_NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**30, 10**30),
    st.sampled_from([None, "0.1", True, [], float("nan"), -0.0, 1e-320, 2**63]))


@FUZZ
@given(delta1=HOSTILE_NUMBERS, delta2=HOSTILE_NUMBERS, k1=HOSTILE_NUMBERS, k2=HOSTILE_NUMBERS,
       gamma=HOSTILE_NUMBERS, min_cat=HOSTILE_NUMBERS,
       recovery=st.sampled_from(["first", "all", "", None, 1, "FIRST"]))
def test_hostile_parameters_give_a_result_or_a_parameter_error(delta1, delta2, k1, k2, gamma,
                                                               min_cat, recovery):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(40, 4))
    Y = np.column_stack([X[:, 0] % 2, rng.integers(0, 2, 40)])
    with bounded():
        try:
            res = camcf.run(X, Y, delta1=delta1, delta2=delta2, k1=k1, k2=k2, gamma=gamma,
                            min_category_size=min_cat, recovery=recovery)
            assert isinstance(res, camcf.Result)
            for v in (delta1, delta2, k1, k2, gamma):
                assert isinstance(v, int | float) and math.isfinite(v)
        except camcf.CamcfError as e:
            assert isinstance(e, camcf.ParameterError), repr(e)


@FUZZ
@given(bins=HOSTILE_NUMBERS, strategy=st.sampled_from(["uniform", "quantile", "kmeans", None, 3]),
       how=st.sampled_from(["auto", "none", "", None]),
       scale=st.sampled_from([1.0, 1e-300, 1e300, 1.7e308]),
       shift=st.sampled_from([0.0, -1.7e308, 1e308]))
def test_hostile_discretisation(bins, strategy, how, scale, shift):
    rng = np.random.default_rng(0)
    with np.errstate(over="ignore"):
        X = np.clip(rng.normal(size=(30, 3)) * scale + shift, -1.7e308, 1.7e308)
    with bounded():
        try:
            codes, info = discretize(X, bins=bins, strategy=strategy, discretize=how)
            assert codes.shape == X.shape and (codes >= 0).all()
            for col in info:
                if col["edges"] is not None:
                    assert all(math.isfinite(e) for e in col["edges"]), col
        except camcf.CamcfError:
            pass


@pytest.mark.parametrize("argv", [
    ["select", "{f}", "--labels", "last:2", "--delta1", "nan", "-o", "{o}"],
    ["select", "{f}", "--labels", "last:2", "--k1", "1e999", "-o", "{o}"],
    ["select", "{f}", "--labels", "last:2", "--bins", "1", "-o", "{o}"],
    ["select", "{f}", "--labels", "[\"y1\"", "-o", "{o}"],
    ["select", "{f}", "--labels", "last:2", "--label", "y1", "-o", "{o}"],
    ["select", "{f}", "--labels", "y9", "-o", "{o}"],
    ["info", "{f}.missing", "-o", "{o}"],
    ["info", "{f}", "--labels", "last:2", "-o", "{d}"],
    ["info", "{f}", "--labels", "last:2", "-o", "{d}/no/such/folder/out.json"],
    ["select", "{f}", "--labels", "last:2", "--min-category-size", "-5", "-o", "{o}"],
])
def test_hostile_cli_arguments_are_one_line_and_leave_the_output(tmp_path, capsys, argv):
    from camcf.cli import main

    f = tmp_path / "table.csv"
    f.write_bytes(_csv())
    out = tmp_path / "out.json"
    out.write_text('{"old": true}\n')
    args = [a.format(f=f, o=out, d=tmp_path) for a in argv]
    try:
        code = main(args)
    except SystemExit as e:  # argparse errors
        code = e.code
    err = capsys.readouterr().err
    assert code in (2, 3), (code, err)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert out.read_text() == '{"old": true}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json", "table.csv"]


def test_seeds_include_every_format():
    kinds = {Path(k).suffix for k in SEEDS}
    assert {".arff", ".csv", ".mat"} <= kinds

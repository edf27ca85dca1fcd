"""Issue 10 (reliability and security): one test or more per defect, named after it.

1 binding · 2 tracebacks and typed errors · 3 atomic output · 4 memory guard before allocating ·
5 app state (in test_app.py) · 6 silent misreadings · 7 strict JSON · 8 HTML escaping (in
test_app.py) · reproducible install.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import sys
import time
import tomllib
from pathlib import Path

import numpy as np
import pytest

import camcf
from camcf import output
from camcf.cli import main
from camcf.errors import (
    CamcfError,
    DataFormatError,
    FileAccessError,
    InvalidDataError,
    ParameterError,
    ResourceLimitError,
)
from camcf.io import check_runnable, load, load_bytes

REPO = Path(__file__).resolve().parents[1]


def _strict(text: str):
    def refuse(name):
        raise AssertionError(f"not JSON: {name}")
    return json.loads(text, parse_constant=refuse)


def _csv(tmp_path: Path, name: str, text: str | bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(text if isinstance(text, bytes) else text.encode())
    return p


GOOD = "f1,f2,f3,y1,y2\n" + "".join(
    f"{i % 3},{(i * 7) % 5},{i % 2},{i % 2},{(i // 2) % 2}\n" for i in range(40))


def _cli(argv, capsys):
    code = main([str(a) for a in argv])
    err = capsys.readouterr().err
    return code, err


# ------------------------------------------------------------------------------------------------
# 1. The app listens on localhost by default; the upload limit is set on purpose
# ------------------------------------------------------------------------------------------------
def test_app_binds_to_localhost_with_a_deliberate_upload_limit():
    cfg = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())
    assert cfg["server"]["address"] == "127.0.0.1"
    assert 1 <= cfg["server"]["maxUploadSize"] <= 100
    make = (REPO / "Makefile").read_text()
    run = make[make.index("\nrun:"):].split("\n\n")[0]
    assert "--server.address $(ADDRESS)" in run and "ADDRESS ?= 127.0.0.1" in make
    readme = (REPO / "README.md").read_text()
    assert "Serving the app on a network" in readme and "no login" in readme


# ------------------------------------------------------------------------------------------------
# 2. No traceback: typed errors, exit codes 2 / 3 / 4, no swallowed ImportError
# ------------------------------------------------------------------------------------------------
def test_unreadable_file_is_an_environment_failure_exit_3(tmp_path, capsys, monkeypatch):
    f = _csv(tmp_path, "d.csv", GOOD)

    def denied(self, *a, **k):
        raise PermissionError(errno.EACCES, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", denied)
    with pytest.raises(FileAccessError, match="permission denied"):
        load(f, labels="last:2")
    code, err = _cli(["info", f, "--labels", "last:2", "-o", tmp_path / "o.json"], capsys)
    assert code == 3 and err.count("\n") == 1 and "permission denied" in err


def test_numpy_memory_error_becomes_a_resource_limit_error_exit_3(tmp_path, capsys, monkeypatch):
    from camcf.io import arff

    f = _csv(tmp_path, "d.arff", "@relation r\n@attribute a numeric\n@attribute y {0,1}\n"
                                 "@data\n1,0\n2,1\n")

    def boom(*a, **k):
        raise MemoryError("Unable to allocate 3.4 GiB for an array")

    monkeypatch.setattr(arff, "parse_arff_text", boom)
    with pytest.raises(ResourceLimitError, match="ran out of memory"):
        load(f, labels="last:1")
    code, err = _cli(["info", f, "--labels", "last:1", "-o", tmp_path / "o.json"], capsys)
    assert code == 3 and err.count("\n") == 1 and "Traceback" not in err


def test_bad_input_is_exit_2_and_a_bug_is_exit_4_one_line(tmp_path, capsys, monkeypatch):
    f = _csv(tmp_path, "d.csv", GOOD)
    code, err = _cli(["select", f, "--labels", "nope", "-o", tmp_path / "o.json"], capsys)
    assert code == 2 and err.count("\n") == 1
    import camcf.cli.groups as groups

    monkeypatch.setattr(groups, "codes_of", lambda ds, args: 1 / 0)
    code, err = _cli(["select", f, "--labels", "last:2", "-o", tmp_path / "o.json"], capsys)
    assert code == 4 and err.count("\n") == 1 and "ZeroDivisionError" in err
    assert "Traceback" not in err


def test_exit_codes_are_documented_in_help_and_readme(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "exit codes" in out and "3 environment failure" in out
    readme = (REPO / "README.md").read_text()
    assert "| 3 | environment failure" in readme


def test_empty_data_is_an_invalid_data_error_not_a_value_error():
    with pytest.raises(InvalidDataError, match="no rows"):
        camcf.run(np.empty((0, 3)), np.empty((0, 2)))


def test_result_target_raises_a_typed_error():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(60, 3))
    res = camcf.run(X, np.column_stack([X[:, 0], X[:, 1]]))
    for key in ("nope", ("y9", 1), 99, (0, 7), object()):
        with pytest.raises(ParameterError, match="no target category"):
            res.target(key)
    assert res.target(0).id == 0 and res.target(-1).id == len(res.targets) - 1


def test_not_fitted_is_one_error_in_the_evaluation_code():
    from camcf.discretizer import Discretizer
    from camcf.evaluation import MLkNN

    with pytest.raises(camcf.NotFittedError):
        MLkNN().predict(np.zeros((2, 2)))
    with pytest.raises(camcf.NotFittedError):
        Discretizer().transform(np.zeros((2, 2)))


def test_a_broken_evaluate_import_is_not_swallowed(monkeypatch):
    import camcf.cli as cli
    import camcf.cli.commands

    monkeypatch.setitem(sys.modules, "camcf.cli.commands.evaluate", None)
    monkeypatch.delattr(camcf.cli.commands, "evaluate", raising=False)
    with pytest.raises(ImportError):
        cli.build_parser()


def test_the_cli_has_the_evaluate_command():
    import camcf.cli as cli

    sub = next(a for a in cli.build_parser()._actions if a.dest == "command")
    assert {"select", "info", "evaluate"} <= set(sub.choices)


# ------------------------------------------------------------------------------------------------
# 3. Atomic output: old file or new file, never a truncated one
# ------------------------------------------------------------------------------------------------
def test_a_failed_write_keeps_the_old_file_and_leaves_no_temp(tmp_path, monkeypatch):
    out = tmp_path / "r.json"
    out.write_text('{"old": 1}\n')

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(FileAccessError, match="disk is full"):
        output.write_json(out, {"new": 2})
    assert out.read_text() == '{"old": 1}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_disk_full_in_the_cli_is_exit_3_and_keeps_the_output(tmp_path, capsys, monkeypatch):
    f = _csv(tmp_path, "d.csv", GOOD)
    out = tmp_path / "o.json"
    out.write_text("previous\n")
    monkeypatch.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(
        OSError(errno.ENOSPC, "No space left on device")))
    code, err = _cli(["select", f, "--labels", "last:2", "-o", out], capsys)
    assert code == 3 and "disk is full" in err and out.read_text() == "previous\n"


def test_a_failed_run_never_touches_an_existing_output(tmp_path, capsys):
    f = _csv(tmp_path, "d.csv", GOOD)
    out = tmp_path / "o.json"
    out.write_text("previous\n")
    code, _ = _cli(["select", f, "--labels", "last:2", "--k1", "2", "-o", out], capsys)
    assert code == 2 and out.read_text() == "previous\n"
    code, _ = _cli(["select", f, "--labels", "last:2", "-o", out], capsys)
    assert code == 0 and _strict(out.read_text())["selected_features"] is not None


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_kill_at_any_moment_leaves_the_old_or_the_new_file(tmp_path):
    out = tmp_path / "r.json"
    output.write_json(out, {"k": 0, "payload": []})
    for delay in (0.005, 0.02, 0.05, 0.11, 0.23):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # child: rewrite the file as fast as it can until killed
            try:
                os.close(r)
                os.write(w, b"1")
                k = 0
                while True:
                    k += 1
                    output.write_json(out, {"k": k, "payload": ["x" * 200] * 2000})
            finally:
                os._exit(1)
        os.close(w)
        os.read(r, 1)
        os.close(r)
        time.sleep(delay)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        data = _strict(out.read_text())  # complete, valid JSON: the old or the new
        assert data["k"] >= 0 and len(data["payload"]) in (0, 2000)
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "r.json"]
    assert all(n.startswith(".r.json.") and n.endswith(".tmp") for n in leftovers)


# ------------------------------------------------------------------------------------------------
# 4. A small file cannot take the machine: estimate, refuse above the limit, before allocating
# ------------------------------------------------------------------------------------------------
def test_sparse_arff_is_refused_before_densifying_above_the_limit(tmp_path, monkeypatch):
    m, n = 3000, 400
    head = "@relation wide\n" + "".join(f"@attribute a{j} numeric\n" for j in range(m))
    head += "@attribute y {0,1}\n@data\n"
    rows = "".join(f"{{{i % m} 1, {m} {i % 2}}}\n" for i in range(n))
    f = _csv(tmp_path, "wide.arff", head + rows)
    assert f.stat().st_size < 200_000
    monkeypatch.setenv("CAMCF_MEMORY_LIMIT", "4M")  # the dense matrix needs 9.6 MB
    with pytest.raises(ResourceLimitError, match="CAMCF_MEMORY_LIMIT"):
        load(f, labels="last:1")
    monkeypatch.setenv("CAMCF_MEMORY_LIMIT", "1G")
    assert load(f, labels="last:1").X.shape == (n, m)


def test_csv_and_matlab_readers_check_memory_first(tmp_path, monkeypatch):
    import scipy.io
    import scipy.sparse

    f = _csv(tmp_path, "d.csv", GOOD)
    mat = tmp_path / "d.mat"
    scipy.io.savemat(mat, {"data": scipy.sparse.random(2000, 2000, density=0.001, format="csc"),
                           "target": np.eye(2000)[:, :2]})
    monkeypatch.setenv("CAMCF_MEMORY_LIMIT", "2K")
    for path in (f, mat):
        with pytest.raises(ResourceLimitError):
            load(path, labels="last:2" if path.suffix == ".csv" else None)


# ------------------------------------------------------------------------------------------------
# 6. Silent misreadings, fixed where the data enters
# ------------------------------------------------------------------------------------------------
def test_label_values_beyond_2_53_are_never_wrapped(tmp_path):
    f = _csv(tmp_path, "big.csv", "f1,y\n1,9223372036854775808\n2,9223372036854775809\n3,0\n"
                                  "4,18446744073709551616\n")
    ds = load(f, labels="y")
    assert (ds.Y >= 0).all() and sorted(ds.category_names[0].values()) == [
        "0", "18446744073709551616", "9223372036854775808", "9223372036854775809"]
    arff = _csv(tmp_path, "big.arff", "@relation r\n@attribute a numeric\n@attribute y numeric\n"
                                      "@data\n1,9223372036854775808\n2,0\n")
    with pytest.raises(DataFormatError, match=r"2\*\*53"):
        load(arff, labels="last:1")
    with pytest.raises(InvalidDataError, match=r"2\*\*53"):
        camcf.run(np.zeros((3, 1)), np.array([[2.0**63], [0], [1]]))


def test_duplicate_csv_columns_are_refused_by_name(tmp_path):
    f = _csv(tmp_path, "dup.csv", "f1,f2,f1,y\n1,2,3,0\n4,5,6,1\n")
    with pytest.raises(DataFormatError, match="duplicate column names in the header: f1"):
        load(f, labels="y")
    f = _csv(tmp_path, "dup2.csv", '"a","a ",y\n1,2,0\n3,4,1\n')
    with pytest.raises(DataFormatError, match="duplicate"):
        load(f, labels="y")


def test_duplicate_check_is_linear():
    from camcf.io.csv import duplicate_names

    names = [f"c{j}" for j in range(200_000)] + ["c5", "c7"]
    assert duplicate_names(names) == ["c5", "c7"]  # quadratic would be 4e10 comparisons


def test_semicolon_files_with_decimal_commas_are_read_as_numbers(tmp_path):
    f = _csv(tmp_path, "eu.csv", "f1;f2;y\n1,5;-2,25;0\n2,5;3,75;1\n3;1,5e3;0\n")
    ds = load(f, labels="y")
    assert ds.X.tolist() == [[1.5, -2.25], [2.5, 3.75], [3.0, 1500.0]]
    assert not ds.meta["encoded_features"]
    assert any("decimal commas" in n for n in ds.meta["notes"])
    g = _csv(tmp_path, "plain.csv", "f1;f2;y\n1.5;2;0\n2.5;3;1\n")
    assert load(g, labels="y").X.tolist() == [[1.5, 2.0], [2.5, 3.0]]


def test_a_column_spanning_the_float_range_is_binned_with_finite_edges():
    from camcf.discretize import discretize

    col = np.array([-1.7e308, -3e307, 0.5, 1e307, 1.7e308])
    for strategy in ("uniform", "quantile"):
        codes, info = discretize(col[:, None], strategy=strategy)
        assert len(set(codes[:, 0].tolist())) == 3
        assert all(np.isfinite(info[0]["edges"]))
    codes, _ = discretize(col[:, None])
    assert codes[:, 0].tolist() == [0, 1, 1, 1, 2]  # equal width: 3 bins of 1.13e308


def test_a_utf8_bom_is_not_part_of_the_first_column_name(tmp_path):
    f = _csv(tmp_path, "bom.csv", b"\xef\xbb\xbff1,f2,y\n1,2,0\n2,3,1\n")
    assert load(f, labels="y").feature_names == ["f1", "f2"]
    latin = _csv(tmp_path, "bom1.csv", b"\xef\xbb\xbff\xe91,f2,y\n1,2,0\n2,3,1\n")
    assert load(latin, labels="y").feature_names[0] == "f\xe91"
    pytest.importorskip("streamlit")
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from app import csv_columns

    assert csv_columns(b"\xef\xbb\xbff1,f2,y\n1,2,0\n")[0] == "f1"


def test_label_names_with_commas_by_json_list_or_repeated_label(tmp_path, capsys):
    f = _csv(tmp_path, "c.csv", 'f1,f2,"a,b",c\n1,2,0,1\n2,3,1,0\n3,1,0,0\n')
    assert load(f, labels='["a,b", "c"]').label_names == ["a,b", "c"]
    out = tmp_path / "o.json"
    code, _ = _cli(["info", f, "--label", "a,b", "--label", "c", "-o", out], capsys)
    assert code == 0 and [lab["name"] for lab in _strict(out.read_text())["labels"]] == [
        "a,b", "c"]
    code, err = _cli(["info", f, "--labels", '["a,b"', "-o", out], capsys)
    assert code == 2 and "JSON list" in err


# ------------------------------------------------------------------------------------------------
# 7. Strict JSON everywhere
# ------------------------------------------------------------------------------------------------
def test_info_writes_null_not_nan_when_no_label_is_binary(tmp_path, capsys):
    f = _csv(tmp_path, "m.csv", "f1,y\n1,0\n2,1\n3,2\n")
    out = tmp_path / "o.json"
    code, _ = _cli(["info", f, "--labels", "y", "-o", out], capsys)
    assert code == 0 and _strict(out.read_text())["label_cardinality"] is None


def test_result_json_is_strict_and_deterministic():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(80, 5))
    Y = np.column_stack([X[:, 0] % 2, rng.integers(0, 3, 80)])
    a, b = camcf.run(X, Y).to_json(include_trace=True), camcf.run(X, Y).to_json(include_trace=True)
    assert a == b
    _strict(a)
    assert output.json_text({"x": float("inf"), "y": np.float64("nan")}) == (
        '{\n "x": null,\n "y": null\n}\n')


# ------------------------------------------------------------------------------------------------
# 5 (library part). A data set is checked to be runnable before it replaces another
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,match", [
    ("f1,f2,y\n1,,0\n2,3,1\n3,4,0\n", "empty or non-finite"),
    ("f1,f2,y\n1,2,0\n2,3,0\n3,4,0\n", "all zero"),
    ("f1,f2,y\n1,2,1\n2,3,1\n3,4,1\n", "constant"),
])
def test_check_runnable_refuses_what_cannot_run(text, match):
    ds = load_bytes(text.encode(), "x.csv", labels="y")
    with pytest.raises(InvalidDataError, match=match):
        check_runnable(ds)


def test_check_runnable_accepts_a_good_set_and_checks_the_discretisation():
    ds = load_bytes(GOOD.encode(), "g.csv", labels="last:2")
    check_runnable(ds)
    with pytest.raises(CamcfError):
        check_runnable(ds, bins=1)


# ------------------------------------------------------------------------------------------------
# Reproducible install
# ------------------------------------------------------------------------------------------------
def test_install_uses_the_constraints_file_and_upgrade_reruns_the_tests():
    make = (REPO / "Makefile").read_text()
    assert "-c $(CONSTRAINTS)" in make and "CONSTRAINTS := constraints.txt" in make
    upgrade = make[make.index("\nupgrade:"):].split("\n\n")[0]
    assert "pytest" in upgrade and "--upgrade" in upgrade
    pins = (REPO / "constraints.txt").read_text().split()
    names = {p.split("==")[0].lower() for p in pins if "==" in p}
    assert {"numpy", "scikit-learn", "streamlit", "pandas", "scipy"} <= names


def test_a_matlab_v4_header_declaring_gigabytes_is_refused_before_reading(tmp_path):
    """Found by the fuzz suite: 20 header bytes declared a 1.6 GB name that scipy allocated."""
    import struct
    import tracemalloc

    f = tmp_path / "v4.mat"
    f.write_bytes(struct.pack("<5i", 0, 2, 2, 0, 1_700_000_000) + b"x\x00" + bytes(40))
    tracemalloc.start()
    try:
        with pytest.raises(DataFormatError, match="truncated or corrupt"):
            load(f, labels="last:1")
        assert tracemalloc.get_traced_memory()[1] < 50 * 2**20
    finally:
        tracemalloc.stop()


def test_atomic_write_follows_links_and_writes_through_devices(tmp_path, capfd):
    real = tmp_path / "real.json"
    real.write_text("old\n")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    output.write_json(link, {"a": 1})
    assert link.is_symlink() and _strict(real.read_text()) == {"a": 1}
    output.write_text("/dev/null", "nothing\n")  # a device is written through, not replaced
    assert Path("/dev/null").is_char_device()
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo"
        os.mkfifo(fifo)
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        try:
            output.write_text(fifo, "through a pipe\n")
            assert os.read(fd, 100) == b"through a pipe\n"
        finally:
            os.close(fd)
        assert not fifo.is_file()


def test_fuzz_findings_are_clear_errors(tmp_path):
    """Found by benchmarks/fuzz_long.py: a v5 element declaring 800 MB in a 2 KB file (scipy
    allocated it), an XML declaration with an unknown encoding, "@relation" with no name."""
    import io
    import tracemalloc

    import scipy.io

    from camcf.io import parse_mulan_xml

    buf = io.BytesIO()
    scipy.io.savemat(buf, {"data": np.ones((5, 3)), "target": np.eye(5)[:, :2]})
    raw = bytearray(buf.getvalue())
    raw[132:136] = (808_674_609).to_bytes(4, "little")  # the first element's byte count
    f = tmp_path / "v5.mat"
    f.write_bytes(bytes(raw))
    tracemalloc.start()
    try:
        with pytest.raises(DataFormatError, match="truncated or corrupt"):
            load(f)
        assert tracemalloc.get_traced_memory()[1] < 50 * 2**20
    finally:
        tracemalloc.stop()
    with pytest.raises(DataFormatError, match="unknown encoding"):
        parse_mulan_xml(b'<?xml version="1.0" encoding="ttf-8"?><labels/>')
    with pytest.raises(DataFormatError, match="could not be parsed"):
        load_bytes(b"@relation\n@attribute a numeric\n@attribute y {0,1}\n@data\n{0 1, 1 0}\n",
                   "x.arff", labels="last:1")

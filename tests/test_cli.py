"""The command line: JSON round trips and one-line errors with exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import camcf
from camcf.cli import main


def write_csv(path, n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, 6))
    a = (X[:, 0] > 0).astype(int)
    b = (X[:, 2] == 1).astype(int) ^ (rng.random(n) < 0.05)
    cols = [f"x{j}" for j in range(6)] + ["A", "B"]
    rows = [",".join(cols)] + [",".join(map(str, r)) for r in np.column_stack([X, a, b])]
    path.write_text("\n".join(rows) + "\n")
    return X, np.column_stack([a, b])


def test_select_writes_the_documented_json(tmp_path, capsys):
    X, Y = write_csv(tmp_path / "d.csv")
    out = tmp_path / "out.json"
    rc = main(["select", str(tmp_path / "d.csv"), "--labels", "last:2", "--delta1", "0.05",
               "--k1", "1.0", "--output", str(out)])
    assert rc == 0
    d = json.loads(out.read_text())
    expected = camcf.run(X, Y, delta1=0.05, delta2=0.1, k1=1.0, k2=1.0)
    assert d["selected_indices"] == expected.selected_indices.tolist()
    assert d["selected_features"] == [f"x{j}" for j in expected.selected_indices]
    assert d["params"]["k1"] == 1.0 and d["params"]["recovery"] == "first"
    t = d["targets"][0]
    for key in ("label", "label_index", "category", "skipped", "skeleton", "candidates", "pc",
                "spouses", "recovered", "after_symmetry", "blanket"):
        assert key in t
    assert [(x["label"], x["category"]) for x in d["targets"]] == [
        ("A", 0), ("A", 1), ("B", 0), ("B", 1)]
    printed = capsys.readouterr().out
    assert "selected" in printed and "A=1" in printed


def test_select_labels_by_name_and_trace(tmp_path):
    write_csv(tmp_path / "d.csv")
    out = tmp_path / "out.json"
    assert main(["select", str(tmp_path / "d.csv"), "--labels", "A,B", "--trace",
                 "-o", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["trace"] and {"step", "value", "threshold", "decision", "cond"} <= set(d["trace"][0])


def test_info(tmp_path):
    write_csv(tmp_path / "d.csv")
    out = tmp_path / "info.json"
    assert main(["info", str(tmp_path / "d.csv"), "--labels", "last:2", "-o", str(out)]) == 0
    d = json.loads(out.read_text())
    assert (d["n_samples"], d["n_features"], d["n_labels"]) == (300, 6, 2)
    assert d["labels"][0]["categories"] == [0, 1]
    assert sum(d["labels"][0]["counts"]) == 300
    assert d["label_cardinality"] == pytest.approx(
        np.mean(np.sum(np.loadtxt(tmp_path / "d.csv", delimiter=",", skiprows=1)[:, 6:], 1)))


def test_select_on_flags(data_dir, tmp_path):
    out = tmp_path / "f.json"
    assert main(["select", str(data_dir / "flags" / "flags.arff"), "--labels", "last:7",
                 "-o", str(out)]) == 0
    d = json.loads(out.read_text())
    assert len(d["targets"]) == 14 and d["n_samples"] == 194


@pytest.mark.parametrize("args, message", [
    (["select", "{missing}", "-o", "{out}"], "no such file"),
    (["select", "{csv}", "-o", "{out}"], "label"),
    (["select", "{csv}", "--labels", "last:2", "--k2", "0", "-o", "{out}"], "k2"),
    (["select", "{csv}", "--labels", "last:2", "--delta1", "x", "-o", "{out}"], "--delta1"),
    (["select", "{csv}", "--labels", "nope", "-o", "{out}"], "nope"),
    (["select", "{garbage}", "--labels", "last:1", "-o", "{out}"], "garbage.arff"),
    (["frobnicate"], "invalid choice"),
])
def test_errors_are_one_line_and_exit_2(tmp_path, args, message):
    write_csv(tmp_path / "d.csv")
    (tmp_path / "garbage.arff").write_text("this is not an arff file\n")
    subst = {"missing": str(tmp_path / "none.arff"), "out": str(tmp_path / "o.json"),
             "csv": str(tmp_path / "d.csv"), "garbage": str(tmp_path / "garbage.arff")}
    argv = [a.format(**subst) for a in args]
    p = subprocess.run([sys.executable, "-m", "camcf", *argv], capture_output=True, text=True)
    assert p.returncode == 2
    assert "Traceback" not in p.stderr
    assert message in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1

"""The command line: JSON round trips and one-line errors with exit code 2."""

from __future__ import annotations

import io
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


# ------------------------------------------------------------------ progress, --quiet, Ctrl-C
class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _many_categories(path, n=120, labels=30, seed=0):
    """A CSV with ``labels`` binary labels (60 target categories)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 4))
    Y = rng.integers(0, 2, size=(n, labels))
    cols = [f"x{j}" for j in range(4)] + [f"y{i}" for i in range(labels)]
    rows = [",".join(cols)] + [",".join(map(str, r)) for r in np.column_stack([X, Y])]
    path.write_text("\n".join(rows) + "\n")


def test_progress_line_elsewhere_writes_one_line_per_tenth():
    from camcf.cli.progress import ProgressLine

    out = io.StringIO()
    line = ProgressLine(out, tty=False)
    for done in range(1967):
        line(done, 1966, f"target {done}")
    lines = out.getvalue().splitlines()
    assert len(lines) == 10 and line.lines == 10
    assert lines[0].startswith("target 197") and " 10%" in lines[0]
    assert "100%" in lines[-1] and "1966/1966" in lines[-1]
    line.close()
    assert "\r" not in out.getvalue()


def test_progress_line_on_a_terminal_redraws_one_line():
    from camcf.cli.progress import ProgressLine

    out = _Tty()
    t = [0.0]
    line = ProgressLine(out, clock=lambda: t[0])
    assert line.tty
    for done in range(101):
        t[0] = done * 0.02                  # 2 s at 50 calls a second: ~20 redraws, not 101
        line(done, 100, "target")
    text = out.getvalue()
    assert "\n" not in text and text.count("\r") == line.lines
    assert 18 <= line.lines <= 22
    assert text.rsplit("\r", 1)[1].startswith("target  100%  100/100")
    line(50, 100, "x")                       # shorter text: padded over the longer one
    line.close()
    assert out.getvalue().endswith("\n")


def test_select_many_categories_prints_a_summary_not_a_line_each(tmp_path, capsys):
    _many_categories(tmp_path / "m.csv")
    out = tmp_path / "o.json"
    assert main(["select", str(tmp_path / "m.csv"), "--labels", "last:30", "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) <= 6 and "60 target categories" in captured.out
    progress = captured.err.splitlines()
    assert 1 <= len(progress) <= 10 and "100%" in progress[-1]     # not a tty: per tenth
    assert len(json.loads(out.read_text())["targets"]) == 60
    assert main(["select", str(tmp_path / "m.csv"), "--labels", "last:30", "--quiet",
                 "-o", str(out)]) == 0
    assert capsys.readouterr() == ("", "")


def test_select_on_a_terminal_and_ctrl_c_exits_130_without_traceback(tmp_path, capsys,
                                                                     monkeypatch):
    from camcf.cli import progress as progress_mod

    _many_categories(tmp_path / "m.csv")
    out = tmp_path / "o.json"
    tty = _Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    assert main(["select", str(tmp_path / "m.csv"), "--labels", "last:30", "-o", str(out)]) == 0
    assert "\r" in tty.getvalue() and tty.getvalue().endswith("\n")
    assert tty.getvalue().count("\n") == 1                        # one line, redrawn

    calls = []
    real = progress_mod.ProgressLine.__call__

    def interrupted(self, done, total, message):
        calls.append(done)
        if len(calls) == 3:
            raise KeyboardInterrupt
        real(self, done, total, message)

    monkeypatch.setattr(progress_mod.ProgressLine, "__call__", interrupted)
    out.write_text("previous\n")
    tty.seek(0)
    tty.truncate()
    assert main(["select", str(tmp_path / "m.csv"), "--labels", "last:30", "-o", str(out)]) == 130
    err = tty.getvalue()
    assert "Traceback" not in err and err.endswith("\ncamcf select: interrupted\n")
    assert out.read_text() == "previous\n"


# ------------------------------------------------------------------ start-up and structure
def _loaded(code: str) -> set[str]:
    """The heavy modules ``code`` loads (scipy.sparse and pgmpy named as such)."""
    heavy = ("sklearn", "pandas", "pyarrow", "dask", "distributed", "streamlit", "plotly",
             "pyvis", "scipy", "scipy.sparse", "joblib", "networkx", "numba", "pgmpy")
    probe = (f"import sys\n{code}\n"
             f"print(' '.join(sorted(({{m.split('.')[0] for m in sys.modules}} | set(sys.modules))"
             f" & {set(heavy)!r})), file=sys.stderr)")
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    return set(p.stderr.strip().splitlines()[-1].split()) if p.stderr.strip() else set()


def test_import_camcf_and_help_load_no_heavy_module():
    assert _loaded("import camcf") == set()
    assert _loaded("import camcf.cli\ntry:\n    camcf.cli.main(['--help'])\n"
                   "except SystemExit:\n    pass") == set()
    # a subcommand's help lists every method's parameters without importing the methods
    assert _loaded("import camcf.cli\ntry:\n    camcf.cli.main(['select', '--help'])\n"
                   "except SystemExit:\n    pass") == set()
    # the names are still there, loaded on first use
    import camcf.estimator

    assert camcf.CaMCF is camcf.estimator.CaMCF and callable(camcf.run)
    assert camcf.methods.DEFAULT == "camcf"          # a submodule, imported when first used
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        camcf.nope  # noqa: B018


def test_help_declares_only_the_chosen_subcommands_arguments():
    """``camcf --help`` lists the subcommands without declaring their arguments (``camcf truth``'s
    import the truth study, about 25 ms), nor loads hashlib (OpenSSL, about 20 ms, for a
    network's fingerprint); ``camcf truth --help`` declares them."""
    probe = ("import sys, camcf.cli\ntry:\n    camcf.cli.main({argv!r})\nexcept SystemExit:\n"
             "    pass\nprint(sorted(m for m in ('camcf.evaluation.truth_study', 'hashlib')"
             " if m in sys.modules), file=sys.stderr)")
    for argv, expected in ((["--help"], "[]"), (["select", "--help"], "[]"),
                           (["truth", "--help"], "['camcf.evaluation.truth_study']")):
        p = subprocess.run([sys.executable, "-c", probe.format(argv=argv)], capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        assert p.stderr.strip().splitlines()[-1] == expected, argv


@pytest.mark.parametrize("suffix", [".arff", ".csv"])
def test_a_small_dense_file_is_selected_without_scipy_pandas_or_joblib(tmp_path, suffix):
    """The whole ``camcf select`` of a small dense ARFF file, or a CSV file of plain numbers,
    loads none of the heavy modules but the compiled engine's numba (which imports scipy's top
    package, not scipy.sparse): scipy.sparse is imported only for sparse data, joblib for
    workers, pandas for CSV files with words, empty cells or exponents, and for records."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (60, 5))
    Y = np.column_stack([X[:, 0], X[:, 1] & X[:, 2]])  # something to select (no warning)
    rows = [",".join(map(str, r)) for r in np.column_stack([X, Y])]
    if suffix == ".arff":
        lines = ["@relation t", *[f"@attribute f{j} {{0,1}}" for j in range(5)],
                 *[f"@attribute y{j} {{0,1}}" for j in range(2)], "@data", *rows]
    else:
        lines = [",".join([f"f{j}" for j in range(5)] + ["y0", "y1"]), *rows]
    data = tmp_path / f"small{suffix}"
    data.write_text("\n".join(lines) + "\n")
    out = tmp_path / "o.json"
    code = ("import camcf.cli\n"
            f"assert camcf.cli.main(['select', {str(data)!r}, '--labels', 'last:2', '-o', "
            f"{str(out)!r}, '--quiet']) == 0")
    assert _loaded(code) == {"numba", "scipy"}
    assert json.loads(out.read_text())["n_tests"] > 0


def test_discretize_none_keeps_a_sparse_matrix_sparse():
    """``--discretize none`` on sparse data (a large sparse ARFF) hands the engine its integer
    codes, still sparse (it was turned into a 0-d object array, which failed)."""
    import argparse

    import scipy.sparse as sp

    from camcf.cli import groups
    from camcf.dataset import Dataset

    rng = np.random.default_rng(1)
    X = sp.csc_matrix((rng.random((50, 6)) < 0.2) * rng.integers(1, 3, (50, 6)), dtype=float)
    Y = rng.integers(0, 2, (50, 2))
    ds = Dataset(X=X, Y=Y, feature_names=[f"f{i}" for i in range(6)], label_names=["a", "b"])
    codes = groups.codes_of(ds, argparse.Namespace(discretize="none", bins=5,
                                                   strategy="uniform"))
    assert sp.issparse(codes) and codes.dtype == np.int64
    assert np.array_equal(codes.toarray(), X.toarray().astype(np.int64))
    assert (camcf.run(codes, Y, trace="decisions").to_json()
            == camcf.run(X.toarray().astype(np.int64), Y, trace="decisions").to_json())


def test_not_fitted_error_is_scikit_learns():
    from sklearn.exceptions import NotFittedError as SkNotFitted

    from camcf.errors import NotFittedError

    assert issubclass(NotFittedError, SkNotFitted) and issubclass(NotFittedError,
                                                                   camcf.CamcfError)
    assert camcf.NotFittedError is NotFittedError
    import pickle

    e = pickle.loads(pickle.dumps(NotFittedError("call fit first")))
    assert type(e) is NotFittedError and str(e) == "call fit first"


def test_no_import_circle_in_the_tree():
    """Every ``import`` of a camcf module anywhere in camcf/ (also inside functions): the
    module graph has no cycle."""
    import ast
    from pathlib import Path

    root = Path(camcf.__file__).resolve().parent
    mods = {}
    for f in root.rglob("*.py"):
        parts = list(f.relative_to(root.parent).with_suffix("").parts)
        pkg = parts[-1] == "__init__"
        mods[".".join(parts[:-1] if pkg else parts)] = (f, pkg)

    def resolve(name):
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for m, (f, pkg) in mods.items():
        here = m if pkg else m.rpartition(".")[0]
        edges = set()
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                edges |= {resolve(a.name) for a in node.names if a.name.startswith("camcf")}
            elif isinstance(node, ast.ImportFrom):
                base = here.split(".")[: len(here.split(".")) - node.level + 1] if node.level \
                    else []
                full = ".".join(base + ([node.module] if node.module else []))
                if full.startswith("camcf"):
                    edges |= {resolve(f"{full}.{a.name}") if f"{full}.{a.name}" in mods
                              else resolve(full) for a in node.names}
        graph[m] = edges - {None, m}
    state: dict[str, int] = {}

    def visit(v, path):
        state[v] = 1
        for w in graph[v]:
            if state.get(w) == 1:
                raise AssertionError("import circle: " + " → ".join(path[path.index(w):] + [w]))
            if w not in state:
                visit(w, path + [w])
        state[v] = 2

    for v in graph:
        if v not in state:
            visit(v, [v])


def test_the_core_install_leaves_the_app_and_dask_to_extras():
    import re
    import tomllib
    from pathlib import Path

    repo = Path(__file__).resolve().parents[1]
    project = tomllib.loads((repo / "pyproject.toml").read_text())["project"]

    def names(reqs):
        return {re.split(r"[\[<>=!~ ]", r, maxsplit=1)[0].lower() for r in reqs}

    assert names(project["dependencies"]) == {
        "numpy", "scipy", "scikit-learn", "pandas", "networkx", "liac-arff", "joblib",
        "threadpoolctl", "pyarrow", "numba"}
    extras = project["optional-dependencies"]
    assert names(extras["app"]) == {"streamlit", "pyvis", "plotly", "camcf"}
    assert "camcf[networks]" in extras["app"]  # the explorer's "Known network" source
    assert names(extras["dask"]) == {"dask"}
    assert names(extras["networks"]) == {"pgmpy"}
    assert "camcf[app,dask,networks]" in extras["test"]
    make = (repo / "Makefile").read_text()
    run = make[make.index("\nrun:"):].split("\n\n")[0]
    assert "$(APP_STAMP)" in run and "-e '.[app]'" in make and "-e '.[test]'" in make

"""``camcf tune``: the JSON it writes (best = the grid's least score, the same as the library's),
and exit 2 with one line naming the problem on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from camcf.cli import main
from camcf.cli.commands.tune import parse_grid
from camcf.errors import ParameterError
from camcf.evaluation import make_splitter
from camcf.tuning import tune


def _main(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as e:  # argparse errors
        return int(e.code)


def _data(n: int = 150, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, 6))
    noise = rng.random((n, 3)) < 0.1
    Y = np.column_stack([(X[:, 0] == 0) ^ noise[:, 0], (X[:, 1] > 0) ^ noise[:, 1],
                         (X[:, 2] == 2) ^ noise[:, 2]])
    return X, Y.astype(int)


@pytest.fixture(scope="module")
def csv_file(tmp_path_factory) -> Path:
    X, Y = _data()
    path = tmp_path_factory.mktemp("tune") / "small.csv"
    header = [f"f{j}" for j in range(X.shape[1])] + [f"y{i}" for i in range(Y.shape[1])]
    rows = [",".join(header)] + [",".join(str(v) for v in [*x, *y])
                                 for x, y in zip(X.tolist(), Y.tolist(), strict=True)]
    path.write_text("\n".join(rows) + "\n")
    return path


FAST = ["--labels", "last:3", "--protocol", "holdout", "--inner-folds", "2", "--k", "5"]


def test_writes_best_and_grid_as_the_library_finds_them(csv_file, tmp_path, capsys):
    out = tmp_path / "t.json"
    code = _main(["tune", str(csv_file), *FAST, "--grid", "delta1=0.01,0.2",
                  "--grid", "k1=0.3,1", "--metric", "hamming_loss", "-o", str(out)])
    assert code == 0
    payload = json.loads(out.read_text())  # strict JSON: json.loads would accept NaN, so:
    assert "NaN" not in out.read_text()
    grid = payload["grid"]
    assert len(grid) == 4
    assert [(r["delta1"], r["k1"]) for r in grid] == [(0.01, 0.3), (0.01, 1.0), (0.2, 0.3),
                                                      (0.2, 1.0)]
    scored = [r for r in grid if r["score"] is not None and r["n_empty"] == 0]
    best_row = min(scored, key=lambda r: r["score"])
    assert payload["best"] == {k: best_row[k] for k in ("delta1", "delta2", "k1", "k2")}
    assert payload["score"] == "hamming_loss"
    assert all(r["score"] == r["value"] for r in scored)  # a loss is scored as it is
    # the library on the same data and splits gives the same grid
    X, Y = _data()
    lib = tune(X, Y, {"delta1": [0.01, 0.2], "k1": [0.3, 1.0]}, metric="hamming_loss",
               cv=make_splitter("holdout"), inner=make_splitter("kfold", n_folds=2),
               knn={"k": 5})
    assert np.allclose([r["score"] for r in grid], lib.grid["score"].to_numpy(),
                       equal_nan=True)
    text = capsys.readouterr().out
    assert "best: delta1=" in text and str(out) in text


def test_fixed_parameters_and_auto(csv_file, tmp_path):
    out = tmp_path / "t.json"
    code = _main(["tune", str(csv_file), *FAST, "--grid", "delta1=auto,0.01",
                  "--significance", "0.05", "--k2", "0.5", "-q", "-o", str(out)])
    assert code == 0
    payload = json.loads(out.read_text())
    assert payload["params"] == {"k2": 0.5, "significance": 0.05}
    assert [r["delta1"] for r in payload["grid"]] == ["auto", 0.01]
    assert all(r["k2"] == 0.5 for r in payload["grid"])
    assert isinstance(payload["best"]["delta1"], float)


@pytest.mark.parametrize(("grid", "named"), [
    (["delta1"], "NAME=V1,V2"),
    (["delta3=0.1"], "delta3"),
    (["k1=0.5,2"], "k1"),
    (["k1=often"], "k1"),
    (["k1=0.3", "k1=0.5"], "k1"),
    (["k1="], "k1"),
])
def test_bad_grid_exits_2_with_one_line_naming_it(csv_file, tmp_path, capsys, grid, named):
    out = tmp_path / "t.json"
    argv = ["tune", str(csv_file), *FAST]
    for g in grid:
        argv += ["--grid", g]
    assert _main([*argv, "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and named in err and "--grid" in err
    assert not out.exists()


def test_other_bad_input_exits_2(csv_file, tmp_path, capsys):
    out = tmp_path / "t.json"
    base = ["tune", str(csv_file), *FAST, "-o", str(out)]
    assert _main([*base, "--grid", "k1=0.5", "--metric", "accuracy"]) == 2
    assert "metric" in capsys.readouterr().err
    assert _main([*base, "--grid", "k1=0.5", "--k1", "0.3"]) == 2
    assert "k1" in capsys.readouterr().err
    assert _main(["tune", str(csv_file), *FAST, "-o", str(out)]) == 2  # no --grid
    assert "--grid" in capsys.readouterr().err
    assert not out.exists()


def test_parse_grid_reads_declared_kinds():
    grid = parse_grid(["delta2=auto,0.1", "min-category-size=3,5", "recovery=first,all"])
    assert grid == {"delta2": ["auto", 0.1], "min_category_size": [3, 5],
                    "recovery": ["first", "all"]}
    with pytest.raises(ParameterError) as e:
        parse_grid(["recovery=some"])
    assert e.value.name == "recovery"


def test_held_out_flag_writes_the_nested_estimate(csv_file, tmp_path, capsys):
    out = tmp_path / "t.json"
    code = _main(["tune", str(csv_file), *FAST, "--grid", "k1=0.3,1", "--held-out",
                  "-o", str(out)])
    assert code == 0
    held = json.loads(out.read_text())["held_out"]
    assert {r["set"] for r in held["summary"]} == {"tuned", "defaults"}
    assert len(held["splits"]) == 2 * 7  # one hold-out split, two sets, seven metrics
    tuned = [r for r in held["splits"] if r["set"] == "tuned"]
    assert tuned[0]["point"] in (0, 1)
    assert "held-out rows" in capsys.readouterr().out

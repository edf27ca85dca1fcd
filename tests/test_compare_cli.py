"""``camcf select --method`` and ``camcf compare``: flags from the declarations, JSON + CSV."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import camcf
from camcf import methods
from camcf.algorithm_params import ALGORITHM_PARAMS
from camcf.cli import build_parser, main
from tests.test_cli import write_csv


def test_select_flags_are_generated_from_the_declarations():
    help_text = build_parser()._subparsers._group_actions[0].choices["select"].format_help()
    for p in ALGORITHM_PARAMS:
        assert p.flag in help_text
    for name in methods.available():
        for p in getattr(methods.get(name), "params", ()):
            assert p.flag in help_text


def test_select_other_methods(tmp_path, capsys):
    write_csv(tmp_path / "d.csv")
    out = tmp_path / "r.json"
    assert main(["select", str(tmp_path / "d.csv"), "--labels", "last:2", "--method", "random",
                 "--n-features-to-select", "3", "--random-state", "2", "-o", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["method"] == "random" and d["kind"] == "ranking"
    assert sorted(d["ranking"]) == list(range(6))
    assert d["selected_indices"] == sorted(d["ranking"][:3])
    assert main(["select", str(tmp_path / "d.csv"), "--labels", "last:2", "--method", "all",
                 "-o", str(out)]) == 0
    assert json.loads(out.read_text())["selected_indices"] == list(range(6))
    rc = main(["select", str(tmp_path / "d.csv"), "--labels", "last:2", "--method", "all",
               "--delta1", "0.1", "-o", str(out)])
    assert rc == 2 and "--delta1 is not a parameter of method 'all'" in capsys.readouterr().err
    # Ca-MCF stays the default, and its JSON says so
    assert main(["select", str(tmp_path / "d.csv"), "--labels", "last:2", "-o", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["method"] == "camcf" and d["selected_indices"] == [0, 2]


def test_missing_method_is_a_message(tmp_path, capsys):
    missing = list(methods.unavailable())
    if not missing:
        pytest.skip("every registered method is available")
    write_csv(tmp_path / "d.csv")
    rc = main(["select", str(tmp_path / "d.csv"), "--labels", "last:2", "--method", missing[0],
               "-o", str(tmp_path / "r.json")])
    assert rc == 2 and "not available" in capsys.readouterr().err


def test_compare_writes_json_and_csv(tmp_path, capsys):
    X, Y = write_csv(tmp_path / "d.csv", n=200)
    write_csv(tmp_path / "e.csv", n=200, seed=1)
    out = tmp_path / "cmp.json"
    rc = main(["compare", str(tmp_path / "d.csv"), str(tmp_path / "e.csv"), "--labels", "last:2",
               "--methods", "camcf,all,random", "--repeats", "2", "--delta1", "0.05",
               "-o", str(out)])
    assert rc == 0, capsys.readouterr().err
    d = json.loads(out.read_text())
    assert [m["name"] for m in d["methods"]] == ["camcf", "all", "random"]
    assert set(d["data_sets"]) == {"d", "e"}
    first = d["data_sets"]["d"]
    assert {r["method"] for r in first["summary"]} == {"camcf", "all", "random"}
    assert len(first["splits"]) == 2 * 3 * 7
    for sets in first["selected"]:
        assert len(sets["random"]) == len(sets["camcf"])  # cut to Ca-MCF's size per split
    # per split, Ca-MCF's selection is what the estimator selects on that training part
    assert first["selected"][0]["camcf"] == [0, 2]
    assert len(d["friedman"]) == 7 and d["friedman"][0]["cd"] > 0
    table = pd.read_csv(tmp_path / "cmp.csv")
    assert {"data_set", "method", "metric", "mean", "sd", "n", "n_splits", "n_empty"} <= set(
        table.columns)
    assert len(table) == 2 * 3 * 7
    assert "Ca-MCF" in capsys.readouterr().out


def test_compare_errors(tmp_path, capsys):
    write_csv(tmp_path / "d.csv")
    base = ["compare", str(tmp_path / "d.csv"), "--labels", "last:2", "-o",
            str(tmp_path / "c.json")]
    assert main([*base, "--methods", "all,random"]) == 2
    assert "add camcf" in capsys.readouterr().err
    assert main([*base, "--methods", "nope"]) == 2
    assert "unknown method" in capsys.readouterr().err
    assert main([*base, "--methods", "all", "--n-features", "-1"]) == 2
    assert main(["compare", str(tmp_path / "missing.csv"), "-o", str(tmp_path / "c.json")]) == 2


def test_estimator_sees_what_the_fold_hands_it():
    # the framework passes codes with discretize="none" (the fold already holds codes)
    from camcf.evaluation import make_folds, make_splits, select_on_folds

    rng = np.random.default_rng(0)
    X = rng.integers(0, 15, size=(120, 3))  # 15 codes: 'auto' would re-bin them
    Y = (X[:, :1] > 7).astype(int)
    folds = make_folds(X, Y, make_splits(120, n_repeats=1), discretize=None)
    sel = select_on_folds(folds, {"camcf": camcf.CaMCF(delta1=0.01)})
    direct = camcf.run(folds[0].X_train, folds[0].Y_train, delta1=0.01)
    assert list(sel[("camcf", 0)].support) == direct.selected_indices.tolist()

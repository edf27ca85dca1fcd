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
from camcf.cli.flags import flag
from camcf.cli.groups import method_params
from tests.test_cli import write_csv


def _help(argv):
    parser = build_parser(argv)
    return parser._subparsers._group_actions[0].choices[argv[0]].format_help()


def test_select_flags_are_generated_from_the_declarations():
    help_text = _help(["select"])
    for p in ALGORITHM_PARAMS:
        assert p.flag in help_text
    for name in methods.METHODS:
        for p in method_params(name):
            assert flag(p, name) in help_text
            assert name == "camcf" or flag(p, name).startswith(f"--{name}-")


def test_method_help_shows_that_methods_meaning():
    text = _help(["select", "--method", "mi-mcf"])
    k1 = next(p for p in methods.params("mi-mcf") if p.name == "k1")
    assert "--mi-mcf-k1" in text and k1.help.split()[0] in text
    assert "phase-2" in text and "--mi-mcf-variant" in text
    assert "  --delta1" not in text and "--jfsc-" not in text   # only the chosen method's flags
    assert "--jfsc-variant" in _help(["select", "--method=jfsc"])
    assert "--mdfs-gamma" in _help(["compare", "d", "--methods", "camcf,mdfs"])
    assert "--jfsc-gamma" not in _help(["compare", "d", "--methods", "camcf,mdfs"])


def test_a_flag_collision_is_refused_when_registered():
    import argparse

    from camcf.cli.flags import FlagCollision, add_param_flags
    from camcf.params import Param

    parser = argparse.ArgumentParser()
    add_param_flags(parser, ALGORITHM_PARAMS)
    with pytest.raises(FlagCollision, match="--k1"):
        add_param_flags(parser, (Param("k1", 0.5, float),))
    # the same name under another method is another flag
    add_param_flags(parser, (Param("k1", 0.5, float),), method="mi-mcf")
    with pytest.raises(FlagCollision, match="--mi-mcf-k1"):
        add_param_flags(parser, (Param("k1", 0.1, float),), method="mi-mcf")


def test_method_parameters_reach_their_method_only(tmp_path, capsys):
    write_csv(tmp_path / "d.csv")
    out = tmp_path / "r.json"
    base = ["select", str(tmp_path / "d.csv"), "--labels", "last:2", "-o", str(out)]
    assert main([*base, "--method", "mi-mcf", "--mi-mcf-k1", "0.5", "--mi-mcf-variant",
                 "paper"]) == 0
    d = json.loads(out.read_text())
    assert d["params"]["k1"] == 0.5 and d["params"]["variant"] == "paper"
    assert d["params"]["k2"] == methods.make("mi-mcf").k2       # its own default
    capsys.readouterr()
    assert main([*base, "--method", "mi-mcf", "--k1", "0.5"]) == 2
    err = capsys.readouterr().err
    assert "--k1 is a parameter of Ca-MCF, not of MI-MCF" in err and "--mi-mcf-k1" in err
    assert main([*base, "--method", "jfsc", "--jfsc-variant", "reproduction",
                 "--n-features", "2"]) == 0
    d = json.loads(out.read_text())
    assert d["params"]["variant"] == "reproduction" and len(d["selected_indices"]) == 2
    assert main([*base, "--mdfs-gamma", "3"]) == 2
    assert "--mdfs-gamma is a parameter of MDFS, not of Ca-MCF" in capsys.readouterr().err


def test_select_other_methods(tmp_path, capsys):
    write_csv(tmp_path / "d.csv")
    out = tmp_path / "r.json"
    assert main(["select", str(tmp_path / "d.csv"), "--labels", "last:2", "--method", "random",
                 "--n-features", "3", "--random-random-state", "2", "-o", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["method"] == "random" and d["kind"] == "ranking"
    assert sorted(d["ranking"]) == list(range(6))
    assert d["selected_indices"] == sorted(d["ranking"][:3])
    assert d["params"]["random_state"] == 2
    assert main(["select", str(tmp_path / "d.csv"), "--labels", "last:2", "--method", "all",
                 "-o", str(out)]) == 0
    assert json.loads(out.read_text())["selected_indices"] == list(range(6))
    rc = main(["select", str(tmp_path / "d.csv"), "--labels", "last:2", "--method", "all",
               "--delta1", "0.1", "-o", str(out)])
    assert rc == 2 and "--delta1 is a parameter of Ca-MCF, not of All features" in (
        capsys.readouterr().err)
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


def test_compare_states_the_settings_it_used_and_takes_method_flags(tmp_path, capsys):
    write_csv(tmp_path / "d.csv", n=150)
    out = tmp_path / "cmp.json"
    rc = main(["compare", str(tmp_path / "d.csv"), "--label", "A", "--label", "B",
               "--methods", "camcf,jfsc", "--jfsc-variant", "reproduction", "--repeats", "2",
               "--k", "7", "-q", "-o", str(out)])
    assert rc == 0, capsys.readouterr().err
    assert capsys.readouterr().out == ""                     # --quiet: no summary
    d = json.loads(out.read_text())
    used = d["data_sets"]["d"]["settings"]                   # what compare() ran with
    clf = d["settings"]["classifier"]
    assert clf == {"name": "ML-kNN", "k": 7, "s": used["s"], "distance": used["distance"],
                   "neighbours": used["neighbours"]} and used["k"] == 7
    assert d["settings"]["protocol"] == {"name": "repeated", "seed": 0, "repeats": 2,
                                         "test_size": 0.3}
    assert next(m for m in d["methods"] if m["name"] == "jfsc")["params"]["variant"] == (
        "reproduction")
    assert main(["compare", str(tmp_path / "d.csv"), "--labels", "last:2", "--methods",
                 "camcf,all", "--jfsc-variant", "reproduction", "-o", str(out)]) == 2
    assert "which --methods does not include" in capsys.readouterr().err


def test_compare_writes_both_files_atomically(tmp_path, capsys, monkeypatch):
    import errno
    import os

    write_csv(tmp_path / "d.csv", n=120)
    out = tmp_path / "cmp.json"
    out.write_text("old json\n")
    out.with_suffix(".csv").write_text("old csv\n")
    monkeypatch.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(
        OSError(errno.ENOSPC, "No space left on device")))
    rc = main(["compare", str(tmp_path / "d.csv"), "--labels", "last:2", "--methods",
               "camcf,all", "--repeats", "2", "-o", str(out)])
    assert rc == 3 and "disk is full" in capsys.readouterr().err
    assert out.read_text() == "old json\n" and out.with_suffix(".csv").read_text() == "old csv\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cmp.csv", "cmp.json", "d.csv"]


def test_compare_and_evaluate_read_a_chosen_matlab_variable(tmp_path, capsys):
    import scipy.io

    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, (80, 5)).astype(float)
    Y = np.column_stack([X[:, 0] > 0, X[:, 1] == 2]).astype(float)
    scipy.io.savemat(tmp_path / "two.mat", {"train_data": X, "train_target": Y,
                                            "X": X[:30], "Y": Y[:30]})
    out = tmp_path / "o.json"
    base = [str(tmp_path / "two.mat"), "-o", str(out), "--repeats", "2"]
    assert main(["compare", *base, "--methods", "camcf,all"]) == 2
    assert "--variable" in capsys.readouterr().err           # several pairs: choose one
    assert main(["compare", *base, "--methods", "camcf,all", "--variable", "train_data"]) == 0
    assert json.loads(out.read_text())["data_sets"]["two"]["data"]["n_samples"] == 80
    assert main(["evaluate", *base, "--variable", "X/Y", "--features", "0", "-q"]) == 0
    d = json.loads(out.read_text())
    assert d["data"]["n_samples"] == 30 and d["data"]["variable"] == "X/Y"


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


def test_compare_on_a_dask_cluster_and_two_processes_equals_the_serial_run(tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    write_csv(tmp_path / "d.csv", n=120)
    base = ["compare", str(tmp_path / "d.csv"), "--labels", "last:2", "--methods",
            "camcf,all,random", "--repeats", "2", "-q"]
    with distributed.LocalCluster(n_workers=2, processes=False, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        assert main([*base, "-o", str(tmp_path / "c.json"), "--dask-scheduler",
                     cluster.scheduler_address]) == 0
    assert main([*base, "-o", str(tmp_path / "s.json")]) == 0
    assert main([*base, "-o", str(tmp_path / "p.json"), "--n-jobs", "2"]) == 0

    def without_times(path):
        d = json.loads(path.read_text())
        n_jobs = d["settings"].pop("n_jobs")
        d["settings"].pop("seconds_total")
        for v in d["data_sets"].values():
            for row in v["splits"] + v["summary"]:
                row.pop("seconds")
        return d, n_jobs

    (on_cluster, n_cluster), (serial, n_serial), (two, n_two) = (
        without_times(tmp_path / "c.json"), without_times(tmp_path / "s.json"),
        without_times(tmp_path / "p.json"))
    assert (n_cluster, n_serial, n_two) == (2, 1, 2)  # every worker thread; serial; --n-jobs
    assert on_cluster == serial == two

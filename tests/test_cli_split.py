"""The command line on a fixed split and on its outputs (issue 34, item 11): a MATLAB file
holding ``train_*``/``test_*`` pairs is split by its own names, each part may name its own
variable, a test part holding the training rows is warned about, an output path that cannot be
written fails before the run, and the empty-selection warning names ``--delta1 auto``.

The .mat files are generated here (seeded, the layout of MLL's genbase.mat: ``train_data``,
``train_target`` stored labels × samples, ``test_data``, ``test_target``), never copied.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
import scipy.io

import camcf
from camcf.cli import main
from camcf.io import load_train_test

N_TRAIN, N_TEST, M, Q = 60, 30, 12, 3


def _part(rng, n):
    X = rng.integers(0, 2, (n, M)).astype(float)
    flips = rng.random((n, Q)) < 0.1
    Y = (X[:, :Q].astype(int) ^ flips).astype(float)  # each label a noisy copy of a feature
    return X, Y


@pytest.fixture
def split_mat(tmp_path):
    rng = np.random.default_rng(34)
    (Xa, Ya), (Xb, Yb) = _part(rng, N_TRAIN), _part(rng, N_TEST)
    path = tmp_path / "genbase-like.mat"
    scipy.io.savemat(path, {"train_data": Xa, "train_target": Ya.T,  # labels × samples
                            "test_data": Xb, "test_target": Yb.T})
    return path


def _evaluate(path, tmp_path, *extra):
    out = tmp_path / "e.json"
    code = main(["evaluate", "--train", str(path), "--test", str(path), "--features", "0,1,2",
                 "--discretize", "none", "--k", "5", "-q", "-o", str(out), *extra])
    return code, (json.loads(out.read_text()) if out.exists() else None)


def _rows(payload):
    split = payload["splits"][0]
    return split["n_train"], split["n_test"]


@pytest.mark.parametrize("extra", [("--variable", "train_data"), (),
                                   ("--train-variable", "train_data"),
                                   ("--train-variable", "train_data", "--test-variable",
                                    "test_data")])
def test_a_file_holding_both_parts_is_split_by_its_own_names(split_mat, tmp_path, capsys,
                                                             extra):
    code, payload = _evaluate(split_mat, tmp_path, *extra)
    assert code == 0, capsys.readouterr().err
    assert _rows(payload) == (N_TRAIN, N_TEST)
    assert payload["data"]["train_variable"] == "train_data/train_target"
    assert payload["data"]["test_variable"] == "test_data/test_target"
    assert "same" not in capsys.readouterr().err


def test_each_part_may_name_its_variable(split_mat, tmp_path, capsys):
    code, payload = _evaluate(split_mat, tmp_path, "--train-variable", "test_data",
                              "--test-variable", "train_data")
    assert code == 0, capsys.readouterr().err
    assert _rows(payload) == (N_TEST, N_TRAIN)


def test_the_same_rows_for_training_and_testing_are_warned_about(split_mat, tmp_path, capsys):
    code, payload = _evaluate(split_mat, tmp_path, "--train-variable", "train_data",
                              "--test-variable", "train_data")
    assert code == 0
    assert _rows(payload) == (N_TRAIN, N_TRAIN)
    err = capsys.readouterr().err
    assert "warning:" in err and f"the same {N_TRAIN} rows" in err
    assert "--test-variable" in err  # the way out, in the command line's words


def test_the_library_splits_by_the_file_names_and_warns_on_the_same_rows(split_mat):
    tr, te = load_train_test(split_mat, split_mat, variable="train_data")
    assert (tr.n_samples, te.n_samples) == (N_TRAIN, N_TEST)
    with pytest.warns(camcf.CamcfWarning, match=f"same {N_TRAIN} rows") as got:
        load_train_test(split_mat, split_mat, variable="train_data", test_variable="train_data")
    assert got[0].message.fields["fix"] == "test_part"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # two parts of a split: no warning
        load_train_test(split_mat, split_mat)


def test_two_files_each_with_one_part(tmp_path):
    """``--variable train_data`` on a pair of files (train.mat, test.mat): the test file's own
    ``test_data`` is read."""
    rng = np.random.default_rng(5)
    (Xa, Ya), (Xb, Yb) = _part(rng, N_TRAIN), _part(rng, N_TEST)
    a, b = tmp_path / "train.mat", tmp_path / "test.mat"
    scipy.io.savemat(a, {"train_data": Xa, "train_target": Ya})
    scipy.io.savemat(b, {"test_data": Xb, "test_target": Yb})
    tr, te = load_train_test(a, b, variable="train_data")
    assert (tr.n_samples, te.n_samples) == (N_TRAIN, N_TEST)


def test_part_variables_need_a_split(split_mat, tmp_path, capsys):
    assert main(["evaluate", str(split_mat), "--train-variable", "train_data",
                 "-o", str(tmp_path / "e.json")]) == 2
    assert "--variable" in capsys.readouterr().err


@pytest.fixture
def small_csv(tmp_path):
    rng = np.random.default_rng(11)
    X, Y = _part(rng, 80)
    rows = ["a,b,c,d,e,f,g,h,i,j,k,l,L1,L2,L3"] + [
        ",".join(str(int(v)) for v in [*x, *y]) for x, y in zip(X, Y, strict=True)]
    path = tmp_path / "small.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


_LABELS = ["--labels", "last:3", "--discretize", "none"]
COMMANDS = {
    "select": lambda d, o: ["select", d, *_LABELS, "-o", o],
    "select --record": lambda d, o: ["select", d, *_LABELS, "--record", o.replace(
        ".json", ".csv"), "-o", o.replace("missing/", "")],
    "info": lambda d, o: ["info", d, "--labels", "last:3", "-o", o],
    "evaluate": lambda d, o: ["evaluate", d, *_LABELS, "--n-repeats", "2", "-o", o],
    "tune": lambda d, o: ["tune", d, *_LABELS, "--grid", "k1=0.5,1", "--n-repeats", "2",
                          "--inner-folds", "2", "-o", o],
    "compare": lambda d, o: ["compare", d, *_LABELS, "--methods", "camcf,all", "--n-repeats",
                             "2", "-o", o],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_an_output_in_a_missing_folder_fails_before_the_run(command, small_csv, tmp_path,
                                                            capsys):
    out = str(tmp_path / "missing" / "out.json")
    argv = COMMANDS[command](str(small_csv), out)
    assert main(argv) == 3
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    # one line naming the folder's absence, and no progress: nothing ran before it
    assert len(lines) == 1 and "folder does not exist" in lines[0], err
    assert str(tmp_path / "missing") in lines[0]
    assert not (tmp_path / "missing").exists()


def test_reproduce_makes_its_output_folder_before_the_run(small_csv, tmp_path, capsys):
    """camcf reproduce makes a missing output folder (README: ``-o rep/paper``); one it cannot
    make fails before the run."""
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    argv = ["reproduce", str(small_csv), *_LABELS, "--methods", "camcf", "--grid", "k1=1",
            "--grid", "k2=1", "--n-repeats", "2", "--inner-folds", "2", "-o",
            str(blocker / "rep" / "out")]
    assert main(argv) == 3
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and str(blocker / "rep") in lines[0], lines


def test_an_output_that_is_a_folder_fails_before_the_run(small_csv, tmp_path, capsys):
    assert main(["select", str(small_csv), *_LABELS, "-o", str(tmp_path)]) == 3
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "it is a folder" in lines[0]


def test_the_empty_selection_warning_names_delta1_auto(small_csv, tmp_path, capsys):
    out = str(tmp_path / "s.json")
    assert main(["select", str(small_csv), *_LABELS, "--delta1", "0.99", "-q", "-o", out]) == 0
    err = capsys.readouterr().err
    assert "selected no feature" in err and "--delta1 auto" in err
    assert main(["evaluate", str(small_csv), *_LABELS, "--delta1", "0.99", "--n-repeats", "2",
                 "-o", out]) == 0
    cap = capsys.readouterr()
    assert "--delta1 auto" in cap.err and "on 2 of 2 splits" in cap.err
    assert "empty on 2 of 2 splits: it has no scores" in cap.out

"""MATLAB files with several variable pairs: list them, read the one chosen (library, CLI), a
train/test pair from one file, and messages that name columns."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.io

import camcf
from camcf.cli import main
from camcf.discretize import discretize
from camcf.io import load, load_train_test, variable_choices


@pytest.fixture
def mat4(tmp_path):
    rng = np.random.default_rng(0)
    path = tmp_path / "split.mat"
    scipy.io.savemat(path, {
        "train_data": rng.integers(0, 3, (40, 6)).astype(float),
        "train_target": rng.integers(0, 2, (3, 40)).astype(float),  # labels × samples
        "test_data": rng.integers(0, 3, (25, 6)).astype(float),
        "test_target": rng.integers(0, 2, (25, 3)).astype(float),
        "extra": rng.normal(size=(10, 4)),
    })
    return path


def test_choices_list_every_pair_first(mat4):
    ch = variable_choices(mat4)
    vars_ = [c["variable"] for c in ch]
    assert vars_[:2] == ["train_data/train_target", "test_data/test_target"]
    assert "extra" in vars_  # another matrix, as a single features+labels matrix
    assert ch[0]["shape"] == (40, 6) and "3 labels" in ch[0]["text"]


def test_without_a_choice_the_message_names_the_way_out(mat4):
    with pytest.raises(camcf.DataFormatError, match="--variable train_data"):
        load(mat4)


@pytest.mark.parametrize("variable", ["train_data", "train_data/train_target"])
def test_load_the_chosen_pair(mat4, variable):
    ds = load(mat4, variable=variable)
    assert ds.X.shape == (40, 6) and ds.Y.shape == (40, 3)
    assert "train_data/train_target" in ds.source


def test_unknown_variable(mat4):
    with pytest.raises(camcf.DataFormatError, match="no numeric variable 'nope'"):
        load(mat4, variable="nope/train_target")


def test_train_test_from_one_file(mat4):
    tr, te = load_train_test(mat4, mat4, variable="train_data", test_variable="test_data")
    assert tr.n_samples == 40 and te.n_samples == 25 and tr.n_labels == te.n_labels == 3


def test_variable_only_for_matlab(tmp_path):
    p = tmp_path / "a.csv"
    p.write_text("a,b,L\n1,2,0\n2,1,1\n")
    with pytest.raises(camcf.DataFormatError, match="only be chosen in a MATLAB"):
        load(p, labels=["L"], variable="x")


def test_cli_variable(mat4, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["select", str(mat4), "--variable", "test_data", "--discretize", "none",
                 "--min-category-size", "2", "-o", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["data"]["variable"] == "test_data"
    assert "test_data/test_target" in data["data"]["source"]
    assert main(["select", str(mat4), "-o", str(out)]) == 2
    assert "--variable" in capsys.readouterr().err


def test_missing_values_named_by_column():
    X = np.array([[1.0, np.nan, 2.0], [2.0, 1.0, 1.0]])
    with pytest.raises(camcf.InvalidDataError, match="height"):
        discretize(X, names=["width", "height", "depth"])
    with pytest.raises(camcf.InvalidDataError) as e:
        discretize(X, names=["width", "height", "depth"])
    assert e.value.problem.startswith("the features have missing values")  # for the app
    assert e.value.fix == "complete_data"

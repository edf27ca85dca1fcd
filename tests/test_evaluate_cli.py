"""``camcf evaluate``: JSON round trips on small CSV files, the shared data, and every error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO, require_file

from camcf.cli import main
from camcf.evaluation import METRICS, MLkNN, binarize_labels, evaluate_all


def _main(argv: list[str]) -> int:
    """``camcf …`` in this process."""
    try:
        return main(argv)
    except SystemExit as e:  # argparse errors
        return int(e.code)


def _write_csv(path: Path, X: np.ndarray, Y: np.ndarray) -> None:
    header = [f"f{j}" for j in range(X.shape[1])] + [f"y{i}" for i in range(Y.shape[1])]
    rows = [",".join(header)]
    for x, y in zip(X, Y, strict=True):
        rows.append(",".join(str(v) for v in [*x.tolist(), *y.tolist()]))
    path.write_text("\n".join(rows) + "\n")


def _data(n: int = 120, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, 6))
    noise = rng.random((n, 3)) < 0.1
    Y = np.column_stack([(X[:, 0] == 0) ^ noise[:, 0], (X[:, 1] > 0) ^ noise[:, 1], X[:, 2] == 2])
    return X, Y.astype(int)


@pytest.fixture
def csv_file(tmp_path: Path) -> Path:
    X, Y = _data()
    path = tmp_path / "small.csv"
    _write_csv(path, X, Y)
    return path


@pytest.fixture
def csv_pair(tmp_path: Path) -> tuple[Path, Path, np.ndarray, np.ndarray]:
    X, Y = _data(150, seed=1)
    train, test = tmp_path / "train.csv", tmp_path / "test.csv"
    _write_csv(train, X[:100], Y[:100])
    _write_csv(test, X[100:], Y[100:])
    return train, test, X, Y


def test_repeated_is_the_default_with_one_file(csv_file, tmp_path, capsys):
    out = tmp_path / "out.json"
    rc = _main(["evaluate", str(csv_file), "--labels", "y0,y1,y2", "--delta1", "0.02",
                "--output", str(out)])
    assert rc == 0
    payload = json.loads(out.read_text())
    assert list(payload["metrics"]) == list(METRICS)
    assert payload["protocol"]["name"] == "repeated" and len(payload["splits"]) == 5
    assert payload["protocol"]["seed"] == 0 and payload["protocol"]["test_size"] == 0.3
    assert all(s["n_train"] == 84 and s["n_test"] == 36 for s in payload["splits"])
    # the three informative features are found on (nearly) every split
    assert {0, 1, 2} <= set(payload["selected_indices"])
    for m in METRICS:
        values = [s["metrics"][m] for s in payload["splits"]]
        assert payload["metrics"][m] == pytest.approx(np.mean(values))
        assert payload["sd"][m] == pytest.approx(np.std(values, ddof=1))
    assert payload["selection"]["params"]["delta1"] == 0.02
    assert payload["selection"]["params"]["k1"] == 0.7  # default filled in
    assert "training part" in payload["discretization"]["fitted_on"]
    text = capsys.readouterr().out
    assert "Hamming loss" in text and "Micro-F1" in text and str(out) in text


def test_holdout_on_a_pair_with_features_matches_a_direct_mlknn(csv_pair, tmp_path):
    train, test, X, Y = csv_pair
    out = tmp_path / "out.json"
    rc = _main(["evaluate", "--train", str(train), "--test", str(test), "--labels", "y0,y1,y2",
                "--features", "0,2", "--neighbours", "authors", "--k", "5", "-o", str(out)])
    assert rc == 0
    payload = json.loads(out.read_text())
    assert payload["protocol"]["name"] == "holdout" and len(payload["splits"]) == 1
    assert payload["selected_indices"] == [0, 2]
    assert payload["selection"] == {"method": "given", "features": [0, 2]}
    Yb, _ = binarize_labels(Y)
    model = MLkNN(k=5, neighbours="authors").fit(X[:100][:, [0, 2]], Yb[:100])
    scores = model.predict_proba(X[100:][:, [0, 2]])
    expected = evaluate_all(Yb[100:], (scores > 0.5).astype(int), scores)
    for m, v in expected.items():
        assert payload["metrics"][m] == pytest.approx(v)
    assert payload["sd"][m] is None  # one split: no spread


def test_kfold_and_holdout_on_one_file(csv_file, tmp_path):
    out = tmp_path / "k.json"
    assert _main(["evaluate", str(csv_file), "--labels", "y0,y1,y2", "--protocol", "kfold",
                  "--folds", "4", "--features", "0", "-o", str(out)]) == 0
    payload = json.loads(out.read_text())
    assert len(payload["splits"]) == 4
    assert sum(s["n_test"] for s in payload["splits"]) == 120
    out2 = tmp_path / "h.json"
    assert _main(["evaluate", str(csv_file), "--labels", "y0,y1,y2", "--protocol", "holdout",
                  "--test-size", "0.25", "--seed", "3", "-o", str(out2)]) == 0
    payload = json.loads(out2.read_text())
    assert len(payload["splits"]) == 1 and payload["splits"][0]["n_test"] == 30


@pytest.mark.parametrize(
    "argv, message",
    [
        (["evaluate", "missing.csv", "-o", "{out}"], "no such file"),
        (["evaluate", "{csv}", "--labels", "y0,y1,y2", "--features", "0,99", "-o", "{out}"],
         "out of range"),
        (["evaluate", "{csv}", "--labels", "y0,y1,y2", "--features", "0", "--delta1", "0.1",
          "-o", "{out}"], "cannot be combined"),
        (["evaluate", "{csv}", "--train", "{csv}", "--test", "{csv}", "--labels", "y0",
          "-o", "{out}"], "not both"),
        (["evaluate", "--train", "{csv}", "--labels", "y0", "-o", "{out}"], "go together"),
        (["evaluate", "--train", "{csv}", "--test", "{csv}", "--labels", "y0,y1,y2",
          "--protocol", "kfold", "-o", "{out}"], "resamples"),
        (["evaluate", "{csv}", "--labels", "y0,y1,y2", "--k1", "1.5", "-o", "{out}"], "k1"),
        (["evaluate", "{csv}", "--labels", "y0,y1,y2", "--test-size", "1.2", "-o", "{out}"],
         "test-size"),
        (["evaluate", "{csv}", "--labels", "y0,y1,y2", "--k", "500", "-o", "{out}"],
         "smaller than"),
        (["evaluate", "{csv}", "--labels", "nope", "-o", "{out}"], "nope"),
        (["evaluate", "{csv}", "--labels", "y0,y1,y2", "--features", "a,b", "-o", "{out}"],
         "feature indices"),
        (["evaluate", "{csv}", "--labels", "y0,y1,y2", "--k", "x", "-o", "{out}"], "--k"),
        (["evaluate", "{csv}", "--labels", "y0,y1,y2"], "--output"),
    ],
)
def test_errors_exit_2_with_one_line(argv, message, csv_file, tmp_path, capsys):
    out = tmp_path / "never.json"
    argv = [a.format(csv=csv_file, out=out) for a in argv]
    assert _main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert message in err
    assert not out.exists()


def test_python_dash_m_camcf_evaluate(csv_file, tmp_path):
    out = tmp_path / "sub.json"
    ok = subprocess.run(
        [sys.executable, "-m", "camcf", "evaluate", str(csv_file), "--labels", "y0,y1,y2",
         "--repeats", "2", "-o", str(out)],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    assert len(json.loads(out.read_text())["splits"]) == 2
    bad = subprocess.run(
        [sys.executable, "-m", "camcf", "evaluate", str(tmp_path / "none.arff"), "-o", str(out)],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def test_flags_fixed_split_in_the_authors_mode(tmp_path):
    train = require_file("flags/Flags-train.mat")
    test = require_file("flags/Flags-test.mat")
    out = tmp_path / "flags.json"
    rc = _main(["evaluate", "--train", str(train), "--test", str(test), "--labels", "last:7",
                "--neighbours", "authors", "--discretize", "none", "-o", str(out)])
    assert rc == 0
    payload = json.loads(out.read_text())
    assert payload["data"]["n_features"] == 19 and payload["splits"][0]["n_test"] == 62
    assert 0 < payload["n_features"] < 19
    assert 0 < payload["metrics"]["hamming_loss"] < 0.5


def test_protocol_and_classifier_flags_come_from_the_declarations():
    """Every declared protocol setting is a flag (its declared default and options), the older
    spellings --repeats/--folds set the same value, a value outside the declared range is
    refused when the command line is parsed, and add_classifier offers what it is asked for."""
    import argparse

    from camcf.cli import groups
    from camcf.evaluation.settings import EVAL_PARAMS, KNN_PARAMS

    p = argparse.ArgumentParser()
    groups.add_protocol(p)
    groups.add_classifier(p, settings=("k", "s", "neighbours"))
    values = groups.protocol_values(p.parse_args([]))
    assert values == {q.name: q.default for q in EVAL_PARAMS}
    assert groups.knn_values(p.parse_args([])) == {q.name: q.default for q in KNN_PARAMS
                                                  if q.name != "distance"}
    old = p.parse_args(["--repeats", "3", "--folds", "4"])
    new = p.parse_args(["--n-repeats", "3", "--n-folds", "4"])
    assert groups.protocol_values(old) == groups.protocol_values(new)
    assert (old.n_repeats, old.n_folds) == (3, 4)
    assert groups.knn_values(p.parse_args(["--s", "0.5"]))["s"] == 0.5
    choices = {a.dest: a.choices for a in p._actions}
    assert choices["protocol"] == list(EVAL_PARAMS[0].options)
    assert choices["neighbours"] == list(KNN_PARAMS[-1].options)
    for bad in (["--n-folds", "1"], ["--test-size", "1"], ["--k", "0"], ["--s", "0"]):
        with pytest.raises(SystemExit):
            p.parse_args(bad)
    with pytest.raises(ValueError, match="unknown ML-kNN"):
        groups.add_classifier(argparse.ArgumentParser(), settings=("kk",))

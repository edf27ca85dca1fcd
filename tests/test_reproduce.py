"""``camcf.evaluation.reproduce`` and ``camcf reproduce``: the paper's comparison, tuned on
training rows only, resumable, the same in parallel and on Dask, beside the paper's values."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import camcf
import camcf.tuning
from camcf.datasets import make_causal_multilabel
from camcf.errors import CamcfError, ParameterError
from camcf.evaluation import make_splitter
from camcf.evaluation import running as running_module
from camcf.evaluation.metrics import METRICS
from camcf.evaluation.paper import PAPER_TABLES, paper_column
from camcf.evaluation.reproduction import (
    DEFAULTS_ROW,
    reproduce,
    reproduction_markdown,
    untimed,
    write_reproduction,
)
from camcf.jobs import Cancelled

METHODS = ["camcf", "all", "fimf"]
GRID = {"k1": [0.1, 0.7]}
SMALL = {"methods": METHODS, "grid": GRID, "n_repeats": 2, "inner_folds": 2, "knn": {"k": 5}}


def _data() -> dict[str, tuple]:
    """Two small data sets; the first named as a paper column (Flags)."""
    a = make_causal_multilabel(100, seed=0).dataset
    b = make_causal_multilabel(80, seed=1).dataset
    return {"flags": (a.X, a.Y), "other": (b.X, b.Y)}


CALLS: list[tuple[int, int, str]] = []


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    cache = tmp_path_factory.mktemp("cells")
    return reproduce(_data(), cache_dir=cache, progress=lambda *c: CALLS.append(c),
                     **SMALL), cache


def test_progress_is_weighted_work_that_ends_at_its_total(run):
    """done never decreases, total never falls below it, the last call is 100 %; the units are
    the cost model's (camcf.estimates.CostProgress), not one per unit of work."""
    done = [d for d, _, _ in CALLS]
    assert done == sorted(done) and all(t >= d for d, t, _ in CALLS)
    assert CALLS[0][:2] == (0, 10_000) and CALLS[0][2] == "starting"
    assert CALLS[-1][0] == CALLS[-1][1] > 0 and "ML-kNN" in CALLS[-1][2]
    assert any("tuning" in m for *_, m in CALLS) and any("selected" in m for *_, m in CALLS)


def test_payload_shape(run):
    payload, _ = run
    assert set(payload["data_sets"]) == {"flags", "other"}
    rows = [m["name"] for m in payload["methods"]]
    assert rows == [*METHODS, DEFAULTS_ROW]
    tuned = payload["methods"][0]["params"]
    assert tuned["k1"].startswith("tuned per split") and tuned["delta1"] == "auto"
    assert payload["methods"][-1]["params"]["k1"] == camcf.CaMCF().k1      # the defaults row
    for name, d in payload["data_sets"].items():
        assert {r["method"] for r in d["summary"]} == set(rows)
        assert len(d["splits"]) == 2 * len(rows) * len(METRICS)
        assert [t["split"] for t in payload["tuning"][name]] == [0, 1]
        for t in payload["tuning"][name]:
            assert t["best"]["k1"] in GRID["k1"]
            assert isinstance(t["best"]["delta1"], float)       # "auto" resolved from the data
        # the ranking method is cut at the tuned Ca-MCF's size on every split
        for sets in d["selected"]:
            assert len(sets["fimf"]) == len(sets["camcf"])
    assert len(payload["paper"]) == 2 * len(rows) * len(METRICS)
    assert {r["metric"] for r in payload["friedman_paper_methods"]} == set(METRICS)
    assert payload["settings"]["classifier"]["neighbours"] == "authors"


def test_paper_values_and_differences(run):
    payload, _ = run
    frame = pd.DataFrame(payload["paper"])
    flags = frame[frame["data_set"] == "flags"].set_index(["method", "metric"])
    col = 0  # Flags is the paper's first column
    for metric in METRICS:
        for method, paper_row in (("camcf", "camcf"), (DEFAULTS_ROW, "camcf"), ("fimf", "fimf")):
            row = flags.loc[(method, metric)]
            assert row["paper"] == PAPER_TABLES[metric][paper_row][col]
            assert row["difference"] == pytest.approx(row["mean"] - row["paper"])
            better = (row["difference"] > 0) == METRICS[metric]["higher_is_better"]
            assert bool(row["ours_better"]) == better
        assert math.isnan(flags.loc[("all", metric), "paper"])        # not in the paper
    assert frame.loc[frame["data_set"] == "other", "paper"].isna().all()
    assert paper_column("CHD_49") == "CHD_49" and paper_column("yeast-train") == "Yeast"
    assert paper_column("scene") is None


def test_report_files_parse(run, tmp_path):
    payload, _ = run
    paths = write_reproduction(payload, tmp_path / "out" / "report.json")
    assert [p.suffix for p in paths] == [".json", ".csv", ".md", ".html"]
    assert json.loads(paths[0].read_text())["tuning"] == payload["tuning"]
    table = pd.read_csv(paths[1])
    assert list(table.columns) == ["data_set", "paper_column", "method", "method_name",
                                   "metric", "mean", "sd", "paper", "difference", "ours_better"]
    assert len(table) == len(payload["paper"])
    md = paths[2].read_text()
    for info in METRICS.values():
        assert info["name"] in md
    assert "(0.2481; " in md                                # Flags' Hamming loss beside ours
    assert "nan" not in md                                  # no paper value: nothing beside
    html = paths[3].read_text()
    assert html.count("<table>") == len(METRICS) + 1 and "CD diagram" in html
    assert "Normalised radar: flags" in html


def test_tuner_sees_only_the_training_rows(monkeypatch):
    seen = []
    real = camcf.tuning.tune

    def spy(X, Y, grid, **kw):
        seen.append((np.asarray(X).copy(), kw["cv"]))
        return real(X, Y, grid, **kw)

    monkeypatch.setattr(camcf.tuning, "tune", spy)
    data = {"flags": _data()["flags"]}
    X = data["flags"][0]
    reproduce(data, **SMALL)
    splits = list(make_splitter("repeated", n_repeats=2).split(X))
    assert len(seen) == len(splits)
    for (got, cv), (train, test) in zip(seen, splits, strict=True):
        assert np.array_equal(got, X[train])                # the split's training rows …
        assert got.shape[0] == X.shape[0] - len(test)       # … and nothing else
        assert [len(t) for _, t in cv.split(got)] == [0]    # the tuner holds nothing out


def test_a_stopped_run_continues_where_it_was(run, tmp_path, monkeypatch):
    full, full_cache = run
    n_cells = sum(1 for _ in Path(full_cache).rglob("*.json"))
    assert full["cache"]["computed"] == n_cells

    def stop_after_selections(done, total, message):
        if "selected" in message and done >= total // 2:
            raise Cancelled("stop")

    with pytest.raises(Cancelled):
        reproduce(_data(), cache_dir=tmp_path, progress=stop_after_selections, **SMALL)
    kept = sum(1 for _ in tmp_path.rglob("*.json"))
    assert 0 < kept < n_cells
    again = reproduce(_data(), cache_dir=tmp_path, **SMALL)
    assert again["cache"]["computed"] == n_cells - kept
    assert untimed(again) == untimed(full)

    # a third run computes nothing: no tuning, no selection, no classification
    calls = []
    for name in ("_fit_one", "_classify_fold"):
        real = getattr(running_module, name)
        monkeypatch.setattr(running_module, name,
                            lambda *a, _real=real, _n=name, **k: calls.append(_n) or _real(*a, **k))
    monkeypatch.setattr(camcf.tuning, "tune", lambda *a, **k: calls.append("tune"))
    third = reproduce(_data(), cache_dir=tmp_path, **SMALL)
    assert calls == [] and third["cache"]["computed"] == 0
    assert third["cache"]["reused"] == n_cells
    assert untimed(third) == untimed(full)


def test_serial_two_processes_and_dask_agree():
    distributed = pytest.importorskip("distributed")
    data = {"flags": _data()["flags"]}
    small = {**SMALL, "n_repeats": 1}   # one split: worker start-up dominates as it is
    serial = reproduce(data, **small)
    two = reproduce(data, n_jobs=2, **small)
    assert two["settings"]["n_jobs"] == 2
    assert untimed(two) == untimed(serial)
    with distributed.LocalCluster(n_workers=2, processes=False, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        on_dask = reproduce(data, scheduler=cluster.scheduler_address, **small)
    assert on_dask["settings"]["n_jobs"] == 2                  # every worker thread
    assert untimed(on_dask) == untimed(serial)


def test_bad_input_is_named():
    with pytest.raises(CamcfError, match="unknown data set 'nope'"):
        reproduce(["nope"], **SMALL)
    with pytest.raises(ParameterError, match="unknown parameter 'k9'"):
        reproduce(_data(), **{**SMALL, "grid": {"k9": [0.1]}})
    with pytest.raises(ParameterError, match="empty"):
        reproduce(_data(), **{**SMALL, "grid": {"k1": []}})
    with pytest.raises(ParameterError, match="include 'camcf'"):
        reproduce(_data(), **{**SMALL, "methods": ["all", "fimf"]})
    with pytest.raises(ParameterError, match="inner_folds"):
        reproduce(_data(), **{**SMALL, "inner_folds": 1})
    with pytest.raises(CamcfError, match="cannot connect to the Dask scheduler at tcp://127.0.0.1:9"):
        reproduce(_data(), scheduler="tcp://127.0.0.1:9", scheduler_timeout=1, **SMALL)


def test_command_writes_four_files_and_resumes(tmp_path, capsys):
    from camcf.cli import main
    from tests.test_cli import write_csv

    write_csv(tmp_path / "d.csv", n=120)
    out = tmp_path / "rep"
    argv = ["reproduce", str(tmp_path / "d.csv"), "--labels", "last:2", "--methods",
            "camcf,all", "--grid", "k1=0.1,0.7", "--n-repeats", "2", "--k", "5", "-o", str(out)]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert "0 reused" in first
    for suffix in (".json", ".csv", ".md", ".html"):
        assert out.with_suffix(suffix).is_file()
    payload = json.loads(out.with_suffix(".json").read_text())
    assert payload["settings"]["classifier"]["k"] == 5
    assert payload["settings"]["tuning"]["grid"] == {"k1": [0.1, 0.7]}
    assert main(argv) == 0
    assert "0 cells computed" in capsys.readouterr().out       # everything from OUT.cache
    assert main([*argv[:-2], "--grid", "k9=1", "-o", str(out)]) == 2
    assert "unknown parameter 'k9'" in capsys.readouterr().err
    assert main(["reproduce", "nope", "-o", str(out)]) == 2
    assert "not a shared data set name" in capsys.readouterr().err


def test_markdown_says_how_it_was_tuned(run):
    md = reproduction_markdown(run[0])
    assert "training rows only" in md and "k1 ∈ [0.1, 0.7]" in md
    assert "delta1 = auto" in md


def test_paper_tables_match_the_latex_source():
    from support import paper_tables

    _, tables = paper_tables()
    from camcf.methods import PAPER_METHODS

    for metric, table in tables.items():
        for j, method in enumerate(PAPER_METHODS):
            assert PAPER_TABLES[metric][method] == tuple(table[:, j])

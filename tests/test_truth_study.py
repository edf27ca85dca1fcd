"""``camcf truth`` (camcf.evaluation.truth_study): every method on every sample scored against the
truth; the cells checked against direct computation, resumed, stopped, parallel."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import camcf
from camcf import networks
from camcf.baselines.pc import blanket_in_pdag
from camcf.errors import ParameterError
from camcf.evaluation import truth_study as ts
from camcf.jobs import Cancelled
from camcf.truth import score_result

GRID = {"delta1": ["auto", 0.02], "k1": [0.7, 1.0]}
SMALL = {"labels": "auto:3", "ns": [200, 600], "seeds": 2, "oracle_grid": GRID}


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    cache = tmp_path_factory.mktemp("truth-cache")
    return ts.truth_study(["asia"], cache_dir=cache, **SMALL), cache


def _cells(payload, method):
    return {(c["n"], c["seed"]): c for c in payload["cells"] if c["method"] == method}


def test_every_method_on_every_sample(study):
    p, _ = study
    names = [m["name"] for m in p["methods"]]
    assert names == ["camcf", "camcf-auto", "camcf-adequacy", "camcf-oracle", "mi-mcf", "pc",
                     "all", "random"]
    assert len(p["cells"]) == len(names) * 2 * 2 and p["complete"]
    assert p["networks"]["asia"]["labels"] == sorted(networks.load("asia").labels("auto:3"))
    rows = [s for s in p["summary"] if s["method"] == "camcf" and s["n"] == 600]
    f1 = [c["scores"]["mean"]["f1"] for c in _cells(p, "camcf").values() if c["n"] == 600]
    assert rows[0]["f1"]["mean"] == pytest.approx(np.mean(f1))
    assert rows[0]["f1"]["sd"] == pytest.approx(np.std(f1, ddof=1))


def test_a_camcf_cell_is_the_run_on_that_sample(study):
    p, _ = study
    net = networks.load("asia")
    ds = net.simulate("auto:3", 600, 1)
    res = camcf.run(ds.X.astype(int), ds.Y, feature_names=ds.feature_names,
                    label_names=ds.label_names, delta1="auto", delta2="auto")
    cell = _cells(p, "camcf-auto")[(600, 1)]
    assert cell["scores"] == json.loads(json.dumps(score_result(res, ds.truth)))
    assert cell["tests"] == res.n_tests


def test_the_references(study):
    p, _ = study
    net = p["networks"]["asia"]
    feats = set(net["features"])
    true = {lab: [v for v in net["blankets"][lab]["blanket"] if v in feats]
            for lab in net["labels"]}
    for c in _cells(p, "all").values():
        for lab, row in c["scores"]["per_label"].items():
            assert row["recall"] == (1.0 if true[lab] else 0.0)
            assert row["found"] == sorted(feats)
    runs = list(_cells(p, "random").values())
    for c in runs:  # per label as many features as its true blanket, drawn blind
        for lab, row in c["scores"]["per_label"].items():
            assert len(row["found"]) == len(true[lab])
    assert runs[0]["scores"]["per_label"] == next(
        c for c in runs if c["seed"] == runs[0]["seed"] and c is not runs[0]
    )["scores"]["per_label"]  # the same seed, the same draw at another n


def test_the_oracle_is_the_best_grid_point(study):
    p, _ = study
    for (n, seed), c in _cells(p, "camcf-oracle").items():
        assert len(c["chosen"]["grid_f1"]) == 4
        assert c["scores"]["mean"]["f1"] == max(c["chosen"]["grid_f1"])
        point = {k: v for k, v in c["chosen"].items() if k != "grid_f1"}
        ds = networks.load("asia").simulate("auto:3", n, seed)
        res = camcf.run(ds.X.astype(int), ds.Y, feature_names=ds.feature_names,
                        label_names=ds.label_names, **point)
        assert score_result(res, ds.truth)["mean"]["f1"] == pytest.approx(
            c["scores"]["mean"]["f1"])


def test_pc_blanket_read_off_a_pdag_by_hand():
    # a -> L <- b ; L -> c <- s ; c - d (undirected) ; L - u (undirected) ; u -> w
    directed = {("a", "L"), ("b", "L"), ("L", "c"), ("s", "c"), ("u", "w")}
    undirected = {("c", "d"), ("u", "L")}
    assert blanket_in_pdag(directed, undirected, "L") == {"a", "b", "c", "s", "u"}
    assert blanket_in_pdag(directed, undirected, "c") == {"L", "s", "d"}


def test_adequacy_is_passed_to_camcf(monkeypatch):
    seen = []
    real = camcf.algorithm.run

    def run_with_adequacy(*args, adequacy=0.0, **kwargs):
        seen.append(adequacy)
        return real(*args, adequacy=adequacy, **kwargs)

    monkeypatch.setattr(camcf.algorithm, "run", run_with_adequacy)
    ts.truth_study(["asia"], labels="auto:2", ns=[200], seeds=1, methods=["camcf-adequacy"])
    assert seen == [5.0]
    assert ts.ORACLE_GRID["adequacy"] == (0.0, ts.ADEQUACY)  # the oracle's grid holds it too


def test_resumed_stopped_and_parallel_runs_agree(study, tmp_path):
    full, cache = study
    n_cells = len(full["cells"])
    again = ts.truth_study(["asia"], cache_dir=cache, **SMALL)
    assert again["cache"] == {"computed": 0, "reused": n_cells, "folder": str(cache)}
    assert ts.untimed(again) == ts.untimed(full)

    ticks = []

    def stop_midway(done, total, message):
        ticks.append(message)
        if sum("seed" in m and "sampled" not in m for m in ticks) == 9:
            raise Cancelled("stop")

    with pytest.raises(ts.Stopped) as stop:
        ts.truth_study(["asia"], cache_dir=tmp_path, progress=stop_midway, **SMALL)
    part = stop.value.payload
    assert not part["complete"] and len(part["cells"]) == 9
    assert "Stopped before the end" in ts.truth_markdown(part)
    resumed = ts.truth_study(["asia"], cache_dir=tmp_path, n_jobs=2, **SMALL)
    assert resumed["cache"]["reused"] == 9 and resumed["cache"]["computed"] == n_cells - 9
    assert ts.untimed(resumed) == ts.untimed(full)


def test_bad_input_is_named():
    with pytest.raises(ParameterError, match="unknown method.*camcf-auto"):
        ts.truth_study(["asia"], methods=["camcf", "nope"], ns=[100], seeds=1)
    with pytest.raises(ParameterError, match="seeds"):
        ts.truth_study(["asia"], ns=[100], seeds=0)
    with pytest.raises(ParameterError, match=r"n must be in \[1, inf\)"):
        ts.truth_study(["asia"], ns=[0], seeds=1)
    with pytest.raises(ParameterError, match="unknown parameter 'k9'"):
        ts.truth_study(["asia"], ns=[100], seeds=1, oracle_grid={"k9": [1]})
    with pytest.raises(ParameterError, match="taken by a method"):
        ts.truth_study(["asia"], ns=[100], seeds=1, variants={"all": {"k1": 0.5}})
    with pytest.raises(camcf.LabelSpecError, match="out of range"):
        ts.truth_study(["asia"], labels="auto:8", ns=[100], seeds=1)


def test_the_command_writes_three_files_plans_and_resumes(tmp_path, capsys):
    from camcf.cli import main

    out = tmp_path / "rep"
    argv = ["truth", "asia", "--labels", "auto:2", "--n", "150,300", "--seeds", "2",
            "--methods", "camcf,strict,pc,all,random", "--variant", "strict:delta1=0.2",
            "-o", str(out)]
    assert main([*argv, "--plan"]) == 0
    plan = capsys.readouterr().out
    assert "20 cells to compute, 0 in" in plan and "per method:" in plan
    assert not out.with_suffix(".json").exists()
    assert main(argv) == 0
    assert "20 cells computed, 0 reused" in capsys.readouterr().out
    payload = json.loads(out.with_suffix(".json").read_text())
    assert payload["settings"]["command"].startswith("camcf truth asia --labels auto:2")
    strict = next(m for m in payload["methods"] if m["name"] == "strict")
    assert strict["params"] == {"delta1": 0.2}
    md = out.with_suffix(".md").read_text()
    assert "| Ca-MCF (strict) |" in md and "n = 300" in md
    page = out.with_suffix(".html").read_text()
    assert 'src="http' not in page and len(page) > 1_000_000  # plotly's JS is in the page
    assert page.count("Plotly.newPlot(") == 1  # one figure: F1 against n
    assert main(argv) == 0
    assert "0 cells computed, 20 reused" in capsys.readouterr().out
    assert main([*argv[:-2], "--variant", "x:k9=1", "-o", str(out)]) == 2
    assert "--variant 'x:k9=1'" in capsys.readouterr().err


def test_ctrl_c_writes_what_finished_and_exits_130(tmp_path, capsys, monkeypatch):
    from camcf.cli import main, progress

    calls = [0]
    real = progress.ProgressLine.__call__

    def interrupted(self, done, total, message):
        calls[0] += 1
        if calls[0] == 6:
            raise KeyboardInterrupt
        return real(self, done, total, message)

    monkeypatch.setattr(progress.ProgressLine, "__call__", interrupted)
    out = tmp_path / "rep"
    argv = ["truth", "asia", "--labels", "auto:2", "--n", "150", "--seeds", "2",
            "--methods", "camcf,all,random", "-o", str(out)]
    assert main(argv) == 130
    err = capsys.readouterr().err
    assert "stopped;" in err and "run the same command again" in err
    part = json.loads(out.with_suffix(".json").read_text())
    assert not part["complete"] and 0 < len(part["cells"]) < 6
    monkeypatch.setattr(progress.ProgressLine, "__call__", real)
    assert main(argv) == 0
    done = json.loads(out.with_suffix(".json").read_text())
    assert done["complete"] and len(done["cells"]) == 6
    assert done["cache"]["reused"] == len(part["cells"])
    assert all(not math.isnan(c["scores"]["overall"]["f1"]) for c in done["cells"])
    assert Path(str(out) + ".cache").is_dir()


def test_on_a_dask_cluster_as_in_one_process():
    distributed = pytest.importorskip("distributed")
    small = {"labels": "auto:2", "ns": [150], "seeds": 2, "methods": ["camcf", "pc", "random"]}
    serial = ts.truth_study(["asia"], **small)
    with distributed.LocalCluster(n_workers=2, processes=False, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        on_dask = ts.truth_study(["asia"], scheduler=cluster.scheduler_address, **small)
    assert on_dask["settings"]["n_jobs"] == 2                  # every worker thread
    assert ts.untimed(on_dask) == ts.untimed(serial)

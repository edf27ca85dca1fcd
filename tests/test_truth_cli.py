"""The command line of the truth: ``camcf simulate`` and ``--truth`` on select, evaluate and
compare (the names an independent check calls)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import camcf
from camcf import networks
from camcf.cli import main
from camcf.truth import Truth, mean_scores, score_result


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    out = tmp_path_factory.mktemp("sim") / "alarm.arff"
    assert main(["simulate", "alarm", "--labels", "auto:4", "--n", "600", "--seed", "2",
                 "--output", str(out), "--quiet"]) == 0
    return out


def test_simulate_writes_arff_xml_and_the_truth(simulated):
    base = simulated.with_suffix("")
    arff, xml, truth = (simulated, base.with_suffix(".xml"),
                        base.parent / (base.name + ".truth.json"))
    net = networks.load("alarm")
    labels = net.labels("auto:4")
    d = json.loads(truth.read_text())
    assert set(d) == {"network", "labels", "features", "blankets"}
    assert d["network"] == "alarm" and d["labels"] == sorted(labels)
    assert d["features"] == sorted(set(net.nodes) - set(labels))
    hr = d["blankets"]["HR"]
    assert set(hr) == {"parents", "children", "spouses", "blanket"}
    assert hr["blanket"] == sorted(net.model.get_markov_blanket("HR"))
    assert all(v == sorted(v) for b in d["blankets"].values() for v in b.values())
    text = arff.read_text()
    assert "@attribute HR {LOW,NORMAL,HIGH}" in text  # nominal, the network's state names
    assert text.count("@attribute") == 37
    assert xml.read_text().count("<label name=") == 4


def test_select_reads_the_nominal_columns_as_the_networks_codes(simulated, tmp_path):
    base = simulated.with_suffix("")
    out = tmp_path / "sel.json"
    assert main(["select", str(simulated), "--xml", str(base.with_suffix(".xml")),
                 "--discretize", "none", "--truth", f"{base}.truth.json", "-o", str(out),
                 "--quiet"]) == 0
    got = json.loads(out.read_text())
    ds = networks.load("alarm").simulate("auto:4", 600, 2)  # the same sample, in memory
    res = camcf.run(ds.X.astype(int), ds.Y, feature_names=ds.feature_names,
                    label_names=ds.label_names)
    assert got["labels"] == res.to_dict()["labels"]  # the categories, by the state names
    assert got["selected_features"] == res.selected_features
    expected = json.loads(json.dumps(score_result(res, ds.truth)))
    assert got["truth"] == expected
    assert set(got["truth"]["per_label"]["HR"]) == {"precision", "recall", "f1", "distance",
                                                    "found", "true", "labels"}


def test_select_another_method_with_the_truth(simulated, tmp_path):
    base = simulated.with_suffix("")
    out = tmp_path / "pc.json"
    assert main(["select", str(simulated), "--xml", str(base.with_suffix(".xml")),
                 "--discretize", "none", "--method", "pc", "--truth",
                 f"{base}.truth.json", "-o", str(out), "--quiet"]) == 0
    got = json.loads(out.read_text())
    assert got["truth"]["per_label"] is not None  # PC answers per label
    found = set().union(*(set(r["found"]) for r in got["truth"]["per_label"].values()))
    assert found == set(got["selected_features"])
    out = tmp_path / "d2f.json"
    assert main(["select", str(simulated), "--xml", str(base.with_suffix(".xml")),
                 "--discretize", "none", "--method", "d2f", "--truth",
                 f"{base}.truth.json", "-o", str(out), "--quiet"]) == 0
    got = json.loads(out.read_text())
    assert got["truth"]["per_label"] is None and got["truth"]["overall"]["found"]


def test_evaluate_and_compare_score_every_split(simulated, tmp_path):
    base = simulated.with_suffix("")
    common = ["--xml", str(base.with_suffix(".xml")), "--discretize", "none", "--truth",
              f"{base}.truth.json", "--repeats", "2", "--quiet"]
    out = tmp_path / "ev.json"
    assert main(["evaluate", str(simulated), *common, "-o", str(out)]) == 0
    ev = json.loads(out.read_text())["truth"]
    assert ev["network"] == "alarm" and ev["n"] == len(ev["splits"]) == 2
    assert ev["overall"]["f1"]["mean"] == pytest.approx(
        np.mean([s["overall"]["f1"] for s in ev["splits"]]))
    assert ev == {"network": "alarm", **json.loads(json.dumps(
        {**mean_scores(ev["splits"]), "splits": ev["splits"]}))}
    out = tmp_path / "cmp.json"
    assert main(["compare", str(simulated), "--methods", "camcf,mi-mcf,all", *common,
                 "-o", str(out)]) == 0
    cmp = json.loads(out.read_text())["data_sets"]["alarm"]["truth"]
    assert set(cmp) == {"network", "camcf", "mi-mcf", "all"}
    assert cmp["camcf"]["per_label"] and cmp["mi-mcf"]["per_label"]  # merged per label
    assert cmp["all"]["overall"]["recall"]["mean"] == 1.0
    truth = Truth.read(f"{base}.truth.json")
    assert cmp["all"]["overall"]["precision"]["mean"] == pytest.approx(
        len(truth.selection()) / len(truth.features))


def test_truth_errors_are_one_line_and_exit_2(simulated, tmp_path, capsys):
    base = simulated.with_suffix("")
    other = tmp_path / "child.arff"
    assert main(["simulate", "child", "--n", "50", "-o", str(other), "--quiet"]) == 0
    code = main(["select", str(simulated), "--xml", str(base.with_suffix(".xml")),
                 "--truth", str(other.with_suffix("")) + ".truth.json", "-o",
                 str(tmp_path / "x.json"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "not the truth's labels" in err and "Traceback" not in err
    code = main(["compare", str(simulated), "--xml", str(base.with_suffix(".xml")),
                 "--truth", f"{base}.truth.json", "--truth", f"{base}.truth.json",
                 "-o", str(tmp_path / "c.json"), "--quiet"])
    assert code == 2 and "one --truth per DATA" in capsys.readouterr().err
    for argv, words in ((["simulate", "alarmm", "-o", "x.arff"], "unknown network 'alarmm'"),
                        (["simulate", "alarm", "--labels", "auto:40", "-o", "x.arff"],
                         "auto:40 is out of range"),
                        (["simulate", "alarm", "--labels", "HR,nope", "-o", "x.arff"],
                         "nope is not a node of alarm"),
                        (["simulate", "alarm", "--n", "0", "-o", "x.arff"], "--n must be")):
        try:
            code = main(argv)
        except SystemExit as e:  # argparse refuses a flag's value as it parses
            code = e.code
        assert code == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1, err

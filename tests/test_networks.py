"""Known networks as data (camcf.networks): the networks pgmpy ships, a user's BIF file and the
demo, their labels, the samples (checked against pgmpy's own simulate) and the files written."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

import camcf
from camcf import networks
from camcf.errors import DataFormatError, LabelSpecError, MissingDependencyError, ParameterError

TINY_BIF = """network tiny { }
variable rain { type discrete [ 2 ] { no, yes }; }
variable sprinkler { type discrete [ 2 ] { off, on }; }
variable wet { type discrete [ 3 ] { dry, damp, soaked }; }
probability ( rain ) { table 0.7, 0.3; }
probability ( sprinkler | rain ) { (no) 0.6, 0.4; (yes) 0.99, 0.01; }
probability ( wet | rain, sprinkler ) {
  (no, off) 0.9, 0.08, 0.02; (no, on) 0.1, 0.5, 0.4;
  (yes, off) 0.1, 0.6, 0.3; (yes, on) 0.01, 0.19, 0.8; }
"""


def test_shipped_networks_are_listed_and_load_offline():
    names = networks.shipped()
    assert names[0] == "demo"
    assert {"alarm", "child", "insurance", "hailfinder", "water"} <= set(names)
    net = networks.load("ALARM")  # case ignored
    assert net.name == "alarm" and len(net.nodes) == 37
    assert net.graph.number_of_edges() == 46
    assert net.states["HR"] == ("LOW", "NORMAL", "HIGH")  # the network's order, not sorted
    assert networks.load("alarm") is net  # parsed once


def test_auto_labels_take_the_largest_blankets():
    net = networks.load("child")
    size = {v: len(net.model.get_markov_blanket(v)) for v in net.nodes}
    expected = sorted(net.nodes, key=lambda v: (-size[v], v))[:4]
    assert net.labels("auto:4") == expected
    assert net.labels("auto") == net.labels(networks.DEFAULT_LABELS)
    assert len(net.labels(None)) == 5
    assert net.labels("Disease, Age") == ["Disease", "Age"]
    assert net.labels(["Age"]) == ["Age"]


def test_samples_are_pgmpys_with_the_networks_state_codes():
    net = networks.load("asia")
    ds = net.simulate("either,dysp", n=400, seed=3)
    df = net.model.simulate(n_samples=400, seed=3, show_progress=False)
    for j, f in enumerate(ds.feature_names):
        names = np.asarray(net.states[f])[ds.X[:, j].astype(int)]
        assert (names == df[f].astype(str).to_numpy()).all(), f
    for i, lab in enumerate(ds.label_names):
        assert (np.asarray(net.states[lab])[ds.Y[:, i]] == df[lab].astype(str).to_numpy()).all()
    assert ds.feature_names == sorted(ds.feature_names) and ds.label_names == ["either", "dysp"]
    assert ds.source == "ASIA network (seed 3, n = 400)"
    again = net.simulate("either,dysp", n=400, seed=3)
    assert again.fingerprint() == ds.fingerprint()
    assert net.simulate("either,dysp", n=400, seed=4).fingerprint() != ds.fingerprint()


def test_the_dataset_carries_its_truth():
    ds = networks.simulate("child", labels="auto:3", n=100, seed=0)
    t = ds.truth
    assert t.network == "child" and list(t.labels) == ds.label_names
    assert list(t.features) == ds.feature_names
    assert camcf.datasets.make_causal_multilabel(50).dataset.truth.network == "demo"
    assert camcf.Dataset(np.zeros((2, 1)), np.zeros((2, 1)), ["x"], ["y"]).truth is None


def test_the_demo_is_one_network_among_others():
    demo = camcf.datasets.make_causal_multilabel(300, seed=1)
    same = networks.load("demo").simulate(list(demo.dataset.label_names), 300, 1)
    assert same.fingerprint() == demo.dataset.fingerprint()
    assert same.category_names == demo.dataset.category_names
    cats = [np.unique(same.Y[:, i]) for i in range(same.n_labels)]
    assert same.truth.category_blankets(same.feature_names, same.label_names, cats) \
        == demo.true_blankets


def test_a_user_bif_file(tmp_path):
    path = tmp_path / "tiny.bif"
    path.write_text(TINY_BIF)
    net = networks.load(path)
    assert net.name == "tiny" and net.nodes == ("rain", "sprinkler", "wet")
    assert net.states["wet"] == ("dry", "damp", "soaked")
    ds = net.simulate("wet", n=500, seed=0)
    assert ds.truth.feature_blanket("wet") == ("rain", "sprinkler")
    assert ds.category_names[0] == {0: "dry", 1: "damp", 2: "soaked"}
    gz = tmp_path / "tiny.bif.gz"
    gz.write_bytes(gzip.compress(TINY_BIF.encode()))
    assert networks.load(gz).simulate("wet", 500, 0).fingerprint() == ds.fingerprint()


@pytest.mark.parametrize(("call", "error", "words"), [
    (lambda: networks.load("alarmm"), ParameterError, "unknown network 'alarmm' .*alarm.*"
                                                       "or give a .bif file"),
    (lambda: networks.load("nowhere/net.bif"), ParameterError, "no such file"),
    (lambda: networks.load("alarm").labels("HR,hrbp"), LabelSpecError,
     "hrbp is not a node of alarm .*HRBP"),
    (lambda: networks.load("alarm").labels("HR,HR"), LabelSpecError, "named twice"),
    (lambda: networks.load("alarm").labels("auto:0"), LabelSpecError,
     "auto:0 is out of range.*between 1 and 36"),
    (lambda: networks.load("alarm").labels("auto:37"), LabelSpecError, "out of range"),
    (lambda: networks.load("alarm").labels("auto:x"), LabelSpecError, "whole number"),
    (lambda: networks.load("asia").labels(networks.load("asia").nodes), LabelSpecError,
     "leave at least one as a feature"),
    (lambda: networks.load("asia").simulate("dysp", n=0), ParameterError,
     r"n must be in \[1, inf\), got 0"),
    (lambda: networks.load("asia").simulate("dysp", n=10, seed=-1), ParameterError, "seed"),
])
def test_bad_input_is_a_typed_error_naming_the_way_out(call, error, words):
    with pytest.raises(error, match=words):
        call()


@pytest.mark.parametrize(("text", "words"), [
    ("not a network at all", "0 variable"),
    (TINY_BIF.replace("0.7, 0.3", "0.7, 0.5"), "not a readable BIF network"),
    (TINY_BIF.replace("probability ( rain ) { table 0.7, 0.3; }", ""),
     "not a readable BIF network"),
])
def test_a_malformed_bif_file(tmp_path, text, words):
    path = tmp_path / "bad.bif"
    path.write_text(text)
    with pytest.raises(DataFormatError, match=words):
        networks.load(path)


def test_without_pgmpy_the_message_says_what_to_install(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "pgmpy", None)  # an import of pgmpy now fails
    networks._shipped.cache_clear()
    with pytest.raises(MissingDependencyError, match=r"camcf\[networks\]"):
        networks.load("alarm")
    networks._shipped.cache_clear()
    assert networks.load("demo").name == "demo"  # the demo needs no pgmpy


def test_written_files_read_back_with_the_state_codes(tmp_path):
    ds = networks.simulate("asia", labels="either,lung", n=300, seed=2)
    paths = networks.write(ds, tmp_path / "asia.arff")
    assert [p.name for p in paths] == ["asia.arff", "asia.xml", "asia.truth.json"]
    text = paths[0].read_text()
    assert "@attribute xray {yes,no}" in text  # the network's state names, in its order
    back = camcf.io.load(paths[0], xml=paths[1])
    assert back.label_names == ["either", "lung"]
    assert back.feature_names == ds.feature_names
    np.testing.assert_array_equal(back.X, ds.X)
    np.testing.assert_array_equal(back.Y, ds.Y)
    truth = camcf.truth.Truth.read(paths[2])
    assert truth.to_dict() == ds.truth.to_dict()

"""camcf.viz: graph HTML works offline, every step kind has a sentence, flow counts add up."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import camcf
from camcf.discretize import discretize
from camcf.trace import STEPS
from camcf.viz import explain, explain_row, figures, graphs, summary
from camcf.viz.explain import _pair
from camcf.viz.export import cli_command, dataset_csv, run_config
from camcf.viz.style import COLORS, LEGEND, legend_html

# a tag that would load something from the internet (plotly.js merely *mentions* URLs inside)
CDN = re.compile(r"""<(?:script|link|img|iframe)\b[^>]*(?:src|href)\s*=\s*["']?(?:https?:)?//""",
                 re.I)


@pytest.fixture(scope="module")
def res(demo_result):
    """The demo's run with the defaults (``demo`` and ``demo_result`` are in conftest.py)."""
    return demo_result


@pytest.fixture(scope="module")
def res_all(demo):
    """recovery="all" and a low δ1: every kind of step and decision appears somewhere."""
    ds = demo.dataset
    codes, _ = discretize(ds.X)
    return camcf.run(codes, ds.Y, feature_names=ds.feature_names, label_names=ds.label_names,
                     category_names=ds.category_names, delta1=0.02, k1=0.7, k2=0.8,
                     recovery="all")


def _no_cdn(page: str) -> None:
    assert not CDN.search(page), CDN.search(page)
    assert "bootstrap" not in page.lower() or "cdn.jsdelivr" not in page
    assert "node_modules" not in page


def test_local_graph_html_offline_with_node_ids(res):
    t = res.target("B=0")
    page = graphs.local_graph_html(res, t.id)
    _no_cdn(page)
    assert "vis-network" in page and "new vis.Network" in page
    ids = graphs.node_ids(page)
    assert "B=0" in ids
    for f in t.pc + tuple(t.spouses) + tuple(f for f, _ in t.recovered):
        assert res.feature_names[f] in ids
    for q in t.skeleton:
        assert res.categories[q].display in ids


def test_local_graph_layout_is_stable_and_highlight_adds_ring_nodes(res):
    a = graphs.local_graph_html(res, "C=0")
    b = graphs.local_graph_html(res, "C=0")
    assert a == b  # same input, same picture (fixed seeded layout)
    g = graphs.local_graph(res, "C=0")
    pos = graphs.local_layout(g, "C=0")
    assert pos["C=0"] == (0.0, 0.0)
    # f20 is not in C's graph: highlighting it adds it without moving the others
    page = graphs.local_graph_html(res, "C=0", highlight=[res.feature_names.index("f20")])
    nodes = json.loads(re.search(r"nodes = new vis\.DataSet\((\[.*?\])\);", page, re.S).group(1))
    by_id = {n["id"]: n for n in nodes}
    assert "f20" in by_id
    for name, (x, y) in pos.items():
        assert by_id[name]["x"] == pytest.approx(x) and by_id[name]["y"] == pytest.approx(y)


def test_graph_titles_write_their_comparisons_as_the_explanations_do(demo):
    """The local graph's hover text on a feature removed by redundancy compares two numbers:
    written as the explanations write them (:func:`camcf.viz.explain._pair`), they show the
    order the algorithm saw (three decimals showed 0.005 > γ·s = 0.005 at small thresholds)."""
    import re

    ds = demo.dataset
    codes, _ = discretize(ds.X)
    small = camcf.run(codes, ds.Y, feature_names=ds.feature_names, label_names=ds.label_names,
                      category_names=ds.category_names, delta1=0.002749, delta2=0.01)
    seen = 0
    for t in small.targets:
        if t.skipped or not t.redundancy_removed:
            continue
        g = graphs.local_graph(small, t.id)
        for f, _d, v, sf in t.redundancy_removed:
            title = g.nodes[small.feature_names[f]]["title"]
            m = re.search(r"explains it \((\S+) > γ·s = (\S+)\)", title)
            assert m and m.groups() == _pair(v, small.params["gamma"] * sf), title
            assert float(m.group(1)) > float(m.group(2)), title
            seen += 1
    assert seen


def test_skeleton_ego_draws_each_candidate_once_and_only_non_candidates_as_neighbours(demo):
    """Landed (yeast at the suggested thresholds, seen in Chromium): the candidates beyond the
    drawn rejected ones were counted in "+3 more rejected" and drawn again as grey "strongest
    other DCSMI (≤ δ2)" nodes whose I was above δ2; a rejected candidate's title read "p =
    1.98e-147 > δ2"."""
    ds = demo.dataset
    codes, _ = discretize(ds.X)
    small = camcf.run(codes, ds.Y, feature_names=ds.feature_names, label_names=ds.label_names,
                      category_names=ds.category_names, delta2=0.002)
    d2 = small.params["delta2"]
    seen = 0
    for t in small.targets:
        rejected = [q for q in t.skeleton_candidates if q not in set(t.skeleton)]
        if t.skipped or len(rejected) < 2:
            continue
        g, _ = graphs.skeleton_ego(small, t.id, n_rejected=1)
        mi = small.category_mi[t.id]
        cands = {small.categories[q].display for q in t.skeleton_candidates}
        for node, a in g.nodes(data=True):
            if a.get("role") == "neighbour":
                assert node not in cands, node
                q = next(c.id for c in small.categories if c.display == node)
                assert round(float(mi[q]), 12) <= round(d2, 12), node
            if a.get("role") == "rejected" and node in cands:
                q = next(c.id for c in small.categories if c.display == node)
                shown, thr = _pair(float(mi[q]), d2)
                assert f"I(t; C') = {shown} bits > δ2 = {thr}" in a["title"], a["title"]
                seen += 1
        assert f"+{len(rejected) - 1} more rejected" in g
    assert seen


def test_local_graph_spouse_edges_go_to_the_inducing_pc_member(res):
    t = res.target("C=0")
    g = graphs.local_graph(res, t.id)
    for z, xs in t.spouses.items():
        for x in xs:
            assert g.has_edge(res.feature_names[z], res.feature_names[x])
            assert g.edges[res.feature_names[z], res.feature_names[x]]["kind"] == "spouse"


def test_local_graph_with_truth_adds_missed(res, demo):
    t = res.target("B=0")
    truth = set(demo.true_blankets[(t.category.label_index, t.category.value)])
    g = graphs.local_graph(res, t.id, truth=truth)
    missed = truth - set(t.blanket)
    for f in missed:
        assert res.feature_names[f] in g
    _no_cdn(graphs.local_graph_html(res, t.id, truth=truth))


def test_skeleton_graph_html(res):
    page = graphs.skeleton_graph_html(res, highlight="A=0")
    _no_cdn(page)
    assert "vis-network" in page
    assert set(graphs.node_ids(page)) == {c.display for c in res.categories}
    g = graphs.skeleton_graph(res)
    for t in res.targets:
        for q in t.skeleton:
            assert g.has_edge(t.category.display, res.categories[q].display)


def test_explain_covers_every_step_and_decision(res, res_all):
    seen: dict[tuple[str, str], str] = {}
    for r in (res, res_all):
        for t in r.targets:
            if t.skipped:
                continue
            for test in r.tests(t.id):
                key = (test.step, test.decision)
                if key not in seen:
                    s = explain(test, r)
                    assert isinstance(s, str) and s.endswith(".")
                    assert "n/a" not in s or test.step == "blocker"
                    seen[key] = s
    steps = {k[0] for k in seen}
    assert steps == set(STEPS), set(STEPS) - steps
    # the sentences say what happened, with the numbers
    assert any("stays in PC" in s and "> δ1" in s for s in seen.values())
    assert any("is recovered, displacing" in s for s in seen.values())
    assert any("removed as redundant" in s and "γ·s" in s for s in seen.values())
    assert any("spouse induced by" in s for s in seen.values())


def test_explain_example_sentence(res):
    t = res.target("A=0")
    test = next(x for x in res.tests(t.id) if x.step == "backward" and x.decision == "stays")
    s = explain(test, res)
    name = res.feature_names[test.b]
    assert s.startswith(f"{name} stays in PC: I({name}; A=0 | ")
    v = _pair(test.value, 0.05)[0]
    assert f"= {v} bits (G = {test.g:.2f}, df = {test.df}, p = {test.p_value:.3g}) > δ1 = 0.05" in s


def test_explain_counts_large_conditioning_sets():
    from camcf.viz.explain import describe_cond

    class R:
        n_features = 10

        def var_name(self, p, target=None):
            return f"f{p}" if p < 10 else f"C{p - 10}"

    assert describe_cond((1, 2, 3, 11), R(), 0) == "3 features, 1 label category"
    assert describe_cond((1, 12), R(), 0) == "f1, C2"
    assert describe_cond((), R(), 0) == ""


def test_explain_row_matches_explain(res):
    df = res.to_frame(0, names=False)
    tests = res.tests(0)
    for i in (0, len(df) // 2, len(df) - 1):
        assert explain_row(df.iloc[i], res) == explain(tests[i], res)


def test_flow_counts_add_up(res, res_all):
    for r in (res, res_all):
        df = summary.flow_counts(r)
        assert "overall" in df.index
        ran = df.drop(index="overall")
        assert (ran["kept by k1"] == ran["candidates"] - ran["cut by k1"]).all()
        assert (ran["PC"] == ran["kept by k1"] - ran["removed (backward)"]).all()
        assert (ran["CMB"] == ran["PC"] + ran["spouses"] + ran["recovered"]).all()
        assert (ran["blanket"] == ran["CMB"] - ran["cut by k2"] - ran["symmetry"]
                - ran["redundancy"]).all()
        assert df.loc["overall", "blanket"] == sum(len(t.blanket) for t in r.targets)


def test_truth_table(res, demo):
    tt = summary.truth_table(res, demo.true_blankets)
    assert "overall" in tt.index
    for t in res.targets:
        row = tt.loc[t.category.display]
        true = demo.true_blankets[(t.category.label_index, t.category.value)]
        assert row["tp"] + row["missed"] == len(true)
        assert row["tp"] + row["extra"] == len(t.blanket)
    assert tt.loc["overall", "tp"] + tt.loc["overall", "extra"] == res.selected_indices.size


def test_describe_and_frames(res, demo):
    d = summary.describe_data(demo.dataset, res)
    assert d.loc["samples (n)", "value"] == "1,000"
    assert d.loc["labels (q)", "value"] == "5"
    sel = summary.selected_frame(res)
    assert sel["feature_index"].tolist() == res.selected_indices.tolist()
    bl = summary.blankets_frame(res)
    assert len(bl) == sum(len(t.blanket) for t in res.targets)
    pf = summary.pruning_frame(res, "B=0")
    assert set(pf["fate"]) <= {"blanket", "cut-k2", "symmetry", "redundancy"}
    red = pf[pf["fate"] == "redundancy"].iloc[0]
    assert red["explaining category"] == "A=0" and red["ratio I(f;C_d)/s_f"] > 1.2
    rf = summary.recovery_frame(res, "B=0")
    assert (rf["decision"] == "recovered").sum() == len(res.target("B=0").recovered)


def test_figures_build_and_serialise(res):
    figs = [figures.flow_sankey(res), figures.flow_sankey(res, "B=0"), figures.flow_bars(res),
            figures.skeleton_heatmap(res), figures.mi_ranks(res, "B=0"),
            figures.competition(res, "B=0"), figures.competition(res, "M=low"),
            figures.pruning_scatter(res, "C=0"), figures.skeleton_steps(res, "A=0")]
    for f in figs:
        json.loads(f.to_json())
    sank = figures.flow_sankey(res, "B=0").data[0]
    t = res.target("B=0")
    # what flows into "blanket" is the blanket (customdata: the counts; value: as drawn)
    blanket = next(i for i, lab in enumerate(sank.node.label) if lab.startswith("blanket"))
    into_blanket = sum(v for tgt, v in zip(sank.link.target, sank.link.customdata, strict=True)
                       if tgt == blanket)
    assert into_blanket == len(t.blanket)
    assert all(lab.split(": ")[1] != "0" for lab in sank.node.label)  # empty stages left out
    scatter = figures.pruning_scatter(res, "C=0")
    idx = {int(c[0]) for tr in scatter.data if tr.customdata is not None for c in tr.customdata}
    assert idx == set(t.cmb) if (t := res.target("C=0")) else False


def test_standalone_figure_html_is_offline(res):
    page = figures.to_standalone_html(figures.flow_sankey(res))
    assert not CDN.search(page)
    assert "plotly" in page.lower() and len(page) > 1_000_000  # plotly.js inlined


def test_style_and_legend():
    for k in LEGEND:
        assert re.fullmatch(r"#[0-9A-Fa-f]{6}", COLORS[k])
    h = legend_html(["pc", "spouse"])
    assert COLORS["pc"] in h and "spouse" in h


def test_export_config_and_cli(res, demo):
    src = {"kind": "demo", "path": "demo.csv", "labels": "last:5", "xml": None}
    cfg = run_config(src, {"discretize": "auto", "bins": 3, "strategy": "uniform"}, res.params)
    cmd = cfg["cli"]
    assert cmd.startswith("camcf select demo.csv --labels last:5 --discretize auto --bins 3 "
                          "--strategy uniform --delta1 0.05 --delta2 0.1 --k1 0.7 --k2 1")
    assert ("--gamma 1.2 --min-category-size 5 --recovery first --significance 0.01 "
            "--output result.json") in cmd
    assert "--xml" not in cmd
    assert "--adequacy" not in cmd  # the test-adequacy rule is off: not spelled
    on = cli_command("y.arff", labels=None, xml=None, discretize={},
                     params={**res.params, "adequacy": 5.0})
    assert "--recovery first --adequacy 5 --significance 0.01" in on
    cmd2 = cli_command("y.arff", labels=None, xml="y.xml", discretize={}, params=res.params)
    assert "--xml y.xml" in cmd2 and "--labels" not in cmd2
    text = dataset_csv(demo.dataset)
    head = text.splitlines()[0].split(",")
    assert head[-5:] == list(demo.dataset.label_names)
    assert "." not in text.splitlines()[1]  # integer codes, not floats


def test_the_shown_command_is_the_command_one_option_a_line(res):
    """Landed defect: the Export page wrapped the one-line command inside ``--k1``. Shown one
    option a line with continuations, it is still the same command to a shell."""
    import shlex
    import subprocess

    from camcf.viz.export import cli_lines

    src = {"kind": "upload", "path": "my data.arff", "labels": "a,b c", "xml": None}
    cmd = run_config(src, {"discretize": "auto", "bins": 3, "strategy": "uniform"},
                     res.params)["cli"]
    shown = cli_lines(cmd)
    lines = shown.splitlines()
    assert len(lines) > 10 and all(ln.count(" --") <= 1 for ln in lines)
    assert all(ln.endswith(" \\") for ln in lines[:-1])
    out = subprocess.run(["bash", "-c", "set -- " + shown + '\nprintf "%s\\0" "$@"'],
                         capture_output=True, check=True).stdout.decode()
    assert out.split("\0")[:-1] == shlex.split(cmd)


def test_csv_round_trip_reproduces_the_demo_run(res, demo, tmp_path):
    """The demo CSV + the exported parameters give the same selection (what the CLI does)."""
    from camcf.io import load

    p = tmp_path / "demo.csv"
    p.write_text(dataset_csv(demo.dataset))
    ds = load(p, labels="last:5")
    codes, _ = discretize(ds.X)
    again = camcf.run(codes, ds.Y, feature_names=ds.feature_names, label_names=ds.label_names,
                      **res.params)
    assert np.array_equal(again.selected_indices, res.selected_indices)


def test_exported_command_reproduces_the_run_through_the_cli(res, demo, tmp_path, monkeypatch):
    """The Export page's command, run by the real CLI beside demo.csv, selects the same."""
    import shlex

    cli = pytest.importorskip("camcf.cli")
    (tmp_path / "demo.csv").write_text(dataset_csv(demo.dataset))
    src = {"kind": "demo", "path": "demo.csv", "labels": "last:5", "xml": None}
    cfg = run_config(src, {"discretize": "auto", "bins": 3, "strategy": "uniform"}, res.params)
    argv = shlex.split(cfg["cli"])[1:]
    monkeypatch.chdir(tmp_path)
    cli.main(argv)
    out = json.loads((tmp_path / "result.json").read_text())
    assert out["selected_indices"] == res.selected_indices.tolist()

"""The explorer's known networks without a browser: the link, the landscape's and Tune's F1
against the truth, the Local structure's true roles and the Overview's per-label table."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import camcf
from camcf import networks
from camcf.truth import found_indices, score_selection

DISC = {"discretize": "auto", "bins": 3, "strategy": "uniform"}


def _f1(ds, res) -> float:
    feats, labs = found_indices(res)
    return score_selection(ds.truth, ds.feature_names, ds.label_names,
                           selection=res.selected_indices.tolist(), blankets=feats,
                           label_blankets=labs)["mean"]["f1"]


def test_a_network_link_round_trips():
    from pages._share import from_query, to_query

    link = from_query({"data": "network:child", "labels": "auto:3", "n": "500", "seed": "2"})
    assert link.request == {"kind": "network", "network": "child", "labels": "auto:3",
                            "n": 500, "seed": 2}
    assert link.widgets["src_kind"] == "Known network" and link.widgets["net_n"] == 500
    assert not link.problems
    q = to_query({}, {}, link.request)
    assert {k: q[k] for k in ("data", "labels", "n", "seed")} == {
        "data": "network:child", "labels": "auto:3", "n": "500", "seed": "2"}
    clamped = from_query({"data": "network:child", "n": "10"})
    assert clamped.request["n"] == 50 and "outside the range" in clamped.problems[0]
    bad = from_query({"data": "network:child", "n": "many"})
    assert bad.request is None and "n='many'" in bad.problems[0]
    # an uploaded BIF cannot travel
    assert to_query({}, {}, {"kind": "network", "filename": "x.bif"})["data"] == "upload"


@pytest.mark.parametrize(("x", "xs", "y", "ys"), [
    ("delta1", (0.02, 0.06), "k1", (0.3, 0.7, 1.0)),   # k1: runs shared by ⌈k1·n⌉
    ("delta2", (0.05, 0.2), "k2", (0.5, 1.0)),          # k2: Phase 4 re-run only
])
def test_the_landscape_scores_each_cell_against_the_truth(x, xs, y, ys):
    from camcf.landscape import landscape

    ds = networks.simulate("asia", labels="auto:3", n=800, seed=1)
    L = landscape(ds, x, xs, y, ys)
    assert L.truth_f1.shape == (len(ys), len(xs))
    codes = ds.X.astype(int)
    for i, yv in enumerate(ys):
        for j, xv in enumerate(xs):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = camcf.run(codes, ds.Y, **{**L.base_params, x: xv, y: yv})
            assert L.truth_f1[i, j] == pytest.approx(_f1(ds, res)), (xv, yv)
    assert "truth_f1" in L.to_frame()
    plain = camcf.datasets.make_wide(60, 8, 2)
    assert landscape(plain, x, xs[:1], y, ys[:1]).truth_f1 is None  # no truth: no column


def test_tune_reports_each_points_f1_against_the_truth():
    from camcf.studies import run_landscape, run_tune

    ds = networks.simulate("asia", labels="auto:3", n=600, seed=0)
    grid = {"delta1": [0.02, 0.06], "k1": [0.5, 1.0]}
    params = dict(camcf.DEFAULTS)
    T = run_tune(ds, grid=grid, params=params, disc=DISC, metric="micro_f1")
    L = run_landscape(ds, x="delta1", x_values=grid["delta1"], y="k1", y_values=grid["k1"],
                      params=params, disc=DISC)
    for _, r in T.grid.iterrows():
        i, j = grid["k1"].index(r["k1"]), grid["delta1"].index(r["delta1"])
        assert r["truth_f1"] == pytest.approx(L.truth_f1[i, j])
    drawn, _ = T.landscape("delta1", "k1")
    np.testing.assert_allclose(drawn.truth_f1, L.truth_f1)


def test_the_local_graph_names_the_true_roles():
    from camcf.viz.graphs import local_graph

    ds = networks.simulate("asia", labels="either,lung", n=2000, seed=0)
    res = camcf.run(ds.X.astype(int), ds.Y, feature_names=ds.feature_names,
                    label_names=ds.label_names, delta1=0.01)
    assert res.selected_indices.size
    t = next(t for t in res.targets if t.category.label == "either" and not t.skipped)
    names = res.feature_names
    roles = {names.index(f): ds.truth.role("either", f)
             for f in ds.truth.feature_blanket("either")}
    g = local_graph(res, t.id, truth=roles)
    titles = "\n".join(d.get("title", "") for _, d in g.nodes(data=True))
    for f, role in roles.items():
        assert f"true {role} of either" in titles, (names[f], role)
    assert "true blanket member" in "\n".join(  # a plain set still works
        d.get("title", "") for _, d in local_graph(res, t.id, truth=set(roles)).nodes(data=True))


def test_the_overview_table_is_camcf_truth():
    from support import new_app

    from camcf.discretize import discretize
    from camcf.viz import summary

    at = new_app({"data": "network:asia", "labels": "either,lung", "n": "500", "seed": "3",
                  "delta1": "0.01"})
    table = next(t for t in at.table if "mean over labels" in t.value.index)
    ds = networks.simulate("asia", labels="either,lung", n=500, seed=3)
    codes, _ = discretize(ds.X)
    res = camcf.run(codes, ds.Y, feature_names=ds.feature_names, label_names=ds.label_names,
                    delta1=0.01)
    assert res.selected_indices.size
    expected = summary.truth_per_label(res, ds.truth)
    assert expected["f1"].max() > 0
    for label in expected.index:
        for col in ("precision", "recall", "f1", "distance"):
            assert table.value.loc[label, col] == f"{expected.loc[label, col]:.3f}"
    assert "ASIA network (labels either,lung; n = 500, seed 3)" in " ".join(
        m.value for m in at.markdown)


def test_f1_against_n_runs_the_sidebars_parameters_beside_the_methods():
    from camcf.evaluation.truth_study import f1_figure, run_truth_curve, truth_curve_estimate

    params = {**camcf.DEFAULTS, "delta1": 0.02}
    kwargs = {"network": "asia", "labels": "either,lung", "ns": [150, 300], "seeds": 2,
              "methods": ["current", "random"], "ca_params": params}
    assert truth_curve_estimate(**kwargs).units == 2 * 2 * 2 + 4  # cells and samples
    payload = run_truth_curve(**kwargs)
    current = next(m for m in payload["methods"] if m["name"] == "current")
    assert current["params"]["delta1"] == 0.02
    ds = networks.simulate("asia", labels="either,lung", n=300, seed=1)
    res = camcf.run(ds.X.astype(int), ds.Y, **params)
    cell = next(c for c in payload["cells"] if c["method"] == "current" and c["n"] == 300
                and c["seed"] == 1)
    assert cell["scores"]["mean"]["f1"] == pytest.approx(_f1(ds, res))
    fig = f1_figure(payload, "asia")
    assert [t.name for t in fig.data] == ["Ca-MCF (current)", "Random (floor)"]
    assert list(fig.data[0].x) == [150, 300]

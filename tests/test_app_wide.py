"""The app on a wide data set (AppTest): a MATLAB file with two variable pairs, 200 label
categories and 400 features; every page draws, the figures stay bounded, the chooser sorts."""

from __future__ import annotations

import json

import pytest
import scipy.io

pytest.importorskip("streamlit")
from support import DRAW_PAGES as PAGES  # noqa: E402
from support import new_app, upload  # noqa: E402

from camcf.datasets import make_wide  # noqa: E402
from camcf.viz import graphs  # noqa: E402


@pytest.fixture(scope="module")
def wide_app(tmp_path_factory):
    ds = make_wide(200, 400, 100, seed=2)
    path = tmp_path_factory.mktemp("wide") / "wide.mat"
    scipy.io.savemat(path, {"train_data": ds.X[:150], "train_target": ds.Y[:150].T,
                            "test_data": ds.X[150:], "test_target": ds.Y[150:]})
    at = upload(new_app(timeout=120), path.read_bytes(), "wide.mat",
                variable="train_data/train_target")
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_chosen_pair_is_loaded_and_run(wide_app):
    rec = wide_app.session_state["run"]
    assert rec.data.dataset.n_samples == 150 and rec.data.dataset.n_features == 400
    assert len(rec.result.categories) == 200
    assert rec.data.source["variable"] == "train_data/train_target"
    assert not wide_app.error


@pytest.mark.parametrize("page", PAGES)
def test_every_page_draws_on_wide_data(wide_app, page):
    wide_app.switch_page(page)
    wide_app.run()
    assert not wide_app.exception, [e.value for e in wide_app.exception]
    for ch in wide_app.get("plotly_chart"):
        spec = json.loads(ch.proto.spec)
        for tr in spec["data"]:
            for key in ("x", "z"):
                if isinstance(tr.get(key), list):
                    assert len(tr[key]) <= 200, (page, tr.get("type"), key, len(tr[key]))
    bound = 1 + 20 + 2 * (graphs.MAX_GROUP + 1) + graphs.MAX_REMOVED + 1 + 10
    for fr in wide_app.get("iframe"):
        assert len(graphs.node_ids(fr.proto.srcdoc)) <= bound, page  # of 400 features


def test_skeleton_page_centres_the_target(wide_app):
    wide_app.switch_page("pages/skeleton.py")
    wide_app.run()
    tid = wide_app.session_state["chosen_target"]
    res = wide_app.session_state["run"].result
    ids = graphs.node_ids(wide_app.get("iframe")[0].proto.srcdoc)
    assert res.targets[tid].category.display in ids
    assert all(res.categories[q].display in ids for q in res.targets[tid].skeleton)
    heat = [json.loads(c.proto.spec) for c in wide_app.get("plotly_chart")]
    hm = next(s for s in heat if s["data"][0]["type"] == "heatmap")
    assert len(hm["data"][0]["z"]) <= 120  # 200 categories: aggregated by label (100)


def test_sort_control_orders_the_chooser(wide_app):
    wide_app.switch_page("pages/local_structure.py")
    wide_app.run()
    wide_app.selectbox(key="ls_target_sort").set_value("size").run()
    assert not wide_app.exception
    res = wide_app.session_state["run"].result
    opts = wide_app.selectbox(key="ls_target").options
    sizes = [int(o.split(" — ")[1].split()[0]) for o in opts]
    assert sizes == sorted(sizes, reverse=True)
    assert len(opts) == sum(not t.skipped for t in res.targets)

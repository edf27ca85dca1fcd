"""Readable at every size, checked in Chromium: no two pieces of text overlap, no text is cut
off at a chart's edge, no chart is empty without a message, no two graph labels overlap.

Part 1 draws every figure builder of :mod:`camcf.viz` on the data shapes on which the landed
views were unreadable (generated here, seeded): the CAL500 shape (502 × 68, 174 labels) for the
pruning scatter, the flow charts and the local-structure graph; the arts shape (26 labels
with long names) for the label-space heatmap; extreme flow counts as on delicious (983
labels) for the Sankey; a run where nothing is selected; the Compare and Evaluation figures
with eight methods. Each figure is drawn at the width the app gives it, on a blank page (one
browser, no server).

The same checks on every page of the running app (a wide upload, and a data set where nothing
is selected) are in ``test_browser_wide.py``, which already runs the app on wide data.
Screenshots go to ``artifacts/readable/`` (git-ignored).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import camcf

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _readable import (  # noqa: E402
    SANKEY_LINK_PX_JS,
    arts_like,
    cal500_like,
    draw_figures,
    graph_overlaps,
    noise,
)

REPO = Path(__file__).resolve().parents[1]
SHOTS = REPO / "artifacts" / "readable"
pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser(chromium):
    """The session's Chromium (tests/conftest.py)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    return chromium


@pytest.fixture(scope="module")
def cal():
    return camcf.run(cal500_like())


@pytest.fixture(scope="module")
def arts():
    return camcf.run(arts_like())


@pytest.fixture(scope="module")
def nothing():
    """Features and labels independent of each other: nothing is selected."""
    from camcf.algorithm import CamcfWarning

    X, Y = noise()
    with pytest.warns(CamcfWarning, match="selected no feature"):
        return camcf.run(X, Y, feature_names=[f"x{j}" for j in range(X.shape[1])],
                         label_names=[f"y{i}" for i in range(Y.shape[1])])


@pytest.fixture(scope="module")
def figure_page(browser):
    """One blank page for the module's plotly figures (``draw_figures`` clears it and loads
    plotly.js into it once)."""
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    yield page
    page.close()


def _assert_readable(drawn: dict) -> None:
    bad = {k: v for k, v in drawn.items()
           if v["overlaps"] or v["empty"] or v["clipped"] or v["on_points"]}
    assert not bad, {k: {"overlaps": v["overlaps"][:5], "empty": v["empty"],
                         "clipped": v["clipped"][:5], "on_points": v["on_points"][:5]}
                     for k, v in bad.items()}


def _shoot(page, names, prefix):
    for k in names:
        page.locator(f"[id='box-{k}']").screenshot(path=str(SHOTS / f"{prefix}-{k}.png"))


def test_explorer_figures_are_readable_on_wide_shapes(figure_page, cal, arts, nothing):
    from camcf.datasets import make_causal_multilabel
    from camcf.diff import diff_results
    from camcf.landscape import landscape
    from camcf.viz import figures
    from camcf.viz.tuning import diff_bars, landscape_heatmap

    demo = make_causal_multilabel(300, seed=1).dataset
    before, after = camcf.run(demo), camcf.run(demo, delta1=0.01, k2=0.5)
    grid = landscape(demo, "delta1", [0.01, 0.02, 0.05, 0.1, 0.2], "delta2",
                     [0.02, 0.05, 0.1, 0.3])

    big = max(cal.targets, key=lambda t: (len(t.cmb), -t.id)).id  # the fullest Phase 4
    figs = {
        # the app's widths at a 1440 px window: full width ~1100, [3, 2] column ~620,
        # [1, 1] column ~520
        "pruning-cal500": (figures.pruning_scatter(cal, big), 620),
        "pruning-cal500-narrow": (figures.pruning_scatter(cal, big), 480),
        "heatmap-arts": (figures.skeleton_heatmap(arts, highlight=0), 520),
        "heatmap-cal500": (figures.skeleton_heatmap(cal, highlight=big), 520),
        "sankey-cal500": (figures.flow_sankey(cal), 1100),
        "sankey-cal500-target": (figures.flow_sankey(cal, big), 1100),
        "bars-cal500": (figures.flow_bars(cal), 1100),
        "mi-cal500": (figures.mi_ranks(cal, big), 1100),
        "competition-cal500": (figures.competition(cal, big), 1100),
        "steps-cal500": (figures.skeleton_steps(cal, big), 1100),
        "sankey-nothing": (figures.flow_sankey(nothing), 1100),
        "sankey-nothing-target": (figures.flow_sankey(nothing, "y1=0"), 1100),
        "bars-nothing": (figures.flow_bars(nothing), 1100),
        "mi-nothing": (figures.mi_ranks(nothing, "y1=0"), 1100),
        "competition-nothing": (figures.competition(nothing, "y1=0"), 1100),
        "what-changed-demo": (diff_bars(diff_results(before, after)), 1100),
        "landscape-demo": (landscape_heatmap(grid, "n_selected", {"delta1": 0.05,
                                                                  "delta2": 0.1}), 700),
        "what-changed-none": (diff_bars(diff_results(nothing, nothing)), 1100),
    }
    page = figure_page
    drawn = draw_figures(page, figs)
    _shoot(page, figs, "figure")
    _assert_readable(drawn)
    # points at s = 0 are drawn whole: the axes start below 0
    fig = figs["pruning-cal500"][0]
    assert fig.layout.xaxis.range[0] < 0 and fig.layout.yaxis.range[0] < 0
    assert min(min(t.x) for t in fig.data if t.mode and "markers" in t.mode) >= 0


def test_label_space_and_landscape_fit_their_labels_on_the_first_draw(figure_page, arts):
    """Landed: the arts heatmap's long label names and the landscape's y tick labels were cut
    off at the chart's edge until plotly's automatic margins ran (late, or not before the
    screenshot, on a busy machine). Their own margins must hold their labels."""
    from camcf.datasets import make_causal_multilabel
    from camcf.landscape import landscape
    from camcf.viz import figures
    from camcf.viz.tuning import landscape_heatmap

    demo = make_causal_multilabel(300, seed=1).dataset
    grid = landscape(demo, "delta1", [0.01, 0.02, 0.05], "delta2", [0.002, 0.05, 0.125])
    figs = {"heatmap-arts-first": (figures.skeleton_heatmap(arts, highlight=0), 520),
            "landscape-first": (landscape_heatmap(grid, "n_selected", {"delta1": 0.05,
                                                                       "delta2": 0.05}), 700)}
    page = figure_page
    drawn = draw_figures(page, figs, automargin=False)
    _shoot(page, figs, "figure")
    _assert_readable(drawn)


def test_sankey_keeps_small_flows_visible_and_says_when_nothing_flows(figure_page, nothing):
    """Delicious (983 labels): recovered and spouse flows of a few pairs next to ~10^5
    candidates were 1–2 px. Nothing selected: the Sankey was an empty white box."""
    from camcf.viz import figures

    empty = figures.flow_sankey(nothing, "y1=0")
    assert not [t for t in empty.data if t.type == "sankey"]
    assert "nothing flows" in empty.layout.annotations[0].text
    counts = {"candidates": 120_000, "cut by k1": 36_000, "kept by k1": 84_000,
              "removed (backward)": 83_000, "PC": 1_000, "spouses": 3, "recovered": 2,
              "CMB": 1_005, "cut by k2": 0, "symmetry": 4, "redundancy": 300, "blanket": 701}
    fig = figures.flow_sankey_counts(pd.Series(counts), "All categories", delta1=0.05)
    link = fig.data[0].link
    assert min(link.value) >= figures.SANKEY_MIN_SHARE * max(link.value) - 1e-9
    c = counts
    assert list(link.customdata) == [c["cut by k1"], c["kept by k1"], c["removed (backward)"],
                                     c["PC"], c["PC"], c["spouses"], c["recovered"],
                                     c["symmetry"], c["redundancy"], c["blanket"]]
    assert "small flows drawn thicker" in fig.layout.title.text
    page = figure_page
    drawn = draw_figures(page, {"sankey-delicious": (fig, 1100)})
    thick = page.evaluate(SANKEY_LINK_PX_JS)
    _shoot(page, ["sankey-delicious"], "figure")
    _assert_readable(drawn)
    assert len(thick) == 10 and min(thick) >= 5, thick  # no 1–2 px link (landed: 0.004 px)


def test_compare_and_evaluation_figures_are_readable(figure_page):
    """Landed: a ~20 px colour bar with one split, overlapping radar ticks, a radar axis
    starting at 0.84."""
    from camcf.evaluation.metrics import METRICS
    from camcf.viz.comparison import cd_diagram, normalised_radar, split_ranks_heatmap
    from camcf.viz.evaluation_figures import ablation_lines, metrics_radar

    rng = np.random.default_rng(0)
    methods = ["Ca-MCF", "MI-MCF", "M2LC", "D2F", "MDFS", "JFSC", "FIMF", "MCLS"]
    means = pd.DataFrame({m: (rng.uniform(0.85, 0.95, len(methods))
                              if info["higher_is_better"] else rng.uniform(0.05, 0.2,
                                                                           len(methods)))
                          for m, info in METRICS.items()}, index=methods)
    ranks = pd.DataFrame([rng.permutation(len(methods)) + 1.0], columns=pd.Index(
        methods, name="feature_set"))
    radar = normalised_radar(means, highlight="Ca-MCF")
    assert radar.layout.polar.radialaxis.range[0] == 0  # areas compare honestly
    heat = split_ranks_heatmap(ranks, "Hamming loss: rank per split (1 = best)")
    assert heat.layout.height >= 300
    from camcf.viz.comparison import mean_ranks

    table = mean_ranks(ranks)
    assert list(table.columns) == ["method", "mean rank"] and "feature_set" not in str(table)
    summary = pd.DataFrame([{"feature_set": s, "metric": m, "mean": float(v)}
                            for s in ("all", "camcf") for m, v in means.loc["Ca-MCF"].items()])
    ev = metrics_radar(summary.set_index(["feature_set", "metric"]), ["all", "camcf"],
                       {"all": "All features", "camcf": "Ca-MCF"})
    cd = cd_diagram(dict(zip(methods, np.linspace(1.5, 6.5, 8), strict=True)), 3.5,
                    control="Ca-MCF", title="Hamming loss")
    # the ablation panels, each with its own y scale (landed: the tick labels of the second
    # to fourth panels ran into the panel to their left)
    stages = ["All", "Phase 2", "Phase 3", "Phase 4", "Ca-MCF"]
    ab = pd.DataFrame([{"stage": st, "metric name": info["name"],
                        "mean": rng.uniform(0.1, 0.9) if k == 0 else rng.uniform(0.4, 0.5),
                        "sd": 0.01, "n_features": 8.0}
                       for st in stages for k, info in enumerate(METRICS.values())])
    figs = {"radar-compare": (radar, 700), "ranks-one-split": (heat, 620),
            "radar-evaluation": (ev, 700), "cd-diagram": (cd, 1100),
            "ablation": (ablation_lines(ab, stages), 1100)}
    page = figure_page
    drawn = draw_figures(page, figs)
    bar = page.evaluate("""() => { const c = document.querySelector(
        "[id='box-ranks-one-split'] .colorbar .cbfills"); return c ?
        c.getBoundingClientRect().height : 0; }""")
    # a panel's y tick labels stay out of every other panel's plot area
    intruders = page.evaluate("""() => {
        const root = document.querySelector("[id='box-ablation']");
        const areas = [...root.querySelectorAll('.draglayer rect.nsewdrag')].map(r => [
            r.getAttribute('data-subplot'), r.getBoundingClientRect()]);
        const out = [];
        for (const g of root.querySelectorAll('.cartesianlayer > .subplot')) {
            const mine = [...g.classList].find(c => c !== 'subplot');
            for (const t of g.querySelectorAll('.yaxislayer-above text')) {  // y, y2, … ticks
                const a = t.getBoundingClientRect();
                for (const [id, b] of areas) {
                    if (id !== mine && a.left < b.right && b.left < a.right
                            && a.top < b.bottom && b.top < a.bottom) {
                        out.push([mine, t.textContent, id]);
                    }
                }
            }
        }
        const n = root.querySelectorAll('.yaxislayer-above text').length;
        return [areas.length, out, n];
    }""")
    _shoot(page, figs, "figure")
    _assert_readable(drawn)
    assert bar >= 150, bar  # the colour bar is readable (it was ~20 px)
    assert intruders[0] == len(METRICS) and intruders[2] >= 2 * len(METRICS), intruders
    assert not intruders[1], intruders


def test_graphs_have_no_overlapping_labels(browser, cal, arts):
    """Landed: crowded, overlapping labels in the local-structure graph on the CAL500 shape."""
    from camcf.viz import graphs

    page = browser.new_page(viewport={"width": 900, "height": 560})
    fullest = sorted(cal.targets, key=lambda t: (-(len(t.cmb) + len(t.candidates)), t.id))[:2]
    pages = {f"local-cal500-{t.category.display}": graphs.local_graph_html(
        cal, t.id, height=520, decorate=False) for t in fullest}
    t0 = fullest[0]
    pages["local-cal500-highlight"] = graphs.local_graph_html(
        cal, t0.id, highlight=[0, 1, 2, cal.n_features], height=520, decorate=False)
    pages["ego-cal500"] = graphs.skeleton_ego_html(cal, t0.id, decorate=False)
    pages["ego-arts"] = graphs.skeleton_ego_html(arts, 0, decorate=False)
    pages["skeleton-arts"] = graphs.skeleton_graph_html(arts, highlight=0, decorate=False)
    for name, html in pages.items():
        assert graph_overlaps(page, html) == [], name
        page.screenshot(path=str(SHOTS / f"graph-{name}.png"))
    page.close()

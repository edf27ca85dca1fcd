"""camcf.diff (what changed between two runs) and camcf.landscape (counts over a grid)."""

from __future__ import annotations

import numpy as np
import pytest

import camcf
from camcf.datasets import make_causal_multilabel
from camcf.diff import diff_results
from camcf.discretize import discretize
from camcf.info import rounded
from camcf.landscape import default_values, landscape
from camcf.viz.explain import number

DELTA1_STEPS = ("feature-mi", "backward", "spouse-screen", "spouse", "symmetry")


@pytest.fixture(scope="module")
def demo():
    d = make_causal_multilabel(600, seed=3)
    codes, _ = discretize(d.dataset.X)
    return d.dataset, codes


def _run(demo, **kw):
    ds, codes = demo
    return camcf.run(codes, ds.Y, feature_names=list(ds.feature_names),
                     label_names=list(ds.label_names), **kw)


def test_identical_runs_have_no_changes(demo):
    a, b = _run(demo), _run(demo)
    d = diff_results(a, b)
    assert d.params == {} and d.changed == [] and d.same_scores
    assert d.entered == () and d.left == ()
    assert d.to_frame(changed_only=True).empty
    assert len(d.to_frame()) == len(a.targets)
    assert d.explain(d.categories[0]) == "No change."


def test_raising_delta1_just_above_a_value_flips_exactly_that_decision(demo):
    """k1 = 1 keeps every candidate, so only tests whose value lies in (δ1, δ1'] can flip;
    δ1' is put just above the smallest such value of one target."""
    base = _run(demo, k1=1.0)
    d1 = base.params["delta1"]
    tid, v = None, None
    for t in base.targets:
        if t.skipped or t.mirror_of is not None or not t.pc:
            continue
        vals = [x.value for x in base.tests(t.id) if x.step in DELTA1_STEPS
                and rounded(x.value) > d1]
        tid, v = t.id, min(vals)
        break
    assert tid is not None
    # the next larger value of that target stays above the new threshold
    larger = sorted({round(x.value, 9) for x in base.tests(tid) if x.step in DELTA1_STEPS
                     and x.value > v + 1e-9})
    new_d1 = v + min(1e-4, (larger[0] - v) / 2 if larger else 1e-4)
    after = _run(demo, k1=1.0, delta1=new_d1)
    d = diff_results(base, after)
    assert d.params == {"delta1": (d1, new_d1)}
    cd = d.categories[tid]
    f = cd.first_flip
    assert f is not None and cd.n_flips >= 1
    assert f.before.value == pytest.approx(v) and f.after.value == pytest.approx(v)
    assert f.before.threshold == pytest.approx(d1)
    assert f.after.threshold == pytest.approx(new_d1)
    assert f.before.decision != f.after.decision
    assert (f.before.step, f.before.b, f.before.cond) == (f.after.step, f.after.b, f.after.cond)
    text = d.explain(cd)
    assert "Before:" in text and "Now:" in text and f"δ1 = {number(d1)}" in text
    row = d.to_frame().set_index("target").loc[tid]
    assert row["first_flip_step"] == f.step
    assert row["value_before"] == pytest.approx(v)
    assert row["threshold_after"] == pytest.approx(new_d1)


def test_removing_a_pc_member_reports_the_sets_and_the_divergence(demo):
    """Raising δ1 above a backward value: PC changes, reported as sets, and later tests
    condition on other sets (a structural divergence)."""
    base = _run(demo, k1=1.0)
    # the largest backward value of a PC member that stays, per target; pick one target
    best = None
    for t in base.targets:
        if t.skipped or t.mirror_of is not None:
            continue
        for x in base.tests(t.id):
            if x.step == "backward" and x.decision == "stays":
                best = (t.id, x.b, x.value)
                break
        if best:
            break
    tid, _, v = best
    after = _run(demo, k1=1.0, delta1=v + 1e-3)
    d = diff_results(base, after)
    cd = d.categories[tid]
    assert cd.changed
    before_pc, after_pc = set(base.targets[tid].pc), set(after.targets[tid].pc)
    assert set(cd.left["pc"]) == before_pc - after_pc
    assert set(cd.entered["pc"]) == after_pc - before_pc
    # other candidates fall below the new δ1, so backward elimination conditions on other sets:
    # the records diverge structurally, and the divergence names a test of one run only
    assert before_pc != after_pc or cd.first_flip is not None
    div = cd.divergence
    assert div is not None
    keys_after = {(x.step, x.b, x.cond, x.aux) for x in after.tests(tid)}
    if div.before is not None:
        assert (div.before.step, div.before.b, div.before.cond, div.before.aux) not in keys_after
    assert set(cd.left["blanket"]) == set(base.targets[tid].blanket) - set(
        after.targets[tid].blanket)


def test_skip_status_changes_are_reported(demo):
    a = _run(demo)
    sizes = sorted(c.size for c in a.categories)
    b = _run(demo, min_category_size=sizes[0] + 1)
    d = diff_results(a, b)
    skipped = [cd for cd in d.categories if cd.skipped_after and not cd.skipped_before]
    assert skipped and all(cd.changed for cd in skipped)
    assert "skipped now" in d.explain(skipped[0])


def test_runs_on_other_data_are_refused(demo):
    other = make_causal_multilabel(300, seed=1)
    codes, _ = discretize(other.dataset.X)
    b = camcf.run(codes, other.dataset.Y)
    with pytest.raises(camcf.CamcfError, match="different data"):
        diff_results(_run(demo), b)


# ------------------------------------------------------------------------------- landscape
def test_landscape_counts_equal_direct_runs(demo):
    ds, codes = demo
    seen = []
    for x, y in (("delta1", "k1"), ("delta2", "k2")):
        xs = default_values(x, 2) if x == "delta2" else (0.05, 0.25)
        ys = default_values(y, 3)
        L = landscape(ds, x, xs, y, ys, progress=lambda d, t, m: seen.append((d, t)))
        assert L.counts.shape == (3, 2)
        for i, yv in enumerate(ys):
            for j, xv in enumerate(xs):
                r = camcf.run(codes, ds.Y, **{x: xv, y: yv})
                assert L.counts[i, j] == r.selected_indices.size, (x, xv, y, yv)
        assert seen[-1][0] == seen[-1][1] == 6
        if x == "delta1":  # k1 values with the same ⌈k1·n⌉ everywhere share one run
            assert L.full_runs + L.k1_reused == 6 and L.full_runs >= 2
    # the δ2 × k2 grid re-ran Phase 4 only for k2 (one full run per δ2 value)
    assert L.full_runs == 2 and L.phase4_only == 6


def test_landscape_rejects_bad_axes(demo):
    ds, _ = demo
    with pytest.raises(camcf.ParameterError):
        landscape(ds, "delta1", [0.05], "delta1", [0.1])
    with pytest.raises(camcf.ParameterError, match="k1"):
        landscape(ds, "delta1", [0.05], "k1", [0.0])


def test_landscape_metric_on_request(demo):
    ds, _ = demo
    L = landscape(ds, "delta1", [0.03, 0.3], "k1", [0.7], metric="hamming_loss")
    assert L.metric_values.shape == (1, 2)
    assert np.isfinite(L.metric_values[0, 0]) and 0 <= L.metric_values[0, 0] <= 1
    frame = L.to_frame()
    # the demo carries its truth: each cell's F1 against it comes with the counts
    assert list(frame.columns) == ["delta1", "k1", "n_selected", "hamming_loss", "truth_f1"]


# ------------------------------------------------------------------------------- figures
def test_figures_draw_changes_and_cells(demo):
    from camcf.viz.tuning import diff_bars, landscape_heatmap

    a, b = _run(demo), _run(demo, delta1=0.12)
    d = diff_results(a, b)
    fig = diff_bars(d, max_bars=3)
    moved = [cd for cd in d.changed if cd.entered["blanket"] or cd.left["blanket"]]
    assert len(fig.data[0].y) == min(3, len(moved))
    left = {a.categories[cd.target].display: len(cd.left["blanket"]) for cd in moved}
    for name, x in zip(fig.data[1].y, fig.data[1].x, strict=True):
        assert -x == left[name]
    ds, _ = demo
    L = landscape(ds, "delta2", [0.05, 0.2], "k2", [0.5, 1.0])
    h = landscape_heatmap(L, current={"delta2": 0.2, "k2": 0.5})
    cells = h.data[1]
    assert len(cells.x) == 4 and [list(c[:2]) for c in cells.customdata] == [
        [0, 0], [0, 1], [1, 0], [1, 1]]
    assert h.data[2].name == "current parameters" and h.data[2].x == ("0.2",)


def test_a_redundancy_flip_names_the_feature_it_decides_about():
    """Landed (yeast, γ 1.2 → 1.25, seen in Chromium): What changed's "variable" of a
    redundancy flip was the other label's category the feature was tested against, not the
    feature that left or entered the blanket (a redundancy row decides about its ``a``)."""
    d = make_causal_multilabel(1000, seed=0)
    demo = (d.dataset, discretize(d.dataset.X)[0])
    diff = diff_results(_run(demo), _run(demo, gamma=2.0))
    frame = diff.to_frame()
    red = frame[frame["first_flip_step"] == "redundancy"]
    assert len(red)
    for _, row in red.iterrows():
        f = diff.categories[int(row["target"])].first_flip
        assert row["first_flip_variable"] == diff.after.feature_names[f.before.a]

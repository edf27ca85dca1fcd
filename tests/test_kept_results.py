"""Issue 34 on the pages (AppTest): what the app keeps belongs to its data (item 1), a stopped
landscape keeps its cells and continues from them (item 3), grids sized to the data (item 4),
unusable tuning points (item 5), Compare's default method set (item 6), reset to defaults and
choices kept across data changes (item 9).

Data changes load the demo with another seed (small: run at once) or 17,000 rows (large: waits
for Run)."""

from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("streamlit")
from support import REPO, goto, new_app, run_button, texts, upload  # noqa: E402

from camcf import jobs  # noqa: E402
from pages import _jobs as jobs_ui  # noqa: E402

PATIENCE = 240


def _load_demo(at, seed: int, n: int = 1000):
    at.number_input(key="demo_n").set_value(n)
    at.number_input(key="demo_seed").set_value(seed)
    at.button(key="load_demo").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _small_grid(at, x="delta1", y="k1", lo=0.02, hi=0.1, steps=2):
    at.number_input(key=f"ls_{x}_lo").set_value(lo)
    at.number_input(key=f"ls_{x}_hi").set_value(hi)
    at.number_input(key=f"ls_{x}_steps").set_value(steps)
    at.number_input(key=f"ls_{y}_steps").set_value(1)
    at.run()
    return at


def _start(at, key: str, done=None):
    """Press a study's button, then run until ``done(at)`` (default: no job of the session
    runs), and once more: a study's run ends with its job's st.rerun, after which AppTest's
    widgets need a run to be driven again."""
    at.button(key=key).click().run()
    t0 = time.monotonic()
    while time.monotonic() - t0 < PATIENCE:
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        if (done(at) if done is not None else not at.session_state["jobs_running"]):
            return at
        time.sleep(0.3)
    raise AssertionError(f"{key}: the study did not finish")


def _tune(at):
    return _start(at, "tune_go")


def _charts(at) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def _infos(at) -> str:
    return " ".join(i.value for i in at.info)


# ------------------------------------------------------------------------------ item 1
def test_a_tuning_of_other_data_is_set_aside_and_cannot_be_applied():
    """Landed: Tune on CAL500, load arts: CAL500's heatmap and best point were shown, and
    "Apply the best point" set arts' sliders to them."""
    at = _small_grid(goto(new_app(), "pages/landscape.py"))
    at.session_state["ls_tab"] = "Tune"
    at.run()
    _tune(at)
    assert any(b.key == "tune_apply" for b in at.button)  # on its own data: applicable
    _load_demo(at, 3101)
    at.session_state["ls_tab"] = "Tune"
    goto(at, "pages/landscape.py")
    assert not any(b.key == "tune_apply" for b in at.button)
    assert not any(tr.get("name") == "best (least score)" for s in _charts(at)
                   for tr in s["data"])
    assert "Set aside: the tuning δ1 × k1" in _infos(at)
    assert "Built-in demo (n = 1000, seed 0)" in _infos(at)


def test_a_landscape_and_a_comparison_of_other_data_are_set_aside():
    at = _small_grid(goto(new_app(), "pages/landscape.py"))
    _start(at, "ls_go")
    assert any(c.key == "ls_chart" for c in at.get("plotly_chart"))
    goto(at, "pages/compare.py")
    at.multiselect(key="cmp_methods").set_value(["camcf", "all"])
    at.number_input(key="cmp_repeats").set_value(1)
    at.run()
    _start(at, "cmp_run")
    assert at.dataframe and at.session_state["cmp_result"].result["comparisons"]
    _load_demo(at, 3102)
    assert not at.dataframe
    assert "Set aside: the comparison of 2 methods" in _infos(at)
    goto(at, "pages/landscape.py")
    assert not any(c.key == "ls_chart" for c in at.get("plotly_chart"))
    assert "Set aside: the landscape δ1 × k1" in _infos(at)


def test_switching_data_says_what_was_set_aside():
    at = _small_grid(goto(new_app(), "pages/landscape.py"))
    _start(at, "ls_go")
    at.button(key="pin_run").click().run()
    _load_demo(at, 3103, n=17_000)  # large: not run by itself
    note = next(i.value for i in at.info if i.value.startswith("Set aside when"))
    assert note.startswith("Set aside when Built-in demo (n = 1000, seed 0) was replaced — of "
                           "Built-in demo (n = 1000, seed 0): the run ("), note
    for item in ("the pinned run", "the landscape δ1 × k1"):
        assert item in note, note


def test_the_pages_never_draw_the_run_of_the_data_loaded_before():
    """A large file loaded (not run yet): the pages said "results are stale" above the
    previous data's results, drawn as if current."""
    at = goto(new_app(), "pages/overview.py")
    assert any(m.label == "Selected features" for m in at.metric)
    _load_demo(at, 3104, n=17_000)
    for page in ("pages/overview.py", "pages/skeleton.py", "pages/evaluation.py"):
        goto(at, page)
        assert not at.metric and not at.dataframe and not at.get("plotly_chart"), page
        assert "No results for Built-in demo (n = 17000, seed 3104) yet" in _infos(at)


# ------------------------------------------------------------------------------ item 3
def test_a_stopped_landscape_keeps_its_cells_and_continues_from_them(monkeypatch):
    monkeypatch.setattr(jobs_ui, "INLINE", 0.0)
    at = _load_demo(new_app(), 3105, n=20_000)
    run_button(at).click().run()
    goto(at, "pages/landscape.py")
    at.number_input(key="ls_delta1_steps").set_value(12)
    at.number_input(key="ls_k1_steps").set_value(12)
    at.run()
    at.button(key="ls_go").click().run()

    def job():
        return jobs_ui.runner().get(at.session_state["jobs_running"]["landscape"])

    running = job()
    t0 = time.monotonic()
    while running.status().done < 2 and time.monotonic() - t0 < PATIENCE:
        time.sleep(0.2)
        at.run()
    at.button(key="jobs_stop_landscape").click().run()
    while running.status().state != jobs.STOPPED and time.monotonic() - t0 < PATIENCE:
        time.sleep(0.2)
    at.run()
    kept = at.session_state["landscape"]
    L = kept.result
    assert kept.partial and 2 <= L.n_filled < L.counts.size
    assert any(w.value.startswith("Partial: ") for w in at.warning)
    assert any("cells of" in w.value and "are kept" in w.value for w in at.warning)
    heat = next(tr for s in _charts(at) for tr in s["data"] if tr.get("type") == "heatmap")
    grey = [tr for s in _charts(at) for tr in s["data"]
            if tr.get("type") == "heatmap" and not tr.get("showscale", True)]
    assert grey and sum(t == "not computed" for row in grey[0]["text"] for t in row) == \
        L.counts.size - L.n_filled
    assert sum(t not in ("", "not computed") for row in heat["text"] for t in row) == \
        L.n_filled
    # started again with the same grid: it continues from the finished cells
    go = next(b for b in at.button if b.key == "ls_go")
    assert go.label.startswith(f"Continue ({L.n_filled} of {L.counts.size} cells done)")
    go.click().run()
    again = job()
    first = None
    while first is None and time.monotonic() - t0 < PATIENCE:
        s = again.status()
        first = s.done if s.done else None
        time.sleep(0.1)
    assert first >= L.n_filled + 1  # the finished cells count as done: not run again
    again.stop()
    again.wait(PATIENCE)


# ------------------------------------------------------------------------------ item 4
def test_the_default_grid_is_log_spaced_around_the_current_thresholds():
    """Landed: always δ1 0.02–0.1 (arts' δ1 of 0.0003 neither inside nor marked)."""
    at = goto(new_app({"delta1": "0.0003"}), "pages/landscape.py")
    assert at.number_input(key="ls_delta1_lo").value == pytest.approx(0.00015)
    assert at.number_input(key="ls_delta1_hi").value == pytest.approx(0.0024)
    cap = next(c.value for c in at.caption if c.value.startswith("δ1 (log-spaced"))
    assert "0.00015 · **0.0003 (current)** · 0.0006 · 0.0012 · 0.0024" in cap
    # 5 δ1 values × k1 0.2, 0.4, 0.6, 0.8, 1 and the current 0.7
    assert any("Compute the landscape (30 cells)" in b.label for b in at.button)


def test_new_data_set_the_threshold_axes_around_their_thresholds():
    at = goto(new_app(), "pages/landscape.py")
    at.number_input(key="ls_delta1_lo").set_value(0.3).run()
    at.number_input(key="p_delta1").set_value(0.004)
    _load_demo(at, 3106)  # small: run at once with δ1 = 0.004, this page drawn on it
    assert any("were set around the current thresholds (δ1 = 0.004" in i.value
               for i in at.info), _infos(at)
    assert at.number_input(key="ls_delta1_lo").value == pytest.approx(0.002)


def _bag_of_words_csv(scale: float = 0.1) -> bytes:
    """benchmarks/shapes.py's delicious-like data (1,600 × 500 at 0.1, 100 labels) as CSV."""
    import io
    import sys

    import numpy as np

    sys.path.insert(0, str(REPO / "benchmarks"))
    from shapes import delicious_like

    X, Y = delicious_like(scale)
    out = io.StringIO()
    np.savetxt(out, np.hstack([X, Y]), fmt="%d", delimiter=",",
               header=",".join([f"f{j}" for j in range(X.shape[1])]
                               + [f"y{j}" for j in range(Y.shape[1])]), comments="")
    return out.getvalue().encode()


def test_the_landscape_estimate_depends_on_the_grid_values():
    """Landed: Corel's landscape was estimated at 3 min 36 s for any δ range, though small
    thresholds cost far more (delicious-like data, 1,600 × 500, 100 labels)."""
    at = upload(new_app(), _bag_of_words_csv(), "bag.csv", labels="last:100")
    run_button(at).click().run()
    assert at.session_state["run"].data.description.startswith("bag.csv")
    at = _small_grid(goto(at, "pages/landscape.py"), lo=0.05, hi=0.2, steps=3)

    def estimate():
        return next(c.value for c in at.caption
                    if c.value.startswith("The landscape will take"))

    high = estimate()
    _small_grid(at, lo=0.0005, hi=0.002, steps=3)
    low = estimate()
    assert low != high, low
    rec = at.session_state["run"]
    from pages._common import grid_cost

    cost = grid_cost(rec)
    assert cost({"delta1": 0.0005}) > cost({"delta1": 0.2})


def test_tune_warns_when_the_best_point_lies_on_the_grids_edge():
    """Landed: Tune's best point on the grid's edge (arts, δ1 = 0.005) got no warning."""
    from camcf.tuning import on_edge

    at = _small_grid(goto(new_app(), "pages/landscape.py"), lo=0.2, hi=0.4, steps=3)
    at.number_input(key="ls_k1_lo").set_value(1.0)
    at.number_input(key="ls_k1_hi").set_value(1.0)
    at.run()
    at.session_state["ls_tab"] = "Tune"
    at.run()
    _tune(at)
    T = at.session_state["tune"].result
    edges = on_edge(T)
    assert edges  # this grid's best is at δ1 = 0.2, its lowest (the demo selects more there)
    warning = " ".join(w.value for w in at.warning)
    assert f"δ1 = {edges[0]['value']:g} is the lowest δ1 tuned" in warning
    assert "widen the δ1 range below" in warning


# ------------------------------------------------------------------------------ item 5
def test_tune_never_colours_a_point_that_selected_nothing_on_some_folds():
    """Landed (CAL500): the δ1 = 0.08 cells selected nothing on 2 of 3 folds, yet got the best
    colour with no mark. Points empty on some folds are grey, marked, outside the colour
    scale (here δ1 = 0.9 on the 300-row demo: empty on 1 of 3 inner folds)."""
    at = _load_demo(new_app(), 0, n=300)
    goto(at, "pages/landscape.py")
    at.number_input(key="ls_delta1_lo").set_value(0.9)
    at.number_input(key="ls_delta1_hi").set_value(1.0)
    at.number_input(key="ls_delta1_steps").set_value(2)
    at.number_input(key="ls_k1_lo").set_value(1.0)
    at.number_input(key="ls_k1_hi").set_value(1.0)
    at.number_input(key="ls_k1_steps").set_value(1)
    at.run()
    at.session_state["ls_tab"] = "Tune"
    at.session_state["tune_metric"] = "hamming_loss"
    at.run()
    _tune(at)
    T = at.session_state["tune"].result
    partly = T.grid[(T.grid["n_empty"] > 0) & T.grid["score"].notna()]
    assert len(partly) >= 1  # scored on the folds where it selected something
    spec = next(s for s in _charts(at) if any(tr.get("name") == "best (least score)"
                                              or tr.get("type") == "heatmap"
                                              for tr in s["data"]))
    coloured, grey = [tr for tr in spec["data"] if tr.get("type") == "heatmap"][:2]
    xs = coloured["x"]
    for r in partly.itertuples():
        j = xs.index(f"{r.delta1:g}")
        assert coloured["text"][0][j] == ""  # not on the colour scale (its z is NaN)
        assert grey["showscale"] is False
        assert f"empty on {int(r.n_empty)} of {int(r.n_splits)}" in grey["text"][0][j]
    assert "never the best point" in texts(at)


# ------------------------------------------------------------------------------ item 6
def test_compare_chooses_by_default_the_methods_that_fit_the_data(monkeypatch):
    """Landed: all 8 methods were chosen by default on delicious, FIMF's first split alone
    taking 14.5 min. The default set is the methods that take at most FITS seconds on the
    data; the others are named with their time before anything starts."""
    from camcf import estimates

    monkeypatch.setitem(estimates.SELECTION_COST, "fimf", (1.0, (1.0, 0.0, 0.0)))
    at = goto(new_app(), "pages/compare.py")
    chosen = at.multiselect(key="cmp_methods").value
    assert "fimf" not in chosen and "camcf" in chosen and "all" in chosen
    cap = next(c.value for c in at.caption if c.value.startswith("Would take minutes"))
    assert "FIMF about" in cap and "(chosen)" not in cap


# ------------------------------------------------------------------------------ item 9
def test_reset_to_defaults_puts_every_parameter_back():
    """Landed: CAL500's thresholds carried over to arts with no way back to the defaults."""
    import camcf

    at = new_app()
    at.number_input(key="p_delta1").set_value(0.04)
    at.slider(key="p_k1").set_value(0.2)
    at.selectbox(key="d_strategy").set_value("quantile")
    at.run()
    at.button(key="reset_params").click().run()
    assert at.number_input(key="p_delta1").value == pytest.approx(camcf.DEFAULTS["delta1"])
    assert at.slider(key="p_k1").value == pytest.approx(camcf.DEFAULTS["k1"])
    assert at.selectbox(key="d_strategy").value == "uniform"
    assert any("back at their defaults" in w.value for w in at.warning)
    assert at.button(key="reset_params").disabled


def test_thresholds_across_a_data_change_are_suggested_again_or_kept_with_a_note():
    at = new_app()
    at.button(key="suggest_button").click().run()
    before = at.number_input(key="p_delta1").value
    _load_demo(at, 0, n=3000)
    after = at.number_input(key="p_delta1").value
    from camcf.significance import suggest_thresholds

    data = at.session_state["data"]
    expected = suggest_thresholds(data.dataset.X, data.dataset.Y, 0.01)["delta1"]
    assert after == pytest.approx(expected, rel=1e-3) and after != pytest.approx(before)
    assert any("suggested again at the same α" in w.value for w in at.warning)
    # typed by hand: kept, with a note and the way back
    at.number_input(key="p_delta1").set_value(0.07).run()
    _load_demo(at, 1, n=3000)
    assert at.number_input(key="p_delta1").value == pytest.approx(0.07)
    assert any("are kept for" in w.value and "δ1 = 0.07" in w.value for w in at.warning)


def test_compare_methods_and_tune_metric_are_kept_across_pages_and_data():
    """Landed: the Compare method choice reset to all 8 after a data change; Tune's metric
    switched by itself once."""
    at = goto(new_app(), "pages/compare.py")
    at.multiselect(key="cmp_methods").set_value(["camcf", "all"]).run()
    goto(at, "pages/landscape.py")
    at.session_state["ls_tab"] = "Tune"
    at.run()
    at.selectbox(key="tune_metric").set_value("hamming_loss").run()
    goto(at, "pages/overview.py")
    _load_demo(at, 3107)
    goto(at, "pages/compare.py")
    assert at.multiselect(key="cmp_methods").value == ["camcf", "all"]
    goto(at, "pages/landscape.py")
    at.session_state["ls_tab"] = "Tune"
    at.run()
    assert at.selectbox(key="tune_metric").value == "hamming_loss"


def test_a_discretisation_that_does_not_apply_to_new_data_is_reset_with_a_note():
    """Kept where it still applies, otherwise reset with a note: "none" (codes as they are)
    cannot read continuous columns; the new file is loaded with the default discretisation
    (before: the load failed and the new data were refused)."""
    import numpy as np

    at = new_app()
    at.selectbox(key="d_mode").set_value("none").run()
    rng = np.random.default_rng(3)
    x = rng.normal(size=(150, 3))
    y = (x[:, :2] > 0).astype(int)
    rows = ["a,b,c,L1,L2"] + [",".join(f"{v:.3f}" for v in r) + f",{l1},{l2}"
                              for r, (l1, l2) in zip(x, y, strict=True)]
    upload(at, "\n".join(rows).encode(), "cont.csv", labels=["L1", "L2"])
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.session_state["data"].description.startswith("cont.csv")
    assert at.selectbox(key="d_mode").value == "auto"
    assert any("discretisation chosen before (none" in w.value and "reset to the default"
               in w.value for w in at.warning), [w.value for w in at.warning]

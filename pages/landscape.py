"""Threshold landscape: the number of selected features (and, on request, one ML-kNN metric)
over a δ1 × k1 or δ2 × k2 grid, and "Tune": the same grid scored by inner cross-validation on
training rows, its best point marked; clicking a cell sets the sidebar sliders.

Both are jobs (:func:`camcf.studies.run_landscape` and :func:`camcf.studies.run_tune` through
:mod:`pages._jobs`: the estimated cost before they start, progress, a remaining time, a Stop
button); this page only draws their results.
"""

from typing import Any

import streamlit as st

from camcf import studies
from camcf.algorithm_params import by_name
from camcf.evaluation import KNN_DEFAULTS, METRICS
from camcf.landscape import PRESETS, default_values
from camcf.tuning import INNER_FOLDS
from camcf.viz.tuning import SYMBOL, TRUTH_F1, landscape_heatmap
from pages import _jobs as jobs_ui
from pages import _state as S
from pages._common import current_run, number_field
from pages._share import GRID_STEPS, fit, round_sig, set_params_from_page

#: what F1 against the truth is, on data sampled from a known network
TRUTH_HELP = ("On data sampled from a known network: each cell's Ca-MCF run on all rows, "
              "scored against the true Markov blankets — per label the union of its "
              "categories' blankets against its true feature blanket, F1 averaged over the "
              "labels (camcf.truth).")

rec = current_run()
st.title("Threshold landscape")
st.caption("How many features Ca-MCF selects over a grid of two parameters, the others as in "
           "the current run, and which point of the grid classifies best (**Tune**). Click a "
           "cell to move the sidebar sliders there.")

preset = st.radio("Grid", PRESETS, horizontal=True, key=S.LS_PRESET.init(PRESETS[0]),
                  format_func=lambda p: f"{SYMBOL[p[0]]} × {SYMBOL[p[1]]}")
x, y = preset
cols = st.columns(2)
axes = {}
for col, name in zip(cols, (x, y), strict=True):
    with col:
        dv = default_values(name)
        a, b, c = st.columns(3)
        decl = by_name()[name]  # the range every widget of this parameter offers
        lo = number_field(decl, S.LS_AXIS[(name, "lo")], label=f"{SYMBOL[name]} from",
                          default=fit(decl, dv[0])[0], where=a)
        hi = number_field(decl, S.LS_AXIS[(name, "hi")], label=f"{SYMBOL[name]} to",
                          default=fit(decl, dv[-1])[0], where=b)
        steps = c.number_input("steps", *GRID_STEPS, step=1,
                               key=S.LS_AXIS[(name, "steps")].init(len(dv)))
        if steps == 1 or hi <= lo:
            values = (round_sig(lo),)
        else:
            values = tuple(round_sig(lo + (hi - lo) * i / (steps - 1)) for i in range(steps))
        axes[name] = values
base = dict(rec.params)
ds = rec.data.dataset
current = {k: float(v) for k, v in rec.params.items() if k in SYMBOL}
run_seconds = float(rec.result.stats.get("seconds", 0.0))
n_selected = int(rec.result.selected_indices.size)
# tracked tabs: the chosen one survives the rerun a click on a cell makes, and only it runs
tab_count, tab_tune = st.tabs(S.LS_TABS, key=S.LS_TAB.init(), on_change="rerun")


def _apply_on_click(event, L, applied: S.Key, tag: Any) -> None:
    """Move the sliders to the clicked cell (once per click, not on later reruns)."""
    points = (event or {}).get("selection", {}).get("points", []) if event else []
    if not points:
        return
    i, j = (int(v) for v in points[0]["customdata"][:2])
    chosen = L.params_at(i, j)
    target = {L.x: chosen[L.x], L.y: chosen[L.y]}
    if applied.get() != (tag, i, j):
        applied.set((tag, i, j))
        set_params_from_page(target)
    st.success(f"Sliders set to {SYMBOL[L.x]} = {target[L.x]:g}, {SYMBOL[L.y]} = "
               f"{target[L.y]:g}. Press Run (or let auto-run apply it).")


def _study(slot: str, kept: S.Key, request: tuple, label: str, button: str, fn, kwargs: dict,
           *, title: str, estimate, first: str, changed: str) -> tuple | None:
    """The start button, the job and the kept result of one tab's study: starts ``fn(**kwargs)``
    as job ``slot``, keeps ``(request, result)`` under ``kept``, and returns what is kept (None,
    with a hint, before the first result). A kept result for another request is returned with a
    note that it is out of date; one for this request hides the message of a stopped start of
    another."""
    stored = kept.get()
    have = stored is not None and stored[0] == request
    if st.button(label, type="primary", key=button, disabled=have or jobs_ui.running(slot)):
        jobs_ui.start(slot, fn, kwargs, title=title, estimate=estimate, key=request)
    if have and not jobs_ui.running(slot):
        jobs_ui.show_kept(slot)
    jobs_ui.follow(slot, lambda result, key: kept.set((key, result)))
    stored = kept.get()
    if stored is None:
        if not jobs_ui.running(slot):
            st.info(first)
        return None
    if stored[0] != request:
        st.caption(changed)
    return stored


def landscape_tab() -> None:
    """The number of features selected over the grid (and optionally an ML-kNN metric)."""
    with st.expander("Also an ML-kNN metric (slower: a selection and a classification per "
                     "cell)"):
        want_metric = st.toggle("Score each cell with ML-kNN on a hold-out split",
                                key=S.LS_METRIC_ON.init())
        metric = st.selectbox("Metric", list(METRICS),
                              key=S.LS_METRIC.init(next(iter(METRICS))),
                              format_func=lambda m: METRICS[m]["name"],
                              disabled=not want_metric)
        st.caption("Ca-MCF selects on a seeded 70 % training part and ML-kNN is scored on the "
                   "rest; the counts above use all rows.")
    request = (repr(rec.key), x, axes[x], y, axes[y], metric if want_metric else None)
    n_cells = len(axes[x]) * len(axes[y])
    # the landscape's metric runs ML-kNN with its declared defaults
    times = (jobs_ui.classify_times(rec, k=KNN_DEFAULTS["k"],
                                    neighbours=KNN_DEFAULTS["neighbours"])
             if want_metric else None)
    estimate = studies.landscape_estimate(
        ds.X, ds.Y, x=x, x_values=axes[x], y=y, y_values=axes[y], run_seconds=run_seconds,
        metric=metric if want_metric else None, n_selected=n_selected, times=times)
    jobs_ui.show_estimate(estimate, what="The landscape")

    stored = _study("landscape", S.LANDSCAPE, request, f"Compute the landscape ({n_cells:,} cells)",
                    "ls_go", studies.run_landscape,
                    {"dataset": ds, "x": x, "x_values": axes[x], "y": y, "y_values": axes[y],
                     "params": base, "disc": dict(rec.disc),
                     "metric": metric if want_metric else None},
                    title="The landscape", estimate=estimate,
                    first="Choose the grid and press **Compute the landscape**.",
                    changed="The grid or the current run changed since this landscape was "
                            "computed; press Compute to update it.")
    if stored is None:
        return
    L = stored[1]
    st.caption(f"{len(L.x_values) * len(L.y_values):,} cells in {L.seconds:.2f} s "
               f"({L.full_runs} full runs"
               + (f", {L.phase4_only} answered by re-running Phase 4 only"
                  if L.phase4_only else "")
               + (f", {L.k1_reused} shared with a run of the same ⌈k1·n⌉"
                  if L.k1_reused else "")
               + ").")
    which = "n_selected"
    shown = ["n_selected", *([L.metric] if L.metric is not None else []),
             *(["truth_f1"] if L.truth_f1 is not None else [])]
    if len(shown) > 1:
        which = st.radio("Show", shown, horizontal=True, key="ls_show",
                         format_func=lambda v: "features selected" if v == "n_selected"
                         else TRUTH_F1 if v == "truth_f1" else METRICS[v]["name"],
                         help=TRUTH_HELP if L.truth_f1 is not None else None)
    event = st.plotly_chart(landscape_heatmap(L, which, current), key="ls_chart",
                            on_select="rerun", selection_mode="points")
    _apply_on_click(event, L, S.LS_APPLIED, id(L))
    with st.expander("The grid as a table"):
        st.dataframe(L.to_frame(), hide_index=True, width="stretch")
        st.download_button("Download (CSV)", data=L.to_frame().to_csv(index=False),
                           file_name=f"camcf-landscape-{L.x}-{L.y}.csv", mime="text/csv",
                           on_click="ignore", key="ls_csv")


def tune_tab() -> None:
    """The grid scored by the tuner (inner cross-validation on a training part)."""
    st.caption(f"Every point of the grid is scored by ML-kNN (k = {KNN_DEFAULTS['k']}) on "
               f"{INNER_FOLDS} inner folds of a seeded 70 % training part: Ca-MCF selects on "
               "each inner training fold and ML-kNN is scored on the fold left out. The other "
               "30 % of the rows are never read, so they stay free for an honest check "
               "(Evaluation page). Lower scores are better.")
    metric = st.selectbox("Metric", list(METRICS), key=S.TUNE_METRIC.init("micro_f1"),
                          format_func=lambda m: METRICS[m]["name"])
    grid = {x: list(axes[x]), y: list(axes[y])}
    request = (repr(rec.key), x, axes[x], y, axes[y], metric)
    times = jobs_ui.classify_times(rec, k=KNN_DEFAULTS["k"],
                                   neighbours=KNN_DEFAULTS["neighbours"])
    estimate = studies.tune_study_estimate(ds.X, ds.Y, grid=grid, run_seconds=run_seconds,
                                           n_selected=n_selected, times=times)
    jobs_ui.show_estimate(estimate, what="Tuning")
    n_cells = len(axes[x]) * len(axes[y])
    stored = _study("tune", S.TUNE, request, f"Tune ({n_cells:,} points × {INNER_FOLDS} folds)",
                    "tune_go", studies.run_tune,
                    {"dataset": ds, "grid": grid, "params": base, "disc": dict(rec.disc),
                     "metric": metric},
                    title="Tuning", estimate=estimate,
                    first="Choose the grid above and press **Tune**.",
                    changed="The grid, the metric or the current run changed since this "
                            "tuning; press Tune to update it.")
    if stored is None:
        return
    T = stored[1]
    if set(T.settings["grid"]) != {x, y}:
        st.info("The last tuning was over another pair of parameters; press **Tune**.")
        return
    L, (bi, bj) = T.landscape(x, y)
    best = T.grid.loc[T.best_index]
    known = L.truth_f1 is not None
    st.markdown(
        f"**Best point**: {SYMBOL[x]} = {best[x]:g}, {SYMBOL[y]} = {best[y]:g} — "
        f"{METRICS[T.settings['metric']]['name']} {best['value']:.3f} ± {best['sd']:.3f} (score "
        f"{T.settings['score']} = {best['score']:.3f}), {best['n_features']:.1f} features on "
        f"average, over {int(best['n_splits']):,} inner folds; {len(T.grid):,} points in "
        f"{T.settings['seconds']:.1f} s."
        + (f" Its {TRUTH_F1}: {best['truth_f1']:.3f}." if known else ""))
    if known:
        top = T.grid.loc[T.grid["truth_f1"].idxmax()]
        st.markdown(f"**Best against the truth** (read off the known network: an upper bound, "
                    f"not a tuning): {SYMBOL[x]} = {top[x]:g}, {SYMBOL[y]} = {top[y]:g} — "
                    f"{TRUTH_F1} {top['truth_f1']:.3f}.")
    if st.button("Apply the best point to the sliders", key="tune_apply"):
        S.TUNE_APPLIED.set((id(T), bi, bj, "button"))
        set_params_from_page({x: float(best[x]), y: float(best[y])})
    if S.TUNE_APPLIED.get() == (id(T), bi, bj, "button"):
        st.success(f"Sliders set to the best point: {SYMBOL[x]} = {best[x]:g}, {SYMBOL[y]} = "
                   f"{best[y]:g}. Press Run (or let auto-run apply it).")
    which = L.metric
    if known:
        which = st.radio("Show", [L.metric, "truth_f1"], horizontal=True, key="tune_show",
                         format_func=lambda v: TRUTH_F1 if v == "truth_f1" else v,
                         help=TRUTH_HELP)
    event = st.plotly_chart(landscape_heatmap(L, which, current, best=(bi, bj)),
                            key="tune_chart", on_select="rerun", selection_mode="points")
    _apply_on_click(event, L, S.TUNE_APPLIED, id(T))
    with st.expander("The grid as a table"):
        st.dataframe(T.grid, hide_index=True, width="stretch")
        st.download_button("Download (CSV)", data=T.grid.to_csv(index=False),
                           file_name=f"camcf-tune-{x}-{y}.csv", mime="text/csv",
                           on_click="ignore", key="tune_csv")


def _keep(*keys: S.Key) -> None:
    """Keep the values of the closed tab's widgets (Streamlit drops the state of a widget that
    a run does not draw)."""
    for key in keys:
        value = key.get(None)
        if value is not None:
            key.set(value)


if tab_count.open is not False:
    with tab_count:
        landscape_tab()
else:
    _keep(S.LS_METRIC_ON, S.LS_METRIC)
if tab_tune.open:
    with tab_tune:
        tune_tab()
else:
    _keep(S.TUNE_METRIC)

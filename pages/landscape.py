"""Threshold landscape: the number of selected features (and, on request, one ML-kNN metric)
over a δ1 × k1 or δ2 × k2 grid, and "Tune": the same grid scored by inner cross-validation on
training rows, its best point marked; clicking a cell sets the sidebar sliders.

The threshold axes are log-spaced around the current run's thresholds (set again when the data
change; "Grid around the current point" sets them again by hand), and every axis holds the
current value: the current point is a cell of the grid, ringed. Both studies are jobs
(:func:`camcf.studies.run_landscape` and :func:`camcf.studies.run_tune` through
:mod:`pages._jobs`: the estimated cost before they start — point by point, from the current
run —, progress, a remaining time, a Stop that keeps the finished cells, a start again that
continues from them); their results are kept with the data they were computed on
(:class:`pages._state.Kept`: never drawn or applied on other data). This page only draws.
"""

from typing import Any

import numpy as np
import streamlit as st

from camcf import studies
from camcf.algorithm_params import by_name
from camcf.evaluation import KNN_DEFAULTS, METRICS
from camcf.landscape import PRESETS, THRESHOLDS, default_values, grid_values
from camcf.tuning import INNER_FOLDS, on_edge
from camcf.viz.tuning import SYMBOL, TRUTH_F1, landscape_heatmap
from pages import _jobs as jobs_ui
from pages import _state as S
from pages._common import current_run, grid_cost, number_field
from pages._kept import set_aside_note
from pages._share import GRID_STEPS, fit, round_sig, set_params_from_page

#: what F1 against the truth is, on data sampled from a known network
TRUTH_HELP = ("On data sampled from a known network: each cell's Ca-MCF run on all rows, "
              "scored against the true Markov blankets — per label the union of its "
              "categories' blankets against its true feature blanket, F1 averaged over the "
              "labels (camcf.truth).")

rec = current_run()
here = S.data_id(rec)
st.title("Threshold landscape")
st.caption("How many features Ca-MCF selects over a grid of two parameters, the others as in "
           "the current run, and which point of the grid classifies best (**Tune**). Click a "
           "cell to move the sidebar sliders there.")
current = {k: float(v) for k, v in rec.params.items() if k in SYMBOL}


def around_current(names) -> None:
    """Put the axes of ``names`` at their defaults around the current point (before the
    inputs are drawn: a button's callback, or the first draw on new data)."""
    for name in names:
        decl = by_name()[name]
        dv = default_values(name, around=current.get(name))
        S.LS_AXIS[(name, "lo")].set(fit(decl, dv[0])[0])
        S.LS_AXIS[(name, "hi")].set(fit(decl, dv[-1])[0])
        S.LS_AXIS[(name, "steps")].set(min(len(dv), GRID_STEPS[1]))


# the threshold axes belong to the data: new data (or another discretisation) sets them around
# their thresholds; a link's grid (axes given, no basis yet) stays as the link says
basis = S.LS_BASIS.get()
if basis != here:
    if basis is not None or not any(S.LS_AXIS[(n, "lo")].has() for n in THRESHOLDS):
        around_current(THRESHOLDS)
        if basis is not None:
            st.info("The threshold axes were set around the current thresholds ("
                    + ", ".join(f"{SYMBOL[n]} = {current[n]:g}" for n in THRESHOLDS)
                    + f") of {rec.data.description}: the ranges before were for other data.",
                    icon=":material/grid_on:")
    S.LS_BASIS.set(here)

preset = st.radio("Grid", PRESETS, horizontal=True, key=S.LS_PRESET.init(PRESETS[0]),
                  format_func=lambda p: f"{SYMBOL[p[0]]} × {SYMBOL[p[1]]}")
x, y = preset
st.button("Grid around the current point", key="ls_around", on_click=around_current,
          args=((x, y),), icon=":material/center_focus_strong:",
          help=f"{SYMBOL[x]} and {SYMBOL[y]} back to their default ranges: a threshold from its "
               "current value ÷ 2 to × 8, log-spaced; a share from 0.2 to 1.")
cols = st.columns(2)
axes = {}
inputs = []  # (name, from, to, steps): what a link carries
for col, name in zip(cols, (x, y), strict=True):
    with col:
        dv = default_values(name, around=current.get(name))
        a, b, c = st.columns(3)
        decl = by_name()[name]  # the range every widget of this parameter offers
        lo = number_field(decl, S.LS_AXIS[(name, "lo")], label=f"{SYMBOL[name]} from",
                          default=fit(decl, dv[0])[0], where=a)
        hi = number_field(decl, S.LS_AXIS[(name, "hi")], label=f"{SYMBOL[name]} to",
                          default=fit(decl, dv[-1])[0], where=b)
        steps = c.number_input("steps", *GRID_STEPS, step=1,
                               key=S.LS_AXIS[(name, "steps")].init(len(dv)))
        values = grid_values(name, lo, hi, steps, current=current.get(name))
        axes[name] = values
        inputs.append((name, lo, hi, int(steps)))
        spacing = "log-spaced" if name in THRESHOLDS and lo > 0 else "evenly spaced"
        here_v = round_sig(current[name]) if name in current else None
        shown = " · ".join(f"**{v:g} (current)**" if v == here_v else f"{v:g}"
                           for v in values)
        outside = ("" if name not in current or lo <= current[name] <= hi else
                   f" The current {SYMBOL[name]} = {current[name]:g} is outside this range.")
        st.caption(f"{SYMBOL[name]} ({spacing}, the current value added): {shown}.{outside}")
base = dict(rec.params)
ds = rec.data.dataset
run_seconds = float(rec.result.stats.get("seconds", 0.0))
n_selected = int(rec.result.selected_indices.size)
cost = grid_cost(rec)
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


def _keeper(kept: S.Key, words):
    """``on_result`` and ``on_partial`` of a study's job: keep what came back with the data it
    was computed on (the job's key: ``(request, data id, data description, what)``)."""
    def done(result, key) -> None:
        kept.set(S.Kept(data=key[1], source=key[2], what=key[3], request=key[0],
                        result=result))

    def partial(result, key) -> str:
        kept.set(S.Kept(data=key[1], source=key[2], what=key[3], request=key[0],
                        result=result, partial=True))
        return words(result)

    return done, partial


def _study(slot: str, kept: S.Key, request: tuple, what: str, label: str, button: str, fn,
           kwargs: dict, *, title: str, estimate, first: str, changed: str, words,
           progress_of) -> S.Kept | None:
    """The start button, the job and the kept result of one tab's study: starts ``fn(**kwargs)``
    as job ``slot`` (with ``resume``: the finished part of a stopped start of the same
    request), keeps its result as a :class:`pages._state.Kept` under ``kept``, and returns
    it when it belongs to the current run's data (None, with a hint or a note that it is set
    aside, otherwise). ``words(partial)`` and ``progress_of(partial)`` say what a partial
    result holds."""
    stored = kept.get()
    mine = stored is not None and stored.belongs_to(rec)
    same = mine and stored.request == request
    have = same and not stored.partial
    resume = stored.result if same and stored.partial else None
    if resume is not None:
        label = f"Continue ({progress_of(resume)})"
    if st.button(label, type="primary", key=button, disabled=have or jobs_ui.running(slot)):
        jobs_ui.start(slot, fn, {**kwargs, "resume": resume}, title=title, estimate=estimate,
                      key=(request, here, rec.data.description, what))
    if have and not jobs_ui.running(slot):
        jobs_ui.show_kept(slot)
    on_result, on_partial = _keeper(kept, words)
    jobs_ui.follow(slot, on_result, on_partial=on_partial)
    stored = kept.get()
    if stored is None:
        if not jobs_ui.running(slot):
            st.info(first)
        return None
    if not stored.belongs_to(rec):
        set_aside_note(stored, rec)
        if not jobs_ui.running(slot):
            st.info(first)
        return None
    if stored.request != request:
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
    request = (repr(rec.key), x, axes[x], y, axes[y], metric if want_metric else None,
               tuple(inputs))
    n_cells = len(axes[x]) * len(axes[y])
    # the landscape's metric runs ML-kNN with its declared defaults
    times = (jobs_ui.classify_times(rec, k=KNN_DEFAULTS["k"],
                                    neighbours=KNN_DEFAULTS["neighbours"])
             if want_metric else None)
    estimate = studies.landscape_estimate(
        ds.X, ds.Y, x=x, x_values=axes[x], y=y, y_values=axes[y], run_seconds=run_seconds,
        metric=metric if want_metric else None, n_selected=n_selected, times=times,
        cost=cost)
    jobs_ui.show_estimate(estimate, what="The landscape")

    stored = _study(
        "landscape", S.LANDSCAPE, request,
        f"the landscape {SYMBOL[x]} × {SYMBOL[y]} ({n_cells} cells)",
        f"Compute the landscape ({n_cells:,} cells)", "ls_go", studies.run_landscape,
        {"dataset": ds, "x": x, "x_values": axes[x], "y": y, "y_values": axes[y],
         "params": base, "disc": dict(rec.disc), "metric": metric if want_metric else None},
        title="The landscape", estimate=estimate,
        first="Choose the grid and press **Compute the landscape**.",
        changed="The grid or the current run changed since this landscape was computed; "
                "press Compute to update it.",
        words=lambda L: (f"its {L.n_filled} finished cells of {L.counts.size} are kept and "
                         "shown (partial)"),
        progress_of=lambda L: f"{L.n_filled} of {L.counts.size} cells done")
    if stored is None:
        return
    L = stored.result
    if stored.partial:
        st.warning(f"Partial: {L.n_filled} of {L.counts.size} cells were computed before the "
                   "landscape was stopped (the grey cells were not). Press **Continue** to "
                   f"compute the other {L.counts.size - L.n_filled}; the finished ones are "
                   "not run again.", icon=":material/timelapse:")
    st.caption(f"{L.n_filled:,} cells in {L.seconds:.2f} s "
               f"({L.full_runs} full runs"
               + (f", {L.phase4_only} answered by re-running Phase 4 only"
                  if L.phase4_only else "")
               + (f", {L.k1_reused} shared with a run of the same ⌈k1·n⌉"
                  if L.k1_reused else "")
               + ").")
    which = "n_selected"
    shown = ["n_selected", *([L.metric] if L.metric_values is not None else []),
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


def _unusable(T, L) -> tuple[np.ndarray, np.ndarray]:
    """The grid's points that selected nothing on some inner folds (they cannot be scored on
    every fold), and what each cell says of it."""
    bad = np.zeros(L.counts.shape, dtype=bool)
    words = np.full(L.counts.shape, "", dtype=object)
    for r in T.grid.itertuples(index=False):
        if r.n_empty and r.n_empty > 0:
            i, j = L.y_values.index(getattr(r, L.y)), L.x_values.index(getattr(r, L.x))
            bad[i, j] = True
            words[i, j] = f"empty on {int(r.n_empty)} of {int(r.n_splits)}"
    return bad, words


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
                                           n_selected=n_selected, times=times, cost=cost)
    jobs_ui.show_estimate(estimate, what="Tuning")
    n_cells = len(axes[x]) * len(axes[y])
    stored = _study(
        "tune", S.TUNE, request,
        f"the tuning {SYMBOL[x]} × {SYMBOL[y]} ({METRICS[metric]['name']})",
        f"Tune ({n_cells:,} points × {INNER_FOLDS} folds)", "tune_go", studies.run_tune,
        {"dataset": ds, "grid": grid, "params": base, "disc": dict(rec.disc),
         "metric": metric},
        title="Tuning", estimate=estimate, first="Choose the grid above and press **Tune**.",
        changed="The grid, the metric or the current run changed since this tuning; press "
                "Tune to update it.",
        words=lambda T: (f"its {T.settings['points_done']} finished points of {len(T.grid)} "
                         "are kept and shown (partial)"),
        progress_of=lambda T: f"{T.settings['points_done']} of {len(T.grid)} points done")
    if stored is None:
        return
    T = stored.result
    if set(T.settings["grid"]) != {x, y}:
        st.info("The last tuning was over another pair of parameters; press **Tune**.")
        return
    L, cell = T.landscape(x, y)
    bad, bad_words = _unusable(T, L)
    known = L.truth_f1 is not None
    if stored.partial:
        done = T.settings["points_done"]
        st.warning(f"Partial: {done} of {len(T.grid)} points were scored before the tuning "
                   f"was stopped (the grey cells marked “not computed” were not). Press "
                   f"**Continue** to score the other {len(T.grid) - done}; the finished ones "
                   "are not scored again. The best point below is the best of those done.",
                   icon=":material/timelapse:")
    if cell is None:
        st.info("No finished point could be scored yet: each selected nothing on every inner "
                "fold.")
    else:
        bi, bj = cell
        best = T.grid.loc[T.best_index]
        st.markdown(
            f"**Best point{' so far' if stored.partial else ''}**: {SYMBOL[x]} = {best[x]:g}, "
            f"{SYMBOL[y]} = {best[y]:g} — {METRICS[T.settings['metric']]['name']} "
            f"{best['value']:.3f} ± {best['sd']:.3f} (score {T.settings['score']} = "
            f"{best['score']:.3f}), {best['n_features']:.1f} features on average, over "
            f"{int(best['n_splits']):,} inner folds; {T.settings['points_done']:,} points in "
            f"{T.settings['seconds']:.1f} s."
            + (f" Its {TRUTH_F1}: {best['truth_f1']:.3f}." if known else ""))
        if known:
            top = T.grid.loc[T.grid["truth_f1"].idxmax()]
            st.markdown(f"**Best against the truth** (read off the known network: an upper "
                        f"bound, not a tuning): {SYMBOL[x]} = {top[x]:g}, {SYMBOL[y]} = "
                        f"{top[y]:g} — {TRUTH_F1} {top['truth_f1']:.3f}.")
        if best["n_empty"] > 0:
            st.warning("Every point selected nothing on some inner fold: this one did on the "
                       "fewest. Lower the thresholds to find a usable point.",
                       icon=":material/warning:")
        for e in on_edge(T):
            lo, hi = min(T.settings["grid"][e["name"]]), max(T.settings["grid"][e["name"]])
            beyond = "below" if e["side"] == "lowest" else "above"
            st.warning(f"The best point lies on the edge of the grid: {SYMBOL[e['name']]} = "
                       f"{e['value']:g} is the {e['side']} {SYMBOL[e['name']]} tuned "
                       f"({lo:g} to {hi:g}). A better point may lie {beyond} it: widen "
                       f"the {SYMBOL[e['name']]} range {beyond} {e['value']:g} and tune again.",
                       icon=":material/border_outer:")
        if st.button("Apply the best point to the sliders", key="tune_apply"):
            S.TUNE_APPLIED.set((id(T), bi, bj, "button"))
            set_params_from_page({x: float(best[x]), y: float(best[y])})
        if S.TUNE_APPLIED.get() == (id(T), bi, bj, "button"):
            st.success(f"Sliders set to the best point: {SYMBOL[x]} = {best[x]:g}, "
                       f"{SYMBOL[y]} = {best[y]:g}. Press Run (or let auto-run apply it).")
    if bad.any():
        st.caption(f"Grey cells marked “empty on a of b” selected nothing on a of the b inner "
                   "folds: they cannot be scored on every fold, so they are left out of the "
                   f"colour scale and are never the best point ({int(bad.sum())} of "
                   f"{bad.size}).")
    which = L.metric
    if known:
        which = st.radio("Show", [L.metric, "truth_f1"], horizontal=True, key="tune_show",
                         format_func=lambda v: TRUTH_F1 if v == "truth_f1" else v,
                         help=TRUTH_HELP)
    event = st.plotly_chart(landscape_heatmap(L, which, current, best=cell, unusable=bad,
                                              unusable_text=bad_words),
                            key="tune_chart", on_select="rerun", selection_mode="points")
    _apply_on_click(event, L, S.TUNE_APPLIED, id(T))
    with st.expander("The grid as a table"):
        st.dataframe(T.grid, hide_index=True, width="stretch")
        st.download_button("Download (CSV)", data=T.grid.to_csv(index=False),
                           file_name=f"camcf-tune-{x}-{y}.csv", mime="text/csv",
                           on_click="ignore", key="tune_csv")


if tab_count.open is not False:
    with tab_count:
        landscape_tab()
if tab_tune.open:
    with tab_tune:
        tune_tab()

"""Evaluation: ML-kNN with the paper's seven metrics — all features vs Ca-MCF, the ablation by
phase, and parameter sensitivity heatmaps.

What this page reads from ``st.session_state`` (written by ``app.py``):

``run`` — the frame's ``RunRecord``: ``run.data.dataset`` (the raw :class:`camcf.Dataset`),
``run.data.fingerprint``, ``run.data.description``, ``run.disc`` (``mode``, ``bins``,
``strategy``), ``run.params`` (Ca-MCF's parameters) and ``run.result`` (the
:class:`camcf.Result`).

What it writes: ``eval_key`` / ``sens_key`` — the keys of the last evaluation and sensitivity
study shown. Their results live in a bounded per-process store (see ``_store``).

Nothing here computes an algorithm: both studies run as jobs (:mod:`pages._jobs`) of
:func:`camcf.studies.run_evaluation` and :func:`camcf.studies.run_sensitivity`, each with its
estimated cost shown before it starts, progress, a remaining time and a Stop button; the page
builds its tables with :mod:`camcf.evaluation.display` and draws. Honest display: every value
is mean ± SD over splits; where Ca-MCF selected nothing on some splits the table says on how
many, and a mean over fewer splits than the baseline's says so ("n = a of b"). Each fold is discretised on its training rows with the
frame's discretisation settings; Ca-MCF re-selects on each training part with the frame's
parameters, so the test rows never influence the selection.

Caching: results are kept per (data fingerprint, discretisation, parameters, evaluation
settings) in an ``st.cache_resource`` LRU (``_store``); a job's result is put there when it
arrives. The ML-kNN cache of both studies goes to the job and comes back filled.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from camcf import studies
from camcf.algorithm_params import by_name
from camcf.errors import ParameterError
from camcf.evaluation import (
    KNN_PARAMS,
    METRICS,
    KnnCache,
    sensitivity_matrix,
    sensitivity_summary,
)
from camcf.evaluation.display import metrics_table as display_table
from camcf.lru import BoundedLRU
from camcf.viz.evaluation_figures import ablation_lines, metrics_radar, sensitivity_heatmap
from camcf.viz.explain import plural
from pages import _jobs as jobs_ui
from pages import _state as S
from pages._common import current_run
from pages._kept import set_aside_note
from pages._study_settings import study_settings

SET_NAMES = {
    "all": "All features",
    "phase2": "After Phase 2",
    "phase3": "After Phase 3",
    "phase4": "After Phase 4",
    "camcf": "Ca-MCF (re-selected per split)",
    "current": "Current selection as is",
}
#: Short names on the ablation chart's x axis.
SHORT_NAMES = {"all": "All", "phase2": "Phase 2", "phase3": "Phase 3", "phase4": "Phase 4",
               "camcf": "Ca-MCF"}
STORE_ENTRIES = 8


@st.cache_resource(show_spinner=False)
def _store() -> BoundedLRU:
    return BoundedLRU(STORE_ENTRIES)


@st.cache_resource(show_spinner=False)
def _knn_cache() -> BoundedLRU:
    """One ML-kNN cache per (fingerprint, discretisation, splits): shared by both studies."""
    return BoundedLRU(STORE_ENTRIES)


def _csv(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode("utf-8")


def _download(label: str, frame: pd.DataFrame, name: str, key: str) -> None:
    st.download_button(label, _csv(frame), file_name=name, mime="text/csv", key=key,
                       on_click="ignore", icon=":material/download:")


def _values(*values: float) -> str:
    """A grid's default text: the distinct values in increasing order."""
    return ", ".join(f"{v:g}" for v in sorted({float(v) for v in values}))


def _floats(text: str, name: str) -> list[float]:
    """The grid values of Ca-MCF parameter ``name`` typed as ``text``, each checked against its
    declaration (:data:`camcf.algorithm_params.ALGORITHM_PARAMS`)."""
    decl = by_name()[name]
    try:
        values = [float(v) for v in text.replace(";", ",").split(",") if v.strip()]
    except ValueError:
        raise ValueError(f"{decl.label}: give numbers separated by commas, e.g. 0.01, 0.05"
                         ) from None
    if not values:
        raise ValueError(f"{decl.label}: give at least one value")
    for v in values:
        try:
            decl.validate(v)
        except ParameterError as e:
            raise ValueError(f"{decl.label}: {v:g} is outside {e.allowed}") from None
    return sorted(set(values))


def _cache_key(rec, settings: dict) -> tuple:
    return (rec.data.fingerprint, tuple(sorted(rec.disc.items())),
            tuple(sorted((k, v) for k, v in settings.items()
                         if k not in {p.name for p in KNN_PARAMS})))


def _cache_for_key(cache_key: tuple) -> KnnCache:
    return _knn_cache().get_or_put(cache_key, KnnCache)


def _run_study(slot: str, shown, study_key, fn, kwargs: dict, *, title: str, estimate,
               cache_key, what: str) -> None:
    """Show ``study_key``'s stored result (``shown``: the state key of the result shown), or
    start ``fn`` as this page's job in ``slot`` (continuing a stopped start of the same key
    from what it finished); a finished job keeps its result and its filled ML-kNN cache."""
    stored = _store().get(study_key)
    if stored is not None and not stored.get("partial"):
        shown.set(study_key)
        jobs_ui.show_kept(slot)
    else:
        jobs_ui.start(slot, fn, {**kwargs, "cache": _cache_for_key(cache_key),
                                 "resume": stored},
                      title=title, estimate=estimate,
                      key=(study_key, cache_key, rec.data.description, what))


def _study(slot: str, shown, study_key, fn, kwargs: dict, *, label: str, button: str,
           primary: bool, title: str, estimate, cache_key, first: str, stale: str, what: str,
           words, disabled: bool = False) -> dict | None:
    """One study's start button, its job and the result shown: the stored result of the key
    ``shown`` holds (with ``stale`` when it is for other settings than ``study_key``; a note
    that it is set aside, not drawn, when it is of other data), else ``first`` as a hint
    (None is returned). ``words(partial)``: what a stopped study's finished part holds."""
    stored = _store().get(study_key)
    if stored is not None and stored.get("partial"):
        label = f"Continue ({words(stored)})"
    if st.button(label, type="primary" if primary else "secondary", key=button,
                 disabled=disabled or jobs_ui.running(slot)):
        _run_study(slot, shown, study_key, fn, kwargs, title=title, estimate=estimate,
                   cache_key=cache_key, what=what)
    jobs_ui.follow(slot, _done(shown), on_partial=_stopped(shown, words))
    key = shown.get()
    result = _store().get(key) if key is not None else None
    if result is not None and (key[1], key[2]) != here:  # computed on other data
        set_aside_note(S.Kept(data=(key[1], key[2]), source=result["source"],
                              what=result["what"], request=key, result=None,
                              partial=bool(result.get("partial"))), rec)
        result = None
    if result is None:
        if not jobs_ui.running(slot):
            st.info(first)
        return None
    if key != study_key:
        st.warning(stale, icon=":material/update:")
    if result.get("partial"):
        st.warning(f"Partial: the study was stopped; what it finished is shown "
                   f"({words(result)}). Press **Continue** to do the rest; the finished part is "
                   "not done again.", icon=":material/timelapse:")
    return result


def _done(shown):
    """``on_result`` of a study's job: keep the result (with the data it was computed on) and
    the ML-kNN cache it filled."""
    def keep(result: dict, key) -> None:
        study_key, cache_key, source, what = key
        _knn_cache().put(cache_key, result.pop("cache"))
        _store().put(study_key, {**result, "source": source, "what": what})
        shown.set(study_key)

    return keep


def _stopped(shown, words):
    """``on_partial`` of a study's job: keep the part a stopped study finished."""
    def keep(result: dict, key) -> str:
        study_key, _, source, what = key
        _store().put(study_key, {**result, "source": source, "what": what, "partial": True})
        shown.set(study_key)
        return f"{words(result)} kept and shown (partial)"

    return keep


# ------------------------------------------------------------------------------------------------
rec = current_run()
here = S.data_id(rec)
ds = rec.data.dataset
res = rec.result

st.title("Evaluation")
st.caption(
    "ML-kNN (Zhang & Zhou) on the selected features, scored with the paper's seven metrics. "
    "Each split is discretised on its training rows, and Ca-MCF re-selects on each training "
    "part with the sidebar's parameters, so the test rows never influence the selection.")

settings = study_settings(S.EV_SETTING, st.columns(4))
base_key = (rec.data.fingerprint, tuple(sorted(rec.disc.items())),
            tuple(sorted(rec.params.items())), tuple(res.selected_indices.tolist()))
eval_key = ("eval", *base_key, tuple(sorted(settings.items())))
current = tuple(int(i) for i in res.selected_indices)
times = jobs_ui.classify_times(rec, k=int(settings["k"]), neighbours=str(settings["neighbours"]))
eval_estimate = studies.evaluation_estimate(
    ds.X, ds.Y, settings=settings, run_seconds=float(res.stats.get("seconds", 0.0)),
    feature_sets={**{ph: tuple(res.selected_after(ph).tolist()) for ph in ("phase2", "phase3",
                                                                           "phase4")},
                  "camcf": current},
    times=times, current=len(current))
jobs_ui.show_estimate(eval_estimate, what="The evaluation")
ev = _study("evaluation", S.EVAL_KEY, eval_key, studies.run_evaluation,
            {"X": ds.X, "Y": ds.Y, "disc": dict(rec.disc), "params": dict(rec.params),
             "settings": settings, "current": current},
            label="Evaluate", button="ev_run", primary=True, title="The evaluation",
            estimate=eval_estimate, cache_key=_cache_key(rec, settings),
            first="Press **Evaluate** to classify with ML-kNN on every split "
                  f"({ds.n_samples:,} rows, {ds.n_features:,} features).",
            stale="These results are for other settings (parameters or protocol); "
                  "press **Evaluate** to update them.", what="the evaluation",
            words=lambda r: f"{len(r['splits_done'])} of {r['n_splits']} splits done")
if ev is not None:
    summary = ev["summary"]
    by = summary.set_index(["feature_set", "metric"])
    sets = list(dict.fromkeys(summary["feature_set"]))

    st.subheader("All features vs the selection")
    cols = st.columns(4)
    first = next(iter(METRICS))
    camcf_row = by.loc[("camcf", first)]
    n_empty, n_splits = int(camcf_row["n_empty"]), int(camcf_row["n_splits"])
    cols[0].metric("Features (Ca-MCF, mean over splits)",
                   f"{camcf_row['n_features']:,.1f} of {ds.n_features:,}")
    cols[1].metric("Ca-MCF time per split", f"{camcf_row['seconds']:.2f} s")
    cols[2].metric(f"Splits ({ev['n_test']:,} test rows each)",
                   f"{len(ev['splits_done']):,} of {ev['n_splits']:,}" if ev.get("partial")
                   else f"{ev['n_splits']:,}")
    cols[3].metric("Splits where Ca-MCF selected nothing", f"{n_empty:,} of {n_splits:,}")
    if n_empty:
        st.warning(f"Ca-MCF selected no feature on {n_empty:,} of {plural(n_splits, 'split')}: "
                   "those splits have no Ca-MCF value, so its means are over the other "
                   f"{plural(n_splits - n_empty, 'split')} only (marked “n = … of …” below), while "
                   "all features are scored on every split. Lower δ1 or raise k1/k2.",
                   icon=":material/warning:")

    shown_sets = [s for s in ("all", "camcf", "current") if s in sets]
    metrics_table = display_table(summary, shown_sets, SET_NAMES, n_total=ds.n_features)
    st.dataframe(metrics_table, hide_index=True, width="stretch", key="ev_metrics_table")
    st.caption("Mean ± sample SD over splits; “(n = a of b)”: over the a splits where the set "
               "was not empty. *Current selection as is* uses the features the sidebar run "
               "selected on **all** rows, test rows included: it is optimistic and shown only "
               "for comparison.")

    radar = metrics_radar(by, shown_sets, SET_NAMES)
    left, right = st.columns([1, 1])
    with left:
        st.plotly_chart(radar, key="ev_radar")
        st.caption("Radar: HL, Cov and RL are drawn as 1 − value, so outward is better.")
    with right:
        st.markdown("**Downloads**")
        _download("Metrics table (CSV)", metrics_table, "metrics.csv", "dl_metrics")
        _download("Summary over splits (CSV)", summary, "evaluation_summary.csv", "dl_summary")
        _download("Every split (tidy CSV)", ev["frame"], "evaluation_splits.csv", "dl_splits")

    st.subheader("Ablation by phase")
    st.caption("The union over categories of the features present after each phase, each "
               "classified on the same splits (the paper's ablation figure). Phase 1 builds "
               "the label skeleton and selects no feature; *All features* is the start.")
    order = [s for s in ("all", "phase2", "phase3", "phase4", "camcf") if s in sets]
    ab = summary[summary["feature_set"].isin(order)].copy()
    ab["set"] = ab["feature_set"].map(SET_NAMES)
    ab["stage"] = ab["feature_set"].map(SHORT_NAMES)
    ab["metric name"] = ab["metric"].map(lambda m: METRICS[m]["name"])
    fig = ablation_lines(ab, [SHORT_NAMES[s] for s in order])
    st.plotly_chart(fig, key="ev_ablation")
    ab_table = display_table(summary, order, SET_NAMES, n_total=ds.n_features)
    st.dataframe(ab_table, hide_index=True, width="stretch", key="ev_ablation_table")
    _download("Ablation table (CSV)", ab_table, "ablation.csv", "dl_ablation")

# ------------------------------------------------------------------------------------------------
st.subheader("Parameter sensitivity")
st.caption("Two grids on the same splits, the other parameters fixed at the sidebar's values: "
           "δ1 × k1 and δ2 × k2 (the paper's sensitivity figure). Each grid point re-selects "
           "on every training part; identical feature sets are classified once.")
p = rec.params
c1, c2 = st.columns(2)
d1_text = c1.text_input("δ1 values (bits)", _values(0.01, 0.02, p["delta1"], 0.1), key="sens_d1")
k1_text = c1.text_input("k1 values", "0.1, 0.3, 0.5, 0.7, 1.0", key="sens_k1")
d2_text = c2.text_input("δ2 values (bits)", _values(0.05, p["delta2"], 0.2), key="sens_d2")
k2_text = c2.text_input("k2 values", "0.3, 0.6, 1.0", key="sens_k2")

def _grid_words(r: dict) -> str:
    """How many points of each sensitivity grid a (partial) result holds."""
    parts = []
    for name, grid in (grids or {}).items():
        have = len(r[name][list(grid)].drop_duplicates()) if name in r else 0
        parts.append(f"{name}: {have} of {np.prod([len(v) for v in grid.values()])} points")
    return "; ".join(parts)


sens_key = None
try:
    grids = {
        "δ1 × k1": {"delta1": _floats(d1_text, "delta1"), "k1": _floats(k1_text, "k1")},
        "δ2 × k2": {"delta2": _floats(d2_text, "delta2"), "k2": _floats(k2_text, "k2")},
    }
    sens_key = ("sens", *base_key, tuple(sorted(settings.items())),
                tuple((n, tuple((k, tuple(v)) for k, v in g.items())) for n, g in grids.items()))
except ValueError as e:
    st.error(str(e), icon=":material/error:")
    grids = None

sens_estimate = None
if grids is not None:
    sens_estimate = studies.sensitivity_estimate(
        ds.X, ds.Y, settings=settings, grids=grids,
        run_seconds=float(res.stats.get("seconds", 0.0)), n_selected=len(current), times=times)
    jobs_ui.show_estimate(sens_estimate, what="The sensitivity study")
sens = _study("sensitivity", S.SENS_KEY, sens_key, studies.run_sensitivity,
              {"X": ds.X, "Y": ds.Y, "disc": dict(rec.disc), "params": dict(rec.params),
               "settings": settings, "grids": grids},
              label="Run sensitivity", button="sens_run", primary=False,
              title="The sensitivity study", estimate=sens_estimate,
              cache_key=_cache_key(rec, settings), disabled=grids is None,
              first="Press **Run sensitivity** to compute both grids "
                    "(Protocol and ML-kNN settings are those above).",
              stale="These heatmaps are for other settings; press **Run sensitivity** to "
                    "update them.", what="the sensitivity grids",
              words=_grid_words)
if sens is not None:
    c1, c2 = st.columns([1, 1])
    metric = c1.selectbox("Metric", list(METRICS), format_func=lambda m: METRICS[m]["name"],
                          key="sens_metric")
    show = c2.radio("Show", ["metric", "number of features"], horizontal=True, key="sens_show")
    hib = METRICS[metric]["higher_is_better"]
    cols = st.columns(2)
    for col, (name, axes) in zip(cols, [("δ1 × k1", ("delta1", "k1")),
                                        ("δ2 × k2", ("delta2", "k2"))], strict=True):
        if name not in sens:  # a stopped study that had not reached this grid
            col.info(f"{name}: not computed yet (the study was stopped before it).")
            continue
        frame = sens[name]
        value = "mean" if show == "metric" else "n_features"
        mat = sensitivity_matrix(frame, metric, axes[0], axes[1], value=value)
        title = METRICS[metric]["name"] if show == "metric" else "features selected"
        heat = sensitivity_heatmap(mat, name, title, axes[0], axes[1],
                                   higher_is_better=hib, is_metric=value == "mean")
        with col:
            st.plotly_chart(heat, key=f"sens_heat_{axes[0]}")
            _download(f"{name} grid (tidy CSV)", frame, f"sensitivity_{axes[0]}_{axes[1]}.csv",
                      f"dl_sens_{axes[0]}")
            _download(f"{name} summary (CSV)", sensitivity_summary(frame),
                      f"sensitivity_{axes[0]}_{axes[1]}_summary.csv", f"dl_sens_sum_{axes[0]}")
    st.caption(f"Mean over splits; brighter is better for the metric. Sensitivity took "
               f"{sens['seconds']:.1f} s. Empty cells: no feature selected on any split; a cell where "
               "some splits selected nothing averages the others (see the tidy CSV).")

"""Compare methods: Ca-MCF beside the baselines and references on the same splits.

Reads ``st.session_state["run"]`` (app.py's RunRecord: the data, the discretisation and the
sidebar's Ca-MCF parameters). The comparison runs as a job (:func:`camcf.studies.run_compare`
through :mod:`pages._jobs`: every chosen method's estimated cost before it starts — from its
measured cost model, :func:`camcf.studies.method_seconds` —, progress method by method with a
fixed step total, a remaining time, a Stop that keeps the finished methods and selections,
a start again that continues from them; MI-MCF with a time budget per split), which calls
:func:`camcf.evaluation.compare_data_sets`; :func:`camcf.evaluation.friedman_over_data_sets`
compares two or more data sets; tables come from :mod:`camcf.evaluation.display`, figures
from :mod:`camcf.viz.comparison`. The default method set fits the data's size (the methods
that would take minutes are named, not chosen); a choice of one's own is kept across pages and
data. The comparison is kept with the data it was computed on (never drawn on other data).
The page only draws.
"""

from __future__ import annotations

import json
import os

import numpy as np
import streamlit as st

from camcf import catalog, methods, stats, studies
from camcf.estimates import format_seconds
from camcf.evaluation import METRICS, binarize_labels, friedman_over_data_sets
from camcf.evaluation.display import metrics_table
from camcf.evaluation.reports import comparison_frame, comparison_payload
from camcf.evaluation.settings import parse_n_features
from camcf.viz.comparison import cd_diagram, mean_ranks, normalised_radar, split_ranks_heatmap
from camcf.viz.explain import plural
from pages import _jobs as jobs_ui
from pages import _state as S
from pages._common import current_run
from pages._kept import set_aside_note
from pages._study_settings import study_settings

CURRENT = "(current data)"
#: seconds MI-MCF may spend on one split before that split is recorded as failed
#: (``CAMCF_MIMCF_BUDGET``)
MIMCF_BUDGET = float(os.environ.get("CAMCF_MIMCF_BUDGET", "600"))
#: seconds a method may take on the current data (all splits) to be chosen by default
FITS = 60.0


def _kept(result: dict, key, *, partial: bool) -> S.Kept:
    """A comparison (finished, or the part a stop kept) as kept: the tables of its finished
    methods, and (partial) what a start again continues from."""
    comparisons = {k: v for k, v in result["comparisons"].items() if v.kinds}
    settings = dict(key["settings"], seconds_total=result["seconds"])
    done = sorted({m for c in comparisons.values() for m in c.kinds},
                  key=key["methods"].index)
    value = {"comparisons": comparisons, "methods": done, "settings": settings,
             "payload": (comparison_payload(comparisons, {m: result["used"][m] for m in done},
                                            settings, {}) if comparisons else None),
             "table": comparison_frame(comparisons) if comparisons else None,
             "resume": result if partial else None}
    return S.Kept(data=key["data"], source=key["source"], what=key["what"],
                  request=key["request"], result=value, partial=partial)


def _compare_done(result: dict, key) -> None:
    S.CMP_RESULT.set(_kept(result, key, partial=False))


def _compare_stopped(result: dict, key) -> str:
    kept = _kept(result, key, partial=True)
    S.CMP_RESULT.set(kept)
    made = len(result.get("selections") or {})
    names = ", ".join(methods.display(m) for m in kept.result["methods"]) or "none yet"
    return f"its finished methods ({names}) and its {made} finished selections are kept"


@st.cache_data(max_entries=8, show_spinner=False)
def _label_columns(fingerprint: str, _Y) -> int:
    """Binary label columns ML-kNN sees (multi-class labels one-hot)."""
    return int(binarize_labels(np.asarray(_Y))[0].shape[1])


@st.cache_resource(max_entries=16,
                   show_spinner="Reading the data set and timing ML-kNN on it for the estimate…")
def _shared_facts(name: str, disc: tuple, k: int, neighbours: str) -> tuple:
    """A shared data set's shape (n, m, q_bin) and ML-kNN timed on a sample of it."""
    sds = catalog.load_shared(name)
    q_bin = binarize_labels(np.asarray(sds.Y))[0].shape[1]
    times = studies.measure_classification(sds.X, sds.Y, disc=dict(disc), k=k,
                                           neighbours=neighbours)
    return (sds.n_samples, sds.n_features, q_bin), times


rec = current_run()
ds = rec.data.dataset
here = S.data_id(rec)
st.title("Compare methods")
st.caption("Every chosen method selects on the training part of each split (discretised on that "
           "part only) and ML-kNN classifies the test part, with the paper's seven metrics. "
           "Ranking methods keep as many features as Ca-MCF selected on the same split (the "
           "paper's protocol) unless you fix a number. Ca-MCF uses the sidebar's parameters.")

avail = methods.available()
missing = methods.unavailable()
shared = catalog.available()
# what each method would take on the current data (every split), with the protocol as set
now = {name: key.get() for name, key in S.CMP_SETTING.items()}
cost = studies.compare_costs(
    (ds.n_samples, ds.n_features, _label_columns(rec.data.fingerprint, ds.Y)), avail,
    settings=now, run_seconds=float(rec.result.stats.get("seconds", 0.0)),
    n_selected=int(rec.result.selected_indices.size),
    times=jobs_ui.classify_times(rec, k=int(now["k"]), neighbours=str(now["neighbours"])),
    budgets={"mi-mcf": MIMCF_BUDGET})
default = [m for m in methods.defaults()
           if m != "random" and (m == "camcf" or cost[m] <= FITS)] or avail
offered = S.CMP_DEFAULT.get()
if S.CMP_METHODS.has() and offered is not None and offered["data"] != here and \
        list(S.CMP_METHODS.get()) == list(offered["methods"]) and default != offered["methods"]:
    # the user kept the default: the default of these data replaces it, said below
    S.CMP_METHODS.set(list(default))
    st.info(f"The methods chosen by default follow the data: on {rec.data.description} they "
            f"are {', '.join(methods.display(m) for m in default)} (before: "
            f"{', '.join(methods.display(m) for m in offered['methods'])}). A choice of your "
            "own is kept when the data change.", icon=":material/rule:")
S.CMP_DEFAULT.set({"data": here, "methods": list(default)})
c1, c2 = st.columns([2, 1])
chosen = c1.multiselect("Methods", avail, format_func=methods.display,
                        key=S.CMP_METHODS.init(list(default)),
                        help=f"By default, the methods that take at most {format_seconds(FITS)} "
                             "on these data (every split).")
slow = {m: cost[m] for m in avail if cost[m] > FITS}
if slow:
    words = "; ".join(f"{methods.display(m)} about {format_seconds(v)}"
                      + (" (chosen)" if m in chosen else "") for m, v in
                      sorted(slow.items(), key=lambda kv: -kv[1]))
    st.caption(f"Would take minutes on {rec.data.description} (every split, selection and "
               f"classification; not chosen by default): {words}.")
cut = c2.text_input("Ranking methods keep", "match", key="cmp_cut",
                    help="'match': as many features as Ca-MCF selected on the split; or a "
                         "number of features")
sets = st.multiselect("Data sets (two or more: Friedman test and CD diagrams)",
                      [CURRENT, *shared], default=[CURRENT], key="cmp_sets")
settings = study_settings(S.CMP_SETTING, st.columns(4))
k, neighbours = settings["k"], settings["neighbours"]
if missing:
    st.caption("Not available here: " + "; ".join(
        f"{methods.display(n)}" for n in missing) + " (their modules are not installed).")

problem = None
n_features = "match"
try:
    if len(chosen) < 2:
        raise ValueError("choose at least two methods")
    if not sets:
        raise ValueError("choose at least one data set")
    n_features = parse_n_features(cut, name="“Ranking methods keep”")
    if n_features == "match" and "camcf" not in chosen and any(
            methods.kind(m) == "ranking" for m in chosen):
        raise ValueError("'match' cuts rankings to Ca-MCF's selection size: add Ca-MCF or "
                         "give a number of features")
except ValueError as e:
    problem = str(e)

settings["n_features"] = n_features
budgets = {"mi-mcf": MIMCF_BUDGET} if "mi-mcf" in chosen else {}
estimate = None
if problem is None:
    shapes, times, run_seconds = {}, {}, {}
    disc_items = tuple(sorted(rec.disc.items()))
    for name in sets:
        if name == CURRENT:
            label = rec.data.description
            shapes[label] = (ds.n_samples, ds.n_features, _label_columns(rec.data.fingerprint,
                                                                         ds.Y))
            times[label] = jobs_ui.classify_times(rec, k=int(k), neighbours=neighbours)
            run_seconds[label] = float(rec.result.stats.get("seconds", 0.0))
        else:
            shapes[name], times[name] = _shared_facts(name, disc_items, int(k), neighbours)
    estimate = studies.compare_estimate(
        shapes, methods=chosen, settings=settings, run_seconds=run_seconds,
        n_selected=int(rec.result.selected_indices.size), times=times, budgets=budgets)
    jobs_ui.show_estimate(estimate, what="The comparison")

request = (list(chosen), list(sets), {**settings, "discretization": dict(rec.disc),
                                        "camcf_params": dict(rec.params), "budgets": budgets})
stored = S.CMP_RESULT.get()
mine = stored is not None and stored.belongs_to(rec)
resume = (stored.result["resume"] if mine and stored.partial and stored.request == request
          else None)
label = ("Compare" if resume is None else
         f"Continue the comparison ({len(stored.result['methods'])} of {len(chosen)} methods "
         "done)")
if st.button(label, type="primary", key="cmp_run", disabled=jobs_ui.running("compare")):
    if problem is not None:
        st.error(f"The comparison could not run: {problem}", icon=":material/error:")
    else:
        data = {(rec.data.description if name == CURRENT else name):
                ((ds.X, ds.Y) if name == CURRENT else None) for name in sets}
        key = {"methods": list(chosen), "settings": request[2], "request": request,
               "data": here, "source": rec.data.description,
               "what": f"the comparison of {len(chosen)} methods"}
        jobs_ui.start("compare", studies.run_compare,
                      {"data": data, "methods": list(chosen), "ca_params": dict(rec.params),
                       "settings": settings, "disc": dict(rec.disc), "budgets": budgets,
                       "resume": resume},
                      title="The comparison", estimate=estimate, key=key)
jobs_ui.follow("compare", _compare_done, on_partial=_compare_stopped)

kept = S.CMP_RESULT.get()
if kept is not None and not kept.belongs_to(rec):
    set_aside_note(kept, rec)
    kept = None
if kept is None or not kept.result["comparisons"]:
    if not jobs_ui.running("compare"):
        st.info("Choose methods and a protocol, then press **Compare**.")
    st.stop()
res = kept.result
if kept.request != request:
    st.caption("The methods, the data sets, the protocol or the current run changed since this "
               "comparison; press **Compare** to update it.")
if kept.partial:
    st.warning(f"Partial: the comparison was stopped; the methods finished before the stop are "
               f"shown ({', '.join(methods.display(m) for m in res['methods'])}). Press "
               "**Continue the comparison** to do the others: the finished methods and "
               "selections are not done again.", icon=":material/timelapse:")

comparisons = res["comparisons"]
names = {m: methods.display(m) for m in res["methods"]}
metric = st.selectbox("Metric for ranks and CD diagrams", list(METRICS),
                      format_func=lambda m: METRICS[m]["name"], key="cmp_metric")
for ds_name, cmp in comparisons.items():
    st.subheader(ds_name)
    table = metrics_table(cmp.summary, list(cmp.kinds), names)
    st.dataframe(table, hide_index=True, width="stretch", key=f"cmp_table_{ds_name}")
    ranking = [names[m] for m, kd in cmp.kinds.items() if kd == "ranking"]
    st.caption("Mean ± sample SD over splits. “(n = a of b)”: the mean is over the a splits "
               "where the method selected something; compare such a cell with care."
               + (f" Ranking methods: {', '.join(ranking)}." if ranking else ""))
    for m, fails in cmp.failures.items():
        st.warning(f"{names[m]} failed on {plural(len(fails), 'split')}: {fails[0][1]}",
                   icon=":material/warning:")
    if len(comparisons) == 1:
        ranks = cmp.split_ranks(metric).rename(columns=names)
        left, right = st.columns([3, 2])
        left.plotly_chart(split_ranks_heatmap(
            ranks, f"{METRICS[metric]['name']}: rank per split (1 = best)"),
            key=f"cmp_ranks_{ds_name}")
        right.dataframe(mean_ranks(ranks), hide_index=True, key=f"cmp_meanrank_{ds_name}")
        right.caption("One data set: per-split ranks. The Friedman test and CD diagrams "
                      "compare methods over data sets; choose two or more.")
        if len(cmp.sets) >= 2:
            fs = cmp.friedman_over_splits(metric)
            cd = stats.critical_difference(len(ranks.columns), len(cmp.sets))
            control = names.get("camcf") if "camcf" in cmp.kinds else None
            st.plotly_chart(cd_diagram(dict(zip(ranks.columns, fs.average_ranks, strict=True)),
                                       cd, control=control,
                                       title=f"{METRICS[metric]['name']}, splits as blocks"),
                            key=f"cmp_cd_splits_{ds_name}")
            st.caption(f"Indicative only: the {len(cmp.sets):,} splits share rows, so they are not "
                       f"the independent data sets the test assumes. F_F = "
                       f"{fs.iman_davenport:.3f} (critical value {fs.critical_value:.3f}).")
    radar_means = cmp.summary.pivot(index="feature_set", columns="metric", values="mean")
    radar_means.index = [names.get(i, i) for i in radar_means.index]
    st.plotly_chart(normalised_radar(radar_means, highlight=names.get("camcf")),
                    key=f"cmp_radar_{ds_name}")

if len(comparisons) >= 2:
    st.subheader("Significance over data sets")
    fr = friedman_over_data_sets(comparisons)
    shown = fr[["metric", "chi2", "iman_davenport", "critical_value", "p_value", "significant",
                "cd"]].copy()
    shown["metric"] = shown["metric"].map(lambda m: METRICS[m]["name"])
    st.dataframe(shown.rename(columns={"iman_davenport": "F_F", "chi2": "χ²_F",
                                       "critical_value": "critical value (α = 0.05)",
                                       "cd": "CD (Bonferroni–Dunn)"}),
                 hide_index=True, width="stretch", key="cmp_friedman")
    row = fr.set_index("metric").loc[metric]
    ranks = {names[m]: row[f"rank:{m}"] for m in res["methods"]}
    control = names.get("camcf") if "camcf" in res["methods"] else None
    cd = row["cd"] if control else stats.critical_difference(
        len(ranks), len(comparisons), test="nemenyi")
    st.plotly_chart(cd_diagram(ranks, cd, control=control, title=METRICS[metric]["name"]),
                    key="cmp_cd")
    if int(fr["filled"].sum()):
        st.caption("A method without any value on a data set (nothing selected) is ranked last "
                   "there.")

st.markdown("**Downloads**")
d1, d2 = st.columns(2)
d1.download_button("Summary (CSV)", res["table"].to_csv(index=False).encode(),
                   "comparison.csv", "text/csv", on_click="ignore", key="cmp_dl_csv")
d2.download_button("Everything (JSON)", json.dumps(res["payload"], indent=1,
                                                    ensure_ascii=False).encode(),
                   "comparison.json", "application/json", on_click="ignore", key="cmp_dl_json")

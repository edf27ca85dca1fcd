"""Overview: the data, the parameters, the selected features, the flow through the phases and,
on data with a known truth (the demo, a known network), found vs true: per label and per
category."""

import streamlit as st

from camcf.diagnosis import diagnose, is_close
from camcf.viz import figures, story, summary
from camcf.viz.style import COLORS
from pages import _jobs as jobs_ui
from pages import _state as S
from pages._common import current_run, paged, pick_target, run_with
from pages._kept import set_aside_note


def truth_curve() -> None:
    """F1 against n: the network the data came from, sampled again at several n (a job)."""
    from camcf.evaluation.truth_study import (
        METHODS,
        f1_figure,
        run_truth_curve,
        truth_curve_estimate,
    )

    st.subheader("F1 against n")
    st.caption("How far to trust a structure at your n: the network sampled again at each n "
               "(seeds 0 … K−1), every chosen method run on every sample and scored against "
               "the truth as above (F1 per label, mean over labels; ± SD over seeds). "
               "“Ca-MCF (current)” uses the sidebar's parameters.")
    src = rec.data.source
    network = (src.get("network") or "demo") if src.get("bif") is None else \
        (src["bif"], src["filename"])
    offered = ["current", *METHODS]
    c1, c2, c3 = st.columns([3, 2, 1])
    chosen = c1.multiselect("Methods", offered, key=S.TC_METHODS.init(),
                            format_func=lambda m: "Ca-MCF (current)" if m == "current"
                            else METHODS[m].display)
    ns_text = c2.text_input("n", key=S.TC_NS.init(), help="sample sizes, comma-separated")
    seeds = c3.number_input("seeds", 1, 20, key=S.TC_SEEDS.init())
    try:
        ns = sorted({int(v) for v in ns_text.replace(" ", "").split(",") if v})
        if not ns or min(ns) < 10 or max(ns) > 100_000:
            raise ValueError
    except ValueError:
        st.error("n: give sample sizes between 10 and 100,000, comma-separated (250,500,1000)",
                 icon=":material/error:")
        return
    if not chosen:
        st.info("Choose at least one method.")
        return
    kwargs = {"network": network, "labels": ",".join(ds.label_names), "ns": ns,
              "seeds": int(seeds), "methods": list(chosen), "ca_params": dict(rec.params)}
    request = (rec.data.fingerprint, tuple(ns), int(seeds), tuple(chosen),
               tuple(sorted(rec.params.items())))
    estimate = truth_curve_estimate(**kwargs)
    jobs_ui.show_estimate(estimate, what="F1 against n")
    stored = S.TRUTH_CURVE.get()
    have = stored is not None and stored.request == request
    if st.button("Compute F1 against n", key="tc_go", type="primary",
                 disabled=have or jobs_ui.running("truth_curve")):
        jobs_ui.start("truth_curve", run_truth_curve, kwargs, title="F1 against n",
                      estimate=estimate, key=(request, S.data_id(rec), rec.data.description))
    if have and not jobs_ui.running("truth_curve"):
        jobs_ui.show_kept("truth_curve")
    jobs_ui.follow("truth_curve", lambda result, key: S.TRUTH_CURVE.set(S.Kept(
        data=key[1], source=key[2], what="the F1-against-n figure", request=key[0],
        result=result)))
    stored = S.TRUTH_CURVE.get()
    if stored is None:
        return
    if not stored.belongs_to(rec):
        set_aside_note(stored, rec)
        return
    if stored.request != request:
        st.caption("The choices or the run changed since this figure; press Compute to "
                   "update it.")
    payload = stored.result
    st.plotly_chart(f1_figure(payload, next(iter(payload["networks"]))), key="ov_truth_curve")


rec = current_run()
res = rec.result
ds = rec.data.dataset

st.title("Ca-MCF explorer")
st.caption("Category-level multi-label causal feature selection: which features matter for "
           "which label category, and why. Every decision is recorded; the pages on the left "
           "show each phase.")

c1, c2, c3, c4 = st.columns(4)
c1.metric("Selected features", f"{res.selected_indices.size:,} of {res.n_features:,}")
c2.metric("Label categories run",
          f"{len(res.targets) - len(res.skipped):,} of {len(res.targets):,}")
c3.metric("Tests recorded", f"{res.n_tests:,}")
c4.metric("Run time", f"{res.stats.get('seconds', 0):.2f} s")

# an empty or poor result explains itself (camcf.diagnosis counts the record's sets)
diag = diagnose(res, significance=float(S.PARAM["significance"].get()))
if diag.poor:
    with st.container(border=True, key="ov_diagnosis"):
        st.subheader("Why no feature was selected" if diag.selected == 0 else
                     "Why so few features were selected")
        st.markdown("\n".join(f"- {s}" for s in diag.sentences))
        sug = diag.suggested_params()
        if sug and not all(is_close(sug[k], res.params[k]) for k in sug):
            if st.button(f"Run with the suggested δ1 = {sug['delta1']:.4g}, δ2 = "
                         f"{sug['delta2']:.4g}", key="ov_apply_suggestion", type="primary",
                         help="Puts these numbers into the sidebar's δ1 and δ2 and runs."):
                run_with(sug)
        elif sug:
            st.caption("This run already uses the suggested thresholds; the step named above "
                       "is where to look next (its parameter is in the sidebar).")

if rec.data.truth is not None and rec.data.graph is not None:
    # the teacher's story: the network's facts, and what this run did with them, from its
    # record (so it agrees with Found vs true below at any parameters)
    with st.container(border=True):
        st.subheader("About the demo data: what this run did")
        st.caption("The demo is sampled from a small causal network whose answer is known: "
                   "24 discrete features and 5 labels, one of them with three categories. "
                   "Found vs true (below) scores every category's blanket against it.")
        sections = story.demo_story(res, rec.data.truth, rec.data.graph)
        st.markdown(story.story_intro(res))
        for tab, sec in zip(st.tabs([s.title for s in sections]), sections, strict=True):
            with tab:
                st.markdown(story.section_markdown(sec))

left, right = st.columns([1, 1])
with left:
    st.subheader("Data")
    st.markdown(f"**{rec.data.description}**")
    st.dataframe(summary.describe_data(ds, res), width="stretch")
    with st.expander("Labels and their categories"):
        st.dataframe(paged(summary.label_table(ds), "ov_labels_page"), hide_index=True,
                     width="stretch")
with right:
    st.subheader("Parameters")
    p = rec.params
    st.dataframe(
        {"parameter": ["δ1", "δ2", "k1", "k2", "γ", "minimum category size", "recovery",
                       "discretisation", "columns"],
         "value": [f"{p['delta1']:g} bits", f"{p['delta2']:g} bits", f"{p['k1']:g}",
                   f"{p['k2']:g}", f"{p['gamma']:g}", str(p["min_category_size"]),
                   p["recovery"], f"{rec.disc['discretize']}, {rec.disc['bins']} bins "
                   f"({rec.disc['strategy']})",
                   ", ".join(f"{v} {k}" for k, v in rec.disc_info.items())]},
        hide_index=True, width="stretch")
    st.subheader("Selected features")
    sel = summary.selected_frame(res)
    if sel.empty:  # the box above (and the run's own warning) says why and what to do
        st.info("No feature was selected with these parameters.")
    else:
        st.dataframe(sel, hide_index=True, width="stretch", height=min(320, 38 + 35 * len(sel)))

st.subheader("How features flow through the phases")
mode = st.radio("Show", ["All categories", "One category"], horizontal=True, key="ov_flow_mode")
if mode == "One category":
    tid = pick_target(res, "ov_target")
    st.plotly_chart(figures.flow_sankey(res, tid), key="ov_sankey")
else:
    st.plotly_chart(figures.flow_sankey(res), key="ov_sankey")
st.plotly_chart(figures.flow_bars(res), key="ov_bars")
with st.expander("Flow counts per category"):
    st.dataframe(paged(summary.flow_counts(res), "ov_flow_page"), width="stretch")

if rec.data.truth is not None:
    st.subheader("Found vs true")
    tt = summary.truth_table(res, rec.data.truth)
    ov = tt.loc["overall"]
    m1, m2, m3, m4, m5 = st.columns(5)
    m1.metric("True positives", f"{int(ov['tp']):,}")
    m2.metric("Missed", f"{int(ov['missed']):,}")
    m3.metric("Extra", f"{int(ov['extra']):,}")
    m4.metric("Precision / recall", f"{ov['precision']:.2f} / {ov['recall']:.2f}")
    m5.metric("F1 (selected vs union of true)", f"{ov['f1']:.2f}")

    def colour(col):
        key = {"tp": "tp", "missed": "missed", "extra": "extra"}.get(col.name)
        if key is None:
            return [""] * len(col)
        return [f"background-color: {COLORS[key]}40" if v else "" for v in col]

    if ds.truth is not None:
        st.markdown("**Per label**: the union of the label's categories' blankets against its "
                    "true feature blanket (parents, children and spouses in the network), and "
                    "its label skeleton R against its true label blanket. Empty sets count as "
                    "pyCausalFS counts them: both empty 1, one of them empty 0.")
        per_label = summary.truth_per_label(res, ds.truth)
        for col in ("precision", "recall", "f1", "distance", "R: F1"):
            per_label[col] = per_label[col].map(lambda v: f"{v:.3f}")
        st.table(per_label)  # a few rows: a plain table, every word readable
    show = tt[["true", "found", "tp", "missed", "extra", "true positives", "missed features",
               "extra features", "precision", "recall", "f1"]]
    st.markdown("**Per category**: each category's blanket against its label's true feature "
                "blanket.")
    st.dataframe(show.style.apply(colour, subset=["tp", "missed", "extra"]).format(
        {"precision": "{:.2f}", "recall": "{:.2f}", "f1": "{:.2f}"}), width="stretch")

if ds.truth is not None and rec.data.source.get("kind") in ("network", "demo"):
    truth_curve()

"""Local structure (Phase 2): a target's parents/children and spouses, the MI ranking with δ1 and
the k1 cut, and the backward elimination."""

import pandas as pd
import streamlit as st

from camcf.viz import figures, graphs
from camcf.viz.explain import disagreement_column, p_column
from pages._common import (
    bits_table,
    current_run,
    legend,
    local_html,
    paged,
    pick_target,
    run_id,
    show_graph,
    trace_frame,
    truth_for,
)

rec = current_run()
res = rec.result
st.title("Local structure — Phase 2")
st.caption("Candidates are the features with s_f = I(t; X_f) > δ1, the best ⌈k1·n⌉ kept. "
           "Backward elimination removes f when I(t; X_f | PC−f ∪ R) ≤ δ1; a spouse z is "
           "independent of t given R but dependent given a PC member x and R.")

tid = pick_target(res, "ls_target")
c2, c3 = st.columns([1, 1])
show_removed = c2.toggle("Show removed candidates", value=True, key="ls_removed")
truth = truth_for(rec, tid)
show_truth = c3.toggle("Colour against the truth", value=False, key="ls_truth",
                       disabled=truth is None,
                       help="For data with a known truth (the demo, a known network): border "
                            "green = true, pink = extra; yellow = missed, drawn. Hover a node "
                            "for its true role (parent, child or spouse of the label).")
t = res.targets[tid]
keys = ["target", "label-category", "pc", "spouse", "recovered", "pruned", "removed"]
if show_truth and truth is not None:
    keys += ["tp", "missed", "extra"]
legend(keys)
height = 520
html = local_html(run_id(rec), tid, (), show_removed,
                  tuple(sorted(truth.items())) if show_truth and truth is not None else None,
                  height, res)
show_graph(html, height)
st.caption("Spouses are drawn to the PC member that induced them; dashed: label skeleton and "
           f"removed candidates (the strongest {graphs.MAX_REMOVED}; the rest as one '+N more' "
           f"node; at most {graphs.MAX_GROUP} members of R, parents/children and spouses each, "
           "the strongest, likewise); "
           "grey fill: pruned later in Phase 4. Hover a node for its numbers.")

st.subheader("MI with the target, δ1 and the k1 cut")
st.plotly_chart(figures.mi_ranks(res, tid), key="ls_mi")

df = trace_frame(run_id(rec), tid, res)
st.subheader("Backward elimination")
bw = df[df["step"] == "backward"]
if bw.empty:
    st.info("No candidate passed δ1: nothing to eliminate.")
else:
    table = paged(pd.DataFrame({
        "feature": bw["b_name"], "I(t; X_f | PC−f ∪ R) bits": bw["value"],
        "p": p_column(bw),
        "conditioning on": bw["cond_names"].replace("", "— (s_f)"),
        "features / label categories in S": bw["cond_size_features"].astype(str) + " / "
        + bw["cond_size_labels"].astype(str),
        "δ1": bw["threshold"], "decision": bw["decision"],
        "bits vs p": disagreement_column(bw, res)}), "ls_bw_page")
    bits_table(table)

st.subheader("Spouses")
sp = df[(df["step"] == "spouse") & (df["decision"] == "spouse")]
screened = int((df[df["step"] == "spouse-screen"]["decision"] == "tested").sum())
st.caption(f"{screened} features passed the screen I(t; X_z | R) ≤ δ1 and were tested against "
           f"each PC member.")
if sp.empty:
    st.info("No spouse found for this category.")
else:
    table = paged(pd.DataFrame({"spouse": sp["b_name"], "induced by": sp["aux_name"],
                                "I(t; X_z | x ∪ R) bits": sp["value"], "p": p_column(sp),
                                "δ1": sp["threshold"],
                                "bits vs p": disagreement_column(sp, res)}), "ls_sp_page")
    bits_table(table)

"""Label skeleton (Phase 1): the flattened categories, their DCSMI, the chosen target's
neighbourhood in the label space, and the greedy acceptance of its skeleton R.

Readable at any number of categories: the graph is the target's ego graph (bounded), the
heatmap is seriated and aggregated by camcf.viz, long tables are paged."""

import pandas as pd
import streamlit as st

from camcf.viz import figures, graphs
from camcf.viz.explain import disagreement_column, p_column
from pages._common import (
    bits_table,
    current_run,
    ego_html,
    heatmap_figure,
    legend,
    paged,
    pick_target,
    run_id,
    show_graph,
    skeleton_html,
    trace_frame,
)

rec = current_run()
res = rec.result
st.title("Label skeleton — Phase 1")
st.caption("Each label is flattened into its categories; for a target category, the categories "
           "of the other labels with I(t; C') > δ2 are candidates, accepted greedily while "
           "I(t; C' | accepted) > δ2.")

k = len(res.targets)
with st.expander(f"Flattened categories ({k:,})", expanded=k <= 30):
    cats = pd.DataFrame([{
        "category": t.category.display, "label": t.category.label, "value": t.category.name,
        "size": t.category.size, "skipped": t.skipped, "why skipped": t.skip_reason or "",
        "mirror of": res.targets[t.mirror_of].category.display if t.mirror_of is not None
        else "", "|R|": len(t.skeleton),
        "skeleton R": ", ".join(res.categories[q].display for q in t.skeleton),
    } for t in res.targets])
    st.dataframe(paged(cats, "sk_cats_page"), hide_index=True, width="stretch")

tid = pick_target(res, "sk_target")
t = res.targets[tid]
left, right = st.columns([1, 1])
with left:
    st.subheader(f"Around {t.category.display}")
    view = "Neighbourhood"
    if k <= 40:
        view = st.segmented_control("Graph", ["Neighbourhood", "Whole skeleton"],
                                    default="Neighbourhood", key="sk_view") or "Neighbourhood"
    height = 460
    if view == "Neighbourhood":
        legend(["target", "label-category", "rejected", "neighbour", "points-here"])
        show_graph(ego_html(run_id(rec), tid, height, res), height)
        st.caption("Inner ring: R, numbered in the order the greedy step accepted it (thicker: "
                   f"higher DCSMI; at most {graphs.MAX_GROUP}, the strongest, the rest in one "
                   "'+k more in R' box). Outer ring: candidates that were not accepted, the other "
                   "categories with the largest DCSMI with the target, and categories that "
                   "have the target in their own R. Hover a box for its numbers.")
    else:
        legend(["target", "label-category"])
        show_graph(skeleton_html(run_id(rec), tid, height, res), height)
        st.caption("An edge joins a category and each member of its R (thicker: higher DCSMI; "
                   f"at most {graphs.MAX_GROUP} per category, the strongest). Grey: skipped "
                   "categories.")
with right:
    st.subheader("The whole label space")
    st.plotly_chart(heatmap_figure(rec, tid), key="sk_heat")
    st.caption("Rows and columns ordered by hierarchical clustering so related categories sit "
               "together; the target's row and column are outlined. Hover a cell for the names, "
               "drag to zoom, double-click to reset.")

st.subheader(f"Greedy acceptance for {t.category.display}")
df = trace_frame(run_id(rec), tid, res)
mi = df[df["step"] == "label-mi"]
cmi = df[df["step"] == "label-cmi"]
cand = mi[mi["decision"] == "candidate"].sort_values("value", ascending=False, kind="stable")
a, b = st.columns([2, 3])
with a:
    st.markdown(f"**Candidates** (I(t; C') > δ2 = {res.params['delta2']:g}): {len(cand):,} of "
                f"{len(mi):,} categories of the other labels")
    table = paged(pd.DataFrame({"category": cand["b_name"], "I(t; C') bits": cand["value"],
                                "p": p_column(cand),
                                "bits vs p": disagreement_column(cand, res)}),
                  "sk_cand_page", where=a)
    bits_table(table)
if len(cand):
    b.plotly_chart(figures.skeleton_steps(res, tid), key="sk_steps")
st.markdown("**Each greedy step**: the conditional MI given the categories accepted so far, "
            "against δ2; *bits vs p* says where the G test of the same value would decide the "
            "other way, and why")
table = paged(pd.DataFrame({
    "category": cmi["b_name"], "given": cmi["cond_names"].replace("", "— (first)"),
    "I(t; C' | accepted) bits": cmi["value"], "δ2": cmi["threshold"],
    "decision": cmi["decision"], "p": p_column(cmi),
    "bits vs p": disagreement_column(cmi, res)}), "sk_cmi_page")
bits_table(table)
st.markdown("**R** = " + (", ".join(res.categories[q].display for q in t.skeleton) or
                          "∅ (no category passed δ2: Phase 3 will not run)"))

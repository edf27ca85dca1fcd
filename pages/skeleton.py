"""Label skeleton (Phase 1): the flattened categories, their DCSMI, the skeleton graph, and the
greedy acceptance of one target's skeleton R."""

import pandas as pd
import streamlit as st

from camcf.viz import figures
from pages._common import (
    current_run,
    legend,
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

cats = pd.DataFrame([{
    "category": t.category.display, "label": t.category.label, "value": t.category.name,
    "size": t.category.size, "skipped": t.skipped, "why skipped": t.skip_reason or "",
    "mirror of": res.targets[t.mirror_of].category.display if t.mirror_of is not None else "",
    "skeleton R": ", ".join(res.categories[q].display for q in t.skeleton),
} for t in res.targets])
with st.expander(f"Flattened categories ({len(cats)})", expanded=len(cats) <= 30):
    st.dataframe(cats, hide_index=True, width="stretch")

tid = pick_target(res, "sk_target")
left, right = st.columns([1, 1])
with left:
    st.subheader("Skeleton graph")
    legend(["target", "label-category"])
    height = 460
    show_graph(skeleton_html(run_id(rec), tid, height, res), height)
    st.caption("An edge joins a category and each member of its R (thicker: higher DCSMI). "
               "Grey: skipped categories.")
with right:
    st.subheader("DCSMI heatmap")
    st.plotly_chart(figures.skeleton_heatmap(res), key="sk_heat")

t = res.targets[tid]
st.subheader(f"Greedy acceptance for {t.category.display}")
df = trace_frame(run_id(rec), tid, res)
mi = df[df["step"] == "label-mi"]
cmi = df[df["step"] == "label-cmi"]
cand = mi[mi["decision"] == "candidate"].sort_values("value", ascending=False, kind="stable")
a, b = st.columns([1, 1])
with a:
    st.markdown(f"**Candidates** (I(t; C') > δ2 = {res.params['delta2']:g}): {len(cand)} of "
                f"{len(mi)} categories of the other labels")
    st.dataframe(pd.DataFrame({"category": cand["b_name"], "I(t; C') bits":
                               cand["value"].round(4)}), hide_index=True, width="stretch")
with b:
    st.markdown("**Each greedy step**: the conditional MI given the categories accepted so far")
    st.dataframe(pd.DataFrame({
        "category": cmi["b_name"], "given": cmi["cond_names"].replace("", "— (first)"),
        "I(t; C' | accepted) bits": cmi["value"].round(4), "δ2": cmi["threshold"],
        "decision": cmi["decision"]}), hide_index=True, width="stretch")
if len(cand):
    st.plotly_chart(figures.skeleton_steps(res, tid), key="sk_steps")
st.markdown("**R** = " + (", ".join(res.categories[q].display for q in t.skeleton) or
                          "∅ (no category passed δ2: Phase 3 will not run)"))

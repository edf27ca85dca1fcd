"""Pruning (Phase 4): the k2 cut, symmetry and redundancy, with click-to-explain."""

import streamlit as st

from camcf.viz import explain_row, figures, summary
from camcf.viz.explain import redundancy_summary, subject_indices
from pages import _state as S
from pages._common import (
    bits_table,
    current_run,
    fmt_features,
    paged,
    pick_target,
    run_id,
    trace_frame,
)

rec = current_run()
res = rec.result
p = res.params
st.title("Pruning — Phase 4")
st.caption(f"The blanket is sorted by s_f and the best ⌈k2·|CMB|⌉ (k2 = {p['k2']:g}) stay; "
           f"then symmetry removes f with s_f ≤ δ1 = {p['delta1']:g}, and redundancy removes f "
           f"when a category of another label has I(X_f; C_d) > γ·s_f (γ = {p['gamma']:g}).")

tid = pick_target(res, "pr_target")
t = res.targets[tid]
c1, c2, c3, c4 = st.columns(4)
c1.metric("Entered Phase 4 (CMB)", f"{len(t.cmb):,}")
c2.metric("Cut by k2", f"{len(t.cut):,}")
c3.metric("Removed by symmetry", f"{len(t.symmetry_removed):,}")
c4.metric("Removed by redundancy", f"{len(t.redundancy_removed):,}")

if not t.cmb:
    st.info(f"Nothing reached Phase 4 for {t.category.display}.")
    st.stop()

left, right = st.columns([3, 2])
with left:
    event = st.plotly_chart(figures.pruning_scatter(res, tid), key=f"pr_scatter_{tid}",
                            on_select="rerun", selection_mode="points")
with right:
    st.markdown("**Why was it pruned, or kept?**")
    points = (event.selection.points if event is not None and hasattr(event, "selection")
              else []) or []
    df = trace_frame(run_id(rec), tid, res)
    frame = summary.pruning_frame(res, tid)
    options = frame["feature_index"].tolist()
    chosen = [int(pt["customdata"][0]) for pt in points if pt.get("customdata")]
    if not chosen:
        st.caption("Click a point in the chart (or pick a feature below).")
        pruned = frame[frame["fate"] != "blanket"]["feature_index"].tolist()
        chosen = pruned[:1] or options[:1]
    pick_key = S.PRUNE_PICK.of(tid)
    if points or pick_key.get() not in options:
        pick_key.set(chosen[0])  # a click decides; the selectbox follows it
    pick = st.selectbox("Feature", options, key=pick_key.name,
                        format_func=lambda i: res.feature_names[i])
    if pick is not None:
        rows = df[(df["phase"] == 4) & (df["step"] != "redundancy")
                  & (subject_indices(df) == pick)]
        for _, row in rows.iterrows():
            st.markdown(f"- {explain_row(row, res)}")
        red = redundancy_summary(res, tid, pick)
        if red is not None:
            st.markdown(f"- {red}")
        fate = frame.set_index("feature_index").loc[pick, "fate"]
        st.markdown(f"**Fate:** {fate}")

st.subheader("Cut by k2")
st.write(fmt_features(res, t.cut))
st.subheader("Removed by symmetry (s_f ≤ δ1)")
st.write(fmt_features(res, t.symmetry_removed))
if t.symmetry_removed and t.spouses and not t.skeleton:
    st.caption("With R empty a spouse has s_z ≤ δ1, so symmetry always removes it: the "
               "published algorithm behaves this way.")
st.subheader("Removed by redundancy")
red = frame[frame["fate"] == "redundancy"]
if red.empty:
    st.write("—")
else:
    table = red[["feature", "s_f", "p (s_f)", "bits vs p (s_f)", "explaining category",
                 "I(f; C_d)", "p (I(f; C_d))", "ratio I(f;C_d)/s_f", "gamma"]]
    bits_table(table)
with st.expander("Every feature that reached Phase 4"):
    table = paged(frame, "pr_all_page")
    bits_table(table)

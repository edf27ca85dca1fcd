"""Recovery (Phase 3): features masked by a correlated label category and recovered."""

import pandas as pd
import streamlit as st

from camcf.viz import figures, summary
from pages._common import current_run, paged, pick_target

rec = current_run()
res = rec.result
st.title("Recovery — Phase 3")
st.caption("A label category in R can screen a true feature off the target. For each feature "
           "outside the blanket (s_f ≥ δ1/2), and each unused member r of R: with S_base = "
           "PC ∪ (R − r), the feature is recovered, displacing r, when I(t; X_f | S_base) > "
           f"I(t; r | S_base). Mode: **{res.params['recovery']}**.")

rows = []
for t in res.targets:
    if t.skipped:
        continue
    for f, r in t.recovered:
        rows.append({"category": t.category.display, "recovered feature": res.feature_names[f],
                     "displaced (blocker)": res.categories[r].display})
st.subheader("Recovered features, all categories")
if rows:
    st.dataframe(paged(pd.DataFrame(rows), "rc_all_page"), hide_index=True, width="stretch")
else:
    st.info("No feature was recovered in any category.")

tid = pick_target(res, "rc_target")
t = res.targets[tid]
st.markdown("**R** = " + (", ".join(res.categories[q].display for q in t.skeleton) or "∅"))
if not t.skeleton:
    st.info(f"R is empty for {t.category.display}: Phase 3 does not run.")
    st.stop()
comp = summary.recovery_frame(res, tid)
won = comp[comp["decision"] == "recovered"]
c1, c2, c3 = st.columns(3)
c1.metric("Recovered", len(won))
c2.metric("Competitions lost", int((comp["decision"] == "lost").sum()))
df = res.to_frame(tid)
c3.metric("Not tried (s_f < δ1/2)", int((df["step"] == "recovery-skip").sum()))
st.subheader("The competition")
if comp.empty:
    st.info(f"No feature competed for {t.category.display}: no feature outside the blanket had "
            f"s_f ≥ δ1/2 = {res.params['delta1'] / 2:g} bits, so nothing could displace a "
            f"member of R.")
    st.stop()
st.plotly_chart(figures.competition(res, tid), key="rc_comp")
st.markdown("**Winners**")
if won.empty:
    st.caption("None: every feature that competed lost to the member of R it challenged.")
else:
    st.dataframe(won, hide_index=True, width="stretch")
st.markdown("**Features that competed and lost**")
lost = comp[comp["decision"] == "lost"]
if lost.empty:
    st.caption("None: the first feature tried won (or no feature was eligible).")
else:
    st.dataframe(paged(lost, "rc_lost_page"), hide_index=True, width="stretch")

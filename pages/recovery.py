"""Recovery (Phase 3): features masked by a correlated label category and recovered."""

import pandas as pd
import streamlit as st

from camcf.viz import figures, summary
from camcf.viz.explain import plural
from pages._common import bits_table, current_run, paged, pick_target

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
n = summary.recovery_counts(res, tid)
c1, c2, c3, c4 = st.columns(4)
c1.metric("Recovered", f"{n['recovered']:,}")
c2.metric("Competed, not recovered", "n/a" if n["tried"] is None
          else f"{n['tried'] - n['recovered']:,}",
          help=f"Features that competed and lost every competition ({n['lost']:,} "
               "competitions lost in all: a feature competes with each member of R not yet "
               "displaced)")
c3.metric("Skipped (s_f < δ1/2)", f"{n['skipped']:,}")
c4.metric("Not reached", "n/a" if n["not_reached"] is None else f"{n['not_reached']:,}")
if n["not_reached"] is not None:
    st.caption(f"The four add up to the {plural(n['outside'], 'feature')} outside PC ∪ SP.")
if n["ended"] is not None and n["not_reached"]:
    last = res.feature_names[t.recovered[-1][0]]
    why = ("the scan stops at the first recovered feature (recovery = \"first\", the authors' "
           "code)" if n["ended"] == "first" else "every member of R has been displaced")
    st.caption(f"Of the {plural(n['outside'], 'feature')} outside PC ∪ SP, the "
               f"{n['not_reached']:,} after {last} were not looked at: {why}.")
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
    bits_table(won)
st.markdown("**Competitions lost** (a feature may lose to one member of R and then win "
            "against the next)")
lost = comp[comp["decision"] == "lost"]
if lost.empty:
    st.caption("None: the first feature tried won (or no feature was eligible).")
else:
    bits_table(paged(lost, "rc_lost_page"))

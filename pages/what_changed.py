"""What changed: the pinned run against the current one, per category — which features entered
or left the blanket (and R, PC, spouses, recovered), and the first decision that flipped.

The comparison is :func:`camcf.diff.diff_results`; this page only draws it.
"""

import pandas as pd
import streamlit as st

from camcf.diff import diff_results
from camcf.errors import CamcfError
from camcf.viz.explain import plural
from camcf.viz.tuning import diff_bars
from pages import _state as S
from pages._common import bits_table, current_run, run_id
from pages._share import pin

PAGE_SIZE = 50
SYM = {"delta1": "δ1", "delta2": "δ2", "k1": "k1", "k2": "k2", "gamma": "γ",
       "min_category_size": "minimum category size", "recovery": "recovery"}

rec = current_run()
st.title("What changed")
st.caption("Pin a run (sidebar), move a slider and run again: this page lists, per label "
           "category, the features that entered or left its blanket and the first decision "
           "that flipped, with both values and both thresholds.")

pinned = S.PINNED.get()
if pinned is None:
    st.info("Nothing pinned yet. Press **Pin this run** in the sidebar (or here), then change "
            "a parameter and run: the changes appear on this page.")
    if st.button("Pin this run", key="wc_pin", type="primary"):
        pin(rec)
        st.rerun()
    st.stop()
if pinned.data.fingerprint != rec.data.fingerprint:
    st.warning(f"The pinned run is on other data ({pinned.data.description}); pin a run on "
               f"{rec.data.description} to compare.")
    st.stop()


@st.cache_data(max_entries=8, show_spinner=False)
def _diff(before_id: str, after_id: str, _before, _after):
    return diff_results(_before, _after)


try:
    d = _diff(run_id(pinned), run_id(rec), pinned.result, rec.result)
except CamcfError as e:
    st.error(str(e))
    st.stop()
if pinned.disc != rec.disc:
    st.caption(f"Discretisation: {pinned.disc} → {rec.disc}")
s = d.summary()
c1, c2, c3, c4 = st.columns(4)
c1.metric("Selected features", f"{s['selected_after']:,}",
          delta=s["selected_after"] - s["selected_before"] or None)
c2.metric("Categories changed", f"{s['changed']:,} of {s['categories']:,}")
c3.metric("… with a flipped decision", f"{s['with_flip']:,}")
c4.metric("Selection: entered / left", f"+{s['entered']:,} / −{s['left']:,}",
          help="Features that entered or left the selection (the union of the blankets); a "
               "feature can enter one category's blanket and stay selected through another: "
               "the chart and the table show each category's blanket")
if d.params:
    st.markdown("**Parameters:** " + "; ".join(
        f"{SYM.get(k, k)} {b:g} → {a:g}" if isinstance(a, float) else f"{SYM.get(k, k)} {b} → {a}"
        for k, (b, a) in d.params.items()))
elif pinned.disc == rec.disc:
    st.success("The current run has the pinned parameters: nothing changed. Move a slider and "
               "run.")
for note in d.notes:
    st.caption(note)
if d.entered or d.left:
    names = rec.result.feature_names
    st.markdown("**Selection:** "
                + (f"entered {', '.join(names[i] for i in d.entered)}" if d.entered else "")
                + ("; " if d.entered and d.left else "")
                + (f"left {', '.join(names[i] for i in d.left)}" if d.left else ""))

st.plotly_chart(diff_bars(d), key="wc_bars")

st.subheader("Per category")
frame = d.to_frame()
f1, f2, f3 = st.columns([2, 1, 1])
query = f1.text_input("Find a category or feature", key=S.WC_QUERY.init(),
                      placeholder="type part of a name, e.g. A=1 or f07")
only = f2.toggle("Changed only", key=S.WC_CHANGED_ONLY.init())
sort = f3.selectbox("Sort by", list(S.WC_SORT.choices), key=S.WC_SORT.init())
view = frame
if only:
    changed_ids = {cd.target for cd in d.changed}
    view = view[view["target"].isin(changed_ids)]
if query:
    q = query.strip().lower()
    text = view.drop(columns=["explanation"]).astype(str).agg(" ".join, axis=1).str.lower()
    view = view[text.str.contains(q, regex=False)]
if sort == "most change":
    mag = (view["blanket +"].str.count(",") + (view["blanket +"] != "")
           + view["blanket −"].str.count(",") + (view["blanket −"] != ""))
    view = view.assign(_m=mag).sort_values(["_m", "flips"], ascending=False,
                                           kind="stable").drop(columns="_m")
elif sort == "flips":
    view = view.sort_values("flips", ascending=False, kind="stable")
elif sort == "category size":
    view = view.sort_values("size", ascending=False, kind="stable")
n = len(view)
pages = max(1, -(-n // PAGE_SIZE))
if pages > 1:
    page = st.number_input(f"Page (of {pages:,}, {PAGE_SIZE} categories each)", 1, pages, 1,
                           key="wc_page")
else:
    page = 1
shown = view.iloc[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]
st.caption(f"{n:,} of {plural(len(frame), 'category')}"
           + (f"; showing {len(shown):,}" if pages > 1 else ""))
cols = ["category", "size", "blanket_before", "blanket_after", "blanket +", "blanket −",
        "R +", "R −", "PC +", "PC −", "spouses +", "spouses −", "recovered +", "recovered −",
        "flips", "first_flip_step", "first_flip_variable", "value_before", "threshold_before",
        "decision_before", "value_after", "threshold_after", "decision_after"]
bits_table(shown[cols], key="wc_table", column_config={
    "blanket_before": st.column_config.NumberColumn("blanket (pinned)"),
    "blanket_after": st.column_config.NumberColumn("blanket (now)"),
    "first_flip_step": "first flip",
    "first_flip_variable": "variable",
    "value_before": st.column_config.NumberColumn("value (pinned)", format="%.4g"),
    "threshold_before": st.column_config.NumberColumn("threshold (pinned)", format="%.4g"),
    "value_after": st.column_config.NumberColumn("value (now)", format="%.4g"),
    "threshold_after": st.column_config.NumberColumn("threshold (now)", format="%.4g"),
})
st.download_button("Download the changes (CSV)", data=frame.to_csv(index=False),
                   file_name="camcf-what-changed.csv", mime="text/csv", on_click="ignore",
                   key="wc_csv")

st.subheader("Why: the first flipped decision")
if view.empty:
    st.caption("No category to explain with this filter.")
else:
    res = rec.result
    opts = view["target"].tolist()
    tid = st.selectbox("Category", opts, key="wc_target",
                       format_func=lambda i: f"{res.categories[i].display} — "
                                             f"{plural(res.categories[i].size, 'sample')}")
    cd = d.categories[tid]
    st.markdown(d.explain(cd))
    sets = pd.DataFrame(
        [{"set": t, "entered": ", ".join(frame.loc[frame["target"] == tid, f"{t} +"]),
          "left": ", ".join(frame.loc[frame["target"] == tid, f"{t} −"])}
         for t in ("blanket", "R", "PC", "spouses", "recovered")])
    st.dataframe(sets, hide_index=True, width="stretch", key="wc_sets")
    if cd.divergence is not None and cd.first_flip is not None:
        st.caption("After this flip the two runs test different things (e.g. a smaller PC to "
                   "condition on); later differences follow from it.")

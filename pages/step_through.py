"""Step through: every decision for one target, in order, in plain words, with the graph.

Names in the sentence come from the user's file: they are HTML-escaped before ``st.html``.
"""

import html

import streamlit as st

from camcf.viz import explain_row
from pages import _state as S
from pages._common import (
    current_run,
    legend,
    local_html,
    paged,
    pick_target,
    run_id,
    show_graph,
    trace_frame,
)

ROUTINE = {"below-delta1", "not-candidate", "not-tested", "skipped", "does-not-dominate",
           "not-spouse"}
PHASES = {1: "1 · skeleton", 2: "2 · PC/spouses", 3: "3 · recovery", 4: "4 · pruning"}

rec = current_run()
res = rec.result
st.title("Step through")
st.caption("Every test Ca-MCF performed for one target category, in the order it took them.")

tid = pick_target(res, "st_target")
c2, c3 = st.columns([4, 1])
with c2:
    phases = st.pills("Phases", list(PHASES), format_func=PHASES.get,
                      selection_mode="multi", key=S.ST_PHASES.init()) or []
hide = c3.toggle("Hide routine rows", key=S.ST_HIDE.init(),
                 help="Hide the many 'nothing happened' rows: below δ1, not a candidate, not "
                      "screened in as a spouse, not a spouse, skipped for recovery, not "
                      "dominating.")
df = trace_frame(run_id(rec), tid, res)
view = df[df["phase"].isin(phases)]
if hide:
    view = view[~view["decision"].isin(ROUTINE)]
n = len(view)
st.caption(f"{n} of {len(df)} decisions shown.")
if n == 0:
    st.info("No decision matches the filter.")
    st.stop()

pos_key = S.STEP_POS.of(tid)
if pos_key.get() > n:
    pos_key.set(n)


def _move(delta: int) -> None:
    pos_key.set(min(n, max(1, pos_key.get() + delta)))


b1, b2, b3 = st.columns([1, 6, 1])
b1.button("◀ Previous", key="st_prev", on_click=_move, args=(-1,), width="stretch")
b3.button("Next ▶", key="st_next", on_click=_move, args=(1,), width="stretch")
pos = b2.slider("Position", 1, max(n, 2) if n > 1 else 2, key=pos_key.init(),
                label_visibility="collapsed", disabled=n == 1)
pos = min(pos, n)
row = view.iloc[pos - 1]
sentence = html.escape(explain_row(row, res))
st.html(f'<div class="camcf-sentence" data-testid="camcf-sentence"><b>{pos}/{n}</b> · phase '
        f'{int(row["phase"])} · <code>{html.escape(str(row["step"]))}</code><br>{sentence}</div>')

involved = [-1, int(row["b"]), int(row["a"])]  # -1: the target itself
if int(row["aux"]) >= 0:
    involved.append(int(row["aux"]))
cond = tuple(row["cond"])
if len(cond) <= 12:
    involved += list(cond)
left, right = st.columns([3, 2])
with left:
    legend(["target", "label-category", "pc", "spouse", "recovered", "pruned", "removed"])
    height = 460
    show_graph(local_html(run_id(rec), tid, tuple(sorted(set(involved))), True, None, height, res),
               height)
    st.caption("Black border: the variables this decision involves (the tested variable, the "
               "conditioning set" + (" — too large to draw" if len(cond) > 12 else "") + ").")
with right:
    st.markdown("**This decision**")
    st.dataframe({"": ["step", "quantity", "variable", "given", "value (bits)", "threshold",
                       "decision"],
                  "value": [row["step"], row["quantity"], row["b_name"],
                            row["cond_names"] or "∅", f"{row['value']:.6f}",
                            f"{row['threshold']:.6f}", row["decision"]]},
                 hide_index=True, width="stretch")
    st.markdown("**Around it**")
    lo = max(0, pos - 4)
    around = view.iloc[lo:pos + 3]
    st.dataframe({"#": list(range(lo + 1, lo + 1 + len(around))), "step": around["step"],
                  "variable": around["b_name"], "value": around["value"].round(4),
                  "decision": around["decision"]}, hide_index=True, width="stretch")
with st.expander(f"All {n:,} decisions shown (paged)"):
    listing = view[["phase", "step", "b_name", "cond_names", "value", "threshold",
                    "decision"]].rename(columns={"b_name": "variable", "cond_names": "given"})
    listing.insert(0, "#", range(1, n + 1))
    st.dataframe(paged(listing.round(4), "st_list_page"), hide_index=True, width="stretch")

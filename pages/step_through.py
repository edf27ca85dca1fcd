"""Step through: every decision for one target, in order, in plain words, with the graph.

Routine rows (camcf.viz.explain.ROUTINE: the common outcome that changes no set) are grouped,
one expandable line per run, never hidden; a phase filter that leaves nothing says so and
offers to show every phase. Every sentence and the "This decision" table come from
camcf.viz.explain (generated from the record's fields). Names in the sentence come from the
user's file: they are HTML-escaped before ``st.html``.
"""

import html
import re
import string

import streamlit as st

from camcf.viz.explain import (
    bits_values,
    disagreement_column,
    explain_row_full,
    p_column,
    routine_summary,
    step_items,
    subject_names,
)
from pages import _state as S
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
)

_PUNCT = re.compile("([" + re.escape(string.punctuation) + "])")


def _literal(text: str) -> str:
    """``text`` shown as written in a cell of ``st.table`` (which reads cells as Markdown: a
    leading "> δ2" would become a quote and lose its ">", a name with "_" italics)."""
    return _PUNCT.sub(r"\\\1", str(text))


def _value_text(values) -> str:
    """The tested value of one row (4 decimals), or the range of a routine group's values;
    "—" where no value was computed."""
    v = bits_values(values.dropna().astype(float))
    if v.empty:
        return "—"
    lo, hi = round(float(v.min()), 4), round(float(v.max()), 4)
    return f"{lo:.4f}" if lo == hi else f"{lo:.4f} – {hi:.4f}"


PHASES = {1: "1 · skeleton", 2: "2 · PC/spouses", 3: "3 · recovery", 4: "4 · pruning"}

rec = current_run()
res = rec.result
st.title("Step through")
st.caption("Every test Ca-MCF performed for one target category, in the order it took them.")

tid = pick_target(res, "st_target")


def _all_phases() -> None:
    S.ST_PHASES.set(list(PHASES))


c2, c3 = st.columns([4, 1])
with c2:
    phases = st.pills("Phases", list(PHASES), format_func=PHASES.get,
                      selection_mode="multi", key=S.ST_PHASES.init()) or []
group = c3.toggle("Group routine rows", key=S.ST_HIDE.init(),
                  help="Runs of 'nothing changed' rows (not a candidate, below δ1, passed the "
                       "spouse screen but no spouse, not tried for recovery, no redundancy) "
                       "become one line you can open. Off: every row is a step of its own.")
df = trace_frame(run_id(rec), tid, res)
view = df[df["phase"].isin(phases)].reset_index(drop=True)
if len(view) == 0:
    t = res.targets[tid]
    if len(df) == 0:
        st.info(f"The record has no decision for {t.category.display}"
                + (f" (skipped: {t.skip_reason})." if t.skipped else "."))
        st.stop()
    hidden = sorted(set(df["phase"]) - set(phases))
    st.warning(f"The phase filter hides all {len(df):,} decisions for {t.category.display}: "
               + ("no phase is chosen." if not phases else
                  f"they are in phase{'s' if len(hidden) > 1 else ''} "
                  f"{', '.join(map(str, hidden))}, which the filter leaves out."),
               icon=":material/filter_alt_off:")
    st.button("Show every phase", key="st_show_all", on_click=_all_phases, type="primary")
    st.stop()

items = step_items(view, group_routine=group)
n = len(items)
n_grouped = sum(len(it.rows) for it in items if it.routine_group)
st.caption(f"{n:,} of {len(view):,} decisions shown one by one"
           + (f"; {n_grouped:,} routine ones grouped into "
              f"{sum(it.routine_group for it in items):,} lines" if n_grouped else "")
           + (f" ({len(df) - len(view):,} more in the phases the filter leaves out)"
              if len(view) < len(df) else "") + ".")

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
item = items[pos - 1]
rows = view.iloc[list(item.rows)]
row = rows.iloc[0]
head = (f'<b>{pos:,}/{n:,}</b> · phase {int(row["phase"])} · '
        f'<code>{html.escape(", ".join(dict.fromkeys(rows["step"])))}</code>')
if item.routine_group:
    st.html(f'<div class="camcf-sentence" data-testid="camcf-sentence">{head}<br>'
            f'{html.escape(routine_summary(rows, res))}</div>')
    with st.expander(f"The {len(rows):,} routine decisions, one by one"):
        shown = paged(rows, f"st_group_page_{tid}_{pos}", size=100)
        st.markdown("\n".join(f"- {explain_row_full(r, res).text}"
                              for _, r in shown.iterrows()))
    expl = None
else:
    expl = explain_row_full(row, res)
    st.html(f'<div class="camcf-sentence" data-testid="camcf-sentence">{head}<br>'
            f'{html.escape(expl.text)}</div>')

involved = [-1]  # -1: the target itself; a group of routine rows highlights nothing more
cond = tuple(row["cond"]) if expl is not None else ()
if expl is not None:
    involved += [int(row["b"]), int(row["a"])] + ([int(row["aux"])] if int(row["aux"]) >= 0
                                                  else [])
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
    st.markdown("**This decision**" if expl is not None else "**These decisions**")
    if expl is not None:  # a static table: its cells wrap (a data grid cuts the value off)
        st.table({k: [_literal(v) for v in col] for k, col in expl.table().items()},
                 hide_index=True)
    else:
        st.dataframe({"": ["steps", "decisions", "tests", "changed a set"],
                      "value": [", ".join(dict.fromkeys(rows["step"])),
                                ", ".join(dict.fromkeys(rows["decision"])), f"{len(rows):,}",
                                "no"]}, hide_index=True, width="stretch")
    st.markdown("**Around it**")
    lo = max(0, pos - 4)
    near = items[lo:pos + 3]
    st.dataframe({
        "#": list(range(lo + 1, lo + 1 + len(near))),
        "step": [view["step"].iat[it.first] for it in near],
        "decided about": [f"{len(it.rows):,} routine rows" if it.routine_group else
                          subject_names(view.iloc[[it.first]]).iat[0] for it in near],
        "value": [_value_text(view["value"].iloc[list(it.rows)]) for it in near],
        "decision": [", ".join(dict.fromkeys(view["decision"].iloc[list(it.rows)]))
                     for it in near]}, hide_index=True, width="stretch")
with st.expander(f"All {len(view):,} decisions in the chosen phases (paged)"):
    subject = subject_names(view)
    listing = view[["phase", "step", "cond_names", "value", "threshold", "decision"]].rename(
        columns={"cond_names": "given"})
    listing.insert(2, "decided about", subject)
    listing.insert(0, "#", range(1, len(view) + 1))
    table = paged(listing, "st_list_page")
    rows = view.loc[table.index]  # the page's rows of the record: their p and its agreement
    table = table.assign(p=p_column(rows), **{"bits vs p": disagreement_column(rows, res)})
    bits_table(table)

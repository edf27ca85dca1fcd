"""What every page shares: the current run, the target chooser, cached graph HTML, the legend.

Pages only draw: the algorithm ran in app.py, and the drawing functions live in camcf.viz.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from camcf.viz import graphs
from camcf.viz.style import legend_html
from pages._nav import in_frame, leave_directory_mode

GRAPH_HEIGHT = 520
FRAME_EXTRA = 30  # the iframe is a little taller than the graph so no scrollbar appears


def current_run():
    """The RunRecord the frame stored; stops the page with a note when there is none.

    A page run without the frame (Streamlit's ``pages/`` directory mode on a server's first
    request, e.g. a deep link) leaves that mode and reruns through app.py instead.
    """
    if not in_frame():
        leave_directory_mode()
    rec = st.session_state.get("run")
    if rec is None:
        st.info("No results yet. Choose data and press **Run** in the sidebar.")
        st.stop()
    return rec


def run_id(rec) -> str:
    return repr(rec.key)


def target_options(result, *, include_skipped: bool = False) -> list[int]:
    return [t.id for t in result.targets if include_skipped or not t.skipped]


def default_target(result) -> int:
    """The category where most phases have something to show."""
    def score(t):
        return ((len(t.recovered) > 0) + (len(t.spouses) > 0) + (len(t.redundancy_removed) > 0)
                + (len(t.symmetry_removed) > 0) + (len(t.skeleton) > 0))
    ran = [t for t in result.targets if not t.skipped]
    if not ran:
        return 0
    return max(ran, key=lambda t: (score(t), -t.id)).id


def pick_target(result, key: str, *, label: str = "Target category", where=None) -> int:
    """A target chooser whose choice is shared by all pages (stored as ``chosen_target``)."""
    where = where or st
    opts = target_options(result)
    if not opts:
        st.warning("Every category was skipped (too few samples); lower the minimum category "
                   "size under Advanced.")
        st.stop()
    chosen = st.session_state.get("chosen_target")
    if chosen not in opts:
        chosen = default_target(result)
    if key in st.session_state and st.session_state[key] not in opts:
        del st.session_state[key]

    def fmt(i: int) -> str:
        t = result.targets[i]
        extra = f" (mirror of {result.targets[t.mirror_of].category.display})" \
            if t.mirror_of is not None else ""
        return f"{t.category.display} — {t.category.size} samples{extra}"

    tid = where.selectbox(label, opts, index=opts.index(chosen), key=key, format_func=fmt)
    st.session_state["chosen_target"] = tid
    return int(tid)


def truth_for(rec, tid: int):
    if rec.data.truth is None:
        return None
    c = rec.result.targets[tid].category
    return frozenset(rec.data.truth.get((c.label_index, c.value), frozenset()))


@st.cache_data(max_entries=64, show_spinner=False)
def local_html(run: str, tid: int, highlight: tuple, show_removed: bool, truth: tuple | None,
               height: int, _result) -> str:
    return graphs.local_graph_html(_result, tid, highlight=highlight, show_removed=show_removed,
                                   truth=set(truth) if truth is not None else None,
                                   height=height)


@st.cache_data(max_entries=16, show_spinner=False)
def skeleton_html(run: str, highlight: int | None, height: int, _result) -> str:
    return graphs.skeleton_graph_html(_result, highlight=highlight, height=height)


@st.cache_data(max_entries=16, show_spinner=False)
def trace_frame(run: str, tid: int, _result) -> pd.DataFrame:
    return _result.to_frame(tid)


def show_graph(html: str, height: int = GRAPH_HEIGHT) -> None:
    st.iframe(html, height=height + FRAME_EXTRA)


def legend(keys) -> None:
    st.html(legend_html(keys))


def fmt_features(result, idx) -> str:
    return ", ".join(result.feature_names[i] for i in idx) or "—"

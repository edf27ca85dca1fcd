"""What every page shares: the current run, the target chooser, number inputs with the declared
ranges, the progress box of long work, cached graph HTML, the legend.

Pages only draw: the algorithm ran in app.py, and the drawing functions live in camcf.viz.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pandas as pd
import streamlit as st

from camcf.jobs import Progress
from camcf.params import Param
from camcf.viz import graphs, summary
from camcf.viz.explain import bits_values
from camcf.viz.style import legend_html
from pages import _state as S
from pages._nav import in_frame, leave_directory_mode
from pages._share import NUMBER_FORMAT, set_params_from_page

GRAPH_HEIGHT = 520
FRAME_EXTRA = 30  # the iframe is a little taller than the graph so no scrollbar appears


def current_run():
    """The RunRecord the frame stored; stops the page with a note when there is none.

    A page run without the frame (Streamlit's ``pages/`` directory mode on a server's first
    request, e.g. a deep link) leaves that mode and reruns through app.py instead.
    """
    if not in_frame():
        leave_directory_mode()
    rec = S.RUN.get()
    if rec is None:
        st.info("No results yet. Choose data and press **Run** in the sidebar.")
        st.stop()
    data = S.DATA.get()
    if data is not None and rec.data.fingerprint != data.fingerprint:
        # the run is of the data loaded before: never drawn as these data's results
        from pages import _jobs

        running = _jobs.running_key(_jobs.RUN_SLOT)
        first = ("its run is under way (its progress is above)" if running is not None
                 and running[0] == data.fingerprint else "press **Run** in the sidebar")
        st.info(f"No results for {data.description} yet: {first}. The results of "
                f"{rec.data.description} are set aside (load it again to see them).",
                icon=":material/hourglass_empty:")
        st.stop()
    return rec


def run_id(rec) -> str:
    return repr(rec.key)


def grid_cost(rec):
    """``cost(point)``: the seconds of a run at other parameters on ``rec``'s data
    (:func:`camcf.estimates.run_cost` of the run: its scores count the candidates at each
    point's thresholds, its time scales the model) — what a grid of runs costs point by
    point."""
    from camcf.estimates import run_cost
    from camcf.significance import typical_feature_df

    res = rec.result
    df = typical_feature_df(res.levels[:res.n_features]) if res.levels is not None else 1
    return run_cost(res, rec.params, float(res.stats.get("seconds", 0.0)), df=df)


def target_options(result, *, include_skipped: bool = False, by: str = "order") -> list[int]:
    return summary.target_order(result, by, include_skipped=include_skipped)


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
    """A searchable target chooser (type to find a category) with a sort control; the choice
    and the order are shared by all pages (:data:`pages._state.CHOSEN_TARGET`,
    :data:`~pages._state.TARGET_SORT`). ``key`` is one of :data:`pages._state.TARGET_CHOOSER`."""
    where = where or st
    chooser, sort = S.TARGET_CHOOSER[key], S.TARGET_SORT_OF[key]
    c1, c2 = where.columns([3, 1])
    by = c2.selectbox("Sort by", list(summary.TARGET_SORTS), key=sort.init(S.TARGET_SORT.get()),
                      format_func=summary.TARGET_SORTS.get,
                      help="Order of the categories in the chooser (type in it to search).")
    S.TARGET_SORT.set(by)
    opts = target_options(result, by=by)
    if not opts:
        st.warning("Every category was skipped (too few samples); lower the minimum category "
                   "size under Advanced.")
        st.stop()
    chosen = S.CHOSEN_TARGET.get()
    if chosen not in opts:
        chosen = default_target(result)
    if chooser.has() and chooser.get() not in opts:
        chooser.pop()
    tid = c1.selectbox(f"{label} ({len(opts):,}; type to search)", opts,
                       index=opts.index(chosen), key=chooser.name,
                       format_func=lambda i: summary.target_label(result, i))
    S.CHOSEN_TARGET.set(tid)
    return int(tid)


def number_field(p: Param, key: S.Key, *, label: str | None = None, default: Any = None,
                 where=None, **kw) -> Any:
    """A number input for parameter ``p`` over the range every widget of ``p`` offers
    (:meth:`Param.ui_range`, the same the sidebar, the grids and links accept), showing floats
    with :data:`pages._share.NUMBER_FORMAT` (the value shown is the value used). The value lives
    under ``key``; ``default`` (else the key's declared default) when the key is empty."""
    where = where or st
    lo, hi, step = p.ui_range()
    key.init() if default is None else key.init(default)
    if p.kind is int:
        return where.number_input(label or p.label, int(lo), int(hi), step=int(step),
                                  key=key.name, help=kw.pop("help", p.help), **kw)
    return where.number_input(label or p.label, float(lo), float(hi), step=float(step),
                              format=NUMBER_FORMAT, key=key.name, help=kw.pop("help", p.help),
                              **kw)


def run_with(values: dict) -> None:
    """Move the parameter widgets to ``values`` (by parameter name, through the frame's
    set_param path: the inputs, the link and the exported command carry them) and run at once
    (as if Run were pressed)."""
    S.RUN_PRESSED.set(True)
    set_params_from_page(values)


@contextmanager
def progress_box(title: str, *, unit: str = "",
                 finished: str = "Finished in {seconds:.1f} s") -> Iterator[Progress]:
    """The box of long work: an expanded ``st.status`` with a progress bar. Yields a
    ``progress(done, total, message)`` callable (the :mod:`camcf.jobs` convention); drawing
    inside the ``with`` block goes into the box. On success the box collapses and says
    ``finished`` (``{seconds}`` is filled in); on an exception it is marked failed and the
    exception propagates."""
    status = st.status(title, expanded=True)
    bar = status.progress(0.0, text="starting")
    t0 = time.perf_counter()
    what = f" {unit}" if unit else ""

    def progress(done: int, total: int, message: str) -> None:
        bar.progress(min(1.0, done / total) if total else 1.0,
                     text=f"{done:,}/{total:,}{what} — {message}")

    try:
        with status:
            yield progress
    except BaseException:
        status.update(label=f"{title} stopped", state="error", expanded=False)
        raise
    status.update(label=finished.format(seconds=time.perf_counter() - t0), state="complete",
                  expanded=False)


def paged(frame: pd.DataFrame, key: str, *, size: int = 200, where=None) -> pd.DataFrame:
    """The rows of ``frame`` on the page chosen with a page number under the table (tables of
    more than ``size`` rows); a caption says which rows are shown."""
    where = where or st
    if len(frame) <= size:
        return frame
    n_pages = summary.page_bounds(len(frame), 1, size)[2]
    page = where.number_input(f"Page (of {n_pages:,})", 1, n_pages, 1, 1, key=key)
    a, b, _ = summary.page_bounds(len(frame), page, size)
    where.caption(f"Rows {a + 1:,}–{b:,} of {len(frame):,}.")
    return frame.iloc[a:b]


def four_digits(frame: pd.DataFrame) -> dict:
    """``column_config`` for a table's float columns: four significant digits (``%.4g``), so
    a value and its threshold that differ do not read alike (0.005716 and 0.0057 at four
    decimals did, beside "dominates"), and a small threshold reads as the sidebar writes it
    (0.002749, not 0.0027)."""
    return {c: st.column_config.NumberColumn(format="%.4g") for c in frame.columns
            if pd.api.types.is_float_dtype(frame[c])}


def bits_table(frame: pd.DataFrame, *, where=None, column_config: dict | None = None,
               **kw) -> None:
    """Show a table of the record's numbers: every float column with float noise shown as 0
    (:func:`camcf.viz.explain.bits_values`: −4.529e-16 is not a mutual information) and four
    significant digits (:func:`four_digits`); ``column_config`` adds to (or overrides) that."""
    where = where or st
    shown = frame.copy()
    for c in shown.columns:
        if pd.api.types.is_float_dtype(shown[c]):
            shown[c] = bits_values(shown[c])
    words = {c: st.column_config.TextColumn(c, width="large", help=BITS_VS_P)
             for c in shown.columns if str(c).startswith("bits vs p")}
    where.dataframe(shown, hide_index=True, width="stretch",
                    column_config={**four_digits(shown), **words, **(column_config or {})},
                    **kw)


#: what a table's "bits vs p" column says (camcf.viz.explain.disagreement_column)
BITS_VS_P = ("Ca-MCF decides by the bits against δ, not by p. Where the G test of the same "
             "value would decide the other way at α (the run's own significance level, else "
             "0.05), this column says so and why: a large df needs more bits for p ≤ α, many "
             "rows need fewer.")


def truth_for(rec, tid: int):
    """The true blanket of target ``tid``'s category, ``{feature index: role}`` (its label's
    feature blanket: role ``"parent"``, ``"child"`` or ``"spouse"`` when the data carry the
    network's truth, else ``"member"``), or None when the data have no known truth."""
    if rec.data.truth is None:
        return None
    c = rec.result.targets[tid].category
    members = rec.data.truth.get((c.label_index, c.value), frozenset())
    known = rec.data.dataset.truth
    names = rec.result.feature_names
    return {f: (known.role(c.label, names[f]) if known is not None else None) or "member"
            for f in sorted(members)}


@st.cache_data(max_entries=64, show_spinner=False)
def local_html(run: str, tid: int, highlight: tuple, show_removed: bool, truth: tuple | None,
               height: int, _result) -> str:
    """``truth``: ``(feature index, role)`` pairs (:func:`truth_for`'s items) or None."""
    return graphs.local_graph_html(_result, tid, highlight=highlight, show_removed=show_removed,
                                   truth=dict(truth) if truth is not None else None,
                                   height=height, decorate=False)


@st.cache_data(max_entries=16, show_spinner=False)
def skeleton_html(run: str, highlight: int | None, height: int, _result) -> str:
    return graphs.skeleton_graph_html(_result, highlight=highlight, height=height,
                                      decorate=False)


@st.cache_data(max_entries=32, show_spinner=False)
def ego_html(run: str, tid: int, height: int, _result) -> str:
    return graphs.skeleton_ego_html(_result, tid, height=height, decorate=False)


@st.cache_resource(max_entries=4, show_spinner=False)
def _label_space(run: str, _result) -> dict:
    from camcf.viz import figures

    return figures.label_space(_result)


def heatmap_figure(rec, tid: int | None):
    """The seriated label-space heatmap (the clustering is computed once per run)."""
    from camcf.viz import figures

    return figures.skeleton_heatmap(rec.result, highlight=tid,
                                    space=_label_space(run_id(rec), rec.result))


@st.cache_data(max_entries=16, show_spinner=False)
def trace_frame(run: str, tid: int, _result) -> pd.DataFrame:
    return _result.to_frame(tid)


def show_graph(html: str, height: int = GRAPH_HEIGHT) -> None:
    st.iframe(html, height=height + FRAME_EXTRA)


def legend(keys) -> None:
    st.html(legend_html(keys))


def fmt_features(result, idx, limit: int = 60) -> str:
    """Feature names joined by commas; beyond ``limit`` names, '… and N more'."""
    idx = list(idx)
    out = ", ".join(result.feature_names[i] for i in idx[:limit]) or "—"
    return out + (f", … and {len(idx) - limit:,} more" if len(idx) > limit else "")

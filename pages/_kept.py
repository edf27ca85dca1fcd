"""Kept results and the data they belong to.

Users load one file after another. Every result the app keeps — the run, the pinned run, the
landscape, the tuning, the evaluation and its sensitivity grids, the comparison, the F1 against
n of a known network — carries the
data (fingerprint and discretisation) it was computed on (:class:`pages._state.Kept`,
:func:`pages._state.data_id`). A page draws a kept result as current, and offers to apply it,
only on those data; for other data it says, in one line, what is set aside and how to get it
back (:func:`set_aside_note`). When the data change, the frame says what the change set aside
(:func:`set_aside`, :func:`show_set_aside`).
"""

from __future__ import annotations

import streamlit as st

from pages import _state as S


def set_aside_note(kept: S.Kept, rec: S.RunRecord) -> None:
    """Say that ``kept`` (computed on other data than ``rec``'s) is set aside: not drawn, not
    applied here."""
    same_file = kept.data[0] == rec.data.fingerprint
    where = (f"{rec.data.description} with another discretisation" if same_file
             else kept.source)
    back = ("run again with that discretisation to see it" if same_file
            else f"load {kept.source} again to see it")
    st.info(f"Set aside: {kept.what}{' (partial)' if kept.partial else ''} was computed on "
            f"{where}; it is not shown or applied on {rec.data.description} — {back}, or "
            "compute one for these data (it replaces it).", icon=":material/inventory_2:")


def _study_key_data(key) -> str | None:
    """The fingerprint in an Evaluation page study key (``(kind, fingerprint, disc, …)``)."""
    return key[1] if isinstance(key, tuple) and len(key) > 2 else None


def set_aside(fingerprint: str) -> dict[str, list[str]]:
    """The kept results computed on data other than ``fingerprint``: ``{the data they were
    computed on: [each in words]}``."""
    items: dict[str, list[str]] = {}
    rec = S.RUN.get()
    if rec is not None and rec.data.fingerprint != fingerprint:
        items.setdefault(rec.data.description, []).append(
            f"the run ({rec.result.selected_indices.size:,} features selected)")
    pinned = S.PINNED.get()
    if pinned is not None and pinned.data.fingerprint != fingerprint:
        items.setdefault(pinned.data.description, []).append("the pinned run")
    for key in (S.LANDSCAPE, S.TUNE, S.CMP_RESULT, S.TRUTH_CURVE):
        kept = key.get()
        if isinstance(kept, S.Kept) and kept.data[0] != fingerprint:
            items.setdefault(kept.source, []).append(
                kept.what + (" (partial)" if kept.partial else ""))
    names = S.DATA_NAMES.get({})
    for key, what in ((S.EVAL_KEY, "the evaluation"), (S.SENS_KEY, "the sensitivity grids")):
        shown = _study_key_data(key.get())
        if shown is not None and shown != fingerprint:
            items.setdefault(names.get(shown, "other data"), []).append(what)
    return items


def note_data_change(before: S.DataBundle | None, after: S.DataBundle) -> None:
    """The data changed from ``before`` to ``after``: remember what that set aside (shown by
    :func:`show_set_aside` until the next load or until dismissed)."""
    S.SET_ASIDE.pop()
    names = dict(S.DATA_NAMES.get({}))
    for d in (before, after):
        if d is not None:
            names[d.fingerprint] = d.description
    S.DATA_NAMES.set(names)
    if before is None or before.fingerprint == after.fingerprint:
        return
    items = set_aside(after.fingerprint)
    if items:
        S.SET_ASIDE.set({"source": before.description, "items": items,
                         "fingerprint": after.fingerprint})


def show_set_aside() -> None:
    """The note of the last data change: what it set aside, and how to get it back."""
    note = S.SET_ASIDE.get()
    if not note:
        return
    data = S.DATA.get()
    if data is None or data.fingerprint != note["fingerprint"]:
        S.SET_ASIDE.pop()
        return
    c1, c2 = st.columns([12, 1], vertical_alignment="center")
    groups = "; ".join(f"of {source}: {', '.join(what)}"
                       for source, what in note["items"].items())
    c1.info(f"Set aside when {note['source']} was replaced — {groups}. No page shows or "
            f"applies them on {data.description}; load their data again to see them.",
            icon=":material/inventory_2:")
    if c2.button("OK", key="set_aside_ok", help="Hide this note"):
        S.SET_ASIDE.pop()
        st.rerun()

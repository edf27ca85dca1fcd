"""The app's pages, and leaving Streamlit's ``pages/`` directory mode with public calls only.

Streamlit documents that calling ``st.navigation`` turns off the automatic discovery of a
``pages/`` folder beside the entry file. Until the first ``st.navigation`` call of a server
process, though, Streamlit 1.x still serves that process's first script run in the old mode:
a URL such as ``/skeleton`` runs ``pages/skeleton.py`` on its own (without the frame in
app.py), and ``/`` runs app.py as a page of that mode, whose widgets get other ids than in
every later run (so a user's first click would be lost).

The way out uses public API only: the first run of a server process calls ``st.navigation``
with the real page list — turning the directory mode off and resolving the requested page —
and reruns at once, before anything is drawn; the rerun is an ordinary run of app.py for the
same page. Every page's url path is inferred from its file name exactly as the directory mode
infers it, so a deep link (``/skeleton``) names the same page in both modes and never meets
"Page not found".

``AppTest`` differs: it restores the directory mode before *every* ``run()`` and asks for pages
by hash, not by name, so a rerun there would drop the clicks and values a test just set. A
session without a browser (``st.context.url`` is None: AppTest) gets page url paths with a
suffix instead: no directory-mode page has their hash, so every AppTest run goes through app.py,
the same way each time.
"""

from __future__ import annotations

import threading
from pathlib import Path

import streamlit as st

from pages._state import NAV_RERUN

ROOT = Path(__file__).resolve().parents[1]

#: (file, title, icon); url paths are inferred from the file names (``/skeleton``, …)
PAGES = [
    ("pages/overview.py", "Overview", ":material/insights:"),
    ("pages/skeleton.py", "Label skeleton", ":material/hub:"),
    ("pages/local_structure.py", "Local structure", ":material/account_tree:"),
    ("pages/recovery.py", "Recovery", ":material/restore:"),
    ("pages/pruning.py", "Pruning", ":material/content_cut:"),
    ("pages/step_through.py", "Step through", ":material/footprint:"),
    ("pages/what_changed.py", "What changed", ":material/difference:"),
    ("pages/landscape.py", "Threshold landscape", ":material/grid_on:"),
    ("pages/evaluation.py", "Evaluation", ":material/speed:"),
    ("pages/compare.py", "Compare methods", ":material/leaderboard:"),
    ("pages/export.py", "Export", ":material/download:"),
]

_process = {"navigated": False}
_frame = threading.local()  # script runs of one session happen on one thread


def pages(*, icons: bool = True) -> list:
    """The st.Page objects (absolute paths; the first is the default page). Without ``icons``
    for the guard's navigation: its page icon would become the tab's icon for a moment, and
    the browser would fetch it from the internet."""
    test = _in_app_test()
    out = []
    for i, (path, title, icon) in enumerate(PAGES):
        if (ROOT / path).is_file():
            url = f"{Path(path).stem}-page" if test else None  # None: inferred from the name
            out.append(st.Page(ROOT / path, title=title, icon=icon if icons else None,
                               default=i == 0,
                               url_path=url))
    return out


def _in_app_test() -> bool:
    """No browser behind this session (AppTest): pages are asked for by hash, not by URL."""
    return st.context.url is None


def leave_directory_mode() -> None:
    """On a run that may still be in the ``pages/`` directory mode, switch it off with
    ``st.navigation`` and rerun before anything is drawn (see the module docstring)."""
    if NAV_RERUN.pop(False) or _process["navigated"] or _in_app_test():
        return
    st.navigation(pages(icons=False), position="hidden")
    _process["navigated"] = True
    NAV_RERUN.set(True)
    st.rerun()


def navigate():
    """The frame's navigation: the page to run (``.run()`` it after drawing the frame)."""
    pg = st.navigation(pages())
    _process["navigated"] = True
    return pg


class frame_running:
    """``with frame_running():`` marks this thread's script run as going through app.py."""

    def __enter__(self):
        _frame.on = True
        return self

    def __exit__(self, *exc) -> None:
        _frame.on = False


def in_frame() -> bool:
    return bool(getattr(_frame, "on", False))

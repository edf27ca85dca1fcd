"""Helpers the tests share (plain functions; the fixtures built on them are in conftest.py).

* The app through Streamlit's AppTest: :func:`app_test`, :func:`new_app`, :func:`goto`, :func:`texts`,
  :func:`run_button`, :func:`upload`.
* The app in a real browser (Chromium driven by Playwright): :func:`start_app`,
  :func:`stop_app`, :func:`wait_idle`, :func:`settle`, :func:`charts_drawn`,
  :func:`graph_node_ids`, :func:`open_page`, :func:`shot`, :func:`move_slider` / :func:`slider_value` (k1, k2),
  :func:`set_number` / :func:`number_value` (δ1, δ2 and the other number inputs),
  :func:`upload_file` / :func:`upload_mat` (a file through the sidebar) and
  :func:`wait_for_the_run`.

Tests import them with ``from support import …`` (pytest puts ``tests/`` on ``sys.path``).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
APP = str(REPO / "app.py")
#: the explorer's pages that draw a run (AppTest page names)
DRAW_PAGES = ["pages/overview.py", "pages/skeleton.py", "pages/local_structure.py",
              "pages/recovery.py", "pages/pruning.py", "pages/step_through.py",
              "pages/export.py"]


# ------------------------------------------------------------------------------------------------
# AppTest
# ------------------------------------------------------------------------------------------------
def app_test(path: str = APP, **kw):
    """``AppTest.from_file(path, **kw)`` with Streamlit's "magic" off in this process.

    Magic rewrites each script's syntax tree to ``st.write`` bare expressions; AppTest does it
    again on every run (a real server caches the result), which was about 0.17 s of CPU of a
    0.25 s run. The app's scripts have no expression magic would write
    (``test_app.py::test_the_app_scripts_need_no_magic``), so they draw the same without it."""
    from streamlit import config
    from streamlit.testing.v1 import AppTest

    config.set_option("runner.magicEnabled", False)
    return AppTest.from_file(path, **kw)


def new_app(query: dict | None = None, *, timeout: float = 90):
    """A fresh session of the app (opened with ``query`` as its link), run once, no exception."""
    at = app_test(APP, default_timeout=timeout)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def goto(at, page: str):
    """Switch ``at`` to ``page`` (``"pages/x.py"``) and run it; no exception."""
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def texts(at) -> str:
    """Titles, subheaders, markdown, captions and HTML bodies of the last run, one a line."""
    parts = [e.value for e in at.title] + [e.value for e in at.subheader]
    parts += [e.value for e in at.markdown] + [e.value for e in at.caption]
    parts += [h.proto.body for h in at.get("html")]
    return "\n".join(str(p) for p in parts)


def run_button(at):
    return next(b for b in at.button if b.label == "Run")


def link_of(at) -> dict[str, str]:
    """The app's current query string (what a user would copy)."""
    return {k: v[0] if isinstance(v, list) else v for k, v in at.query_params.items()}


def upload(at, data: bytes, filename: str, **kw):
    """Load ``data`` as the sidebar's "Load file" button does, and run."""
    # (the key of pages._state.LOAD_REQUEST, spelled out so this helper also drives older apps)
    at.session_state["load_request"] = {"kind": "upload", "data": data, "filename": filename,
                                        "labels": None, **kw}
    at.run()
    return at


# ------------------------------------------------------------------------------------------------
# Browser
# ------------------------------------------------------------------------------------------------
CHROMIUM = "/usr/bin/chromium"
CHROME_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
               "--no-first-run", "--disable-background-networking",
               "--disable-component-update", "--disable-sync"]
#: where screenshots go (``$CAMCF_SHOTS`` to change it)
SHOTS = Path(os.environ.get("CAMCF_SHOTS", REPO / "artifacts" / "screenshots"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(env: dict | None = None, port: int | None = None, log: Path | None = None):
    """Start ``streamlit run app.py`` on a free port; return (process, base url) once healthy.
    Stop it with :func:`stop_app`. ``log``: a file for the server's output (else discarded)."""
    port = port or free_port()
    streamlit = Path(sys.executable).with_name("streamlit")
    cmd = [str(streamlit) if streamlit.exists() else "streamlit", "run", "app.py",
           "--server.headless", "true", "--server.address", "127.0.0.1", "--server.port",
           str(port), "--browser.gatherUsageStats", "false",
           "--server.fileWatcherType", "none"]
    out = open(log, "w") if log is not None else subprocess.DEVNULL  # noqa: SIM115
    proc = subprocess.Popen(cmd, cwd=REPO, env={**os.environ, **(env or {})},
                            stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=1) as r:
                if r.read().decode().strip() == "ok":
                    return proc, url
        except OSError:
            time.sleep(0.2)
    stop_app(proc)
    raise RuntimeError("streamlit did not become healthy within 90 s")


def stop_app(proc) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


def wait_idle(page, timeout: float = 90_000) -> None:
    """Wait until the script has run (Streamlit's own e2e tests wait this way); generous, for
    a loaded machine."""
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                           timeout=timeout)
    page.wait_for_timeout(150)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                           timeout=timeout)


def settle(page, timeout: float = 90_000) -> None:
    """Wait for the script, a moment for the page to draw, and the script again."""
    wait_idle(page, timeout)
    page.wait_for_timeout(400)
    wait_idle(page, timeout)


def charts_drawn(page, timeout: float = 30_000) -> None:
    """Wait until every plotly chart of the page is drawn (its plot and SVG exist): before a
    screenshot, instead of a fixed pause."""
    page.wait_for_function(
        """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].every(c => {
             const gd = c.querySelector('.js-plotly-plot');
             return gd && gd._fullLayout && gd.querySelector('svg.main-svg'); })""",
        polling=100, timeout=timeout)


def graph_node_ids(page, index: int = 0, timeout: float = 15_000) -> list[str]:
    """Node ids drawn by vis-network in the ``index``-th frame (waits for the canvas)."""
    frame_el = page.locator('[data-testid="stIFrame"]').nth(index)
    frame_el.wait_for(timeout=timeout)
    frame = frame_el.content_frame
    frame.locator("#mynetwork canvas").wait_for(timeout=timeout)
    return frame.locator("body").evaluate(
        "() => (typeof nodes !== 'undefined' && nodes) ? nodes.getIds() : []")


def open_page(page, title: str, timeout: float = 120_000) -> None:
    """Open a page through the sidebar navigation (keeps the session) and wait for its run."""
    page.locator('[data-testid="stSidebarNav"] a').filter(has_text=title).first.click()
    wait_idle(page, timeout=timeout)


def sidebar_slider(page, label: str):
    """The sidebar slider labelled ``label`` (k1, k2)."""
    return page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]').filter(
        has_text=label).first


def slider_value(page, label: str) -> str:
    """The value a sidebar slider shows on its thumb."""
    return sidebar_slider(page, label).locator(
        '[data-testid="stSliderThumbValue"]').first.inner_text()


def move_slider(page, label: str, presses: int) -> None:
    """Move a sidebar slider by ``presses`` steps (negative: to the left) with the keyboard."""
    sidebar_slider(page, label).locator('input[type="range"]').first.focus()
    for _ in range(abs(presses)):
        page.keyboard.press("ArrowRight" if presses > 0 else "ArrowLeft")


def sidebar_number(page, label: str):
    """The input box of the sidebar number input labelled ``label`` (δ1, δ2, γ, …)."""
    return page.locator('[data-testid="stSidebar"] [data-testid="stNumberInput"]').filter(
        has_text=label).first.locator("input")


def set_number(page, label: str, value) -> None:
    """Type ``value`` into a sidebar number input and commit it (Enter), as a user does."""
    box = sidebar_number(page, label)
    box.fill(str(value))
    box.press("Enter")


def number_value(page, label: str) -> str:
    """The text a sidebar number input shows."""
    return sidebar_number(page, label).input_value()


def wait_for_the_run(page, timeout: float = 180.0) -> None:
    """Wait until the loaded data's automatic run has finished: the script is idle and the
    sidebar no longer says the results are stale. (Loading and the run are separate script
    runs: between them the app is briefly idle, and a click then would interrupt the run.)"""
    side = page.locator('[data-testid="stSidebar"]')
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        wait_idle(page, timeout=timeout * 1000)
        if side.get_by_text("results are stale").count() == 0:
            page.wait_for_timeout(300)
            wait_idle(page, timeout=timeout * 1000)
            if side.get_by_text("results are stale").count() == 0:
                return
        page.wait_for_timeout(500)
    raise AssertionError("the loaded data's run did not finish (the results are stale)")


def upload_file(page, path: Path) -> None:
    """Upload ``path`` in the sidebar (its labels named inside the file) and press Load
    file."""
    side = page.locator('[data-testid="stSidebar"]')
    side.locator("label").filter(has_text="Upload a file").click()
    wait_idle(page)
    side.locator('input[type="file"]').first.set_input_files(str(path))
    wait_idle(page)
    side.get_by_text(path.name).first.wait_for(timeout=30_000)  # the uploader has it
    side.get_by_role("button", name="Load file").click()
    wait_idle(page, timeout=180_000)
    side.get_by_text(f"{path.name} (uploaded)").first.wait_for(timeout=120_000)
    wait_for_the_run(page)


def upload_mat(page, path: Path, choose: str, *, wait_run: bool = True) -> None:
    """Upload ``path`` in the sidebar, pick the variable pair whose text starts with
    ``choose`` and press Load file (and, with ``wait_run``, wait for the loaded data's
    automatic run: a run estimated to be slow is left to the Run button)."""
    side = page.locator('[data-testid="stSidebar"]')
    side.locator("label").filter(has_text="Upload a file").click()
    wait_idle(page)
    side.locator('input[type="file"]').first.set_input_files(str(path))
    wait_idle(page)
    box = side.locator('[data-testid="stSelectbox"]').filter(has_text="Variables")
    box.wait_for(timeout=30_000)
    box.click()
    page.get_by_role("option").filter(has_text=choose).first.click()
    side.get_by_role("button", name="Load file").click()
    wait_idle(page, timeout=180_000)
    side.get_by_text(f"{path.name} ({choose.replace(' ', '')}, uploaded)").first.wait_for(
        timeout=120_000)
    if wait_run:
        wait_for_the_run(page)


def shot(page, name: str, *, full_page: bool = True) -> Path:
    """Save a screenshot as ``SHOTS / name`` (.png added) and return its path."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / (name if name.endswith(".png") else f"{name}.png")
    page.screenshot(path=str(path), full_page=full_page)
    return path


# ------------------------------------------------------------------------------------------------
# Benchmark scripts and the paper's source
# ------------------------------------------------------------------------------------------------
#: the paper's LaTeX source (``$CAMCF_PAPER``, else beside the repository as ``../shared``)
PAPER_TEX = Path(os.environ.get("CAMCF_PAPER",
                                REPO.parent / "shared" / "paper" / "ca-mcf-paper.tex"))


def benchmark_module(name: str):
    """The script ``benchmarks/<name>.py`` imported as a module (its declarations and helpers
    are the tests' reference too)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def paper_tables():
    """``(benchmarks/paper_friedman.py as a module, the paper's metric tables parsed from its
    LaTeX source)``; skips the test when the source is not at :data:`PAPER_TEX`."""
    import pytest

    if not PAPER_TEX.is_file():
        pytest.skip(f"the paper's LaTeX source is not at {PAPER_TEX} (set CAMCF_PAPER)")
    module = benchmark_module("paper_friedman")
    return module, module.parse_tables(PAPER_TEX.read_text(encoding="utf-8"))

"""The explorer in Chromium on large generated files (issue 34's check): a file of delicious's
shape (16,000 × 500 binary, 1,000 sparse labels) and one of Corel16k's (13,766 × 500, 153
labels), each uploaded as a sparse MULAN ARFF with its XML (benchmarks/shapes.py), at the
suggested thresholds:

1. the sidebar shows the run's estimate before it starts;
2. Run starts the run as a job: progress with the time left; Stop stops it (and the results
   shown before stay) — a run estimated short runs at once, with no job and no Stop: said;
3. Run again, to the end; the Threshold landscape's default grid holds the current δ1 (marked);
4. the landscape is started and stopped after a few cells: the finished cells are kept, drawn,
   marked partial, and the button offers to continue.

Run from the repository root (it takes several minutes: the runs are real)::

    .venv/bin/python benchmarks/browse_large.py --shots /work/notes/screens/explorer

Each step prints what it saw (with the seconds it took) and saves a screenshot in ``--shots``.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "benchmarks"))

import support  # noqa: E402
from support import CHROME_ARGS, CHROMIUM, start_app, stop_app, wait_idle  # noqa: E402

LONG = 600_000  # ms: a delicious-sized run on a loaded 2-core machine


def shot(page, shots: Path, name: str) -> None:
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / f"{name}.png"), full_page=True)
    print(f"    screenshot {shots / (name + '.png')}", flush=True)


def say(t0: float, text: str) -> None:
    print(f"[{time.monotonic() - t0:6.1f} s] {text}", flush=True)


def upload(page, arff: Path, xml: Path) -> None:
    side = page.locator('[data-testid="stSidebar"]')
    side.locator("label").filter(has_text="Upload a file").click()
    wait_idle(page)
    inputs = side.locator('input[type="file"]')
    inputs.nth(0).set_input_files(str(arff))
    wait_idle(page)
    inputs.nth(1).set_input_files(str(xml))
    wait_idle(page)
    side.get_by_text(xml.name).first.wait_for(timeout=60_000)
    side.get_by_role("button", name="Load file").click()
    side.get_by_text(f"{arff.name} (uploaded)").first.wait_for(timeout=LONG)
    wait_idle(page, timeout=LONG)


def job_line(page, title: str) -> str:
    bar = page.locator('[data-testid="stProgress"]').filter(has_text=title).first
    bar.wait_for(timeout=LONG)
    return bar.inner_text()


def alert(page, text: str):
    """The message box (st.warning, st.info, …) that says ``text``."""
    return page.locator('[data-testid="stAlert"]').filter(has_text=text).first


def stop_job(page, title: str, stopped: str) -> None:
    page.get_by_role("button", name="Stop").first.click()
    alert(page, stopped).wait_for(timeout=LONG)
    wait_idle(page, timeout=LONG)


def chart_shot(page, shots: Path, name: str) -> None:
    """The first chart scrolled into view, and the window shot (the page scrolls inside)."""
    chart = page.locator('[data-testid="stPlotlyChart"]').first
    chart.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / f"{name}.png"))
    print(f"    screenshot {shots / (name + '.png')}", flush=True)


def one_file(page, name: str, arff: Path, xml: Path, shots: Path, t0: float) -> None:
    side = page.locator('[data-testid="stSidebar"]')
    upload(page, arff, xml)
    say(t0, f"{name}: loaded")
    # (after a file whose thresholds were suggested, they are suggested again on loading:
    # the press then changes nothing)
    side.get_by_role("button", name="Suggest from the data").click()
    wait_idle(page, timeout=LONG)
    page.wait_for_timeout(1500)
    wait_idle(page, timeout=LONG)
    estimate = side.get_by_text("This run will take").first
    estimate.wait_for(timeout=LONG)
    say(t0, f"{name}: δ1 = {support.number_value(page, 'δ1')}; {estimate.inner_text()}")
    shot(page, shots, f"{name}-1-estimate")

    if "Stop button" not in estimate.inner_text():  # a short run runs at once, as no job
        say(t0, f"{name}: a short run (no job, no Stop): the stop steps are skipped")
    else:
        run_and_stop(page, name, shots, t0)

    started = time.monotonic()
    side.get_by_role("button", name="Run", exact=True).click()
    side.get_by_text("results are stale").first.wait_for(state="detached", timeout=LONG)
    wait_idle(page, timeout=LONG)
    say(t0, f"{name}: the run finished in {time.monotonic() - started:.0f} s (wall, with the "
            "page polling)")
    landscape(page, name, shots, t0)


def run_and_stop(page, name: str, shots: Path, t0: float) -> None:
    """Run, wait for progress with the time left, Stop: the results shown before stay."""
    side = page.locator('[data-testid="stSidebar"]')
    side.get_by_role("button", name="Run", exact=True).click()
    job_line(page, "The Ca-MCF run")
    page.wait_for_function(  # some categories done, and the time left said
        """() => [...document.querySelectorAll('[data-testid="stProgress"]')]
                 .some(e => /The Ca-MCF run: ([2-9]\\d|\\d{3,})/.test(e.innerText)
                            && / left/.test(e.innerText))""",
        timeout=LONG)
    line = job_line(page, "The Ca-MCF run")
    say(t0, f"{name}: running — {line}")
    shot(page, shots, f"{name}-2-running")
    stop_job(page, "The Ca-MCF run", "the results shown before it stay")
    say(t0, f"{name}: stopped — " + alert(page, "the results shown before it stay").inner_text())
    shot(page, shots, f"{name}-3-stopped")


def landscape(page, name: str, shots: Path, t0: float) -> None:
    """The landscape's default grid around the current δ1; started, stopped, kept partial."""
    support.open_page(page, "Threshold landscape", timeout=LONG)
    cap = page.get_by_text(re.compile(r"^δ1 \(log-spaced")).first
    cap.wait_for(timeout=LONG)
    say(t0, f"{name}: landscape axis — {cap.inner_text()}")
    est = page.get_by_text(re.compile("^The landscape will take")).first
    say(t0, f"{name}: {est.inner_text()}")
    shot(page, shots, f"{name}-4-landscape-grid")
    page.get_by_role("button", name=re.compile(r"^Compute the landscape")).click()
    job_line(page, "The landscape")
    page.wait_for_function(
        """() => [...document.querySelectorAll('[data-testid="stProgress"]')]
                 .some(e => /The landscape: [2-9]\\d*\\//.test(e.innerText))""",
        timeout=LONG)
    say(t0, f"{name}: landscape running — {job_line(page, 'The landscape')}")
    stop_job(page, "The landscape", "are kept and shown (partial)")
    page.get_by_text(re.compile("^Partial: ")).first.wait_for(timeout=LONG)
    support.charts_drawn(page, timeout=LONG)
    say(t0, f"{name}: landscape stopped — " + alert(page, "Partial: ").inner_text())
    cont = page.get_by_role("button", name=re.compile(r"^Continue \("))
    say(t0, f"{name}: the button now says: {cont.first.inner_text()}")
    shot(page, shots, f"{name}-5-landscape-stopped")
    chart_shot(page, shots, f"{name}-6-landscape-partial-cells")


def main() -> None:
    from playwright.sync_api import sync_playwright
    from shapes import corel16k_like, delicious_like, write_arff

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shots", default=str(REPO / "artifacts" / "screenshots" / "large"))
    ap.add_argument("--only", default="delicious-like,corel16k-like")
    args = ap.parse_args()
    shots = Path(args.shots)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for name, make in (("delicious-like", delicious_like), ("corel16k-like", corel16k_like)):
            if name in args.only:
                X, Y = make(1.0)
                files[name] = write_arff(Path(tmp) / f"{name}.arff", X, Y, name)
                say(t0, f"{name}: {X.shape[0]:,} × {X.shape[1]}, {Y.shape[1]} labels written")
        proc, url = start_app(log=Path(tmp) / "server.log")
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
                page = browser.new_context(viewport={"width": 1440, "height": 1100}
                                           ).new_page()
                page.goto(url)
                wait_idle(page, timeout=LONG)
                for name, (arff, xml) in files.items():  # one session: a file after another
                    try:
                        one_file(page, name, arff, xml, shots, t0)
                    except Exception:
                        shot(page, shots, f"{name}-failed")
                        raise
                browser.close()
        finally:
            stop_app(proc)
    say(t0, "done")


if __name__ == "__main__":
    main()

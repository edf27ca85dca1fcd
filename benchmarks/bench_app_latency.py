"""Latency of the app in a real browser: slider change + Run on Yeast until the page is drawn.

Starts ``streamlit run app.py`` (CAMCF_DATA_DIR names the shared data folder; default
``../shared/datasets``), opens it in Debian's Chromium through Playwright, loads Yeast from the
shared data folder, then repeatedly moves δ1 one step (a new value each time, so every repeat is
a real run, not a cache hit), waits for the "results are stale" mark, and presses Run. The time is measured inside the page, from the
click until the app's script state has gone running → notRunning and two animation frames have
been painted, with the stale mark gone. Prints every repeat and the median.

    .venv/bin/python benchmarks/bench_app_latency.py [--repeats 5] [--page overview]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from test_browser import CHROME_ARGS, CHROMIUM, start_app, wait_idle  # noqa: E402

MEASURE = """() => new Promise(resolve => {
  // done: the script has run and the sidebar no longer marks the results stale (the new
  // parameters were applied and the page redrawn with them)
  const app = document.querySelector('[data-testid="stApp"]');
  const side = document.querySelector('[data-testid="stSidebar"]');
  let running = false;
  const check = () => {
    const s = app.getAttribute('data-test-script-state');
    if (s === 'running') running = true;
    if (running && s === 'notRunning' && !side.innerText.includes('results are stale')) {
      obs.disconnect();
      requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - t0)));
    }
  };
  const obs = new MutationObserver(check);
  obs.observe(app, {attributes: true, subtree: true, childList: true, characterData: true});
  const btn = document.querySelector('[data-testid="stSidebar"] [data-testid="stBaseButton-primary"]');
  const t0 = performance.now();
  btn.click();
})"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--dataset", default="yeast")
    ap.add_argument("--page", default="overview", help="url path of the page to measure on")
    args = ap.parse_args()
    if not Path(CHROMIUM).exists():
        print(f"{CHROMIUM} not found", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    proc, url = start_app()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            # the first request of a fresh server goes to "/": Streamlit's first run of a
            # process still knows the pages/ folder as v1 pages (st.navigation turns that off)
            page.goto(url)
            wait_idle(page)
            if args.page != "overview":
                page.goto(f"{url}/{args.page}")
                wait_idle(page)
            side = page.locator('[data-testid="stSidebar"]')
            side.locator("label").filter(has_text="Shared data folder").click()
            wait_idle(page)
            box = side.locator('[data-testid="stSelectbox"]').filter(has_text="Data set")
            box.wait_for(timeout=30_000)
            box.click()
            page.get_by_role("option").filter(has_text=args.dataset).first.click()
            wait_idle(page)
            t = time.perf_counter()
            side.get_by_role("button", name="Load data set").click()
            wait_idle(page, timeout=120_000)
            page.get_by_text(f"{args.dataset} (shared data folder)").first.wait_for()
            print(f"load + first run of {args.dataset}: {time.perf_counter() - t:.2f} s "
                  "(includes reading the file)")
            slider = side.locator('[data-testid="stSlider"] input[type="range"]').first
            times = []
            for i in range(args.repeats):
                slider.focus()
                page.keyboard.press("ArrowRight")  # δ1 + 0.005: a value not run before
                side.get_by_text("results are stale").wait_for(timeout=10_000)
                wait_idle(page)  # the parameter panel has rerun and marked the results stale
                ms = page.evaluate(MEASURE)
                wait_idle(page)
                value = slider.get_attribute("aria-valuetext")
                times.append(ms / 1000)
                print(f"  repeat {i + 1}: δ1 = {value}: {ms / 1000:.3f} s")
            errors = page.locator('[data-testid="stException"]').count()
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    med = statistics.median(times)
    print(f"slider change + Run on {args.dataset} ({args.page}): median {med:.3f} s over "
          f"{len(times)} repeats (min {min(times):.3f}, max {max(times):.3f}); target < 2 s"
          + (f"; {errors} exception(s) on the page!" if errors else ""))
    return 0 if med < 2 and not errors else 1


if __name__ == "__main__":
    sys.exit(main())

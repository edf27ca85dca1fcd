"""Issue 14 in a real browser (Chromium + Playwright): on a generated wide data set uploaded
through the sidebar, "Suggest from the data" moves δ1 and δ2 to the numbers a library run with
``delta1="auto", delta2="auto"`` resolves to; Run applies them; then the Threshold landscape's
"Tune" scores a 2 × 1 grid by inner cross-validation, marks its best point, and "Apply the best
point" moves the sidebar inputs there. Screenshots go to ``$CAMCF_SHOTS`` (default
``artifacts/screenshots``)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from support import charts_drawn, number_value, open_page, settle, shot, slider_value, wait_idle
from test_browser_wide import upload

import camcf
from camcf.datasets import make_wide
from camcf.io import load

pytestmark = pytest.mark.browser
#: rows, features, labels (60 label categories): wide enough to tune, small enough to be quick
N, M, Q = 240, 80, 30


def write_arff(path, ds) -> None:
    """``ds`` as an ARFF file whose MEKA header names the last Q attributes as labels."""
    X, Y = np.asarray(ds.X), np.asarray(ds.Y)
    head = [f"@relation 'wide-tune: -C -{Y.shape[1]}'"]
    head += [f"@attribute f{j} {{0,1,2}}" for j in range(X.shape[1])]
    head += [f"@attribute y{i} {{0,1}}" for i in range(Y.shape[1])]
    rows = [",".join(map(str, r)) for r in np.hstack([X, Y]).astype(int)]
    path.write_text("\n".join(head + ["@data"] + rows) + "\n")


def test_suggest_then_tune_on_a_generated_wide_data_set(server, new_page, tmp_path):
    ds = make_wide(N, M, Q, seed=5)
    path = tmp_path / "wide-tune.arff"
    write_arff(path, ds)
    loaded = load(path)
    auto = camcf.run(loaded.X, loaded.Y, delta1="auto", delta2="auto").params
    page = new_page()
    page.goto(server)
    settle(page)
    upload(page, path)
    side = page.locator('[data-testid="stSidebar"]')
    before = float(number_value(page, "δ1"))
    side.get_by_role("button", name="Suggest from the data").click()
    settle(page)
    assert float(number_value(page, "δ1")) == pytest.approx(auto["delta1"], rel=1e-3)
    assert float(number_value(page, "δ2")) == pytest.approx(auto["delta2"], rel=1e-3)
    assert float(number_value(page, "δ1")) != pytest.approx(before, rel=1e-3)
    page.get_by_role("button", name="Run", exact=True).click()
    wait_idle(page, 120_000)
    side.get_by_text("results are stale").wait_for(state="detached", timeout=120_000)
    shot(page, "suggest-applied")

    open_page(page, "Threshold landscape")
    main = page.locator('[data-testid="stMain"]')
    main.get_by_role("tab", name="Tune").click()
    settle(page)
    steps = main.locator('[data-testid="stNumberInput"]').filter(has_text="steps")
    for i, n in enumerate(("2", "1")):  # a 2 × 1 grid: two δ1 values, one k1
        box = steps.nth(i).locator("input")
        box.fill(n)
        box.press("Enter")
        settle(page)
    main.get_by_role("tab", name="Tune").click()
    main.get_by_text("Tuning will take").first.wait_for(timeout=30_000)
    main.get_by_role("button", name=re.compile(r"^Tune \(2 points")).click()
    best = main.locator("p").filter(has_text="Best point").first
    best.wait_for(timeout=240_000)
    settle(page)
    text = best.inner_text()
    m = re.search(r"δ1 = ([0-9.e-]+), k1 = ([0-9.e-]+)", text)
    assert m, text
    chart = main.locator('[data-testid="stPlotlyChart"]').filter(has_text="best (least score)")
    chart.first.wait_for(timeout=30_000)
    charts_drawn(page)
    shot(page, "tune-best")
    main.get_by_role("button", name="Apply the best point to the sliders").click()
    settle(page)
    main.get_by_text("Sliders set to the best point").first.wait_for(timeout=30_000)
    assert float(number_value(page, "δ1")) == pytest.approx(float(m.group(1)))
    assert float(slider_value(page, "k1")) == pytest.approx(float(m.group(2)))
    side.get_by_text("results are stale").wait_for(timeout=30_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    shot(page, "tune-applied")

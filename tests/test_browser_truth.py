"""A known network in a real browser: ALARM loaded from the sidebar's "Known network", run, and
the Overview's per-label P/R/F1 table checked against camcf.truth; the link carries the
network; Local structure names the true roles; the landscape scores cells against the truth."""

from __future__ import annotations

import warnings
from urllib.parse import parse_qs, urlparse

import pytest
from support import charts_drawn, open_page, settle, shot, wait_idle

pytestmark = pytest.mark.browser


def _expected_rows(labels: str = "auto:5", n: int = 1000, seed: int = 0) -> dict:
    """The table camcf.truth gives for the app's run (the sidebar's defaults), as shown."""
    import camcf
    from camcf import networks
    from camcf.discretize import discretize
    from camcf.viz import summary

    ds = networks.simulate("alarm", labels=labels, n=n, seed=seed)
    codes, _ = discretize(ds.X)  # the app's default discretisation (auto, 3 bins, uniform)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = camcf.run(codes, ds.Y, feature_names=ds.feature_names,
                        label_names=ds.label_names, category_names=ds.category_names)
    table = summary.truth_per_label(res, ds.truth)
    return {label: [f"{row[c]:.3f}" for c in ("precision", "recall", "f1", "distance")]
            for label, row in table.iterrows()}


def test_alarm_in_the_explorer(new_page, server):
    page = new_page(1440, 2400)
    page.goto(server)
    wait_idle(page)
    side = page.locator('[data-testid="stSidebar"]')
    side.get_by_text("Known network", exact=True).click()
    settle(page)
    side.get_by_role("button", name="Load network").click()  # alarm, auto:5, 1000, seed 0
    settle(page)
    main = page.locator('[data-testid="stMain"]')
    main.get_by_text("Per label", exact=False).first.wait_for(timeout=120_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    text = main.inner_text()
    assert "ALARM network (labels auto:5; n = 1,000, seed 0)" in text

    # the per-label table, cell by cell, against camcf.truth on the same sample and run
    table = main.locator('[data-testid="stTable"]').filter(has_text="mean over labels").first
    rows = {}
    header = [c.strip() for c in table.locator("thead th").all_inner_texts()]
    for tr in table.locator("tbody tr").all():
        cells = [c.strip() for c in tr.locator("th, td").all_inner_texts()]
        rows[cells[0]] = dict(zip(header[1:], cells[1:], strict=False))
    expected = _expected_rows()
    assert set(rows) == set(expected)
    for label, values in expected.items():
        got = [rows[label][c] for c in ("precision", "recall", "f1", "distance")]
        assert got == values, (label, got, values)
    shot(page, "truth-overview-alarm")

    # the link carries the network, its labels, n and seed
    q = parse_qs(urlparse(page.url).query)
    assert q["data"] == ["network:alarm"] and q["labels"] == ["auto:5"]
    assert q["n"] == ["1000"] and q["seed"] == ["0"]

    # Local structure: against the truth, a node's tooltip names its true role
    open_page(page, "Local structure")
    main.get_by_text("Colour against the truth").click()
    settle(page)
    frame = page.locator('[data-testid="stIFrame"]').first.content_frame
    frame.locator("#mynetwork canvas").wait_for(timeout=30_000)
    titles = frame.locator("body").evaluate(
        "() => nodes.get().map(n => n.title || '').join('\\n')")
    assert "true parent of" in titles or "true child of" in titles or "true spouse of" in titles
    shot(page, "truth-local-structure-alarm")

    # the landscape scores each cell against the truth beside the number of features
    open_page(page, "Threshold landscape")
    main.get_by_role("button", name="Compute the landscape").click()
    main.get_by_text("F1 against the truth").first.wait_for(timeout=240_000)
    main.get_by_text("F1 against the truth").first.click()
    settle(page)
    charts_drawn(page)
    title = main.locator(".js-plotly-plot .colorbar .cbtitle").first.text_content()
    assert "F1 against the truth" in title
    assert page.locator('[data-testid="stException"]').count() == 0
    shot(page, "truth-landscape-alarm")

"""Shared test fixtures: where the real data sets live, the demo, the app through AppTest, and
the app in a real browser (one Chromium and one app server per test session).

The plain helpers these fixtures use (and tests call) are in ``tests/support.py``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest


def pytest_addoption(parser):
    parser.addoption("--run-slow", action="store_true", default=False,
                     help="also run the tests marked slow (a whole real data set in the app)")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Tests marked ``slow`` run only with ``--run-slow`` (or ``-m slow``): the suite must stay
    well under 5 minutes, and they load a whole real data set into the app.

    Under pytest-xdist (``make test`` runs ``-n 2 --dist loadgroup``) each ``browser`` module
    is one group: one worker runs its tests in order, with its module's fixtures (a page, a
    session, a server of its own) set up once, while the other tests are spread one by one.
    (``tryfirst``: before xdist reads the groups. pytest 9.2 loses them — pytest-xdist issue
    #1386 — hence ``pytest<9.2`` in pyproject.toml.)"""
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))
    expr = config.getoption("markexpr") or ""
    if config.getoption("--run-slow") or ("slow" in expr and "not slow" not in expr):
        return
    skip = pytest.mark.skip(reason="slow (a whole real data set): run with --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # app.py and pages/ import as Streamlit imports them
    sys.path.insert(0, str(REPO))
DATA_DIR = Path(os.environ.get("CAMCF_DATA_DIR", REPO.parent / "shared" / "datasets"))


def require_file(name: str) -> Path:
    """Path of a shared data file (relative to the data folder); skip the test when absent."""
    if not DATA_DIR.is_dir():
        pytest.skip(f"data folder {DATA_DIR} not found (set CAMCF_DATA_DIR to the shared datasets)")
    path = DATA_DIR / name
    if not path.is_file():
        pytest.skip(f"data file {path} not found")
    return path


@pytest.fixture
def data_dir() -> Path:
    """The folder of shared real data sets (``$CAMCF_DATA_DIR`` or ``../shared/datasets``)."""
    if not DATA_DIR.is_dir():
        pytest.skip(f"data folder {DATA_DIR} not found (set CAMCF_DATA_DIR to the shared datasets)")
    return DATA_DIR


# ------------------------------------------------------------------------------------------------
# The demo
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def demo():
    """The built-in demo (:func:`camcf.datasets.make_causal_multilabel`, n = 1000, seed 0): the
    data set, its true graph and blankets. Shared by the whole session: do not modify it."""
    from camcf.datasets import make_causal_multilabel

    return make_causal_multilabel(1000, seed=0)


@pytest.fixture(scope="session")
def demo_result(demo):
    """Ca-MCF with the default parameters on the demo, discretised with the defaults."""
    import camcf
    from camcf.discretize import discretize

    ds = demo.dataset
    codes, _ = discretize(ds.X)
    return camcf.run(codes, ds.Y, feature_names=ds.feature_names, label_names=ds.label_names,
                     category_names=ds.category_names)


# ------------------------------------------------------------------------------------------------
# The app through AppTest
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def shared_app():
    """One app session on the demo for a module's read-only checks (each test switches to its
    page; a test that changes parameters makes its own with ``support.new_app()``)."""
    pytest.importorskip("streamlit")
    from support import new_app

    return new_app()


# ------------------------------------------------------------------------------------------------
# The app in a browser
# ------------------------------------------------------------------------------------------------
@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """When a browser test fails, every page the session's Chromium has open is saved as it
    was (``artifacts/failures/<test>-<n>.png`` and ``.txt`` with its url and text): a failure
    on CI can then be looked at, not guessed."""
    report = yield
    if report.failed and "browser" in item.keywords and _BROWSERS:
        from support import REPO

        folder = REPO / "artifacts" / "failures"
        folder.mkdir(parents=True, exist_ok=True)
        name = "".join(c if c.isalnum() else "_" for c in item.name)[:80]
        pages = [pg for b in _BROWSERS for ctx in b.contexts for pg in ctx.pages]
        for i, pg in enumerate(pages):
            try:
                pg.screenshot(path=str(folder / f"{name}-{i}.png"), full_page=True, timeout=10_000)
                text = pg.locator("body").inner_text(timeout=10_000)
                (folder / f"{name}-{i}.txt").write_text(f"{pg.url}\n\n{text}")
            except Exception as exc:  # noqa: BLE001 - a report must not fail on a dead page
                (folder / f"{name}-{i}.txt").write_text(f"{pg.url}\n\n(not saved: {exc})")
        if pages:
            report.sections.append(("browser pages", f"{len(pages)} saved in {folder}"))
    return report


_BROWSERS: list = []  # the session's Chromium, for the failure report above


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium for every browser test of the session (skips when Chromium or
    Playwright is missing)."""
    from support import CHROME_ARGS, CHROMIUM

    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} not found (apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (.venv/bin/pip install playwright)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
        _BROWSERS.append(browser)
        yield browser
        _BROWSERS.remove(browser)
        browser.close()


@pytest.fixture(scope="session")
def server(chromium):
    """One ``streamlit run app.py`` for every browser test of the session: its base url. Each
    test opens its own page (a new browser context is a new Streamlit session); a test that
    needs a fresh server process starts its own with ``support.start_app()``."""
    from support import start_app, stop_app

    proc, url = start_app()
    yield url
    stop_app(proc)


@pytest.fixture
def new_page(chromium):
    """``new_page(width=1440, height=1400)``: a page in a fresh browser context (a new
    Streamlit session when it opens the app); closed after the test."""
    contexts = []

    def make(width: int = 1440, height: int = 1400):
        ctx = chromium.new_context(viewport={"width": width, "height": height})
        contexts.append(ctx)
        return ctx.new_page()

    yield make
    for ctx in contexts:
        ctx.close()

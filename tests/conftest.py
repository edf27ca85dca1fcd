"""Shared test helpers: where the real data sets live."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
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

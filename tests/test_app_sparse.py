"""The app on a sparse ARFF that the reader keeps sparse (as it does above
``camcf.io.arff.SPARSE_ABOVE``): the load check, the run and every page work on the sparse X,
and the evaluation runs on it (AppTest)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("streamlit")
from support import new_app, upload  # noqa: E402

import camcf.io.arff as arff_reader  # noqa: E402
from camcf.io import check_runnable, load  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def sparse_arff(n: int = 240, m: int = 50, q: int = 3, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    head = (["@relation sparse"] + [f"@attribute f{j} {{0,1,2}}" for j in range(m)]
            + [f"@attribute y{i} {{0,1}}" for i in range(q)] + ["@data"])
    rows = []
    for _ in range(n):
        cells = {j: int(rng.integers(1, 3)) for j in range(m) if rng.random() < 0.1}
        for i in range(q):
            if (cells.get(i, 0) > 0) ^ (rng.random() < 0.1):
                cells[m + i] = 1
        rows.append("{" + ",".join(f"{k} {v}" for k, v in sorted(cells.items())) + "}")
    return ("\n".join(head + rows) + "\n").encode()


@pytest.fixture(scope="module")
def sparse_app(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(arff_reader, "SPARSE_ABOVE", 1000)  # small file, read as a large one is
        path = tmp_path_factory.mktemp("sparse") / "sparse.arff"
        path.write_bytes(sparse_arff())
        ds = load(str(path), labels="last:3")
        assert sp.issparse(ds.X)
        check_runnable(ds)  # the app's load check on the sparse X
        yield upload(new_app(timeout=120), path.read_bytes(), "sparse.arff", labels="last:3")


def test_the_sparse_upload_is_loaded_and_run(sparse_app):
    assert not sparse_app.exception and not sparse_app.error, [e.value for e in sparse_app.error]
    rec = sparse_app.session_state["run"]
    assert sp.issparse(rec.data.dataset.X)
    assert rec.result.n_samples == 240 and len(rec.result.categories) == 6


PAGES = sorted(p for p in os.listdir(ROOT / "pages") if p.endswith(".py") and p[0] != "_")


@pytest.mark.parametrize("page", PAGES)
def test_every_page_draws_on_sparse_data(sparse_app, page):
    sparse_app.switch_page(f"pages/{page}")
    sparse_app.run()
    assert not sparse_app.exception, [e.value for e in sparse_app.exception]
    assert not sparse_app.error, [e.value for e in sparse_app.error]


def test_the_evaluation_runs_on_sparse_data(sparse_app):
    sparse_app.switch_page("pages/evaluation.py")
    sparse_app.run()
    next(b for b in sparse_app.button if b.label == "Evaluate").click()
    sparse_app.run(timeout=300)
    assert not sparse_app.exception, [e.value for e in sparse_app.exception]
    assert not sparse_app.error, [e.value for e in sparse_app.error]
    assert sparse_app.get("plotly_chart") or sparse_app.dataframe  # something was drawn


def test_check_runnable_names_non_finite_cells_of_a_sparse_x():
    from camcf.dataset import Dataset
    from camcf.errors import InvalidDataError

    X = sp.random(50, 8, density=0.3, format="csc", random_state=0)
    X.data[[0, 3]] = np.inf
    Y = (np.arange(50) % 2)[:, None]
    ds = Dataset(X=X, Y=Y, feature_names=[f"f{j}" for j in range(8)], label_names=["y"])
    with pytest.raises(InvalidDataError, match="2 empty or non-finite cell"):
        check_runnable(ds)

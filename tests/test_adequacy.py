"""The test-adequacy option (the heuristic power rule; issue 33, item 8): off by default, a
backward-elimination test with fewer than h rows per cell of its table is not trusted and the
feature stays, and the record, the parameters, the command line and the explanations say so."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import camcf
from camcf.errors import ParameterError
from camcf.viz.explain import explain_test


def _data(seed=0, n=400):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, 24)) < rng.uniform(0.05, 0.5, 24)).astype(np.uint8)
    Y = np.column_stack([(X[:, j] | X[:, j + 1]) ^ (rng.random(n) < 0.1) for j in range(0, 10, 2)])
    return X, Y.astype(np.uint8)


def _run(X, Y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", camcf.CamcfWarning)
        return camcf.run(X, Y, delta1="auto", delta2="auto", k1=1.0, **kw)


def test_off_by_default_and_recorded_only_when_on():
    X, Y = _data()
    plain, zero = _run(X, Y), _run(X, Y, adequacy=0)
    assert "adequacy" not in plain.params and "adequacy" not in zero.params
    assert plain.to_json(include_trace=True) == zero.to_json(include_trace=True)
    on = _run(X, Y, adequacy=5)
    assert on.params["adequacy"] == 5.0
    with pytest.raises(ParameterError, match="adequacy"):
        _run(X, Y, adequacy=-1)


@pytest.mark.parametrize("h", [2.0, 5.0, 50.0])
def test_untrusted_exactly_where_the_table_has_fewer_than_h_rows_per_cell(h):
    X, Y = _data(1)
    res = _run(X, Y, adequacy=h)
    plain = _run(X, Y)
    frame = res.to_frame(names=False)
    back = frame[frame["step"].astype(str) == "backward"]
    assert len(back)
    lev = res.levels[back["b"].to_numpy()]
    sparse = res.n_samples < h * lev * 2 * (back["df"].to_numpy() // (lev - 1))
    untrusted = (back["decision"].astype(str) == "untrusted").to_numpy()
    assert np.array_equal(untrusted, sparse)
    for target, f in zip(back["target"][untrusted], back["b"][untrusted], strict=True):
        assert f in res.targets[target].pc  # an untrusted test keeps its feature
    if h >= 50:
        assert untrusted.any()
    if not untrusted.any():  # nothing untrusted: the run of the published algorithm
        assert [t.blanket for t in res.targets] == [t.blanket for t in plain.targets]


def test_the_explanation_states_the_cells_the_rows_and_h():
    X, Y = _data(1)
    res = _run(X, Y, adequacy=50)
    found = 0
    for t in res.targets:
        if t.skipped:
            continue
        for test in res.tests(t.category.id):
            if test.decision != "untrusted":
                continue
            lev = int(res.levels[test.b])
            cells = lev * 2 * (test.df // (lev - 1))
            text = explain_test(test, res).text
            assert f"{cells:,} cells" in text and f"{test.n:,} rows" in text
            assert "h = 50" in text and "not acted on" in text
            found += 1
    assert found


def test_command_line_flag(tmp_path):
    from camcf.cli import main

    X, Y = _data(3)
    lines = [",".join([f"f{j}" for j in range(X.shape[1])] + [f"y{i}" for i in range(5)])]
    lines += [",".join(map(str, r)) for r in np.column_stack([X, Y])]
    data = tmp_path / "d.csv"
    data.write_text("\n".join(lines) + "\n")
    out = tmp_path / "o.json"
    assert main(["select", str(data), "--labels", "last:5", "--adequacy", "5",
                 "--delta1", "auto", "--delta2", "auto", "-o", str(out), "--quiet"]) == 0
    assert json.loads(out.read_text())["params"]["adequacy"] == 5.0

"""camcf.studies: the app's studies run as plain functions (what a worker runs) and their
estimates before they start."""

from __future__ import annotations

import numpy as np
import pytest

from camcf import studies
from camcf.datasets import make_causal_multilabel
from camcf.jobs import Cancelled, StopToken, stoppable

DISC = {"discretize": "auto", "bins": 3, "strategy": "uniform"}
SETTINGS = {"protocol": "repeated", "n_repeats": 2, "n_folds": 5, "test_size": 0.3, "seed": 0,
            "k": 10, "neighbours": "strict"}


@pytest.fixture(scope="module")
def demo():
    return make_causal_multilabel(300, seed=0).dataset


def _recorder():
    calls = []
    return calls, lambda d, t, m: calls.append((d, t, m))


def test_evaluation_study_reports_every_unit(demo):
    calls, progress = _recorder()
    out = studies.run_evaluation(demo.X, demo.Y, disc=DISC, params={}, settings=SETTINGS,
                                 current=(0, 1, 2), progress=progress)
    sets = set(out["frame"]["feature_set"])
    assert {"all", "phase2", "phase3", "phase4", "camcf", "current"} <= sets
    assert out["n_splits"] == 2 and len(out["cache"]) > 0
    dones = [d for d, _, _ in calls]
    assert dones == sorted(dones) and calls[-1][0] == calls[-1][1]  # ends at total
    assert calls[0][2].startswith("discretising")
    assert any(m.startswith("current selection: ") for _, _, m in calls)


def test_a_cancelled_study_raises_at_a_unit_boundary(demo):
    token = StopToken()

    def progress(d, t, m):
        if d >= 1:
            token.stop()

    with pytest.raises(Cancelled, match="stopped by the user after 1 of"):
        studies.run_evaluation(demo.X, demo.Y, disc=DISC, params={}, settings=SETTINGS,
                               progress=stoppable(progress, token))


def test_sensitivity_study_counts_both_grids(demo):
    calls, progress = _recorder()
    grids = {"a": {"delta1": [0.02, 0.05]}, "b": {"k2": [0.5, 1.0]}}
    out = studies.run_sensitivity(demo.X, demo.Y, disc=DISC, params={}, settings=SETTINGS,
                                  grids=grids, progress=progress)
    assert set(out["a"]["delta1"]) == {0.02, 0.05} and set(out["b"]["k2"]) == {0.5, 1.0}
    dones = [d for d, _, _ in calls]
    assert dones == sorted(dones) and calls[-1][0] == calls[-1][1]
    assert any(m.startswith("grid b: ") for _, _, m in calls)
    totals = [t for d, t, m in calls if m.startswith("grid a: ")]
    assert totals and totals[0] > max(d for d, _, m in calls if m.startswith("grid a: "))


def test_landscape_and_compare_studies(demo):
    L = studies.run_landscape(demo, x="delta1", x_values=(0.02, 0.05), y="k1",
                              y_values=(0.5, 1.0), params={}, disc=DISC)
    assert L.counts.shape == (2, 2)
    out = studies.run_compare({"demo": (demo.X, demo.Y)}, methods=["camcf", "all", "mi-mcf"],
                              ca_params={}, settings={**SETTINGS, "n_features": "match"},
                              disc=DISC, budgets={"mi-mcf": 1e-9})
    cmp = out["comparisons"]["demo"]
    assert out["used"]["mi-mcf"].max_seconds == 1e-9
    assert len(cmp.failures["mi-mcf"]) == 2  # over budget on both splits, recorded as failed


def test_classification_times_are_measured_and_extrapolated(demo):
    t = studies.measure_classification(demo.X, demo.Y, disc=DISC, few=5, enough=1e9, most=200)
    assert t.rows == (150, 300) and (t.m, t.few) == (demo.n_features, 5)
    assert min(t.seconds_all) > 0 and t.seconds_few > 0
    # the model passes through both measured points and grows faster than n beyond them
    model = studies.ClassifyTimes(rows=(1000, 2000), seconds_all=(1.0, 3.0), m=100, few=10,
                                  seconds_few=1.5)
    assert model.seconds(700, 300, 100) == pytest.approx(1.0)
    assert model.seconds(1400, 600, 100) == pytest.approx(3.0)
    assert model.seconds(2800, 1200, 100) > 2 * 3.0
    assert model.seconds(1400, 600, 10) == pytest.approx(1.5)  # few features: their share
    assert model.seconds(1400, 600, 55) == pytest.approx(2.25)
    assert model.seconds(1400, 600, 0) == 0


def test_evaluation_estimate_names_what_dominates_memory():
    n, m, q = 16105, 500, 983  # delicious
    X = np.zeros((n, m))
    Y = np.zeros((n, q), dtype=np.int64)
    Y[0] = 1
    times = studies.ClassifyTimes(rows=(1000, 2000), seconds_all=(0.3, 0.8), m=m, few=20,
                                  seconds_few=0.3)
    est = studies.evaluation_estimate(
        X, Y, settings={**SETTINGS, "n_repeats": 5}, run_seconds=30.0,
        feature_sets={"phase2": range(300), "phase3": range(120), "phase4": range(40),
                      "camcf": range(40)}, times=times, current=40)
    names = [s.name for s in est.stages]
    assert names == ["building and discretising the splits", "Ca-MCF selections",
                     "ML-kNN classifications",
                     "classifications of the current selection"]
    assert [s.units for s in est.stages] == [1, 5, 5 * 4, 5]  # phase4 = camcf: classified once
    assert est.stages[1].seconds_each == pytest.approx(30.0 * 11273 / 16105)
    parts = dict(est.memory_parts)
    assert est.memory_parts[0][0] == "the splits' codes and labels"
    assert 1.3e9 < parts["the splits' codes and labels"] < 1.6e9
    assert 0.9e9 < parts["one ML-kNN classification (all features)"] < 1.4e9
    assert 2.5e9 < est.memory_bytes < 4.5e9


def test_compare_estimate_estimates_every_method():
    """Every method is estimated (issue 34 item 6: a baseline's cost was left open, so
    delicious's comparison said "at least 12 s"): a baseline from its cost model
    (camcf.estimates.SELECTION_COST), at most its time budget; stages in the order the
    comparison runs them, each method's selections then its classifications."""
    from camcf.estimates import selection_seconds

    times = studies.ClassifyTimes((1000, 2000), (0.1, 0.2), 50, 10, 0.1)
    est = studies.compare_estimate({"d": (2000, 50, 6)}, methods=["mi-mcf", "all", "camcf"],
                                   settings={**SETTINGS, "n_features": "match"},
                                   run_seconds={"d": 2.0}, n_selected=10, times={"d": times},
                                   budgets={"mi-mcf": 600})
    by = {s.label: s for s in est.stages}
    assert est.complete
    assert by["d: Ca-MCF selections"].seconds_each == pytest.approx(2.0 * 1400 / 2000)
    assert by["d: All features (a reference, nothing to select)"].seconds_each == 0
    assert by["d: MI-MCF selections"].seconds_each == pytest.approx(
        min(600, selection_seconds("mi-mcf", 1400, 50, 6)))
    assert [s.name for s in est.stages][:2] == ["Ca-MCF selections",
                                                "Ca-MCF: ML-kNN classifications"]
    assert any("mi-mcf stops after 600 s" in n for n in est.notes)


def test_compare_estimate_corrects_a_later_data_set_by_the_earlier_ones():
    from camcf.estimates import remaining_seconds

    times = studies.ClassifyTimes((1000, 2000), (0.1, 0.2), 50, 10, 0.1)
    est = studies.compare_estimate({"a": (1000, 50, 6), "b": (2000, 50, 6)}, methods=["camcf"],
                                   settings={**SETTINGS, "n_features": "match"},
                                   run_seconds={"a": 1.0, "b": 2.0}, n_selected=10,
                                   times={"a": times, "b": times})
    by = {s.label: s for s in est.stages}
    a_sel, a_cls = by["a: Ca-MCF selections"], by["a: Ca-MCF: ML-kNN classifications"]
    b_sel, b_cls = by["b: Ca-MCF selections"], by["b: Ca-MCF: ML-kNN classifications"]
    # a's two selections and two classifications took 3× their estimates: so will b's
    spent = [3 * a_sel.seconds_each] * 2 + [3 * a_cls.seconds_each] * 2
    assert remaining_seconds(est, spent, 4, 8) == pytest.approx(3 * (b_sel.seconds
                                                                      + b_cls.seconds))


def test_study_settings_are_the_declared_names(demo):
    """A study's settings are named as EVAL_PARAMS/KNN_PARAMS declare them: an old or unknown
    name is refused with a typed error naming it; the splits are the declared protocol's."""
    from camcf.errors import ParameterError
    from camcf.evaluation import make_splitter

    with pytest.raises(ParameterError, match="repeats") as e:
        studies.run_evaluation(demo.X, demo.Y, disc=DISC, params={},
                               settings={"protocol": "repeated", "repeats": 2})
    assert e.value.name == "repeats"
    with pytest.raises(ParameterError, match="n_folds"):
        studies.run_evaluation(demo.X, demo.Y, disc=DISC, params={},
                               settings={"protocol": "kfold", "n_folds": 1})
    out = studies.run_evaluation(demo.X, demo.Y, disc=DISC, params={},
                                 settings={"protocol": "kfold", "n_folds": 3, "k": 5})
    assert out["n_splits"] == 3
    tests = [test for _, test in make_splitter("kfold", n_folds=3).split(demo.n_samples)]
    assert out["n_test"] == int(np.mean([t.size for t in tests]))


def test_reproduction_estimate_weighs_units_by_the_data_sets_shapes():
    """Flags (194 rows × 19, 7 labels) before Enron (1,702 × 1,001, 53 labels): one stage per
    data set and kind, in run order, Enron's units far dearer than Flags' of the same kind."""
    shapes = {"flags": (135, 59, 19, 7), "enron": (1191, 511, 1001, 53)}
    est = studies.reproduction_estimate(
        shapes, tune_cells={"flags": 5, "enron": 5}, tune_units=97, grid_points=16,
        inner_folds=3, selections={ds: {"camcf": 5, "mi-mcf": 5} for ds in shapes},
        classifications={"flags": 5, "enron": 0})
    assert [s.label for s in est.stages] == [
        "flags: tuning", "enron: tuning", "flags: Ca-MCF selections", "flags: MI-MCF selections",
        "enron: Ca-MCF selections", "enron: MI-MCF selections", "flags: ML-kNN classifications"]
    assert [s.kind for s in est.stages] == ["tuning", "tuning", "selection:camcf",
                                            "selection:mi-mcf", "selection:camcf",
                                            "selection:mi-mcf", "classification"]
    assert est.units == 5 * 97 * 2 + 20 + 5 and est.complete
    by = {s.label: s.seconds_each for s in est.stages}
    assert by["enron: tuning"] > 10 * by["flags: tuning"]
    assert by["enron: MI-MCF selections"] > 100 * by["flags: MI-MCF selections"]
    # Flags' share of the planned time is small: equal units would have said 50 %
    flags = sum(s.seconds for s in est.stages if s.group == "flags")
    assert flags / est.seconds < 0.1

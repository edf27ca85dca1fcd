"""A stopped study keeps what it finished and continues from it (issue 34 item 3: the delicious
landscape stopped at 7 min with 6 of 25 cells done kept nothing; the same for Tune, Compare and
Evaluation), and a comparison's progress says which method it is at, with a total that does
not change (item 6: Corel's step total went from 40 to 36 mid-run).

Each study is stopped after a few units (its progress raises Cancelled, as a job's Stop does),
what it handed to ``keep`` is given back as ``done``, and the result must equal the same study
run without a stop; the units done before count as done (the resumed study's first progress
report is at least that far)."""

from __future__ import annotations

import numpy as np
import pytest

from camcf import studies
from camcf.datasets import make_causal_multilabel
from camcf.jobs import Cancelled

SETTINGS = {"protocol": "repeated", "n_repeats": 2, "test_size": 0.3, "seed": 0,
            "k": 5, "neighbours": "authors"}
DISC = {"discretize": "auto", "bins": 3, "strategy": "uniform"}


@pytest.fixture(scope="module")
def demo():
    return make_causal_multilabel(400, seed=1).dataset


class _StopAfter:
    """A progress that stops the study at its ``units``-th unit, and a keep that records."""

    def __init__(self, units: int) -> None:
        self.units, self.kept, self.seen = units, [], []

    def keep(self, value) -> None:
        self.kept.append(value)

    def __call__(self, done: int, total: int, message: str) -> None:
        self.seen.append((done, total, message))
        if done >= self.units:
            raise Cancelled("stopped", done=done, total=total)


def test_a_stopped_landscape_continues_from_its_finished_cells(demo):
    from camcf.landscape import landscape

    args = (demo, "delta1", [0.02, 0.05, 0.1], "k1", [0.3, 1.0])
    full = landscape(*args)
    stop = _StopAfter(2)
    with pytest.raises(Cancelled):
        landscape(*args, progress=stop, keep=stop.keep)
    part = stop.kept[-1]
    assert part.partial and part.n_filled == 2
    assert (part.counts[part.filled] == full.counts[part.filled]).all()
    assert "not computed" not in str(part.to_frame()) and len(part.to_frame()) == 2
    seen = []
    again = landscape(*args, done=part, progress=lambda d, t, m: seen.append((d, t)))
    assert (again.counts == full.counts).all() and not again.partial
    assert seen[0][0] == 3 and {t for _, t in seen} == {6}  # the 2 done count as done
    assert again.full_runs < full.full_runs  # the finished cells were not run again


def test_a_stopped_tuning_continues_from_its_finished_points(demo):
    from camcf.tuning import tune

    grid = {"delta1": [0.02, 0.1], "k1": [0.5, 1.0]}
    kw = {"cv": studies.tune_splitter(), "discretize": "auto"}
    full = tune(demo.X, demo.Y, grid, **kw)
    stop = _StopAfter(8)  # 2 outer cuts are 1 unit; each point: 3 selections + 3 classifications
    with pytest.raises(Cancelled):
        tune(demo.X, demo.Y, grid, progress=stop, keep=stop.keep, **kw)
    part = stop.kept[-1]
    assert part.settings["partial"] and part.settings["points_done"] == 1
    assert part.best_index == 0 and part.grid["score"].notna().sum() == 1
    L, best = part.landscape("delta1", "k1")
    assert L.partial and L.n_filled == 1 and best == (0, 0)
    seen = []
    again = tune(demo.X, demo.Y, grid, done=part, progress=lambda d, t, m: seen.append((d, t)),
                 **kw)
    assert again.grid["score"].round(12).tolist() == full.grid["score"].round(12).tolist()
    assert again.best == full.best and not again.settings["partial"]
    assert {t for _, t in seen} == {stop.seen[0][1]}  # the same total, from start to end


def test_a_stopped_comparison_continues_from_its_finished_methods_and_selections(demo):
    from camcf.evaluation import SelectionCache, compare, make_folds, make_splitter

    folds = make_folds(demo.X, demo.Y, make_splitter("repeated", n_repeats=2), **DISC)
    methods = ["random", "camcf", "mi-mcf", "all"]
    full = compare(folds, methods)
    made = SelectionCache()
    stop = _StopAfter(5)  # Ca-MCF first (the reference): 2 selections, 2 classifications
    with pytest.raises(Cancelled):
        compare(folds, methods, selections=made, progress=stop, keep=stop.keep)
    part = stop.kept[-1]
    assert list(part.kinds) == ["camcf"]
    assert stop.seen[0][2].startswith("camcf (method 1 of 4): ")
    assert {t for _, _, t in [(0, 0, s[1]) for s in stop.seen]} == {2 * 2 * 4}
    assert len(made) == 3  # Ca-MCF's two selections, and the next method's first
    seen = []
    again = compare(folds, methods, selections=SelectionCache(made.values()), done=part,
                    progress=lambda d, t, m: seen.append((d, t, m)))
    assert list(again.kinds) == methods  # in the order asked for
    cols = ["split", "feature_set", "metric", "value", "n_features"]
    assert again.frame[cols].equals(full.frame[cols])
    assert {t for _, t, _ in seen} == {16}
    assert all(not m.startswith("camcf") for _, _, m in seen)  # Ca-MCF not done again


def test_a_stopped_evaluation_and_sensitivity_continue_from_their_finished_part(demo):
    from camcf.jobs import stoppable  # noqa: F401  (the contract a job's progress follows)

    def progress_with_keep(stop):
        def p(d, t, m):
            stop(d, t, m)
        p.checkpoint = stop.keep
        return p

    full = studies.run_evaluation(demo.X, demo.Y, disc=DISC, params={}, settings=SETTINGS,
                                  current=(0, 1))
    stop = _StopAfter(1 + 7)  # the folds, then one split (ablation 6 units + current 1)
    with pytest.raises(Cancelled):
        studies.run_evaluation(demo.X, demo.Y, disc=DISC, params={}, settings=SETTINGS,
                               current=(0, 1), progress=progress_with_keep(stop))
    part = stop.kept[-1]
    assert part["partial"] and part["splits_done"] == [0]
    again = studies.run_evaluation(demo.X, demo.Y, disc=DISC, params={}, settings=SETTINGS,
                                   current=(0, 1), resume=part)
    cols = ["split", "feature_set", "metric", "value"]
    a = again["frame"].sort_values(cols[:3]).reset_index(drop=True)[cols]
    b = full["frame"].sort_values(cols[:3]).reset_index(drop=True)[cols]
    assert a.equals(b) and not again["partial"]

    grids = {"δ1 × k1": {"delta1": [0.02, 0.1], "k1": [1.0]}}
    whole = studies.run_sensitivity(demo.X, demo.Y, disc=DISC, params={}, settings=SETTINGS,
                                    grids=grids)
    stop = _StopAfter(1 + 4)  # the folds, then one point (2 selections, 2 classifications)
    with pytest.raises(Cancelled):
        studies.run_sensitivity(demo.X, demo.Y, disc=DISC, params={}, settings=SETTINGS,
                                grids=grids, progress=progress_with_keep(stop))
    part = stop.kept[-1]
    assert part["partial"] and len(part["δ1 × k1"]["delta1"].unique()) == 1
    again = studies.run_sensitivity(demo.X, demo.Y, disc=DISC, params={}, settings=SETTINGS,
                                    grids=grids, resume=part)
    np.testing.assert_allclose(again["δ1 × k1"]["value"], whole["δ1 × k1"]["value"])


def test_a_comparison_of_two_data_sets_keeps_its_step_total(demo):
    """Landed (Corel, issue 34): the total went from 40 to 36 mid-run, when identical feature
    sets were classified once; it is the plan's from the start to the end."""
    from camcf import methods as registry
    from camcf.evaluation import compare_data_sets, make_splitter

    other = make_causal_multilabel(300, seed=2).dataset
    data = {"a": (demo.X, demo.Y), "b": (other.X, other.Y)}
    # "all" twice: the same feature sets, classified once
    chosen = {"camcf": registry.make("camcf"), "all": registry.make("all"),
              "every feature": registry.make("all")}
    seen = []
    compare_data_sets(data, chosen, make_splitter("repeated", n_repeats=2),
                      progress=lambda d, t, m: seen.append((d, t)))
    plan = compare_data_sets.plan(data, chosen, make_splitter("repeated", n_repeats=2))
    assert {t for _, t in seen} == {plan.units}
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and seen[-1][0] == plan.units

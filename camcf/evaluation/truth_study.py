"""How close each method comes to the true Markov blankets of known networks, over sample sizes
and seeds (``camcf truth``).

:func:`truth_study` samples every network (:mod:`camcf.networks`) at every ``n`` with every
seed (0 … seeds − 1), runs every method on every sample and scores its answer against the
truth (:func:`camcf.truth.score_blankets`: per label, the label's found feature blanket
against its true one; overall, the selection against the union of the true feature blankets).
The figure of merit is pyCausalFS's: the mean over labels of the per-label F1 (and precision,
recall, distance), then its mean ± SD over seeds; the overall selection's scores, the label
skeleton's, the number of tests and the seconds are reported beside it.

**Methods** (:data:`METHODS`; ``--methods`` names them):

* ``camcf`` — Ca-MCF at the paper's defaults (δ1 = 0.05, δ2 = 0.1, k1 = 0.7, k2 = 1);
* ``camcf-auto`` — thresholds ``"auto"`` (δ1, δ2 from a G test at the significance level);
* ``camcf-adequacy`` — ``"auto"`` and the test-adequacy rule ``adequacy = 5`` (a
  backward-elimination test whose table has fewer than 5 rows per cell is not trusted);
* ``camcf-oracle`` — Ca-MCF **tuned against the truth**: every point of :data:`ORACLE_GRID`
  on the sample, the one with the best mean F1 over labels kept (the first in grid order on a
  tie). It reads the answer, so it is an upper bound on what tuning could reach, not a method;
  its seconds and tests are those of the whole grid;
* further Ca-MCF variants named by the caller (``variants``: ``{name: parameters}``);
* ``mi-mcf`` — MI-MCF (Ma et al. 2025) at its published defaults; per label its final PC;
* ``pc`` — pgmpy's PC over features and labels (:class:`camcf.baselines.pc.PCBlanket`: its
  G² test at α = 0.01, conditioning sets of at most 3 variables to bound its cost; each label's
  blanket read off the learnt PDAG: parents, children, undirected neighbours counted as
  adjacencies, and the other parents of its directed children);
* ``all`` — every feature for every label;
* ``random`` — the floor: for each label a random subset of the features as large as its true
  feature blanket (``numpy.random.default_rng([seed, label index])``); the selection is their
  union.

Every method gets the network's state codes (no discretisation) and the labels' codes.

The machinery is :mod:`camcf.evaluation.reproduction`'s: every finished cell — one method on
one sample — is one JSON file in a :class:`~camcf.evaluation.reproduction.CellStore` keyed by
the network's content, the labels, n, seed, the method and its parameters (a stopped run
continues where it was); the cells run with joblib (``n_jobs`` processes; inside
:func:`camcf.parallel.dask_cluster`, on the Dask workers); progress is work weighted by a cost
model (:data:`CELL_COST`) corrected by the finished cells of each kind
(:class:`camcf.estimates.CostProgress`). A stop (Ctrl-C, or ``progress`` raising
:class:`camcf.jobs.Cancelled`) raises :class:`Stopped` carrying the report of what finished.
"""

from __future__ import annotations

import dataclasses
import html
import math
import statistics
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ParameterError
from ..estimates import CostProgress, Estimate, Progress, Stage

__all__ = ["CELL_COST", "METHODS", "ORACLE_GRID", "Method", "Stopped", "describe_plan",
           "report_files", "run_truth_curve", "study_estimate", "truth_curve_estimate",
           "truth_html", "truth_markdown", "truth_study", "truth_table", "untimed"]

#: the test-adequacy rule's h for the camcf-adequacy variant (issue 33: h = 5)
ADEQUACY = 5.0
#: Ca-MCF's grid for the oracle (tuned against the truth): 4 × 3 × 3 × 2 × 2 = 144 points,
#: every other Ca-MCF variant of :data:`METHODS` among them
ORACLE_GRID: dict[str, tuple] = {"delta1": ("auto", 0.005, 0.02, 0.05),
                                 "delta2": ("auto", 0.02, 0.1),
                                 "k1": (0.4, 0.7, 1.0), "k2": (0.5, 1.0),
                                 "adequacy": (0.0, ADEQUACY)}
#: a version of what a cell holds: a change of the scoring makes the old cells unused
SCHEMA = 1


@dataclass(frozen=True)
class Method:
    """One method of the study: ``base`` the registry name (``camcf``, ``mi-mcf``, ``pc``,
    ``all``) or ``random``; ``params`` its parameters; ``oracle``: Ca-MCF tuned against the
    truth over ``grid``."""

    name: str
    display: str
    base: str
    params: Mapping[str, Any] = field(default_factory=dict)
    oracle: bool = False
    grid: Mapping[str, tuple] | None = None
    about: str = ""


#: the study's methods, in the report's order
METHODS: dict[str, Method] = {m.name: m for m in (
    Method("camcf", "Ca-MCF (paper defaults)", "camcf", {},
           about="δ1 = 0.05, δ2 = 0.1, k1 = 0.7, k2 = 1, the paper's defaults"),
    Method("camcf-auto", "Ca-MCF (auto thresholds)", "camcf",
           {"delta1": "auto", "delta2": "auto"},
           about="δ1 and δ2 'auto': a G test's threshold at α = 0.01 on the sample's n"),
    Method("camcf-adequacy", "Ca-MCF (auto + adequacy 5)", "camcf",
           {"delta1": "auto", "delta2": "auto", "adequacy": ADEQUACY},
           about="auto thresholds, and a test whose table has fewer than 5 rows per cell is "
                 "not trusted (the variable stays)"),
    Method("camcf-oracle", "Ca-MCF (oracle: tuned on the truth)", "camcf", oracle=True,
           grid=ORACLE_GRID,
           about="the best mean F1 over the grid, chosen by reading the truth: an upper bound "
                 "on tuning, not a method"),
    Method("mi-mcf", "MI-MCF", "mi-mcf", about="Ma et al. 2025, published defaults"),
    Method("pc", "PC (pgmpy)", "pc",
           about="pgmpy's PC, G² at α = 0.01, at most 3 conditioning variables; each label's "
                 "blanket read off the PDAG (parents, children, undirected neighbours, other "
                 "parents of directed children)"),
    Method("all", "All features", "all", about="every feature for every label"),
    Method("random", "Random (floor)", "random",
           about="per label a seeded random subset as large as its true feature blanket"),
)}

#: seconds of one cell: ``OVERHEAD + b · n^a · m^c`` (m features), by method (the oracle: per
#: grid point). Fitted to one full seed of ``camcf truth alarm child insurance hailfinder
#: --labels auto:5 --n 500,1000,5000,20000 --seeds 1`` on a loaded 2-core machine
#: (2026-11-29; 448 s of cells): exponents chosen among a few by the mean |log error| (0.3–0.6,
#: PC's the largest: its cost follows the graph's density more than any shape). The run
#: corrects each method's scale by its finished cells.
CELL_COST: dict[str, tuple[float, float, float]] = {
    "camcf": (6.0e-4, 0.25, 1.0),
    "camcf-auto": (1.14e-4, 0.75, 0.5),
    "camcf-oracle": (8.6e-5, 0.75, 0.5),
    "mi-mcf": (1.7e-3, 0.5, 0.0),
    "pc": (4.7e-5, 0.5, 2.0),
    "all": (0.0, 0.0, 0.0),
    "random": (0.0, 0.0, 0.0),
}
#: seconds every cell costs whatever its size, and the cost of sampling a row of one node
OVERHEAD, SAMPLE_COST = 0.05, 1.0e-6


class Stopped(KeyboardInterrupt):
    """The study was stopped; ``payload`` is the report of the cells that finished (their
    files are in the cache: the same call continues)."""

    def __init__(self, payload: dict) -> None:
        super().__init__("stopped")
        self.payload = payload


# ---------------------------------------------------------------------------- methods
def _cost(method: Method, n: int, m: int) -> float:
    if method.name in CELL_COST:
        key = method.name
    elif method.base == "camcf":  # a variant: as the defaults, or as auto with a word
        key = "camcf-auto" if "auto" in method.params.values() else "camcf"
    else:
        key = method.base
    b, a, c = CELL_COST.get(key, CELL_COST["camcf-auto"])
    points = math.prod(len(v) for v in method.grid.values()) if method.oracle else 1
    return OVERHEAD + points * b * n ** a * m ** c


def _methods(names: Sequence[str] | None, variants: Mapping[str, Mapping[str, Any]] | None,
             grid: Mapping[str, Sequence[Any]] | None, params: Mapping[str, Mapping[str, Any]]
             ) -> tuple[list[Method], dict[str, str]]:
    """The methods to run and ``{name: why}`` for those left out."""
    from .. import methods as registry
    from ..algorithm_params import ALGORITHM_PARAMS
    from ..tuning import check_grid

    algo = {p.name: p for p in ALGORITHM_PARAMS}
    table = dict(METHODS)
    for name, given in dict(variants or {}).items():
        if name in table:
            raise ParameterError(f"variant name {name!r} is taken by a method; choose another",
                                 name="variant", value=name)
        checked = {}
        for k, v in dict(given).items():
            if k not in algo:
                raise ParameterError(f"variant {name}: unknown Ca-MCF parameter {k!r}; its "
                                     f"parameters: {', '.join(algo)}", name=k, value=v)
            checked[k] = algo[k].validate(v)
        table[name] = Method(name, f"Ca-MCF ({name})", "camcf", checked,
                             about=", ".join(f"{k} = {v}" for k, v in checked.items()))
    if grid is not None:
        table["camcf-oracle"] = dataclasses.replace(
            table["camcf-oracle"], grid={k: tuple(v) for k, v in check_grid(grid).items()})
    chosen = list(table) if names is None else list(names)
    unknown = [n for n in chosen if n not in table]
    if unknown:
        raise ParameterError(f"unknown method(s) {', '.join(unknown)}; the study's methods: "
                             f"{', '.join(table)}", name="methods", value=chosen)
    if len(set(chosen)) != len(chosen):
        raise ParameterError(f"--methods names a method twice: {','.join(chosen)}",
                             name="methods", value=chosen)
    out = []
    for n in chosen:
        m = table[n]
        if m.base in registry.METHODS:
            registry.get(m.base)  # a clear message when the method cannot run here
            extra = dict(params.get(m.base, {}))
            if extra and m.base != "camcf":
                m = dataclasses.replace(m, params={**m.params, **extra}, about=m.about + "; "
                                        + ", ".join(f"{k} = {v}" for k, v in extra.items()))
        out.append(m)
    return out


# ---------------------------------------------------------------------------- one cell
def _camcf_scores(X, Y, names, params: Mapping[str, Any], truth) -> tuple[dict, int, int]:
    from ..algorithm import CamcfWarning, run
    from ..truth import score_result

    feats, labs = names
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CamcfWarning)
        res = run(X, Y, feature_names=feats, label_names=labs, trace="counters", **params)
    return score_result(res, truth), int(res.n_tests), int(res.selected_indices.size)


def _cell(X, Y, names: tuple[list[str], list[str]], truth,
          method: Method, seed: int) -> dict[str, Any]:
    """One method on one sample: its scores (per label, overall, mean), tests, seconds."""
    import numpy as np

    from ..output import json_safe
    from ..truth import score_blankets, score_selection

    feats, labs = names
    if method.base == "camcf":  # (numba's import and the kernels' loading are not the cell's)
        from ..engine import is_ready, warm_up

        if not is_ready():
            warm_up()
    t0 = time.perf_counter()
    chosen = None
    if method.base == "camcf" and not method.oracle:
        scores, tests, size = _camcf_scores(X, Y, names, method.params, truth)
    elif method.oracle:
        from ..tuning import _combos

        best, tests, grid_f1 = None, 0, []
        for point in _combos(method.grid):
            got, t, size_p = _camcf_scores(X, Y, names, point, truth)
            tests += t
            grid_f1.append(got["mean"]["f1"])
            if best is None or got["mean"]["f1"] > best[0]["mean"]["f1"]:
                best = (got, point, size_p)
        scores, chosen, size = best
        chosen = {**chosen, "grid_f1": grid_f1}
    elif method.base == "all":
        scores = score_blankets(truth, {lab: feats for lab in labs}, selection=feats)
        tests, size = 0, len(feats)
    elif method.base == "random":
        per = {}
        for i, lab in enumerate(labs):
            k = len(truth.feature_blanket(lab))
            pick = np.random.default_rng([seed, i]).choice(len(feats), size=k, replace=False)
            per[lab] = [feats[j] for j in sorted(pick.tolist())]
        scores = score_blankets(truth, per)
        tests, size = 0, len({f for v in per.values() for f in v})
    else:
        from .. import methods as registry

        est = registry.make(method.base, **dict(method.params))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, Y)
        support = np.flatnonzero(est.get_support()).tolist()
        scores = score_selection(truth, feats, labs, selection=support,
                                 blankets=getattr(est, "blankets_", None),
                                 label_blankets=getattr(est, "label_blankets_", None))
        tests = getattr(est, "n_tests_", None)
        size = len(support)
    return json_safe({"scores": scores, "tests": tests, "n_selected": size,
                      "seconds": time.perf_counter() - t0, "chosen": chosen})


# ---------------------------------------------------------------------------- the plan
def study_estimate(shapes: Mapping[str, tuple[int, int]], cells: Mapping[str, Mapping],
                   samples: Mapping[str, Mapping[int, int]],
                   methods: Sequence[Method]) -> Estimate:
    """What :func:`truth_study` will cost, in the order it runs: per network its samples
    (``samples[network][n]`` to draw; :data:`SAMPLE_COST` per row and node) and per method
    and n its cells (``cells[network][(method, n)]`` to compute; :data:`CELL_COST`). Stages of
    one method have the kind ``cell:METHOD``: a method's finished cells correct its estimate
    on every network."""
    stages = []
    by = {m.name: m for m in methods}
    for net, (nodes, m) in shapes.items():
        for n, count in samples.get(net, {}).items():
            if count:
                stages.append(Stage(f"samples of {n:,} rows", count,
                                    OVERHEAD + SAMPLE_COST * n * nodes, kind="sample",
                                    group=net))
        for (name, n), count in cells.get(net, {}).items():
            if count:
                stages.append(Stage(f"{by[name].display} at n = {n:,}", count,
                                    _cost(by[name], n, m), kind=f"cell:{name}", group=net))
    return Estimate.of(stages, notes=(
        "Each cell's cost is predicted from n and the number of features by a model fitted "
        "to one earlier run (CELL_COST) and corrected by the measured cells of its method as "
        "they finish.",))


def describe_plan(estimate: Estimate, methods: Sequence[Method]) -> str:
    """One line for :func:`study_estimate`'s estimate: the total, per network and per method
    (``about 2 h 10 min; per network: alarm 20 min, …; per method: PC (pgmpy) 1 h, …``)."""
    from ..estimates import format_seconds

    by_net: dict[str, float] = {}
    by_method: dict[str, float] = {}
    display = {f"cell:{m.name}": m.display for m in methods}
    for st in estimate.stages:
        secs = st.seconds or 0.0
        by_net[st.group or ""] = by_net.get(st.group or "", 0.0) + secs
        what = display.get(st.kind or "", "sampling")
        by_method[what] = by_method.get(what, 0.0) + secs
    if not estimate.stages:
        return "nothing to compute (every cell is in the cache)"
    nets = ", ".join(f"{k} {format_seconds(v)}" for k, v in by_net.items())
    meths = ", ".join(f"{k} {format_seconds(v)}" for k, v in
                      sorted(by_method.items(), key=lambda kv: -kv[1]))
    return (f"about {format_seconds(estimate.seconds)} in one process "
            f"({estimate.units:,} units); per network: {nets}; per method: {meths}")


# ---------------------------------------------------------------------------- the study
def truth_study(
    networks: Sequence[str] | Mapping[str, Any],
    *,
    labels: str | Sequence[str] | Mapping[str, Any] | None = None,
    ns: Sequence[int] = (500, 1000, 5000),
    seeds: int = 10,
    methods: Sequence[str] | None = None,
    variants: Mapping[str, Mapping[str, Any]] | None = None,
    oracle_grid: Mapping[str, Sequence[Any]] | None = None,
    params: Mapping[str, Mapping[str, Any]] | None = None,
    cache_dir: str | Path | None = None,
    progress: Progress | None = None,
    n_jobs: int = 1,
    scheduler: str | None = None,
    scheduler_timeout: float = 20.0,
    plan_only: bool = False,
    command: str | None = None,
) -> dict[str, Any]:
    """Every method on every (network, n, seed) sample, scored against the truth.

    Parameters
    ----------
    networks : sequence of str, or dict
        Network names or BIF files (:func:`camcf.networks.load`), or ``{name: Network}``.
    labels : str, list, or dict, optional
        The labels (:meth:`camcf.networks.Network.labels`): one spec for every network
        (default ``auto:5``), or ``{network: spec}``.
    ns : sequence of int
        Sample sizes.
    seeds : int
        Samples per size: seeds 0 … seeds − 1.
    methods : sequence of str, optional
        Names of :data:`METHODS` (and of ``variants``); default all of them.
    variants : dict, optional
        Further Ca-MCF variants: ``{name: {parameter: value}}`` over the defaults.
    oracle_grid : dict, optional
        The oracle's grid (default :data:`ORACLE_GRID`).
    params : dict, optional
        ``{registry method: {parameter: value}}`` for ``mi-mcf`` and ``pc``.
    cache_dir : path, optional
        Finished cells (:class:`~camcf.evaluation.reproduction.CellStore`); None: no resuming.
    progress : callable, optional
        ``progress(done, total, message)`` in cost-weighted units (see the module docstring);
        may raise :class:`camcf.jobs.Cancelled`.
    n_jobs : int
        joblib processes (inside :func:`camcf.parallel.dask_cluster`: Dask tasks).
    scheduler : str, optional
        A Dask scheduler's address: the cells run on its workers.
    plan_only : bool
        Return only the plan (``estimate``: :class:`camcf.estimates.Estimate`, the cells to
        compute and those in the cache) without computing anything.
    command : str, optional
        The command line that made the report (stated in it).

    Returns
    -------
    dict
        Strict-JSON-ready: ``settings``, ``networks`` (per network its labels and their true
        blankets), ``methods``, ``cells`` (one row per
        network, n, seed and method: its scores, tests, seconds), ``summary`` (per network,
        method and n: mean and SD over seeds), ``complete`` and ``cache``.

    Raises
    ------
    Stopped
        On Ctrl-C or a Cancelled progress: its ``payload`` holds the finished cells.
    camcf.CamcfError
        A bad network, label, method, grid or setting, naming it.
    """
    if scheduler is not None:
        kwargs = {k: v for k, v in locals().items() if k not in ("networks", "scheduler")}
        from .reproduction import on_cluster

        return on_cluster(truth_study, networks, kwargs, scheduler, scheduler_timeout)
    import numpy as np

    from .. import networks as nets
    from ..jobs import Cancelled
    from .reproduction import CellStore
    from .running import _run_tasks

    t0 = time.perf_counter()
    ns = [nets._check_n(n) for n in ns]
    if not ns or len(set(ns)) != len(ns):
        raise ParameterError(f"give each sample size once; got {list(ns)}", name="n",
                             value=list(ns))
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise ParameterError(f"seeds must be a whole number ≥ 1; got {seeds!r}", name="seeds",
                             value=seeds)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
        raise ParameterError(f"n_jobs must be an integer >= 1; got n_jobs={n_jobs!r}",
                             name="n_jobs", value=n_jobs, allowed="an integer >= 1")
    chosen = _methods(methods, variants, oracle_grid, dict(params or {}))
    loaded = (dict(networks) if isinstance(networks, Mapping)
              else {str(n): nets.load(n) for n in networks})
    if not loaded:
        raise ParameterError("give at least one network", name="networks")
    specs = labels if isinstance(labels, Mapping) else {k: labels for k in loaded}
    truths = {}
    for key, net in loaded.items():
        truths[key] = net.truth(specs.get(key))
    store = CellStore(cache_dir)

    def key_of(key: str, n: int, seed: int, m: Method) -> tuple[str, dict]:
        parts = {"kind": "truth", "schema": SCHEMA, "network": loaded[key].fingerprint,
                 "labels": list(truths[key].labels), "n": n, "seed": seed,
                 "method": m.base, "params": dict(m.params), "oracle": m.oracle,
                 "grid": {k: list(v) for k, v in (m.grid or {}).items()} if m.oracle else None}
        return store.key(**parts), parts

    # what is in the cache, what is to compute
    results: dict[tuple[str, int, int, str], dict] = {}
    todo: list[tuple[str, int, int, Method]] = []
    for key in loaded:
        for n in ns:
            for seed in range(seeds):
                for m in chosen:
                    k, _ = key_of(key, n, seed, m)
                    if store.has(k):
                        results[(key, n, seed, m.name)] = store.get(k)
                    else:
                        todo.append((key, n, seed, m))
    shapes = {key: (net.graph.number_of_nodes(), len(truths[key].features))
              for key, net in loaded.items()}
    samples = {key: {n: len({s for (k2, n2, s, _) in todo if k2 == key and n2 == n})
                     for n in ns} for key in loaded}
    # in the order the cells run: per network, method by method, n by n
    cells = {key: {(m.name, n): sum(1 for c in todo if c[0] == key and c[1] == n
                                    and c[3].name == m.name)
                   for m in chosen for n in ns} for key in loaded}
    estimate = study_estimate(shapes, cells, samples, chosen)
    if plan_only:
        return {"estimate": estimate, "to_compute": len(todo), "cached": len(results),
                "described": describe_plan(estimate, chosen)}
    tracker = CostProgress(progress, estimate, start=t0)
    tracker.report(f"starting: {len(todo)} cells to compute, {len(results)} in the cache")

    def payload(complete: bool) -> dict:
        return _payload(loaded, truths, chosen, ns, seeds, results, store, complete,
                        n_jobs, time.perf_counter() - t0, command)

    try:
        for key, net in loaded.items():
            truth = truths[key]
            names = (list(truth.features), list(truth.labels))
            data = {}
            for n in ns:
                for seed in sorted({s for (k2, n2, s, _) in todo if k2 == key and n2 == n}):
                    ds = net.simulate(list(truth.labels), n, seed)
                    data[(n, seed)] = (np.asarray(ds.X, dtype=np.int64), ds.Y)
                    tracker.tick(f"{key}: sampled n = {n:,}, seed {seed}")
            here = [(n, seed, m) for (k2, n, seed, m) in todo if k2 == key]
            order = sorted(here, key=lambda c: ([x.name for x in chosen].index(c[2].name),
                                                ns.index(c[0]), c[1]))
            tasks = [(*data[(n, seed)], names, truth, m, seed) for n, seed, m in order]
            marks = iter(order)

            def done(_task, value, _key=key, _marks=marks) -> None:
                n, seed, m = next(_marks)
                k, parts = key_of(_key, n, seed, m)
                store.put(k, parts, value)
                results[(_key, n, seed, m.name)] = value
                tracker.tick(f"{_key}: {m.display}, n = {n:,}, seed {seed}")

            _run_tasks(_cell, tasks, n_jobs, done)
            del data
    except (KeyboardInterrupt, Cancelled):
        raise Stopped(payload(False)) from None
    return payload(True)


# ---------------------------------------------------------------------------- the app's study
def _truth_network(network):
    """A known network from what a page can send a worker: a shipped network's name, "demo",
    or ``(bif bytes, file name)``."""
    from .. import networks

    if isinstance(network, tuple):
        return networks.load_bytes(*network)
    return networks.load(network)


def _truth_kwargs(network, labels, ns, seeds, methods, ca_params) -> dict:
    from ..algorithm_params import ALGORITHM_PARAMS

    names = [p.name for p in ALGORITHM_PARAMS]
    net = _truth_network(network)
    return {"networks": {net.name: net}, "labels": labels, "ns": [int(n) for n in ns],
            "seeds": int(seeds), "methods": list(methods),
            "variants": {"current": {k: ca_params[k] for k in names if k in ca_params}}}


def run_truth_curve(*, network, labels: str, ns: Sequence[int], seeds: int,
                    methods: Sequence[str], ca_params: Mapping[str, Any],
                    progress: Progress | None = None) -> dict:
    """The explorer's "F1 against n" (a job of its Overview): :func:`truth_study` on the
    known network the data came from (``network``: a shipped name, ``"demo"`` or ``(bif
    bytes, file name)``), its labels, every n with seeds 0 … seeds − 1, the chosen methods
    and ``current`` (Ca-MCF at the sidebar's parameters, ``ca_params``). Returns its payload
    (:func:`f1_figure` draws it). A stop raises
    :class:`camcf.jobs.Cancelled`."""
    from ..jobs import Cancelled

    try:
        return truth_study(**_truth_kwargs(network, labels, ns, seeds, methods, ca_params),
                           progress=progress)
    except Stopped:
        raise Cancelled("stopped") from None


def truth_curve_estimate(*, network, labels: str, ns: Sequence[int], seeds: int,
                         methods: Sequence[str], ca_params: Mapping[str, Any]) -> Estimate:
    """What :func:`run_truth_curve` will cost (the study's own plan)."""
    plan = truth_study(**_truth_kwargs(network, labels, ns, seeds, methods, ca_params),
                       plan_only=True)
    return plan["estimate"]


# ---------------------------------------------------------------------------- the payload
def _stats(values: list[float | None]) -> dict[str, float | None]:
    vals = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    return {"mean": statistics.fmean(vals) if vals else None,
            "sd": statistics.stdev(vals) if len(vals) >= 2 else None, "n": len(vals)}


#: the summary's columns: name → how to read it from a cell
_COLUMNS = {
    "f1": lambda c: c["scores"]["mean"]["f1"] if c["scores"].get("mean") else None,
    "precision": lambda c: c["scores"]["mean"]["precision"] if c["scores"].get("mean") else None,
    "recall": lambda c: c["scores"]["mean"]["recall"] if c["scores"].get("mean") else None,
    "distance": lambda c: c["scores"]["mean"]["distance"] if c["scores"].get("mean") else None,
    "overall_f1": lambda c: c["scores"]["overall"]["f1"],
    "overall_precision": lambda c: c["scores"]["overall"]["precision"],
    "overall_recall": lambda c: c["scores"]["overall"]["recall"],
    "skeleton_f1": lambda c: (statistics.fmean(r["labels"]["f1"] for r in
                                               c["scores"]["per_label"].values())
                              if c["scores"].get("per_label") and all(
                                  "labels" in r for r in c["scores"]["per_label"].values())
                              else None),
    "tests": lambda c: c["tests"],
    "seconds": lambda c: c["seconds"],
    "n_selected": lambda c: c["n_selected"],
}


def _payload(loaded, truths, chosen, ns, seeds, results, store, complete, n_jobs,
             seconds, command) -> dict:
    from ..output import json_safe

    rows = []
    for (key, n, seed, name), cell in results.items():
        rows.append({"network": key, "n": n, "seed": seed, "method": name, **cell})
    order = {m.name: i for i, m in enumerate(chosen)}
    rows.sort(key=lambda r: (list(loaded).index(r["network"]), order.get(r["method"], 99),
                             r["n"], r["seed"]))
    summary = []
    for key in loaded:
        for m in chosen:
            for n in ns:
                part = [r for r in rows if r["network"] == key and r["method"] == m.name
                        and r["n"] == n]
                if not part:
                    continue
                summary.append({"network": key, "method": m.name, "display": m.display,
                                "n": n, "seeds": len(part),
                                **{col: _stats([read(c) for c in part])
                                   for col, read in _COLUMNS.items()}})
    networks = {key: {"title": net.title, "nodes": net.graph.number_of_nodes(),
                      "edges": net.graph.number_of_edges(), "fingerprint": net.fingerprint,
                      **truths[key].to_dict()} for key, net in loaded.items()}
    settings = {"ns": list(ns), "seeds": seeds, "n_jobs": n_jobs, "seconds_total": seconds,
                "command": command,
                "scores": ("per label: the label's found feature blanket against its true "
                           "one (precision, recall, F1, distance; pyCausalFS's conventions for "
                           "empty sets), averaged over the labels; overall: the selection "
                           "against the union of the true feature blankets; mean ± SD over "
                           "seeds"),
                "data": "every method reads the network's state codes (no discretisation)"}
    return json_safe({
        "settings": settings, "networks": networks,
        "methods": [{"name": m.name, "display": m.display, "base": m.base,
                     "params": dict(m.params), "about": m.about,
                     "grid": ({k: list(v) for k, v in m.grid.items()} if m.oracle else None)}
                    for m in chosen],
        "complete": complete, "cells": rows, "summary": summary,
        "cache": {"computed": store.computed, "reused": store.reused,
                  "folder": None if store.folder is None else str(store.folder)},
    })


def untimed(payload: Mapping[str, Any]) -> dict:
    """A copy of :func:`truth_study`'s payload without what depends on the clock, the workers
    or the cache's history: two runs of the same study compare equal on it."""
    import json

    d = json.loads(json.dumps(payload))
    for k in ("seconds_total", "n_jobs", "command"):
        d["settings"].pop(k, None)
    d.pop("cache")
    for r in d["cells"]:
        r.pop("seconds")
    for r in d["summary"]:
        r.pop("seconds")
    return d


# ---------------------------------------------------------------------------- rendering
def truth_table(payload: Mapping[str, Any]):
    """The summary as a DataFrame: one row per network, method and n; each column's mean and
    SD (``f1``, ``f1_sd``, …)."""
    import pandas as pd

    rows = []
    for s in payload["summary"]:
        row = {k: s[k] for k in ("network", "method", "display", "n", "seeds")}
        for col in _COLUMNS:
            row[col] = s[col]["mean"]
            row[f"{col}_sd"] = s[col]["sd"]
        rows.append(row)
    return pd.DataFrame(rows)


def _pm(stat: Mapping[str, Any], digits: int = 3) -> str:
    if stat["mean"] is None:
        return "–"
    text = f"{stat['mean']:.{digits}f}"
    return text + (f" ± {stat['sd']:.{digits}f}" if stat["sd"] is not None else "")


def _count(stat: Mapping[str, Any]) -> str:
    if stat["mean"] is None:
        return "–"
    v = stat["mean"]
    return f"{v:,.0f}" if v >= 100 else f"{v:.1f}"


def _secs(stat: Mapping[str, Any]) -> str:
    return "–" if stat["mean"] is None else f"{stat['mean']:.2f}"


def _tables(payload: Mapping[str, Any]) -> list[tuple[str, str, list[str], list[list[str]]]]:
    """Per network: (title, caption, header, rows) of the F1 table and of the detail table."""
    out = []
    ns = payload["settings"]["ns"]
    for key, net in payload["networks"].items():
        part = [s for s in payload["summary"] if s["network"] == key]
        methods = list(dict.fromkeys(s["method"] for s in part))
        display = {s["method"]: s["display"] for s in part}
        by = {(s["method"], s["n"]): s for s in part}
        rows = [[display[m], *[_pm(by[(m, n)]["f1"]) if (m, n) in by else "–" for n in ns]]
                for m in methods]
        out.append((f"{net['title']}: F1 per label (mean over labels), mean ± SD over seeds",
                    "f1", ["method", *[f"n = {n:,}" for n in ns]], rows))
        detail = []
        for m in methods:
            for n in ns:
                s = by.get((m, n))
                if s is None:
                    continue
                detail.append([display[m], f"{n:,}", _pm(s["precision"]), _pm(s["recall"]),
                               _pm(s["distance"]), _pm(s["overall_f1"]),
                               _pm(s["skeleton_f1"]), _count(s["tests"]), _secs(s["seconds"]),
                               _count(s["n_selected"])])
        out.append((f"{net['title']}: precision, recall, distance, the selection, tests, "
                    "seconds", "detail",
                    ["method", "n", "precision", "recall", "distance", "selection F1",
                     "label skeleton F1", "tests", "seconds", "features selected"], detail))
    return out


def _findings(payload: Mapping[str, Any]) -> list[str]:
    """Sentences read off the summary: per network and n, the best method (the oracle aside)
    and every Ca-MCF row that another method (the oracle aside) beats on mean F1."""
    lines = []
    for key, net in payload["networks"].items():
        for n in payload["settings"]["ns"]:
            part = [s for s in payload["summary"] if s["network"] == key and s["n"] == n
                    and s["f1"]["mean"] is not None]
            fair = [s for s in part if s["method"] != "camcf-oracle"]
            if not fair:
                continue
            best = max(fair, key=lambda s: s["f1"]["mean"])
            ours = [s for s in fair if s["method"].startswith("camcf")]
            words = [f"**{net['title']}, n = {n:,}**: best {best['display']} "
                     f"(F1 {best['f1']['mean']:.3f})"]
            for s in ours:
                above = [o for o in fair if not o["method"].startswith("camcf")
                         and o["f1"]["mean"] > s["f1"]["mean"]]
                if above:
                    words.append(f"{s['display']} ({s['f1']['mean']:.3f}) is below "
                                 + ", ".join(f"{o['display']} ({o['f1']['mean']:.3f})"
                                             for o in above))
            oracle = next((s for s in part if s["method"] == "camcf-oracle"), None)
            if oracle is not None:
                words.append(f"the oracle reaches {oracle['f1']['mean']:.3f}")
            lines.append("; ".join(words) + ".")
    return lines


def _setting_lines(payload: Mapping[str, Any]) -> list[str]:
    s = payload["settings"]
    seeds = "seed 0" if s["seeds"] == 1 else f"seeds 0 … {s['seeds'] - 1}"
    lines = [f"- Samples: n ∈ {{{', '.join(f'{n:,}' for n in s['ns'])}}}, {seeds} per n; "
             f"{s['data']}.",
             f"- Scores: {s['scores']}."]
    for net in payload["networks"].values():
        labels = ", ".join(f"{lab} ({_count_of(len(_features(net, lab)), 'feature')})"
                           for lab in net["labels"])
        lines.append(f"- {net['title']} ({net['nodes']} nodes, {net['edges']} edges): labels "
                     f"{labels}; true selection {len(_union(net))} of "
                     f"{len(net['features'])} features.")
    for m in payload["methods"]:
        grid = ""
        if m["grid"]:
            grid = " Grid: " + ", ".join(f"{k} ∈ {{{', '.join(str(v) for v in vs)}}}"
                                         for k, vs in m["grid"].items()) + "."
        lines.append(f"- {m['display']}: {m['about']}.{grid}")
    return lines


def _count_of(k: int, word: str) -> str:
    return f"{k} {word}" + ("" if k == 1 else "s")


def _features(net: Mapping[str, Any], lab: str) -> list[str]:
    feats = set(net["features"])
    return [v for v in net["blankets"][lab]["blanket"] if v in feats]


def _union(net: Mapping[str, Any]) -> set[str]:
    return {f for lab in net["labels"] for f in _features(net, lab)}


def truth_markdown(payload: Mapping[str, Any]) -> str:
    """The report as Markdown: settings, per network the F1 table (methods × n) and the detail
    table, the findings (figures: in the HTML report)."""
    s = payload["settings"]
    head = ["# Ca-MCF against the truth: known causal networks", ""]
    if s.get("command"):
        head += [f"Made by `{s['command']}`.", ""]
    head += [f"Wall time {s['seconds_total']:.0f} s, n_jobs = {s['n_jobs']}; cells computed "
             f"{payload['cache']['computed']}, reused from the cache "
             f"{payload['cache']['reused']}."
             + ("" if payload["complete"] else " **Stopped before the end: the tables hold "
                                               "the cells that finished.**"), "",
             "## Settings", "", *_setting_lines(payload), ""]
    for title, _kind, header, rows in _tables(payload):
        head += [f"## {title}", "", "| " + " | ".join(header) + " |",
                 "|" + "---|" * len(header), *["| " + " | ".join(r) + " |" for r in rows], ""]
    findings = _findings(payload)
    if findings:
        head += ["## Findings (read off the tables)", "", *[f"- {f}" for f in findings], ""]
    return "\n".join(head) + "\n"


def f1_figure(payload: Mapping[str, Any], network: str, methods: Sequence[str] | None = None):
    """Plotly: mean F1 (over labels) against n for each method (error bars: SD over seeds),
    n on a log axis."""
    import plotly.graph_objects as go

    part = [s for s in payload["summary"] if s["network"] == network
            and (methods is None or s["method"] in methods)]
    fig = go.Figure()
    for name in dict.fromkeys(s["method"] for s in part):
        rows = sorted((s for s in part if s["method"] == name), key=lambda s: s["n"])
        rows = [s for s in rows if s["f1"]["mean"] is not None]
        if not rows:
            continue
        fig.add_trace(go.Scatter(
            x=[s["n"] for s in rows], y=[s["f1"]["mean"] for s in rows], name=rows[0]["display"],
            mode="lines+markers", line={"dash": "dot"} if name == "camcf-oracle" else None,
            error_y={"type": "data", "array": [s["f1"]["sd"] or 0 for s in rows],
                     "visible": True}))
    fig.update_layout(title=f"{payload['networks'][network]['title']}: F1 against n",
                      xaxis={"title": "n (rows sampled)", "type": "log"},
                      yaxis={"title": "F1 per label (mean over labels)", "range": [0, 1.02]},
                      height=420, margin={"l": 60, "r": 20, "t": 50, "b": 50})
    return fig


def truth_html(payload: Mapping[str, Any]) -> str:
    """The report as one HTML page: the Markdown report's tables and findings, and per network
    F1 against n (plotly; its JavaScript inlined once, so the page works offline)."""
    def table(header: list[str], rows: list[list[str]]) -> str:
        head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>"
                       for r in rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    s = payload["settings"]
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'>",
             "<title>Ca-MCF against the truth</title><style>body{font-family:sans-serif;"
             "margin:2em}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid "
             "#ccc;padding:3px 6px;font-size:13px}</style></head><body>",
             "<h1>Ca-MCF against the truth: known causal networks</h1>"]
    if s.get("command"):
        parts.append(f"<p>Made by <code>{html.escape(s['command'])}</code>.</p>")
    if not payload["complete"]:
        parts.append("<p><b>Stopped before the end: the tables hold the cells that "
                     "finished.</b></p>")
    parts += ["<ul>", *[f"<li>{html.escape(line[2:])}</li>" for line in
                        _setting_lines(payload)], "</ul>"]
    figures = 0
    tables = _tables(payload)
    for i, key in enumerate(payload["networks"]):
        for title, _kind, header, rows in tables[2 * i: 2 * i + 2]:
            parts += [f"<h2>{html.escape(title)}</h2>", table(header, rows)]
        fig = f1_figure(payload, key)
        parts.append(fig.to_html(full_html=False, include_plotlyjs=figures == 0))
        figures += 1
    findings = _findings(payload)
    if findings:
        parts += ["<h2>Findings (read off the tables)</h2><ul>",
                  *[f"<li>{html.escape(f.replace('**', ''))}</li>" for f in findings], "</ul>"]
    parts.append("</body></html>")
    return "\n".join(parts)


def report_files(payload: Mapping[str, Any], output: str | Path) -> dict[str, str]:
    """``{path: text}`` of ``OUT.json``, ``OUT.md`` and ``OUT.html`` (``output`` with any
    suffix replaced)."""
    from ..output import json_text

    out = Path(output)
    return {str(out.with_suffix(".json")): json_text(payload),
            str(out.with_suffix(".md")): truth_markdown(payload),
            str(out.with_suffix(".html")): truth_html(payload)}

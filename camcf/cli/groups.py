"""The argument groups every subcommand shares, and the readers of what they parsed.

A subcommand builds its parser from these groups (and adds only what is its own):

* :func:`add_data` — the positional DATA (a file; ``compare`` also takes shared data set names);
* :func:`add_labels` — ``--labels``, repeated ``--label``, ``--xml``, ``--variable``;
* :func:`add_discretization` — ``--discretize``, ``--bins``, ``--strategy`` (from
  :data:`camcf.algorithm_params.DISCRETIZE_PARAMS`);
* :func:`add_method_params` — each method's own parameters (from the registry's declarations;
  Ca-MCF's as ``--delta1``…, the others' as ``--METHOD-NAME``, see :mod:`camcf.cli.flags`);
* :func:`add_parallel` — ``--n-jobs``, ``--dask-scheduler``;
* :func:`add_output` — ``--output``/``-o``; :func:`add_progress` — ``--quiet``/``-q``;
* :func:`add_protocol` and :func:`add_classifier` — the evaluation's splits and ML-kNN
  (``evaluate``, ``compare``; from :data:`camcf.evaluation.settings.EVAL_PARAMS` and
  :data:`~camcf.evaluation.settings.KNN_PARAMS`).

and reads them back with :func:`read_data`, :func:`codes_of`, :func:`method_values`,
:func:`check_method_flags` and :func:`parallel`. Nothing here imports NumPy, pandas or
scikit-learn at import time: ``camcf --help`` stays fast.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from .. import methods
from ..algorithm_params import DISCRETIZE_PARAMS, N_JOBS
from ..errors import CamcfError, ParameterError
from ..evaluation.settings import EVAL_PARAMS, KNN_PARAMS
from ..params import Param
from .flags import DEFAULT_METHOD, add_param_flags, dest, flag, flag_values

__all__ = ["PROTOCOL_ALIASES", "SHARED_PARAMS", "add_classifier", "add_data",
           "add_discretization", "add_labels", "add_method_params", "add_output",
           "add_parallel", "add_progress", "add_protocol", "add_truth", "check_method_flags",
           "check_outputs", "codes_of", "read_truth", "truth_lines",
           "discretization", "knn_values", "label_spec", "load_all", "load_named", "method_params", "method_values",
           "named_methods", "parallel", "protocol_values", "read_data"]

#: declared method parameters that are not set by a method's own flags: the discretisation
#: (data group), ``n_jobs`` (parallelism group) and the ranking cut (``--n-features``)
SHARED_PARAMS = frozenset({*(p.name for p in DISCRETIZE_PARAMS), N_JOBS.name,
                           "n_features_to_select"})


# ------------------------------------------------------------------------------------- groups
def add_data(parser: argparse.ArgumentParser, *, nargs: str | None = None,
             help: str = "data file: .arff, .mat or .csv") -> None:
    """The positional DATA (``nargs`` as argparse: None for one, "?" or "+")."""
    parser.add_argument("data", metavar="DATA", nargs=nargs, help=help)


def add_labels(parser) -> None:
    """How the label columns are found: ``--labels``, ``--label``, ``--xml``, ``--variable``."""
    g = parser.add_argument_group("labels")
    g.add_argument("--labels", help="label columns: comma-separated names, last:K or first:K, "
                                    "or a JSON list of names (for names with commas: "
                                    "'[\"a,b\", \"c\"]')")
    g.add_argument("--label", action="append", metavar="NAME", dest="label_list",
                   help="one label column by its exact name (repeat for several; for names "
                        "containing commas)")
    g.add_argument("--xml", help="MULAN XML file naming the label attributes")
    g.add_argument("--variable", metavar="NAME",
                   help="MATLAB .mat: the variable(s) to read when the file holds several, e.g. "
                        "train_data (its pair train_target), X/Y, or train (one matrix, labels "
                        "last:K); without it, a file with several pairs is refused with a "
                        "message listing them")


def add_discretization(parser) -> None:
    """``--discretize``, ``--bins``, ``--strategy`` (generated from the declarations)."""
    add_param_flags(parser.add_argument_group("discretisation"), DISCRETIZE_PARAMS)


def method_params(name: str) -> tuple[Param, ...]:
    """The parameters of method ``name`` that its own flags set (the registry's declarations
    less :data:`SHARED_PARAMS`)."""
    return tuple(p for p in methods.params(name) if p.name not in SHARED_PARAMS)


def _title(name: str) -> str:
    if name == DEFAULT_METHOD:
        return f"{methods.display(name)}'s parameters"
    return f"{methods.display(name)}'s parameters (--method {name})"


def add_method_params(parser, names: Iterable[str], *, shown: Iterable[str] | None = None
                      ) -> None:
    """One group of flags per method in ``names`` (registry names). Flags carry no default:
    only what the user typed reaches a method, whose own defaults apply to the rest.
    ``shown``: the methods whose flags ``--help`` lists (default: all of them)."""
    shown = None if shown is None else set(shown)
    for name in names:
        own = method_params(name)
        if not own:
            continue
        visible = shown is None or name in shown
        group = parser.add_argument_group(_title(name) if visible else None)
        add_param_flags(group, own, method=name, with_defaults=False, shown=visible)


def add_parallel(parser, *, what: str = "target categories") -> None:
    """``--n-jobs`` (from :data:`camcf.algorithm_params.N_JOBS`) and ``--dask-scheduler``."""
    g = parser.add_argument_group(f"parallelism ({what})")
    # the declaration's range and validation; the help says what runs in parallel here
    add_param_flags(g, (dataclasses.replace(
        N_JOBS, help=f"{what} in parallel (joblib); -1 = all cores, none = 1"),))
    g.add_argument("--dask-scheduler", metavar="ADDRESS",
                   help="run on a Dask cluster, e.g. tcp://HOST:8786 (all its workers unless "
                        "--n-jobs says otherwise; the workers need camcf installed)")


def add_truth(parser, *, many: bool = False) -> None:
    """``--truth OUT.truth.json``: score the answer against a known network's truth
    (``camcf simulate`` writes the file); ``many``: once per DATA, in the same order."""
    parser.add_argument(
        "--truth", metavar="FILE", action="append" if many else "store",
        help="a truth file (camcf simulate's OUT.truth.json): add precision, recall, F1 and "
             "distance of the selection, per label and overall, against the true Markov "
             "blankets" + (" (give one per DATA, in the same order)" if many else ""))


def read_truth(path: str | None):
    """The :class:`camcf.truth.Truth` in ``path`` (None for None)."""
    if path is None:
        return None
    from ..truth import Truth

    return Truth.read(path)


def truth_lines(scores: dict[str, Any], where: str = "truth") -> list[str]:
    """The summary lines of :func:`camcf.truth.score_blankets`'s dict (or a
    :func:`camcf.truth.mean_scores` dict: means)."""
    def cell(block: dict[str, Any]) -> str:
        def v(k: str) -> float:
            x = block[k]
            return x["mean"] if isinstance(x, dict) else x

        return (f"P {v('precision'):.3f}, R {v('recall'):.3f}, F1 {v('f1'):.3f}, "
                f"distance {v('distance'):.3f}")

    lines = [f"{where}: the selection against the union of the true blankets: "
             f"{cell(scores['overall'])}"]
    if scores.get("mean"):
        lines.append(f"{where}: per label, mean over labels: {cell(scores['mean'])}")
        for lab, row in scores["per_label"].items():
            lines.append(f"  {lab:<24} {cell(row)}")
    return lines


def add_output(parser, *, what: str = "the JSON result", suffixes: Sequence[str] = (),
               make_folder: bool = False) -> None:
    """``--output``/``-o``. ``suffixes``: the command writes ``OUT`` with each of these
    suffixes (``camcf reproduce``: .json, .csv, …) instead of ``OUT`` itself; ``make_folder``:
    the command makes OUT's folder when it is missing. The files written are checked before
    the run (:func:`check_outputs`)."""
    parser.add_argument("--output", "-o", required=True, metavar="OUT", help=f"where to write {what}")
    parser.set_defaults(output_suffixes=tuple(suffixes), output_make_folder=make_folder)


#: options naming a file a command writes (checked before the run by :func:`check_outputs`)
OUTPUT_OPTIONS = ("output", "record")


def check_outputs(args: argparse.Namespace) -> None:
    """Check, before any work, that every file the command will write can be written
    (:func:`camcf.output.check_writable`: the folder exists and takes a new file, the path is
    not a folder): a missing folder fails at once, not after the whole run. A command that
    makes its output folder (``add_output(make_folder=True)``) makes it now."""
    from ..errors import FileAccessError
    from ..output import check_writable

    for name in OUTPUT_OPTIONS:
        path = getattr(args, name, None)
        if not path:
            continue
        suffixes = getattr(args, "output_suffixes", ()) if name == "output" else ()
        if name == "output" and getattr(args, "output_make_folder", False):
            folder = Path(path).parent
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise FileAccessError(f"cannot make the folder {folder} for {path}: "
                                      f"{e.strerror or type(e).__name__}") from None
        for target in [Path(path).with_suffix(s) for s in suffixes] or [Path(path)]:
            check_writable(target)


def add_progress(parser) -> None:
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="no progress line and no summary (errors and warnings still go "
                             "to stderr)")


# The evaluation's settings: flags generated from camcf.evaluation.settings (EVAL_PARAMS,
# KNN_PARAMS), as Ca-MCF's are from ALGORITHM_PARAMS; the protocol's shorter spellings
# (--repeats, --folds) are kept as aliases of the declared names' flags.
#: older flag spellings of the protocol's settings, still accepted
PROTOCOL_ALIASES = {"n_repeats": ("--repeats",), "n_folds": ("--folds",)}


def add_protocol(parser, *, default: str | None = EVAL_PARAMS[0].default,
                 help: str | None = None) -> None:
    """The protocol's flags, one per :data:`camcf.evaluation.settings.EVAL_PARAMS`:
    ``--protocol``, ``--n-repeats`` (also ``--repeats``), ``--n-folds`` (also ``--folds``),
    ``--test-size``, ``--seed``; values outside the declared ranges are refused when parsed.
    ``default``: the protocol when ``--protocol`` is absent (None: the command decides);
    ``help``: the command's words for ``--protocol``."""
    protocol, *rest = EVAL_PARAMS
    protocol = dataclasses.replace(protocol, default=default, none_ok=default is None,
                                   help=help or protocol.help)
    add_param_flags(parser.add_argument_group("protocol"), (protocol, *rest), check=True,
                    aliases=PROTOCOL_ALIASES)


def protocol_values(args: argparse.Namespace) -> dict[str, Any]:
    """The protocol's keywords (:data:`EVAL_PARAMS` names) for
    :mod:`camcf.evaluation.reports`."""
    return flag_values(args, EVAL_PARAMS)


def add_classifier(parser, *, settings: Sequence[str] = ("k", "distance", "neighbours"),
                   defaults: dict[str, Any] | None = None) -> None:
    """ML-kNN's flags, one per :data:`camcf.evaluation.settings.KNN_PARAMS` named in
    ``settings`` (``--k``, ``--s``, ``--distance``, ``--neighbours``); ``defaults``: the
    command's own defaults where they differ from the declarations (``camcf reproduce``: the
    paper's ``neighbours="authors"``)."""
    unknown = sorted(set(settings) - {p.name for p in KNN_PARAMS})
    if unknown:
        raise ValueError(f"unknown ML-kNN setting(s) {unknown}")
    own = dict(defaults or {})
    add_param_flags(parser.add_argument_group("classifier (ML-kNN)"),
                    [dataclasses.replace(p, default=own[p.name]) if p.name in own else p
                     for p in KNN_PARAMS if p.name in settings], check=True)


def knn_values(args: argparse.Namespace) -> dict[str, Any]:
    """The ML-kNN settings parsed (those the subcommand offers)."""
    return flag_values(args, KNN_PARAMS)


# ----------------------------------------------------------------------------- pre-scan
def named_methods(argv: Sequence[str] | None, option: str) -> list[str] | None:
    """The method names given to ``option`` (``--method`` or ``--methods``) in ``argv``, before
    parsing (so that ``--help`` can show only their flags); None when the option is absent."""
    if not argv:
        return None
    argv = list(argv)
    for i, token in enumerate(argv):
        value = None
        if token == option and i + 1 < len(argv):
            value = argv[i + 1]
        elif token.startswith(option + "="):
            value = token.split("=", 1)[1]
        if value is not None:
            return [v.strip() for v in value.split(",") if v.strip()]
    return None


def add_methods(parser: argparse.ArgumentParser, *, note: str = ""):
    """The ``methods`` group with ``--methods`` (read by :func:`method_list`); the group, for
    more options of the command. ``note`` ends the default's help."""
    g = parser.add_argument_group("methods")
    g.add_argument("--methods", default=None,
                   help="comma-separated names among " + ", ".join(methods.METHODS)
                        + f" (default: every available method{note})")
    return g


def method_list(args: argparse.Namespace) -> list[str] | None:
    """The names given to ``--methods`` (comma-separated), checked
    (:func:`camcf.methods.check_names`); None when it is absent (every available method)."""
    if not args.methods:
        return None
    names = [n.strip() for n in args.methods.split(",") if n.strip()]
    return methods.check_names(names, what="--methods")


# ---------------------------------------------------------------------------------- readers
def label_spec(args: argparse.Namespace):
    """The label specification from ``--labels`` / repeated ``--label`` (not both)."""
    many = getattr(args, "label_list", None)
    if many and args.labels is not None:
        raise CamcfError("give the label columns either with --labels or with repeated --label, "
                         "not both")
    return list(many) if many else args.labels


def read_data(args: argparse.Namespace, path: str | None = None):
    """Load DATA (or ``path``) with the label options in ``args``."""
    from ..io import load

    path = path or args.data
    if not Path(path).exists():
        raise CamcfError(f"{path}: no such file")
    return load(path, labels=label_spec(args), xml=args.xml,
                variable=getattr(args, "variable", None))


def load_named(spec: str, args: argparse.Namespace, protocol: str | None):
    """A data file (read with the label options in ``args``) or a shared data set's name
    (:mod:`camcf.catalog`; its fixed split under ``protocol == "holdout"``): ``(name, train
    Dataset, test Dataset or None)``. Neither: a :class:`CamcfError` listing the known names."""
    from .. import catalog

    if Path(spec).is_file():
        return Path(spec).stem, read_data(args, spec), None
    if spec in catalog.CATALOG:
        got = catalog.load_shared(spec, split=protocol == "holdout")
        if isinstance(got, tuple):
            return spec, got[0], got[1]
        return spec, got, None
    raise CamcfError(f"{spec}: no such file, and not a shared data set name (known: "
                     f"{', '.join(catalog.CATALOG)})")


def load_all(args: argparse.Namespace, protocol: str | None, *, keep: bool = False):
    """Every DATA of ``args`` (:func:`load_named`): ``({name: (X, Y)} or (X, Y, X_test,
    Y_test) for a fixed split, {name: what the report says about it}``), and with ``keep``
    a third item ``{name: Dataset}`` (the training part). Two data sets of the same name, or
    ``--discretize none`` on data that are not integer codes, are refused."""
    from ..evaluation.reports import data_about

    loaded: dict[str, tuple] = {}
    about: dict[str, dict[str, Any]] = {}
    kept: dict[str, Any] = {}
    for spec in args.data:
        name, ds, test = load_named(spec, args, protocol)
        if name in loaded:
            raise ParameterError(f"two data sets are named {name!r}; give each file once")
        if getattr(args, "discretize", None) == "none":
            from ..discretize import discretize

            discretize(ds.X, discretize="none")  # integer codes, handed over as they are
            if test is not None:
                discretize(test.X, discretize="none")
        loaded[name] = (ds.X, ds.Y) if test is None else (ds.X, ds.Y, test.X, test.Y)
        about[name] = data_about(ds, test)
        kept[name] = ds
    return (loaded, about, kept) if keep else (loaded, about)


def discretization(args: argparse.Namespace) -> dict[str, Any]:
    """``{"discretize", "bins", "strategy"}`` as parsed."""
    return {p.name: getattr(args, p.name) for p in DISCRETIZE_PARAMS}


def codes_of(ds, args: argparse.Namespace):
    """The data's codes: ``--discretize none`` hands the values over as they are (they must be
    integers); ``auto`` bins continuous columns."""
    import numpy as np

    from .._sparse import issparse
    from ..dataset import code_dtype
    from ..discretize import discretize

    if args.discretize == "none":
        discretize(ds.X, discretize="none")  # checks that every value is an integer code
        if issparse(ds.X):  # kept sparse: the engine counts its stored entries
            return ds.X.tocsc().astype(np.int64)
        X = np.asarray(ds.X)
        if not X.size:
            return X.astype(np.int64)
        return X.astype(code_dtype(int(X.min()), int(X.max())))  # the values, smallest type
    codes, _ = discretize(ds.X, bins=args.bins, strategy=args.strategy,
                          discretize=args.discretize)
    return codes


def method_values(args: argparse.Namespace, name: str) -> dict[str, Any]:
    """``{parameter: value}`` typed for method ``name`` (its flags carry no default)."""
    return flag_values(args, method_params(name), method=name)


def _given(args: argparse.Namespace) -> dict[str, list[str]]:
    """``{method: [flags typed]}`` over every registered method."""
    out: dict[str, list[str]] = {}
    for name in methods.METHODS:
        typed = [flag(p, name) for p in method_params(name) if hasattr(args, dest(p, name))]
        if typed:
            out[name] = typed
    return out


def check_method_flags(args: argparse.Namespace, used: Iterable[str], *,
                       where: str = "--methods") -> None:
    """Refuse a typed flag of a method that is not used (a :class:`ParameterError` naming the
    flag, its method and the flags of the methods used)."""
    used = list(used)
    for name, typed in _given(args).items():
        if name in used:
            continue
        own = [flag(p, m) for m in used for p in method_params(m)]
        if len(used) == 1:
            theirs = (f"{methods.display(used[0])}'s parameters: {', '.join(own) or 'none'}")
            raise ParameterError(
                f"{typed[0]} is a parameter of {methods.display(name)}, not of "
                f"{methods.display(used[0])} ({where} {used[0]}); {theirs}", name=typed[0])
        raise ParameterError(
            f"{typed[0]} is a parameter of {methods.display(name)}, which {where} does not "
            f"include; add {name} to {where} or leave the flag out", name=typed[0])


@contextlib.contextmanager
def parallel(args: argparse.Namespace, *, workers: bool = False) -> Iterator[int | None]:
    """The context in which the work runs, yielding the ``n_jobs`` to pass on.

    With ``--dask-scheduler`` joblib's Dask backend is active inside (every worker unless
    ``--n-jobs`` says otherwise). ``workers=True`` (the evaluation framework, which takes a
    number ≥ 1): None → 1, −1 → the cores here or the cluster's worker threads."""
    n_jobs = N_JOBS.validate(getattr(args, "n_jobs", None))
    address = getattr(args, "dask_scheduler", None)
    if address:
        from ..parallel import dask_cluster

        with dask_cluster(address) as client:
            if n_jobs is None or n_jobs < 0:
                n_jobs = max(1, sum(client.nthreads().values())) if workers else -1
            yield n_jobs
        return
    if workers:
        n_jobs = 1 if n_jobs is None else (os.cpu_count() or 1) if n_jobs < 0 else n_jobs
    yield n_jobs

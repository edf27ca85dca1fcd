"""What the Export page writes: the run's configuration and the CLI command that reproduces it,
and the data as CSV when it has no file of its own (the demo)."""

from __future__ import annotations

import io
import json
import shlex

import numpy as np
import pandas as pd

from ..algorithm_params import ALGORITHM_PARAMS, adequacy_used

#: (parameter, flag) of every declared Ca-MCF parameter (camcf.algorithm_params), in order: a
#: parameter added there appears in the exported command.
PARAM_FLAGS = [(p.name, p.flag) for p in ALGORITHM_PARAMS]


def cli_command(data_path: str, *, labels: str | None, xml: str | None, discretize: dict,
                params: dict, output: str = "result.json", variable: str | None = None) -> str:
    """``camcf select DATA [--variable …] [--labels …] [--xml …] --discretize … --bins …
    --strategy … --delta1 … --output OUT.json``."""
    args = ["camcf", "select", data_path]
    if variable:
        args += ["--variable", variable]
    if labels:
        args += ["--labels", labels]
    if xml:
        args += ["--xml", xml]
    args += ["--discretize", discretize.get("discretize", "auto"), "--bins",
             str(discretize.get("bins", 3)), "--strategy", discretize.get("strategy", "uniform")]
    for p in ALGORITHM_PARAMS:
        key, flag = p.name, p.flag
        if key == "adequacy" and not adequacy_used(params):
            continue  # (spelled only when the rule is on, as a run records it)
        v = params.get(key, p.default)
        args += [flag, f"{v:g}" if isinstance(v, float) else str(v)]
    args += ["--output", output]
    return shlex.join(args)


def cli_lines(cmd: str) -> str:
    """A command of :func:`cli_command` for the screen: each option and its value on a line of
    its own, joined by shell line continuations (the same command to a shell; a narrow box
    then never breaks a line inside an option such as ``--k1``)."""
    lines: list[list[str]] = [[]]
    for arg in shlex.split(cmd):
        if arg.startswith("--") and lines[-1]:
            lines.append([])
        lines[-1].append(arg)
    return " \\\n    ".join(shlex.join(line) for line in lines)


def run_config(source: dict, discretize: dict, params: dict, *, fingerprint: str = "") -> dict:
    """The configuration as data: where the data came from, discretisation, parameters, and the
    CLI command. ``source``: ``{"kind", "path", "labels", "xml", "variable", "description"}``
    (``variable``: the MATLAB variable(s) read, optional)."""
    cmd = cli_command(source.get("path") or "DATA", labels=source.get("labels"),
                      xml=source.get("xml"), discretize=discretize, params=params,
                      variable=source.get("variable"))
    return {
        "data": {k: source.get(k) for k in ("kind", "path", "labels", "xml", "variable",
                                            "description")},
        "data_fingerprint": fingerprint,
        "discretize": dict(discretize),
        "params": dict(params),
        "cli": cmd,
    }


def config_json(cfg: dict) -> str:
    return json.dumps(cfg, indent=2, ensure_ascii=False)


def dataset_csv(dataset) -> str:
    """The data set as one CSV (features, then labels as integer codes): the demo's file for
    ``camcf select demo.csv --labels last:q``."""
    X = dataset.X
    if np.all(X == np.round(X)):
        X = X.astype(np.int64)
    df = pd.DataFrame(X, columns=dataset.feature_names)
    for i, name in enumerate(dataset.label_names):
        df[name] = dataset.Y[:, i]
    buf = io.StringIO()
    df.to_csv(buf, index=False)
    return buf.getvalue()


def params_table(params: dict, discretize: dict | None = None) -> pd.DataFrame:
    """The run's parameters as a two-column table (``parameter``, ``value``), one row per
    declared Ca-MCF parameter (camcf.algorithm_params) in declaration order, then the
    discretisation: a parameter added to the declaration appears here too."""
    from ..algorithm_params import ALGORITHM_PARAMS

    rows = []
    for p in ALGORITHM_PARAMS:
        v = params.get(p.name, p.default)
        unit = " bits" if p.name in ("delta1", "delta2") else ""
        rows.append({"parameter": p.label,
                     "value": (f"{v:g}" if isinstance(v, float) else str(v)) + unit})
    if discretize:
        rows.append({"parameter": "discretisation",
                     "value": ", ".join(f"{k} {v}" for k, v in discretize.items())})
    return pd.DataFrame(rows)

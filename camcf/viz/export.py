"""What the Export page writes: the run's configuration and the CLI command that reproduces it,
and the data as CSV when it has no file of its own (the demo)."""

from __future__ import annotations

import io
import json
import shlex

import numpy as np
import pandas as pd

PARAM_FLAGS = [("delta1", "--delta1"), ("delta2", "--delta2"), ("k1", "--k1"), ("k2", "--k2"),
               ("gamma", "--gamma"), ("min_category_size", "--min-category-size"),
               ("recovery", "--recovery")]


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
    args += ["--discretize", discretize.get("mode", "auto"), "--bins",
             str(discretize.get("bins", 3)), "--strategy", discretize.get("strategy", "uniform")]
    for key, flag in PARAM_FLAGS:
        v = params[key]
        args += [flag, f"{v:g}" if isinstance(v, float) else str(v)]
    args += ["--output", output]
    return shlex.join(args)


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

"""``camcf info``: describe a data set (shapes, labels, their categories and counts) as JSON."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from .. import groups
from ..outcome import Outcome

COMMAND = "info"
ORDER = 20
HELP = "describe a data set (shapes, labels, categories)"


def add_arguments(p: argparse.ArgumentParser, argv: Sequence[str]) -> None:
    groups.add_data(p)
    groups.add_labels(p)
    groups.add_progress(p)
    groups.add_output(p, what="the JSON description")


def run(args: argparse.Namespace) -> Outcome:
    import numpy as np

    ds = groups.read_data(args)
    labels = []
    for i, name in enumerate(ds.label_names):
        vals, counts = np.unique(ds.Y[:, i], return_counts=True)
        labels.append({
            "name": name,
            "categories": [int(v) for v in vals],
            "category_names": [ds.category_names[i].get(int(v), str(v)) for v in vals],
            "counts": [int(k) for k in counts],
        })
    payload = {
        "source": ds.source,
        "n_samples": ds.n_samples,
        "n_features": ds.n_features,
        "n_labels": ds.n_labels,
        "label_cardinality": ds.label_cardinality,
        "n_categories": int(sum(len(lab["categories"]) for lab in labels)),
        "labels": labels,
        "feature_names": list(ds.feature_names),
    }
    card = ds.label_cardinality
    lines = [f"{ds.source}: {ds.n_samples} samples × {ds.n_features} features, {ds.n_labels} "
             f"labels, cardinality " + (f"{card:.3f}" if card == card else "n/a (no binary "
                                                                           "label)")]
    for lab in labels:
        cats = ", ".join(f"{n}:{k}" for n, k in zip(lab["category_names"], lab["counts"],
                                                     strict=True))
        lines.append(f"  {lab['name']}: {cats}")
    return Outcome(path=args.output, payload=payload, summary="\n".join(lines))

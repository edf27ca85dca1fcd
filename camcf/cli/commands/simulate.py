"""``camcf simulate``: sample a known causal network into a multi-label data set with its truth.

::

    camcf simulate NETWORK|FILE.bif [--labels A,B,C|auto:K] [--n N] [--seed S] [--quiet]
        --output OUT.arff

NETWORK is a network pgmpy ships (alarm, child, insurance, hailfinder, water, …; ``camcf
simulate --list`` lists them), ``demo``, or a ``.bif`` / ``.bif.gz`` file
(:func:`camcf.networks.load`). Writes ``OUT.arff`` (one nominal column per node with the
network's state names: the features, then the labels), ``OUT.xml`` (the labels, MULAN) and
``OUT.truth.json`` (per label its parents, children, spouses and blanket; node names sorted),
each atomically (:func:`camcf.networks.files`).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from .. import groups
from ..flags import add_param_flags, flag_values
from ..outcome import Outcome

COMMAND = "simulate"
ORDER = 50
HELP = "sample a known causal network (pgmpy's or a BIF file) into ARFF + XML + its truth"


def _description() -> str:
    from ...networks import AUTO_RULE, DEFAULT_LABELS

    return ("Sample a known discrete causal network — a network pgmpy ships (alarm, child, "
            "insurance, hailfinder, water, …; --list), the built-in demo, or a BIF file — into "
            "a multi-label data set: the chosen nodes are the labels, every other node a "
            "feature. Writes OUT.arff (nominal columns, the network's state names), OUT.xml "
            "(MULAN labels) and OUT.truth.json (each label's parents, children, spouses and "
            f"Markov blanket). Labels: names, or auto:K ({AUTO_RULE}); default "
            f"{DEFAULT_LABELS}. Then: camcf select OUT.arff --xml OUT.xml --discretize none "
            "--truth OUT.truth.json -o sel.json scores the selection against the truth.")


DESCRIPTION = _description()


class _List(argparse.Action):
    """``--list``: print the shipped networks and exit (needs pgmpy)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from ...errors import CamcfError
        from ...networks import shipped

        try:
            print("\n".join(shipped()))
        except CamcfError as e:
            parser.exit(3, f"camcf simulate: error: {e}\n")
        parser.exit(0)


def add_arguments(p: argparse.ArgumentParser, argv: Sequence[str]) -> None:
    from ...networks import AUTO_RULE, DEFAULT_LABELS, SAMPLE_PARAMS

    p.add_argument("network", metavar="NETWORK",
                   help="a network pgmpy ships (alarm, child, insurance, hailfinder, …), "
                        "demo, or a .bif / .bif.gz file")
    p.add_argument("--list", action=_List, nargs=0, help="list the shipped networks and exit")
    g = p.add_argument_group("labels and sample")
    g.add_argument("--labels", default=DEFAULT_LABELS, metavar="A,B,C|auto:K",
                   help=f"the nodes that are labels: comma-separated names, or auto:K "
                        f"({AUTO_RULE}); default {DEFAULT_LABELS}")
    add_param_flags(g, SAMPLE_PARAMS, check=True)
    groups.add_progress(p)
    groups.add_output(p, what="OUT.arff (and OUT.xml, OUT.truth.json beside it)",
                      suffixes=(".arff", ".xml", ".truth.json"))


def run(args: argparse.Namespace) -> Outcome:
    from ...networks import SAMPLE_PARAMS, files, load

    sample = flag_values(args, SAMPLE_PARAMS)
    net = load(args.network)
    ds = net.simulate(args.labels, **sample)
    texts = files(ds, args.output)
    arff, xml, truth = texts
    t = ds.truth
    lines = [f"{net}; sampled {ds.n_samples} rows with seed {sample['seed']}",
             f"labels ({len(ds.label_names)}): " + ", ".join(
                 f"{lab} (blanket: {len(t.feature_blanket(lab))} features, "
                 f"{len(t.label_blanket(lab))} labels)" for lab in ds.label_names),
             f"features: {ds.n_features}; the true selection (the union of the labels' "
             f"feature blankets): {len(t.selection())}",
             f"written {arff}, {xml}, {truth}",
             f"next: camcf select {arff} --xml {xml} --discretize none --truth {truth} "
             f"-o {Path(arff).with_suffix('')}.selection.json"]
    return Outcome(files=texts, summary="\n".join(lines))

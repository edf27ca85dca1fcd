"""Known causal networks as data: the standard discrete Bayesian networks, a user's BIF file
or the built-in demo, sampled into a :class:`camcf.Dataset` that carries its truth.

* :func:`load` — a network by name (:func:`shipped`: the ``.bif.gz`` files pgmpy ships inside
  its wheel, ``pgmpy/utils/example_models``: alarm, child, insurance, hailfinder, water, …,
  read with ``importlib.resources`` and ``pgmpy.readwrite.BIFReader``, no network access), a
  path to a ``.bif`` / ``.bif.gz`` file, or ``"demo"`` (the 24-feature demo of
  :mod:`camcf.datasets`);
* :meth:`Network.labels` — which nodes are the labels: names, or ``auto:K``
  (:data:`AUTO_RULE`); every other node is a feature;
* :meth:`Network.simulate` — ``n`` rows sampled with a seed (BIF networks:
  ``DiscreteBayesianNetwork.simulate(n_samples=n, seed=seed)``), coded by the network's own
  state order, as a :class:`camcf.Dataset` whose ``truth`` is the :class:`camcf.truth.Truth`
  of the chosen labels (:func:`camcf.truth.truth_of` on the network's DAG);
* :func:`write` (:func:`files`) — the data as ARFF (one nominal column per node with the network's state
  names), MULAN XML (the labels) and the truth as JSON (``camcf simulate``).

pgmpy is the optional extra ``camcf[networks]``; it is imported only when a BIF network is
loaded (``import camcf`` and ``camcf --help`` stay light: this module imports NumPy only when
it samples), and its absence is a
:class:`camcf.errors.MissingDependencyError` saying how to install it.

Columns: the features in sorted name order, then the labels in the order chosen.

>>> net = load("demo")
>>> ds = net.simulate(labels="A,B", n=200, seed=1)
>>> ds.label_names, ds.n_features, ds.truth.feature_blanket("A")
(['A', 'B'], 27, ('f00', 'f04', 'f05'))
"""

from __future__ import annotations

import difflib
import functools
import gzip
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import DataFormatError, LabelSpecError, MissingDependencyError, ParameterError
from .params import Param

__all__ = ["AUTO_RULE", "DEFAULT_LABELS", "SAMPLE_PARAMS", "Network", "files", "load",
           "load_bytes", "shipped", "simulate", "write"]

#: the labels when none are named
DEFAULT_LABELS = "auto:5"
#: how ``auto:K`` chooses the labels, in words (the command line's and the app's help say it)
AUTO_RULE = ("the K nodes with the largest Markov blankets in the network's DAG (parents, "
             "children and co-parents of the children), equal sizes in the order of the node "
             "names")
#: how a sample is drawn, declared once (the command line's flags and the app's inputs)
SAMPLE_PARAMS: tuple[Param, ...] = (
    Param("n", 1000, int, low=1, symbol="rows", widget=(50, 100_000, 50),
          help="rows to sample from the network"),
    Param("seed", 0, int, low=0, symbol="seed", widget=(0, 10_000, 1),
          help="seed of the sampler: the same network, labels, n and seed give the same rows"),
)
_by_name = {p.name: p for p in SAMPLE_PARAMS}
#: where pgmpy keeps its example networks, inside its package
_EXAMPLES = "utils/example_models"
_INSTALL = "pip install 'camcf[networks]' (pgmpy)"


def _pgmpy_files():
    import importlib.resources as resources

    try:
        return resources.files("pgmpy") / _EXAMPLES
    except ImportError:
        raise MissingDependencyError(
            f"the standard networks and BIF files need pgmpy, which is not installed; "
            f"{_INSTALL}", package="pgmpy") from None


def shipped() -> list[str]:
    """The names of the networks shipped with pgmpy (``.bif.gz`` in its example models),
    sorted, and ``"demo"`` (the built-in demo)."""
    names = sorted(p.name[: -len(".bif.gz")] for p in _pgmpy_files().iterdir()
                   if p.name.endswith(".bif.gz"))
    return [*BUILT_IN, *names]


# ---------------------------------------------------------------------------- the network
@dataclass(frozen=True, eq=False)
class Network:
    """A discrete causal network: a DAG with the states of every node, and a sampler.

    Attributes
    ----------
    name : str
        ``"alarm"``, a file's stem, ``"demo"``.
    title : str
        How data sampled from it are named (``"ALARM network"``, ``"built-in demo"``).
    graph : networkx.DiGraph
        The DAG over the nodes.
    states : dict of str to tuple of str
        Per node its state names; a state's code is its position here.
    fingerprint : str
        A hash of the network's definition (what a cache keys on).
    """

    name: str
    title: str
    graph: Any
    states: dict[str, tuple[str, ...]]
    fingerprint: str
    #: pgmpy's model, or an object with ``sample_codes(n, seed) -> {node: codes}`` (the demo)
    model: Any = field(default=None, repr=False)

    @property
    def nodes(self) -> tuple[str, ...]:
        """Every node, sorted by name."""
        return tuple(sorted(self.graph.nodes))

    def __str__(self) -> str:
        return (f"{self.title}: {self.graph.number_of_nodes()} nodes, "
                f"{self.graph.number_of_edges()} edges")

    # ---------------------------------------------------------------- labels
    def labels(self, spec: str | Sequence[str] | None = DEFAULT_LABELS) -> list[str]:
        """The labels: ``spec`` names (a list, or ``"A,B,C"``) or ``"auto:K"``
        (:data:`AUTO_RULE`). Unknown names, a repeated name, ``K`` outside 1 … nodes − 1 or
        every node a label: a :class:`camcf.LabelSpecError` saying what fits."""
        spec = DEFAULT_LABELS if spec is None else spec
        n_nodes = self.graph.number_of_nodes()
        if isinstance(spec, str):
            text = spec.strip()
            m = re.fullmatch(r"auto(?::\s*(\S*))?", text)
            if m:
                k_text = m.group(1) or DEFAULT_LABELS.split(":")[1]
                try:
                    k = int(k_text)
                except ValueError:
                    raise LabelSpecError(
                        f"auto:K needs a whole number K of labels, got {text!r}; e.g. auto:5 "
                        f"({AUTO_RULE})", labels=spec) from None
                if not 1 <= k <= n_nodes - 1:
                    raise LabelSpecError(
                        f"auto:{k} is out of range: {self.name} has {n_nodes} nodes, so K must "
                        f"be between 1 and {n_nodes - 1} (at least one node stays a feature)",
                        labels=spec)
                return self._auto(k)
            names = [v.strip() for v in text.split(",") if v.strip()]
        else:
            names = [str(v) for v in spec]
        if not names:
            raise LabelSpecError(f"no labels given; name some nodes of {self.name} (e.g. "
                                 f"{','.join(self._auto(2))}) or use auto:K", labels=spec)
        dup = sorted({v for v in names if names.count(v) > 1})
        if dup:
            raise LabelSpecError(f"label(s) {', '.join(dup)} named twice; give each once",
                                 labels=spec)
        unknown = [v for v in names if v not in self.graph]
        if unknown:
            hints = []
            lower = {n.lower(): n for n in self.graph.nodes}
            for v in unknown[:3]:
                close = ([lower[v.lower()]] if v.lower() in lower
                         else difflib.get_close_matches(v, list(self.graph.nodes), n=2))
                if close:
                    hints.append(f"{v} → {' or '.join(close)}?")
            raise LabelSpecError(
                f"{', '.join(unknown)} {'is not a node' if len(unknown) == 1 else 'are not nodes'}"
                f" of {self.name}" + (f" ({'; '.join(hints)})" if hints else "")
                + f"; its nodes: {', '.join(self.nodes[:40])}{' …' if n_nodes > 40 else ''}, "
                f"or use auto:K", labels=spec)
        if len(names) >= n_nodes:
            raise LabelSpecError(f"every node of {self.name} would be a label; leave at least "
                                 "one as a feature", labels=spec)
        return names

    def _auto(self, k: int) -> list[str]:
        from .truth import blanket_of

        size = {n: len(blanket_of(self.graph, n).blanket) for n in self.graph.nodes}
        return sorted(self.graph.nodes, key=lambda n: (-size[n], n))[:k]

    def truth(self, labels: str | Sequence[str] | None = DEFAULT_LABELS):
        """The :class:`camcf.truth.Truth` of these labels (features: every other node,
        sorted)."""
        from .truth import truth_of

        return truth_of(self.graph, self.labels(labels), network=self.name)

    # ---------------------------------------------------------------- sampling
    def sample(self, n: int, seed: int = 0) -> dict:
        """``n`` rows drawn from the network with ``seed``: per node its codes (int64 arrays,
        the position of the state in :attr:`states`)."""
        import numpy as np

        n, seed = _check_n(n), _check_seed(seed)
        if hasattr(self.model, "sample_codes"):  # a network with its own sampler (the demo)
            return self.model.sample_codes(n, seed)
        import warnings

        import pandas as pd

        with warnings.catch_warnings():  # pgmpy's deprecation notices on its own imports
            warnings.simplefilter("ignore", FutureWarning)
            df = self.model.simulate(n_samples=n, seed=seed, show_progress=False)
        out = {}
        for node, names in self.states.items():
            codes = pd.Categorical(df[node].astype(str), categories=list(names)).codes
            out[node] = np.asarray(codes, dtype=np.int64)
        return out

    def simulate(self, labels: str | Sequence[str] | None = DEFAULT_LABELS, n: int = 1000,
                 seed: int = 0):
        """``n`` rows sampled with ``seed`` as a :class:`camcf.Dataset`: ``X`` the feature
        codes (floats; features in sorted name order), ``Y`` the label codes (labels in the
        order chosen), the state names as category names, and ``truth`` (``meta["truth"]``)
        the :class:`camcf.truth.Truth` of the labels."""
        import numpy as np

        from .dataset import Dataset
        from .truth import truth_of

        chosen = self.labels(labels)
        values = self.sample(n, seed)
        features = sorted(v for v in self.graph.nodes if v not in set(chosen))
        X = np.column_stack([values[f] for f in features]).astype(float)
        Y = np.column_stack([values[lab] for lab in chosen]).astype(np.int64)
        category_names = [{int(c): self.states[lab][int(c)] for c in np.unique(values[lab])}
                          for lab in chosen]
        truth = truth_of(self.graph, chosen, features, network=self.name)
        return Dataset(X=X, Y=Y, feature_names=features, label_names=list(chosen),
                       source=f"{self.title} (seed {seed}, n = {n})",
                       category_names=category_names,
                       meta={"generator": "camcf.networks", "network": self.name,
                             "seed": int(seed), "n": int(n), "truth": truth,
                             "states": {v: self.states[v] for v in (*features, *chosen)}})


def _check_n(n) -> int:
    return int(_by_name["n"].validate(n))


def _check_seed(seed) -> int:
    return int(_by_name["seed"].validate(seed))


# ---------------------------------------------------------------------------- loading
def load(network: str | Path) -> Network:
    """A network by name (:func:`shipped`, case ignored: ``"ALARM"`` is ``"alarm"``), a
    ``.bif`` / ``.bif.gz`` file, or ``"demo"``.

    Raises
    ------
    camcf.ParameterError
        A name that is neither a shipped network nor an existing file (the names are listed).
    camcf.DataFormatError
        A file that is not a readable BIF network (pgmpy's reason is given).
    camcf.errors.MissingDependencyError
        pgmpy is not installed (``pip install 'camcf[networks]'``).
    """
    text = str(network)
    if text.lower() in BUILT_IN:
        return _built_in(text.lower())
    path = Path(text)
    if path.is_file():
        return load_bytes(path.read_bytes(), str(path))
    if path.suffix.lower() in (".bif", ".gz") or "/" in text:
        raise ParameterError(f"{text}: no such file; give an existing .bif file or a "
                             f"shipped network ({', '.join(shipped())})", name="network",
                             value=text)
    names = shipped()
    key = text.lower()
    if key not in names:
        close = difflib.get_close_matches(key, names, n=3)
        raise ParameterError(
            f"unknown network {text!r}" + (f" (did you mean {', '.join(close)}?)" if close
                                           else "")
            + f"; shipped: {', '.join(names)}; or give a .bif file", name="network",
            value=text, allowed=names)
    return _shipped(key)


def load_bytes(data: bytes, filename: str) -> Network:
    """A network from the bytes of a ``.bif`` / ``.bif.gz`` file (an upload); named after the
    file. A :class:`camcf.DataFormatError` when it is not a readable BIF network."""
    if not data:
        raise DataFormatError(f"{filename}: the file is empty; give a .bif or .bif.gz file")
    return _from_bif(_bif_text(data, filename), name=Path(filename).name.split(".")[0],
                     title=Path(filename).name, shown=filename)


@functools.lru_cache(maxsize=16)
def _shipped(name: str) -> Network:
    data = (_pgmpy_files() / f"{name}.bif.gz").read_bytes()
    return _from_bif(_bif_text(data, f"{name}.bif.gz"), name=name,
                     title=f"{name.upper()} network", shown=f"pgmpy's {name}.bif.gz")


def _bif_text(data: bytes, shown: str) -> str:
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as e:
            raise DataFormatError(f"{shown}: a damaged gzip file ({e}); give a readable .bif "
                                  "or .bif.gz file") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


@functools.lru_cache(maxsize=16)
def _parse(text: str, shown: str):
    try:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from pgmpy.readwrite import BIFReader
    except ImportError:
        raise MissingDependencyError(f"reading a BIF network needs pgmpy, which is not "
                                     f"installed; {_INSTALL}", package="pgmpy") from None
    try:
        model = BIFReader(string=text).get_model()
        model.check_model()
    except Exception as e:  # noqa: BLE001 - pgmpy raises anything on a bad file; say why
        first = (str(e).splitlines() or [""])[0][:200]
        raise DataFormatError(
            f"{shown} is not a readable BIF network ({type(e).__name__}: {first}); check the "
            "file against the BIF format (variables with their states, a probability table "
            "for each) or give a shipped network") from None
    return model


def _from_bif(text: str, *, name: str, title: str, shown: str) -> Network:
    import networkx as nx

    model = _parse(text, shown)
    nodes = list(model.nodes())
    if len(nodes) < 2:
        raise DataFormatError(f"{shown}: {len(nodes)} variable(s) read; a network needs at "
                              "least two (a label and a feature); check the file")
    graph = nx.DiGraph()
    graph.add_nodes_from(sorted(nodes))
    graph.add_edges_from(model.edges())
    states = {v: tuple(str(s) for s in model.states[v]) for v in sorted(nodes)}
    import hashlib  # (OpenSSL's start-up: about 20 ms that camcf --help need not pay)

    return Network(name=name, title=title, graph=graph, states=states,
                   fingerprint=hashlib.sha256(text.encode()).hexdigest()[:20], model=model)


#: networks defined in camcf, by import path (imported when asked for, as the method registry
#: does): ``name → "module:function"`` returning a :class:`Network`
BUILT_IN = {"demo": "camcf.datasets:demo_network"}


@functools.lru_cache(maxsize=4)
def _built_in(name: str) -> Network:
    import importlib

    module, function = BUILT_IN[name].split(":")
    return getattr(importlib.import_module(module), function)()


def simulate(network: str | Path | Network, labels: str | Sequence[str] | None = DEFAULT_LABELS,
             n: int = 1000, seed: int = 0):
    """:meth:`Network.simulate` of :func:`load` (``network``) in one call."""
    net = network if isinstance(network, Network) else load(network)
    return net.simulate(labels, n, seed)


# ---------------------------------------------------------------------------- writing
def _arff_name(name: str) -> str:
    """A name as ARFF writes it: quoted when it holds a space, a comma, a brace or a quote."""
    if re.fullmatch(r"[A-Za-z0-9_.\-]+", name):
        return name
    return "'" + name.replace("\\", "\\\\").replace("'", "\\'") + "'"


def files(dataset, output: str | Path) -> dict[str, str]:
    """The texts :func:`write` writes, ``{path: text}``: ``OUT.arff`` (one nominal column per
    node, the features then the labels, each with its network's state names in their code
    order), ``OUT.xml`` (MULAN: the labels) and ``OUT.truth.json``
    (:meth:`camcf.truth.Truth.to_dict`). ``output`` is ``OUT.arff`` (or ``OUT``)."""
    import numpy as np

    from .output import json_text

    truth = dataset.meta.get("truth")
    states = dataset.meta.get("states")
    if truth is None or states is None:
        raise ParameterError("this data set does not come from a known network; write data "
                             "sampled by camcf.networks (Network.simulate)", name="dataset")
    out = Path(output)
    base = str(out.with_suffix("") if out.suffix.lower() == ".arff" else out)
    columns = [*dataset.feature_names, *dataset.label_names]
    quoted = [[_arff_name(s) for s in states[c]] for c in columns]
    lines = [f"@relation {_arff_name(truth.network or 'network')}", ""]
    lines += [f"@attribute {_arff_name(c)} {{{','.join(q)}}}" for c, q in zip(columns, quoted,
                                                                             strict=True)]
    lines += ["", "@data"]
    table = np.column_stack([np.asarray(dataset.X, dtype=np.int64), dataset.Y.astype(np.int64)])
    lines += [",".join(quoted[j][v] for j, v in enumerate(row)) for row in table.tolist()]
    xml = ['<?xml version="1.0" encoding="utf-8"?>',
           '<labels xmlns="http://mulan.sourceforge.net/labels">',
           *[f'  <label name="{_xml_escape(lab)}"></label>' for lab in dataset.label_names],
           "</labels>"]
    return {f"{base}.arff": "\n".join(lines) + "\n", f"{base}.xml": "\n".join(xml) + "\n",
            f"{base}.truth.json": json_text(truth.to_dict())}


def write(dataset, output: str | Path) -> list[Path]:
    """Write :func:`files` (each atomically); returns the paths."""
    from .output import write_text

    return [write_text(path, text) for path, text in files(dataset, output).items()]


def _xml_escape(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))

"""The paper's data sets as they circulate (``../shared/datasets``), with how to read each.

The folder is ``$CAMCF_DATA_DIR`` when set, else ``../shared/datasets`` beside the repository.
Nothing here ships data: the files are read where they are.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .dataset import Dataset
from .errors import DataFormatError

ENV_VAR = "CAMCF_DATA_DIR"


@dataclass(frozen=True)
class Entry:
    """One data file (or a train/test pair) and the label specification it needs."""

    name: str
    path: str  # relative to the data folder
    labels: str | None = None
    xml: str | None = None
    test_path: str | None = None  # a fixed split, when the data set has one
    note: str = ""
    kw: dict = field(default_factory=dict)


CATALOG: dict[str, Entry] = {e.name: e for e in [
    Entry("flags", "flags/flags.arff", labels="last:7",
          note="raw features (nominal, integers, counts); 7 colour labels"),
    Entry("flags-mat", "flags/Flags-train.mat", labels="last:7",
          test_path="flags/Flags-test.mat",
          note="already discretised to {0,1,2}; the authors' 132/62 split"),
    Entry("virusgo", "virusgo/VirusGO.arff", note="MEKA sparse ARFF, -C -6"),
    Entry("chd49", "chd49/CHD_49.arff", xml="chd49/CHD_49.xml"),
    Entry("plantgo", "plantgo/PlantGO.arff", note="MEKA sparse ARFF, -C -12"),
    Entry("enron", "enron/Enron.arff", note="MEKA sparse ARFF, -C -53"),
    Entry("yeast", "yeast/yeast.arff", xml="yeast/yeast.xml",
          note="continuous features (binned into 3 equal-width bins by default)"),
    Entry("yeast-split", "yeast/yeast-train.arff", xml="yeast/yeast.xml",
          test_path="yeast/yeast-test.arff", note="the standard 1500/917 split"),
    Entry("image", "image/image.mat",
          note="a 600-row subset of the 2000-row Image set (smoke tests only)"),
]}


def data_dir() -> Path:
    """The folder holding the shared data sets."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


def available(folder: Path | None = None) -> list[str]:
    """Names of catalogue entries whose files exist in ``folder``."""
    folder = folder or data_dir()
    return [n for n, e in CATALOG.items() if (folder / e.path).is_file()]


def load_shared(name: str, folder: Path | None = None, *, split: bool = False
                ) -> Dataset | tuple[Dataset, Dataset]:
    """Load a catalogue entry; with ``split`` and a fixed split, return (train, test)."""
    from .io import load, load_train_test

    if name not in CATALOG:
        raise DataFormatError(f"unknown data set {name!r}; known: {', '.join(CATALOG)}")
    e = CATALOG[name]
    folder = folder or data_dir()
    path = folder / e.path
    if not path.is_file():
        raise DataFormatError(
            f"{path} not found: set {ENV_VAR} to the folder holding the shared data sets")
    xml = str(folder / e.xml) if e.xml else None
    if split and e.test_path:
        return load_train_test(str(path), str(folder / e.test_path), labels=e.labels, xml=xml)
    return load(str(path), labels=e.labels, xml=xml)

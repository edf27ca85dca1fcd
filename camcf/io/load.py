"""One entry point for every file format: pick the reader by the file's extension."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import numpy as np

from ..dataset import Dataset
from ..errors import (
    DataFormatError,
    FileAccessError,
    LabelSpecError,
    ResourceLimitError,
)
from ._common import LabelSpec

# Each reader is imported when a file of its kind is read: the MATLAB reader loads scipy.io
# (with scipy.sparse), the CSV reader pandas — neither is needed to read the other kinds.

EXTENSIONS: dict[str, str] = {
    ".arff": "arff",
    ".mat": "matlab",
    ".csv": "csv",
    ".tsv": "csv",
    ".txt": "csv",
}


def load(
    path: str | Path,
    *,
    labels: LabelSpec = None,
    xml: str | Path | None = None,
    name: str | None = None,
    variable: str | None = None,
) -> Dataset:
    """Read a multi-label data set, choosing the reader by extension.

    Parameters
    ----------
    path : str or Path
        ``.arff`` (dense or sparse), ``.mat`` (MATLAB) or ``.csv`` / ``.tsv`` / ``.txt``.
    labels : str or sequence of str, optional
        The label columns: names, or ``"last:K"`` / ``"first:K"``.
    xml : str or Path, optional
        A MULAN label XML file (ARFF and CSV only).
    name : str, optional
        Name shown in messages and in ``Dataset.source`` (defaults to the file name).
    variable : str, optional
        MATLAB files only: which variable(s) to read (``"train_data"``, ``"X/Y"``, ``"train"``;
        see :func:`camcf.io.matlab.variable_choices`).

    Returns
    -------
    Dataset

    Raises
    ------
    DataFormatError
        Unknown extension, or a file the reader cannot make sense of.
    LabelSpecError
        The label columns are unknown or do not fit the file.
    """
    shown = name or Path(path).name
    try:
        return _load(path, labels=labels, xml=xml, name=name, shown=shown, variable=variable)
    except ResourceLimitError:
        raise
    except MemoryError:
        raise ResourceLimitError(
            f"{shown}: the machine ran out of memory while reading the file; use a smaller data "
            "set or a machine with more memory (camcf refuses such files up front when the "
            "environment variable CAMCF_MEMORY_LIMIT is set below the free memory)"
        ) from None
    except FileAccessError:
        raise
    except OSError as e:
        raise FileAccessError(
            f"{shown}: cannot read the file ({e.strerror or type(e).__name__}; check the path "
            "and its permissions)"
        ) from None


def _load(path: str | Path, *, labels: LabelSpec, xml: str | Path | None, name: str | None,
          shown: str, variable: str | None = None) -> Dataset:
    kind = EXTENSIONS.get(Path(path).suffix.lower())
    if kind is None:
        raise DataFormatError(
            f"{shown}: unknown file type {Path(path).suffix or '(no extension)'!r}; expected "
            "one of .arff, .mat, .csv, .tsv, .txt"
        )
    if kind == "arff" and variable is None:
        from .arff import load_arff

        return load_arff(path, labels=labels, xml=xml, name=name)
    if kind == "matlab":
        if xml is not None:
            problem = (f"{shown}: a label XML file names ARFF/CSV columns; a .mat file has no "
                       "column names")
            raise LabelSpecError(f"{problem} (use labels='last:K' or a target variable)",
                                 problem=problem, fix="labels_positional")
        from .matlab import load_matlab

        return load_matlab(path, labels=labels, name=name, variable=variable)
    if variable is not None:
        raise DataFormatError(
            f"{shown}: a variable ({variable!r}) can only be chosen in a MATLAB .mat file"
        )
    from .csv import load_csv

    return load_csv(path, labels=labels, xml=xml, name=name)


def _align_labels(train: Dataset, test: Dataset) -> Dataset:
    """Re-code ``test``'s label categories so that a category name has the same code in both."""
    Y = test.Y.astype(np.int64)  # new codes may not fit test's type; Dataset narrows again
    cats = [dict(c) for c in test.category_names]
    changed = False
    for i in range(test.n_labels):
        tr, te = train.category_names[i], test.category_names[i]
        name_to_code = {v: k for k, v in tr.items()}
        if all(name_to_code.get(v, k) == k for k, v in te.items()) and all(
            tr.get(k, v) == v for k, v in te.items()
        ):
            merged = dict(tr)
            merged.update(te)
            cats[i] = merged
            continue
        changed = True
        next_code = max(list(tr) + [-1]) + 1
        remap: dict[int, int] = {}
        merged = dict(tr)
        for k, v in sorted(te.items()):
            if v in name_to_code:
                remap[k] = name_to_code[v]
            else:
                remap[k] = next_code
                merged[next_code] = v
                next_code += 1
        Y[:, i] = np.asarray([remap[int(c)] for c in test.Y[:, i]], dtype=np.int64)
        cats[i] = merged
    if not changed:
        return Dataset(
            X=test.X, Y=test.Y, feature_names=test.feature_names, label_names=test.label_names,
            source=test.source, category_names=cats, meta=test.meta,
        )
    meta = dict(test.meta)
    meta.setdefault("notes", [])
    meta["notes"] = list(meta["notes"]) + ["label codes re-aligned to the training file"]
    return Dataset(
        X=test.X, Y=Y, feature_names=test.feature_names, label_names=test.label_names,
        source=test.source, category_names=cats, meta=meta,
    )


def _align_features(train: Dataset, test: Dataset) -> Dataset:
    """Re-code text feature columns of a CSV test file onto the training file's codes."""
    enc_tr = train.meta.get("encoded_features") or {}
    enc_te = test.meta.get("encoded_features") or {}
    if not enc_te and not enc_tr:
        return test
    X = test.X.copy()
    for name, te_cats in enc_te.items():
        tr_cats = list(enc_tr.get(name, []))
        if tr_cats == te_cats:
            continue
        j = test.feature_names.index(name)
        lookup = {v: k for k, v in enumerate(tr_cats)}
        for v in te_cats:
            if v not in lookup:
                lookup[v] = len(tr_cats)
                tr_cats.append(v)
        col = test.X[:, j]
        new = np.full_like(col, np.nan)
        ok = ~np.isnan(col)
        new[ok] = [lookup[te_cats[int(c)]] for c in col[ok]]
        X[:, j] = new
    meta = dict(test.meta)
    meta["encoded_features"] = {
        k: list(enc_tr.get(k, [])) + [v for v in vals if v not in enc_tr.get(k, [])]
        for k, vals in enc_te.items()
    }
    return Dataset(
        X=X, Y=test.Y, feature_names=test.feature_names, label_names=test.label_names,
        source=test.source, category_names=test.category_names, meta=meta,
    )


def split_variables(train_path: str | Path, test_path: str | Path, variable: str | None = None,
                    test_variable: str | None = None) -> tuple[str | None, str | None]:
    """The MATLAB variable(s) :func:`load_train_test` reads from each file.

    A ``.mat`` file holding both parts of a split under its own names (``train_data/
    train_target`` beside ``test_data/test_target``, or ``train`` beside ``test``:
    :data:`camcf.io.matlab.SPLIT_PARTS`) is split by them: with no ``variable`` the training
    file's train part is read, and with no ``test_variable`` the test file's test part; a
    ``train…`` variable reads its ``test…`` counterpart from the test file when that file holds
    it (``train_data`` → ``test_data``); any other ``variable`` is read from both files."""
    def is_mat(p) -> bool:
        return EXTENSIONS.get(Path(p).suffix.lower()) == "matlab" and Path(p).is_file()

    from .matlab import counterpart, own_part

    if variable is None and is_mat(train_path):
        variable = own_part(train_path, "train")
    if test_variable is None:
        if not is_mat(test_path):
            test_variable = variable
        elif variable is None:
            test_variable = own_part(test_path, "test")
        else:
            test_variable = counterpart(variable, "test", test_path) or variable
    return variable, test_variable


def same_rows(a: Dataset, b: Dataset) -> bool:
    """Whether two data sets hold the same rows in the same order (features and labels)."""
    if a.X.shape != b.X.shape or a.Y.shape != b.Y.shape or not np.array_equal(a.Y, b.Y):
        return False
    import scipy.sparse

    if scipy.sparse.issparse(a.X) or scipy.sparse.issparse(b.X):
        xa, xb = scipy.sparse.csr_matrix(a.X), scipy.sparse.csr_matrix(b.X)
        return (xa != xb).nnz == 0
    return bool(np.array_equal(a.X, b.X, equal_nan=True))


def load_train_test(
    train_path: str | Path, test_path: str | Path, *, variable: str | None = None,
    test_variable: str | None = None, **kw: object
) -> tuple[Dataset, Dataset]:
    """Read a fixed train/test split given as two files.

    Parameters
    ----------
    train_path, test_path : str or Path
        The two files (each may be of any supported format; the same ``.mat`` file twice when
        it holds both parts).
    variable, test_variable : str, optional
        MATLAB files: the variable(s) of the training and of the test part. A file holding
        both parts under its own names (``train_data``/``train_target`` and ``test_data``/
        ``test_target``) is split by them: ``variable="train_data"`` (or nothing) reads the
        test part from ``test_data``. See :func:`split_variables`.
    **kw
        Passed to :func:`load` for both files (``labels``, ``xml``).

    Returns
    -------
    (Dataset, Dataset)
        Train and test. Label category codes (and text-feature codes of CSV files) of the test
        set are aligned to the training set's, so a category has one code in both.

    Raises
    ------
    DataFormatError
        When the two files do not have the same features and labels.

    Warns
    -----
    camcf.CamcfWarning
        When the two parts hold the same rows (the scores would be measured on the training
        rows); its ``fix`` is ``"test_part"``.
    """
    kw.pop("name", None)
    variable, test_variable = split_variables(train_path, test_path, variable, test_variable)
    train = load(train_path, variable=variable, **kw)  # type: ignore[arg-type]
    test = load(test_path, variable=test_variable, **kw)  # type: ignore[arg-type]
    a, b = Path(train_path).name, Path(test_path).name
    if a == b and (variable or test_variable):
        a, b = f"{a} ({variable})", f"{b} ({test_variable})"
    if train.n_features != test.n_features:
        raise DataFormatError(
            f"{a} has {train.n_features} features but {b} has {test.n_features}; train and "
            "test files must have the same columns"
        )
    if train.n_labels != test.n_labels:
        raise DataFormatError(
            f"{a} has {train.n_labels} labels but {b} has {test.n_labels}; train and test "
            "files must have the same label columns"
        )
    if train.feature_names != test.feature_names or train.label_names != test.label_names:
        diff = [
            f"{x!r} vs {y!r}"
            for x, y in zip(
                train.feature_names + train.label_names, test.feature_names + test.label_names,
                strict=True,
            )
            if x != y
        ]
        raise DataFormatError(
            f"{a} and {b} name their columns differently ({', '.join(diff[:5])}); train and test "
            "files must have the same columns in the same order"
        )
    test = _align_features(train, _align_labels(train, test))
    if same_rows(train, test):
        import warnings

        from ..algorithm import CamcfWarning

        problem = (f"the training part {a} and the test part {b} hold the same "
                   f"{train.n_samples:,} rows: every score would be measured on the rows the "
                   "selection and the classifier learned from")
        warnings.warn(CamcfWarning(
            f"{problem}; give the test part (test_variable='test_data' for a file holding "
            "test_data/test_target) or another test file", problem=problem, fix="test_part"),
            stacklevel=2)
    return train, test


def check_runnable(ds: Dataset, *, bins: int = 3, strategy: str = "uniform",
                   discretize: str | None = "auto") -> None:
    """Raise a :class:`~camcf.errors.CamcfError` when Ca-MCF cannot run on ``ds`` as it is.

    A reader accepts files with empty cells or labels that never vary (they are still a data
    set); a caller that is about to *replace* a working data set (the app) checks first that
    this one can be run with the chosen discretisation. This is :func:`camcf.check_data`, the
    check :func:`camcf.run` itself applies, on the data set's X, Y and names (messages start
    with its source); nothing is discretised.

    Parameters
    ----------
    ds : Dataset
    bins, strategy, discretize
        The discretisation that will be used (see :func:`camcf.discretize.discretize`).
        ``discretize=None``: ``ds.X`` already holds the codes the run will use (the caller
        discretised it and keeps the codes); nothing is discretised here.
    """
    from ..algorithm import check_data

    check_data(ds.X, ds.Y, discretize="none" if discretize is None else discretize, bins=bins,
               strategy=strategy, feature_names=ds.feature_names, label_names=ds.label_names, source=ds.source)


_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def load_bytes(
    data: bytes,
    filename: str,
    *,
    labels: LabelSpec = None,
    xml_bytes: bytes | None = None,
    xml_filename: str | None = None,
    variable: str | None = None,
) -> Dataset:
    """Read an uploaded file from memory.

    Parameters
    ----------
    data : bytes
        The file's content.
    filename : str
        The uploaded file's name; its extension chooses the reader and it is shown in messages.
    labels : str or sequence of str, optional
        As for :func:`load`.
    xml_bytes : bytes, optional
        Content of a MULAN label XML file.
    xml_filename : str, optional
        That file's name, shown in messages and in the dataset's source (default
        ``labels.xml``).
    variable : str, optional
        MATLAB files: which variable(s) to read (as for :func:`load`).

    Returns
    -------
    Dataset
    """
    shown = Path(filename).name or "upload"
    safe = _SAFE.sub("_", shown) or "upload"
    with tempfile.TemporaryDirectory(prefix="camcf-upload-") as tmp:
        path = Path(tmp) / safe
        path.write_bytes(data)
        xml_path = None
        if xml_bytes is not None:
            xml_shown = Path(xml_filename or "").name or "labels.xml"
            xml_path = Path(tmp) / "xml" / (_SAFE.sub("_", xml_shown) or "labels.xml")
            xml_path.parent.mkdir()  # (beside the data, even if both have one name)
            xml_path.write_bytes(xml_bytes)
        ds = load(path, labels=labels, xml=xml_path, name=shown, variable=variable)
    return ds


def variable_choices_bytes(data: bytes, filename: str) -> list[dict]:
    """:func:`camcf.io.matlab.variable_choices` of an uploaded ``.mat`` file (in memory)."""
    from .matlab import variable_choices

    shown = Path(filename).name or "upload.mat"
    with tempfile.TemporaryDirectory(prefix="camcf-upload-") as tmp:
        path = Path(tmp) / (_SAFE.sub("_", shown) or "upload.mat")
        path.write_bytes(data)
        return variable_choices(path, name=shown)


__all__ = ["EXTENSIONS", "check_runnable", "load", "load_bytes", "load_train_test",
           "same_rows", "split_variables", "variable_choices_bytes"]

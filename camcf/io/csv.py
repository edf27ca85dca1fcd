"""Delimited text reader (CSV, TSV, whitespace-separated).

A table of up to 2**22 cells that are all short plain decimal numbers (the common shape:
binary or continuous features and 0/1 labels) is read with numpy alone, without importing
pandas (about half a second of a small file's whole command); every other table is read by
pandas. Both give the same :class:`Dataset` (tested on both sides of the boundary).

Guards where the text enters: the header row is read here (Python's csv module) before pandas
sees it, so duplicate column names are refused by name (pandas would rename ``f1`` to ``f1.1``);
a semicolon-separated file whose numbers use decimal commas (``1,5``) is read with
``decimal=","``; the dense feature matrix is estimated and checked against the memory limit
(:func:`camcf.limits.check_memory`) before it is allocated.
"""

from __future__ import annotations

import csv as pycsv
import io
import re
import warnings
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..dataset import Dataset
from ..errors import DataFormatError
from ..limits import check_memory
from ._common import (
    MAX_LABEL_VALUE,
    LabelSpec,
    check_readable,
    encode_labels,
    encode_text_labels,
    label_matrix,
    put_codes,
    read_text,
    resolve_labels,
    source_name,
)
from .mulan import read_mulan_xml

if TYPE_CHECKING:
    import pandas as pd

_EXPECTED = "a delimited text table (a header row of column names, then one row per sample)"


def _delimiter(first_line: str, suffix: str) -> str:
    """Pick the column separator from the header line (tab, comma, semicolon, else spaces)."""
    if suffix == ".tsv" or "\t" in first_line:
        return "\t"
    if "," in first_line:
        return ","
    if ";" in first_line:
        return ";"
    return r"\s+"


def _sep_name(sep: str) -> str:
    return {"\t": "tab", ",": "comma", ";": "semicolon"}.get(sep, "spaces")


def _is_number(s: object) -> bool:
    try:
        float(str(s))
    except ValueError:
        return False
    return True


_DECIMAL_COMMA = re.compile(r"^[+-]?\d*,\d+(?:[eE][+-]?\d+)?$")
_DECIMAL_POINT = re.compile(r"^[+-]?\d*\.\d+(?:[eE][+-]?\d+)?$")


def _split(line: str, sep: str) -> list[str]:
    """One row's cells, quotes honoured (the csv module), whitespace and quotes stripped."""
    if sep == r"\s+":
        cells = line.split()
    else:
        cells = next(pycsv.reader([line], delimiter=sep, skipinitialspace=True), [])
    return [c.strip().strip("\"'") for c in cells]


def duplicate_names(names: list[str]) -> list[str]:
    """The names that occur more than once (linear time), sorted."""
    return sorted(name for name, k in Counter(names).items() if k > 1)


def _decimal(sep: str, rows: list[str]) -> str:
    """``","`` when a semicolon-separated file writes its numbers with decimal commas."""
    if sep != ";":
        return "."
    comma = point = 0
    for line in rows[:200]:
        for cell in _split(line, sep):
            comma += bool(_DECIMAL_COMMA.match(cell))
            point += bool(_DECIMAL_POINT.match(cell))
    return "," if comma > point else "."


#: The longest plain number read without pandas: at most 15 digits, so the value is an integer
#: below 2**53 scaled by a power of ten up to 10**14, which both numpy's and pandas' parsers
#: round correctly (to the same double), and an integer label code stays below 2**53.
_PLAIN_WIDTH = 15
#: Tables of more cells go to pandas even when plain: numpy's reader parses about half as
#: fast as pandas', which pays for pandas' import (≈0.4 s) from some ten million cells.
_PLAIN_CELLS = 2**22


def plain_numbers(rows: list[str], sep: str, width: int) -> np.ndarray | None:
    """The data ``rows`` as an (n, width) float matrix when every cell is a plain decimal
    number of at most 15 characters (no exponent, no spaces, no words such as NaN) and every
    row has ``width`` cells; None otherwise (an empty cell, a word, an exponent, quotes, a
    comment, a ragged row, or more than 2**22 cells: pandas reads those).

    The checks scan the whole text at once and the parse is numpy's C reader
    (:func:`numpy.loadtxt`, correctly rounded like Python's ``float``)."""
    if sep not in (",", "\t", ";") or not rows or len(rows) * width > _PLAIN_CELLS:
        return None
    body = "\n".join(rows)
    if re.fullmatch(f"[0-9.+\\-{re.escape(sep)}\n]*", body) is None:
        return None
    if any(row.count(sep) != width - 1 for row in rows):
        return None
    chars = np.frombuffer(body.encode("ascii"), dtype=np.uint8)
    ends = np.flatnonzero((chars == ord(sep)) | (chars == ord("\n")))
    if np.diff(ends, prepend=-1, append=chars.size).max() > _PLAIN_WIDTH + 1:
        return None  # a cell of more than 15 characters
    try:
        values = np.loadtxt(io.StringIO(body), delimiter=sep, dtype=float, ndmin=2,
                            comments=None, quotechar=None)
    except ValueError:  # "", ".", "1-2", "+": not numbers
        return None
    values += 0.0  # "-0" is 0 as pandas reads an integer column, not -0.0
    return values


def read_table(text: str, shown: str, suffix: str = ".csv"
               ) -> tuple[pd.DataFrame | np.ndarray, list[str], str, bool]:
    """Parse delimited text into a float matrix (plain numbers, :func:`plain_numbers`) or a
    DataFrame.

    Returns the table, its column names, the separator used, and whether a header row was
    found (a first row made only of numbers is taken as data and the columns are named ``c1``,
    ``c2``, …).
    """
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise DataFormatError(f"{shown}: expected {_EXPECTED}, found no rows")
    sep = _delimiter(lines[0], suffix)
    first = _split(lines[0].strip(), sep)
    header = not all(_is_number(c) for c in first)
    if header:
        dup = duplicate_names(first)
        if dup:
            raise DataFormatError(
                f"{shown}: duplicate column names in the header: {', '.join(dup[:20])}"
                f"{', …' if len(dup) > 20 else ''}; column names must be unique (rename them in "
                "the file)"
            )
    decimal = _decimal(sep, lines[1:] if header else lines)
    # the dense matrix (8 bytes a cell) and pandas' own copy of it
    check_memory(16.0 * len(lines) * max(len(first), 1),
                 f"{shown}: the {len(lines):,} × {len(first):,} table")
    if len(first) >= 2:
        numbers = plain_numbers(lines[1:] if header else lines, sep, len(first))
        if numbers is not None:
            names = first if header else [f"c{j + 1}" for j in range(len(first))]
            return numbers, names, sep, header
    import pandas as pd

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            df = pd.read_csv(
                io.StringIO(text),
                sep=sep,
                header=0 if header else None,
                comment="#",
                skipinitialspace=True,
                index_col=False,
                decimal=decimal,
                engine="python" if sep == r"\s+" else "c",
            )
    except pd.errors.ParserWarning:
        raise DataFormatError(
            f"{shown}: expected {_EXPECTED}, found rows with more values than the header has "
            f"columns (separator: {_sep_name(sep)})"
        ) from None
    except pd.errors.EmptyDataError:
        raise DataFormatError(f"{shown}: expected {_EXPECTED}, found no rows") from None
    except (pd.errors.ParserError, ValueError, UnicodeDecodeError) as exc:
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataFormatError(f"{shown}: expected {_EXPECTED}, but it could not be parsed ({msg})") from None
    if not header:
        df.columns = [f"c{j + 1}" for j in range(df.shape[1])]
    else:
        df.columns = [str(c).strip() for c in df.columns]
    if decimal == ",":
        df.attrs["decimal_comma"] = True
    if df.shape[0] == 0:
        raise DataFormatError(f"{shown}: expected {_EXPECTED}, found a header but no data rows")
    if df.shape[1] < 2:
        raise DataFormatError(
            f"{shown}: expected {_EXPECTED} with at least one feature and one label column, "
            f"found {df.shape[1]} column (separator: {_sep_name(sep)})"
        )
    return df, list(df.columns), sep, header


def _numeric_label(col: pd.Series) -> bool:
    """A label column read as numbers: numeric and every value within ±2**53 (larger integer
    codes are kept exactly by reading them as text)."""
    import pandas as pd

    if pd.api.types.is_bool_dtype(col):
        return True
    if not pd.api.types.is_numeric_dtype(col):
        return False
    vals = col.dropna()
    if vals.empty:
        return True
    if col.dtype.kind in "iu":
        return bool(vals.max() <= MAX_LABEL_VALUE and vals.min() >= -MAX_LABEL_VALUE)
    a = vals.to_numpy(dtype=float)
    big = np.abs(a[np.isfinite(a)])
    return not (big.size and big.max() > MAX_LABEL_VALUE)


def _label_columns(columns: list[str], labels: LabelSpec, shown: str,
                   xml_names: list[str] | None, xml_shown: str | None):
    """The label columns' positions, where they were named, and how (refusing duplicates)."""
    dup = duplicate_names(columns)
    if dup:
        raise DataFormatError(f"{shown}: duplicate column names {dup}; column names must be unique")
    return resolve_labels(columns, labels, shown=shown, xml_names=xml_names, xml_shown=xml_shown)


def _dataset(columns: list[str], idx: list[int], X: np.ndarray, numeric: list[int],
             block: np.ndarray | None, text: dict[int, list[str | None]],
             encoded: dict[str, list[str]], *, labels_from: str, how: str, shown: str, fmt: str,
             decimal_comma: bool) -> Dataset:
    """A read table's :class:`Dataset`: features ``X`` (floats, the columns not in ``idx``),
    the label columns at ``numeric`` positions of ``idx`` with their values ``block``, the
    other label columns' texts ``text`` (position → values)."""
    n = X.shape[0]
    label_set = set(idx)
    label_names = [columns[j] for j in idx]
    Y = label_matrix(n, len(idx))
    cat_names: list[dict[int, str]] = [{} for _ in idx]
    notes: list[str] = []
    if numeric:
        Yn, cn, notes = encode_labels(block, [label_names[k] for k in numeric],
                                      [None] * len(numeric), shown)
        Y = put_codes(Y, numeric, Yn)
        for pos, k in enumerate(numeric):
            cat_names[k] = cn[pos]
    for k, values in text.items():
        codes, cat_names[k] = encode_text_labels(values, label_names[k], shown)
        Y = put_codes(Y, k, codes)
        notes.append(f"label {label_names[k]}: text values mapped to codes in sorted order")
    if decimal_comma:
        notes.append("semicolon-separated with decimal commas: 1,5 read as 1.5")
    if encoded:
        notes.append(
            "non-numeric feature column(s) mapped to codes in sorted order: "
            + ", ".join(list(encoded)[:10])
        )
    meta = {
        "format": fmt,
        "file": shown,
        "labels_from": labels_from,
        "encoded_features": encoded,
        "n_missing": int(np.isnan(X).sum()),
        "notes": notes,
    }
    return Dataset(
        X=X,
        Y=Y,
        feature_names=[columns[j] for j in range(len(columns)) if j not in label_set],
        label_names=label_names,
        source=f"{shown} ({fmt.upper()}; {how})",
        category_names=cat_names,
        meta=meta,
    )


def numbers_to_dataset(M: np.ndarray, columns: list[str], *, labels: LabelSpec, shown: str,
                       xml_names: list[str] | None = None, xml_shown: str | None = None,
                       fmt: str = "csv") -> Dataset:
    """Build a :class:`Dataset` from a float matrix (:func:`plain_numbers`) whose label columns
    are named by ``labels``: the same as :func:`frame_to_dataset` on the same table."""
    idx, labels_from, how = _label_columns(columns, labels, shown, xml_names, xml_shown)
    label_set = set(idx)
    feat_idx = [j for j in range(len(columns)) if j not in label_set]
    return _dataset(columns, idx, M.take(feat_idx, axis=1), list(range(len(idx))),
                    M.take(idx, axis=1), {}, {},
                    labels_from=labels_from, how=how, shown=shown, fmt=fmt, decimal_comma=False)


def frame_to_dataset(
    df: pd.DataFrame,
    *,
    labels: LabelSpec,
    shown: str,
    xml_names: list[str] | None = None,
    xml_shown: str | None = None,
    fmt: str = "csv",
) -> Dataset:
    """Build a :class:`Dataset` from a DataFrame whose label columns are named by ``labels``."""
    import pandas as pd

    columns = [str(c) for c in df.columns]
    idx, labels_from, how = _label_columns(columns, labels, shown, xml_names, xml_shown)
    label_set = set(idx)
    n = df.shape[0]
    feat_idx = [j for j in range(len(columns)) if j not in label_set]
    X = np.empty((n, len(feat_idx)), dtype=float)
    encoded: dict[str, list[str]] = {}
    for pos, j in enumerate(feat_idx):
        col = df.iloc[:, j]
        if pd.api.types.is_bool_dtype(col):
            X[:, pos] = col.astype(float).to_numpy()
        elif pd.api.types.is_numeric_dtype(col):
            X[:, pos] = col.to_numpy(dtype=float, na_value=np.nan)
        else:
            vals = col.astype("string")
            cats = sorted(set(vals.dropna().tolist()))
            lookup = {v: float(k) for k, v in enumerate(cats)}
            X[:, pos] = [np.nan if pd.isna(v) else lookup[v] for v in vals]
            encoded[columns[j]] = cats

    numeric = [k for k, j in enumerate(idx) if _numeric_label(df.iloc[:, j])]
    block = None
    if numeric:
        block = np.column_stack(
            [df.iloc[:, idx[k]].to_numpy(dtype=float, na_value=np.nan) for k in numeric]
        )
    text = {k: [None if pd.isna(v) else str(v).strip() for v in df.iloc[:, j]]
            for k, j in enumerate(idx) if k not in numeric}
    return _dataset(columns, idx, X, numeric, block, text, encoded, labels_from=labels_from,
                    how=how, shown=shown, fmt=fmt,
                    decimal_comma=bool(df.attrs.get("decimal_comma")))


def load_csv(
    path: str | Path,
    *,
    labels: LabelSpec = None,
    xml: str | Path | None = None,
    name: str | None = None,
) -> Dataset:
    """Read a CSV/TSV/whitespace-separated table with a header row.

    Parameters
    ----------
    path : str or Path
        The file (``.csv``, ``.tsv`` or ``.txt``; the separator is taken from the header line).
    labels : str or sequence of str
        The label columns: names (a list, or a comma-separated string) or ``"last:K"`` /
        ``"first:K"``. Required unless ``xml`` names them.
    xml : str or Path, optional
        A MULAN label XML file whose label names are column names.
    name : str, optional
        Name shown in messages and in ``Dataset.source``.

    Returns
    -------
    Dataset
        Numeric features as floats (empty cells NaN); non-numeric feature columns as codes
        in sorted order of their values (listed in ``meta["encoded_features"]``); text label
        columns as codes with the texts kept in ``category_names``.

    Raises
    ------
    DataFormatError
        Empty, binary or unparsable files.
    LabelSpecError
        Missing or unmatched label specification.
    """
    shown = source_name(path, name)
    p = check_readable(path, shown)
    text = read_text(p, shown, _EXPECTED)
    table, columns, sep, _ = read_table(text, shown, p.suffix.lower())
    xml_names = read_mulan_xml(xml) if (xml is not None and labels is None) else None
    fmt = {"\t": "tsv", ",": "csv", ";": "csv"}.get(sep, "txt")
    xml_shown = Path(xml).name if xml is not None else None
    if isinstance(table, np.ndarray):
        return numbers_to_dataset(table, columns, labels=labels, shown=shown,
                                  xml_names=xml_names, xml_shown=xml_shown, fmt=fmt)
    return frame_to_dataset(table, labels=labels, shown=shown, xml_names=xml_names,
                            xml_shown=xml_shown, fmt=fmt)


__all__ = ["frame_to_dataset", "load_csv", "numbers_to_dataset", "plain_numbers", "read_table"]

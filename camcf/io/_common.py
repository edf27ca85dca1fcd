"""Helpers shared by the readers: file access, label specifications and label encoding.

The guards where data enters camcf live here: a file that cannot be read is a
:class:`~camcf.errors.FileAccessError` (never a bare ``OSError``), a UTF-8 byte-order mark is
dropped, label values must be category codes that a 64-bit integer holds exactly (|v| ≤ 2**53,
else a :class:`~camcf.errors.DataFormatError` rather than a silent overflow), and a label list may
be a JSON list so that names containing commas can be given.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..dataset import code_dtype
from ..errors import DataFormatError, FileAccessError, LabelSpecError
from ..limits import check_memory

#: Largest magnitude of a numeric label value that is kept exactly (floats hold every integer
#: up to 2**53; beyond it distinct codes merge and int64 overflows).
MAX_LABEL_VALUE = 2**53

LabelSpec = str | Sequence[str | int] | None

_POSITIONAL = re.compile(r"^\s*(last|first)\s*:\s*([+-]?\d+)\s*$", re.IGNORECASE)
_MEKA_C = re.compile(r"(?:^|\s)-C\s+([+-]?\d+)(?=\s|$|')")

#: the command line's way out of a missing label specification (an error carrying it also has
#: ``problem`` and ``fix="labels"`` fields, so other front ends can name their own controls)
HOW_TO_GIVE_LABELS = (
    "give them with labels=['name', ...] / --labels NAMES (comma-separated attribute names, or a "
    "JSON list such as '[\"a,b\", \"c\"]' for names with commas; or repeated --label NAME), "
    "labels='last:K' / --labels last:K (or first:K), or a MULAN XML file listing the labels"
)


def source_name(path: str | Path, name: str | None) -> str:
    """The name shown to the user for a file (``name`` if given, else the file's name)."""
    return name if name else Path(path).name


def check_readable(path: str | Path, shown: str) -> Path:
    """Return ``path`` as a Path after checking that it exists and is not empty."""
    p = Path(path)
    try:
        if not p.exists():
            raise DataFormatError(f"{shown}: file not found (looked for {str(p)!r})")
        if p.is_dir():
            raise DataFormatError(f"{shown}: expected a data file, found a directory")
        size = p.stat().st_size
    except OSError as e:
        raise FileAccessError(f"{shown}: cannot access the file ({access_reason(e)})") from None
    if size == 0:
        raise DataFormatError(f"{shown}: the file is empty (0 bytes); expected a data set")
    if not os.access(p, os.R_OK):
        raise FileAccessError(
            f"{shown}: cannot read the file (permission denied); check its permissions"
        )
    return p


def access_reason(e: OSError) -> str:
    """A short reason and way out for an OSError met while reading a file."""
    if isinstance(e, PermissionError):
        return "permission denied; check its permissions"
    return (e.strerror or type(e).__name__) + "; check the path"


def read_bytes(p: Path, shown: str) -> bytes:
    """The file's bytes; an OS failure becomes :class:`FileAccessError`, a file too large for
    the memory limit a :class:`~camcf.errors.ResourceLimitError`."""
    try:
        size = p.stat().st_size
        check_memory(size, f"{shown}: reading the {size:,}-byte file")
        return p.read_bytes()
    except OSError as e:
        raise FileAccessError(f"{shown}: cannot read the file ({access_reason(e)})") from None


def read_text(p: Path, shown: str, expected: str) -> str:
    """Read a text file (UTF-8, falling back to Latin-1); reject binary content. A UTF-8
    byte-order mark is dropped in both cases."""
    raw = read_bytes(p, shown)
    raw = raw.removeprefix(b"\xef\xbb\xbf")
    if b"\x00" in raw[:65536]:
        raise DataFormatError(
            f"{shown}: expected {expected}, found binary content (NUL bytes); "
            "is this the right file, or a file with the wrong extension?"
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    if not text.strip():
        raise DataFormatError(f"{shown}: the file contains only blank space; expected {expected}")
    return text


def parse_positional(spec: object) -> tuple[str, int] | None:
    """``"last:K"`` → ``("last", K)``; ``"first:K"`` → ``("first", K)``; anything else → None."""
    if not isinstance(spec, str):
        return None
    m = _POSITIONAL.match(spec)
    if not m:
        return None
    return m.group(1).lower(), int(m.group(2))


def parse_json_labels(text: str, shown: str) -> list[str | int]:
    """``'["a,b", "c"]'`` → ``["a,b", "c"]`` (label names given as a JSON list)."""
    try:
        value = json.loads(text)
    except ValueError as e:
        raise LabelSpecError(
            f"{shown}: the label specification starts with '[' but is not a JSON list of names "
            f"({e.msg} at character {e.pos}); write e.g. '[\"a,b\", \"c\"]'"
        ) from None
    if not isinstance(value, list) or not all(
        isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool)) for v in value
    ):
        raise LabelSpecError(
            f"{shown}: the JSON label specification must be a list of column names (strings); "
            f"got {text[:80]!r}"
        )
    return value


def meka_c_option(relation: str) -> int | None:
    """The ``k`` of MEKA's ``-C k`` option in an ARFF relation name, or None when absent."""
    m = _MEKA_C.search(relation or "")
    return int(m.group(1)) if m else None


def _positional_indices(kind: str, k: int, n_columns: int, shown: str, what: str) -> list[int]:
    if k <= 0:
        raise LabelSpecError(
            f"{shown}: {what} asks for {kind}:{k} label columns; K must be at least 1"
        )
    if k >= n_columns:
        raise LabelSpecError(
            f"{shown}: {what} asks for {kind}:{k} label columns, but the data has only "
            f"{n_columns} columns; K must be smaller than the number of columns so that at "
            "least one feature is left"
        )
    return list(range(n_columns - k, n_columns)) if kind == "last" else list(range(k))


def _names_to_indices(
    wanted: Sequence[str | int], columns: list[str], shown: str, what: str
) -> list[int]:
    index = {c: i for i, c in enumerate(columns)}
    stripped = {c.strip(): i for i, c in enumerate(columns)}
    out: list[int] = []
    unknown: list[str] = []
    for w in wanted:
        if isinstance(w, (int, np.integer)) and not isinstance(w, bool):
            j = int(w)
            if not -len(columns) <= j < len(columns):
                unknown.append(str(w))
                continue
            out.append(j % len(columns))
        elif isinstance(w, str) and w in index:
            out.append(index[w])
        elif isinstance(w, str) and w.strip() in stripped:
            out.append(stripped[w.strip()])
        else:
            unknown.append(str(w))
    if unknown:
        preview = ", ".join(columns[:12]) + (", …" if len(columns) > 12 else "")
        raise LabelSpecError(
            f"{shown}: {what} names label column(s) that are not in the data: "
            f"{', '.join(unknown)}. Columns found ({len(columns)}): {preview}"
        )
    dup = sorted({columns[i] for i, k in Counter(out).items() if k > 1})
    if dup:
        raise LabelSpecError(f"{shown}: {what} lists the same label more than once: {dup}")
    if len(out) >= len(columns):
        raise LabelSpecError(
            f"{shown}: {what} makes every one of the {len(columns)} columns a label; "
            "at least one feature column must remain"
        )
    return sorted(out)


def resolve_labels(
    columns: list[str],
    labels: LabelSpec,
    *,
    shown: str,
    xml_names: list[str] | None = None,
    xml_shown: str | None = None,
    meka_k: int | None = None,
) -> tuple[list[int], str, str]:
    """Decide which columns are labels.

    Priority: the user's ``labels``, then a MULAN XML list, then MEKA's ``-C k``.

    Returns
    -------
    indices : list of int
        Label column indices in file order.
    labels_from : str
        Short tag for ``meta`` (e.g. ``"meka -C -6"``).
    how : str
        A readable sentence for ``Dataset.source``.
    """
    n = len(columns)
    if labels is not None:
        pos = parse_positional(labels)
        if pos is not None:
            kind, k = pos
            idx = _positional_indices(kind, k, n, shown, "the label specification")
            return idx, f"user {kind}:{k}", f"labels: {kind} {k} columns (given by the user)"
        if isinstance(labels, str) and labels.strip().startswith("["):
            labels = parse_json_labels(labels, shown)
        if isinstance(labels, str):
            if labels.strip().lower().startswith(("last", "first")) and ":" in labels:
                raise LabelSpecError(
                    f"{shown}: cannot read the label specification {labels!r}; "
                    "write last:K or first:K with K a positive whole number"
                )
            names: Sequence[str | int] = [s for s in (t.strip() for t in labels.split(",")) if s]
        else:
            names = list(labels)
        if not names:
            problem = f"{shown}: the label specification is empty"
            raise LabelSpecError(f"{problem}; {HOW_TO_GIVE_LABELS}", problem=problem,
                                 fix="labels")
        idx = _names_to_indices(names, columns, shown, "the label specification")
        return idx, "user names", f"labels: {len(idx)} columns named by the user"
    if xml_names is not None:
        idx = _names_to_indices(xml_names, columns, shown, f"the label XML {xml_shown}")
        return (
            idx,
            f"mulan xml {xml_shown}",
            f"labels: {len(idx)} attributes listed in {xml_shown}",
        )
    if meka_k is not None:
        kind = "last" if meka_k < 0 else "first"
        idx = _positional_indices(kind, abs(meka_k), n, shown, f"the MEKA option -C {meka_k}")
        return (
            idx,
            f"meka -C {meka_k}",
            f"labels: {kind} {abs(meka_k)} attributes (MEKA option -C {meka_k} in the relation name)",
        )
    problem = (f"{shown}: the label columns are unknown (no MULAN XML file, no MEKA -C option "
               "in the relation name, and no labels given)")
    raise LabelSpecError(f"{problem}; {HOW_TO_GIVE_LABELS}", problem=problem, fix="labels")


def fmt_value(v: float) -> str:
    """A compact text form of a numeric value (``3`` rather than ``3.0``)."""
    if float(v).is_integer():
        return str(int(v))
    return np.format_float_positional(float(v), trim="-")


def _as_ints(declared: list[str]) -> list[int] | None:
    try:
        vals = [float(s.strip()) for s in declared]
    except ValueError:
        return None
    if not all(v.is_integer() for v in vals):
        return None
    return [int(v) for v in vals]


def label_matrix(n: int, q: int) -> np.ndarray:
    """An empty (zero) label code matrix, column-major, in the smallest type (int8);
    :func:`put_codes` widens it when a column's codes need more."""
    return np.zeros((n, q), dtype=np.int8, order="F")


def put_codes(Y: np.ndarray, where, codes) -> np.ndarray:
    """Write label ``codes`` into the columns ``where`` of ``Y`` and return ``Y``: the same
    array, or a copy in a wider integer type (:func:`camcf.dataset.code_dtype`) when the codes
    do not fit its type. Label codes stay small integers from the reader on (no int64 matrix).
    """
    codes = np.asarray(codes)
    if codes.size:
        need = code_dtype(min(0, int(codes.min())), int(codes.max()))
        wider = np.promote_types(need, Y.dtype)
        if wider != Y.dtype:
            Y = Y.astype(wider, order="F")
    Y[:, where] = codes
    return Y


def encode_labels(
    block: np.ndarray,
    names: list[str],
    nominal: list[list[str] | None],
    shown: str,
    *,
    plus_minus: bool | None = None,
) -> tuple[np.ndarray, list[dict[int, str]], list[str]]:
    """Turn raw label columns into non-negative integer codes.

    Parameters
    ----------
    block : ndarray (n, q), float
        Raw values: the numeric value, or for a nominal label the index of its declared value.
    names : list of str
        Label names (for messages).
    nominal : list of (list of str or None)
        Declared values of each nominal label, None for a numeric one.
    shown : str
        File name for messages.
    plus_minus : bool, optional
        Whether the numeric labels are −1/+1 (default: decided from ``block``, with a note); a
        caller that encodes the columns block by block decides it once for all of them and
        writes the note itself.

    Returns
    -------
    Y : ndarray (n, q), the smallest signed integer type holding the codes (int8 for 0/1)
    category_names : list of dict
    notes : list of str
        What was converted (e.g. ``"−1/+1 read as 0/1"``).
    """
    block = np.asarray(block, dtype=float)
    n, q = block.shape
    missing = [names[i] for i in range(q) if np.isnan(block[:, i]).any()]
    if missing:
        counts = [int(np.isnan(block[:, names.index(m)]).sum()) for m in missing]
        detail = ", ".join(f"{m} ({c} rows)" for m, c in zip(missing, counts, strict=True))
        raise DataFormatError(
            f"{shown}: missing values in label column(s) {detail}; every sample needs a value "
            "for every label (remove those rows or fill them in the file)"
        )
    check_label_range(block, names, [d is not None for d in nominal], shown)
    Y = label_matrix(n, q)
    cats: list[dict[int, str]] = []
    notes: list[str] = []
    numeric = [i for i in range(q) if nominal[i] is None]
    if plus_minus is None:
        plus_minus = _plus_minus(block, numeric)
        if plus_minus:
            notes.append("-1/+1 labels read as 0/1")
    for i in range(q):
        col = block[:, i]
        declared = nominal[i]
        if declared is not None:
            codes = col.astype(np.int64)
            ints = _as_ints(declared)
            if ints is not None and set(ints) <= {0, 1}:
                Y = put_codes(Y, i, np.asarray(ints, dtype=np.int64)[codes])
                cats.append({0: "0", 1: "1"})
            elif ints is not None and set(ints) <= {-1, 1}:
                Y = put_codes(Y, i, (np.asarray(ints, dtype=np.int64)[codes] + 1) // 2)
                cats.append({0: "0", 1: "1"})
                notes.append(f"label {names[i]}: nominal -1/+1 read as 0/1")
            else:
                Y = put_codes(Y, i, codes)
                cats.append({k: str(v) for k, v in enumerate(declared)})
            continue
        if plus_minus:
            Y = put_codes(Y, i, ((col + 1) // 2).astype(np.int64))
            cats.append({0: "0", 1: "1"})
            continue
        vals = np.unique(col)
        if set(vals.tolist()) <= {0.0, 1.0}:
            Y = put_codes(Y, i, col.astype(np.int64))
            cats.append({0: "0", 1: "1"})
        elif np.all(np.isfinite(vals)) and np.all(vals == np.floor(vals)) and vals[0] >= 0:
            Y = put_codes(Y, i, col.astype(np.int64))
            cats.append({int(v): fmt_value(v) for v in vals})
        else:
            if not np.all(np.isfinite(vals)):
                raise DataFormatError(
                    f"{shown}: label column {names[i]} holds infinite values; labels must be "
                    "category codes"
                )
            Y = put_codes(Y, i, np.searchsorted(vals, col))
            cats.append({k: fmt_value(v) for k, v in enumerate(vals)})
            notes.append(
                f"label {names[i]}: values {', '.join(fmt_value(v) for v in vals[:6])}"
                f"{', …' if len(vals) > 6 else ''} mapped to codes 0..{len(vals) - 1}"
            )
    return Y, cats, notes


def _plus_minus(block: np.ndarray, cols: list[int]) -> bool:
    """Whether the columns ``cols`` of ``block`` hold only −1 and +1, and some −1: a few columns
    at a time (no copy of the whole block; a label matrix of delicious's shape is 127 MB)."""
    if not cols:
        return False
    step = max(1, (1 << 20) // max(block.shape[0], 1))
    minus = False
    for a in range(0, len(cols), step):
        part = block[:, cols[a:a + step]]
        is_minus = part == -1.0
        if not (is_minus | (part == 1.0)).all():
            return False
        minus = minus or bool(is_minus.any())
    return minus


def check_label_range(
    block: np.ndarray, names: list[str], nominal: list[bool], shown: str
) -> None:
    """Refuse numeric label values beyond ±2**53: they cannot be held exactly (distinct codes
    would merge, and values ≥ 2**63 would overflow to negative codes)."""
    for i in range(block.shape[1]):
        if nominal[i]:
            continue
        col = block[:, i]
        finite = col[np.isfinite(col)]
        if finite.size and float(np.abs(finite).max()) > MAX_LABEL_VALUE:
            big = finite[np.abs(finite) > MAX_LABEL_VALUE][0]
            raise DataFormatError(
                f"{shown}: label column {names[i]} holds the value {big:.6g}, beyond ±2**53 "
                f"({MAX_LABEL_VALUE:,}), where distinct codes can no longer be told apart; "
                "labels must be category codes: recode them as 0..k-1 (or as text in a CSV)"
            )


def encode_text_labels(
    values: Sequence[object], name: str, shown: str
) -> tuple[np.ndarray, dict[int, str]]:
    """Codes for a label column of text values: distinct values in sorted order."""
    arr = np.asarray([None if v is None else str(v) for v in values], dtype=object)
    if any(v is None for v in arr):
        raise DataFormatError(
            f"{shown}: missing values in label column {name}; every sample needs a value for "
            "every label"
        )
    uniq = sorted(set(arr.tolist()))
    lookup = {v: k for k, v in enumerate(uniq)}
    return np.asarray([lookup[v] for v in arr], dtype=code_dtype(0, len(uniq))), dict(
        enumerate(uniq))

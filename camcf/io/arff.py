"""ARFF reader (dense and sparse, MULAN and MEKA conventions), built on liac-arff."""

from __future__ import annotations

import re
from pathlib import Path

import arff as liac
import numpy as np

from .._sparse import issparse
from ..dataset import Dataset
from ..errors import DataFormatError
from ..limits import check_memory
from ._common import (
    LabelSpec,
    check_readable,
    encode_labels,
    encode_text_labels,
    label_matrix,
    meka_c_option,
    put_codes,
    read_text,
    resolve_labels,
    source_name,
)
from .mulan import parse_mulan_xml, read_mulan_xml

_EXPECTED = "an ARFF file (@relation, @attribute lines, then @data rows)"
_DATA_LINE = re.compile(r"^[ \t]*@data\b", re.IGNORECASE | re.MULTILINE)
_HEADER_WORD = re.compile(r"^[ \t]*@(relation|attribute)\b", re.IGNORECASE | re.MULTILINE)
_NUMERIC_TYPES = {"NUMERIC", "REAL", "INTEGER"}


def _data_rows(text: str, shown: str) -> tuple[int, bool]:
    """Number of data rows and whether the first one is sparse (``{index value, …}``)."""
    m = _DATA_LINE.search(text)
    if m is None:
        if _HEADER_WORD.search(text) is None:
            first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
            raise DataFormatError(
                f"{shown}: expected {_EXPECTED}, found no ARFF header; the file starts with "
                f"{first[:60]!r}"
            )
        raise DataFormatError(
            f"{shown}: expected {_EXPECTED}, found a header without an @data section "
            "(the file looks truncated)"
        )
    rows = [
        ln
        for ln in (s.strip() for s in text[m.end():].splitlines())
        if ln and not ln.startswith("%")
    ]
    if not rows:
        raise DataFormatError(
            f"{shown}: expected {_EXPECTED}, found an @data section with no rows"
        )
    return len(rows), rows[0].startswith("{")


def _why(exc: Exception) -> str:
    """liac-arff's message (its ``__str__`` itself fails on a line holding a ``%``)."""
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 - the message is formatted with the offending line
        return f"{type(exc).__name__} on line {getattr(exc, 'line', '?')}"


def _fast_sparse(text: str) -> dict | None:
    """A sparse file's rows read in bulk (liac-arff reads the header): the same
    ``{"attributes", "relation", "data": (values, rows, columns)}`` as liac-arff's COO decoding
    with ``encode_nominal=True``, or None when the rows need liac-arff (quoted values, a row
    that is not ``{index value, …}``, an index or a nominal value it would reject: it then
    gives its message).

    One split of the whole @data section and one lookup per distinct (attribute, value)
    instead of liac-arff's per-value Python calls (a delicious-sized file: ~40× faster).
    """
    m = _DATA_LINE.search(text)
    if m is None:
        return None
    body = text[m.end():]
    if "'" in body or '"' in body:
        return None
    lines = [ln for ln in (s.strip() for s in body.splitlines()) if ln and ln[0] != "%"]
    if not all(ln[0] == "{" and ln[-1] == "}" for ln in lines):
        return None
    try:
        head = liac.loads(text[:m.end()] + "\n", encode_nominal=True, return_type=liac.COO)
    except Exception:  # noqa: BLE001 - the full decoding reports what is wrong
        return None
    attributes = head["attributes"]
    inner = [ln[1:-1] for ln in lines]
    per_row = np.array([s.count(",") + 1 if s.strip() else 0 for s in inner], dtype=np.int64)
    tokens = " ".join(inner).replace(",", " ").split()
    if len(tokens) != 2 * int(per_row.sum()):
        return None
    try:
        cols = np.array(list(map(int, tokens[0::2])), dtype=np.int64)
    except ValueError:
        return None
    if cols.size and (cols.min() < 0 or cols.max() >= len(attributes)):
        return None
    import pandas as pd

    word_of, words = pd.factorize(np.array(tokens[1::2], dtype=object), sort=False)
    word_of = word_of.astype(np.int64, copy=False)
    words = [str(w) for w in words]
    pairs, pair_of = np.unique(cols * len(words) + word_of, return_inverse=True)
    coded = np.empty(pairs.size)
    for i, key in enumerate(pairs.tolist()):
        j, w = divmod(key, len(words))
        word = words[w]
        kind = attributes[j][1]
        if isinstance(kind, list):
            if word not in kind:
                return None
            coded[i] = kind.index(word)
        elif isinstance(kind, str) and kind.upper() in _NUMERIC_TYPES:
            try:
                coded[i] = np.nan if word == "?" else float(word)
            except ValueError:
                return None
        else:
            return None
    rows = np.repeat(np.arange(len(lines), dtype=np.int64), per_row)
    values = coded[pair_of.ravel()]
    return {"attributes": attributes, "relation": head.get("relation"),
            "data": (values, rows, cols)}


def _decode(text: str, sparse: bool, shown: str) -> tuple[dict, bool]:
    """Decode with liac-arff; sparse files as COO, falling back to dense for mixed rows."""
    if sparse:
        fast = _fast_sparse(text)
        if fast is not None:
            return fast, True
        try:
            return liac.loads(text, encode_nominal=True, return_type=liac.COO), True
        except (liac.BadLayout, ValueError, IndexError, TypeError, KeyError):
            pass  # sparse and dense rows mixed, or a broken row: the dense reader decides
        except liac.ArffException as exc:
            raise DataFormatError(f"{shown}: expected {_EXPECTED}, but {_why(exc)}") from None
    try:
        return liac.loads(text, encode_nominal=True, return_type=liac.DENSE), False
    except liac.BadDataFormat as exc:
        raise DataFormatError(
            f"{shown}: expected {_EXPECTED}, but {_why(exc)} (a row whose values do not match the "
            "@attribute lines; is the file truncated or edited by hand?)"
        ) from None
    except liac.ArffException as exc:
        raise DataFormatError(f"{shown}: expected {_EXPECTED}, but {_why(exc)}") from None
    except MemoryError:
        raise
    except Exception as exc:  # noqa: BLE001 - liac-arff fails on some hostile headers with
        # ValueError/IndexError/TypeError (e.g. "@relation" with no name)
        raise DataFormatError(
            f"{shown}: expected {_EXPECTED}, but it could not be parsed ({type(exc).__name__}: "
            f"{_why(exc)}); check the @relation and @attribute lines") from None


#: A sparse ARFF file whose dense feature matrix (float64) would exceed this many bytes keeps
#: its features as a ``scipy.sparse`` CSC matrix from the reader to the engine.
SPARSE_ABOVE = 64 * 2**20


def _dense(M) -> np.ndarray:
    return M.toarray() if issparse(M) else M


_LABEL_BLOCK = 64  # label columns of a sparse file made dense at a time


def _encode_sparse_labels(M, plain: list[int], idx: list[int], label_names: list[str],
                          nominal: list, shown: str, Y: np.ndarray, cats: list
                          ) -> tuple[np.ndarray, list[str]]:
    """:func:`encode_labels` of a sparse file's label columns ``plain``, written into ``Y`` and
    ``cats``, a block of columns at a time (no dense float copy of every label); returns ``Y``
    (:func:`put_codes` may widen it) and the notes. What the whole
    block decides — missing values (all named in one message), −1/+1 numeric labels — is
    decided on the stored entries first, exactly as on the dense block."""
    cols = [idx[k] for k in plain]
    L = M[:, cols].tocsc()
    n = L.shape[0]
    names = [label_names[k] for k in plain]
    kinds = [nominal[j] for j in cols]
    if np.isnan(L.data).any():  # the full message names every column with missing values
        encode_labels(L.toarray(), names, kinds, shown)
    numeric = [i for i in range(len(cols)) if kinds[i] is None]
    plus_minus = False
    if numeric:
        stored = np.diff(L.indptr)
        vals = set(np.unique(np.concatenate(
            [L.data[L.indptr[i]:L.indptr[i + 1]] for i in numeric])).tolist())
        if any(stored[i] < n for i in numeric):
            vals.add(0.0)  # an entry not stored is 0
        plus_minus = vals <= {-1.0, 1.0} and -1.0 in vals
    notes = ["-1/+1 labels read as 0/1"] if plus_minus else []
    for a in range(0, len(cols), _LABEL_BLOCK):
        part = slice(a, a + _LABEL_BLOCK)
        Yp, cp, more = encode_labels(L[:, part].toarray(), names[part], kinds[part], shown,
                                     plus_minus=plus_minus)
        notes.extend(more)
        ks = plain[part]
        Y = put_codes(Y, ks, Yp)
        for pos, k in enumerate(ks):
            cats[k] = cp[pos]
    return Y, notes


def parse_arff_text(
    text: str,
    *,
    labels: LabelSpec = None,
    xml_names: list[str] | None = None,
    xml_shown: str | None = None,
    shown: str = "data.arff",
) -> Dataset:
    """Build a :class:`Dataset` from ARFF text (see :func:`load_arff`)."""
    n_rows, sparse = _data_rows(text, shown)
    decoded, sparse = _decode(text, sparse, shown)
    attributes: list[tuple[str, object]] = decoded["attributes"]
    relation: str = decoded.get("relation") or ""
    columns = [a[0] for a in attributes]
    if not columns:
        raise DataFormatError(f"{shown}: expected {_EXPECTED}, found no @attribute lines")

    idx, labels_from, how = resolve_labels(
        columns,
        labels,
        shown=shown,
        xml_names=xml_names,
        xml_shown=xml_shown,
        meka_k=meka_c_option(relation),
    )
    label_set = set(idx)
    string_cols = [j for j, (_, t) in enumerate(attributes) if isinstance(t, str) and t.upper() == "STRING"]
    other_bad = [
        (columns[j], t)
        for j, (_, t) in enumerate(attributes)
        if isinstance(t, str) and t.upper() not in _NUMERIC_TYPES | {"STRING"}
    ]
    if other_bad:
        raise DataFormatError(
            f"{shown}: attribute type(s) that cannot be read: "
            + ", ".join(f"{c} ({t})" for c, t in other_bad)
        )
    bad_features = [columns[j] for j in string_cols if j not in label_set]
    if bad_features:
        raise DataFormatError(
            f"{shown}: feature attribute(s) of type string cannot be used: "
            f"{', '.join(bad_features[:10])}; expected numeric or nominal features "
            "(remove them or declare them nominal {a, b, ...})"
        )
    if sparse and string_cols:
        raise DataFormatError(
            f"{shown}: string attributes in a sparse ARFF file are not supported "
            f"({', '.join(columns[j] for j in string_cols)}); declare them nominal"
        )

    m = len(columns)
    text_labels: dict[int, list[object]] = {}
    if sparse:
        import scipy.sparse as sp

        values, rows, cols = decoded["data"]
        rows_a = np.asarray(rows, dtype=np.int64)
        cols_a = np.asarray(cols, dtype=np.int64)
        if rows_a.size and rows_a.max() >= n_rows:
            raise DataFormatError(f"{shown}: sparse rows could not be counted consistently")
        M = sp.csc_matrix(
            (np.asarray(values, dtype=float), (rows_a, cols_a)), shape=(n_rows, m)
        )  # duplicates of one cell are summed; ARFF has none
        fmt = "arff-sparse"
    else:
        # Guard before the dense matrix (and the feature copy taken from it) is allocated.
        check_memory(2 * 8.0 * n_rows * m, f"{shown}: the dense {n_rows:,} × {m:,} matrix")
        data = decoded["data"]
        if len(data) != n_rows:
            raise DataFormatError(
                f"{shown}: counted {n_rows} data lines but could read {len(data)} rows"
            )
        if string_cols:
            obj = np.asarray(data, dtype=object)
            for j in string_cols:
                text_labels[j] = obj[:, j].tolist()
                obj[:, j] = 0.0
            M = obj.astype(float)
        else:
            M = np.asarray(data, dtype=float)
        fmt = "arff-dense"

    feat_idx = [j for j in range(m) if j not in label_set]
    nominal = [t if isinstance(t, list) else None for _, t in attributes]
    label_names = [columns[j] for j in idx]
    Y = label_matrix(n_rows, len(idx))  # written column by column, widened when needed
    cats: list[dict[int, str]] = [{} for _ in idx]
    notes: list[str] = []
    plain = [k for k, j in enumerate(idx) if j not in text_labels]
    if plain and issparse(M):
        Y, notes = _encode_sparse_labels(M, plain, idx, label_names, nominal, shown, Y, cats)
    elif plain:
        Yp, cp, notes = encode_labels(
            _dense(M[:, [idx[k] for k in plain]]),
            [label_names[k] for k in plain],
            [nominal[idx[k]] for k in plain],
            shown,
        )
        Y = put_codes(Y, plain, Yp)
        for pos, k in enumerate(plain):
            cats[k] = cp[pos]
    for k, j in enumerate(idx):
        if j in text_labels:
            codes, cats[k] = encode_text_labels(text_labels[j], columns[j], shown)
            Y = put_codes(Y, k, codes)
            notes.append(f"label {columns[j]}: text values mapped to codes in sorted order")

    X = M[:, feat_idx]
    if issparse(X) and n_rows * len(feat_idx) * 8 <= SPARSE_ABOVE:
        check_memory(8.0 * n_rows * len(feat_idx),
                     f"{shown}: the dense {n_rows:,} × {len(feat_idx):,} feature matrix")
        X = X.toarray()  # small enough: the dense form every consumer reads
    nominal_features = {columns[j]: list(nominal[j]) for j in feat_idx if nominal[j] is not None}
    n_missing = int(np.isnan(X.data if issparse(X) else X).sum())
    meta = {
        "format": fmt,
        "file": shown,
        "relation": relation,
        "labels_from": labels_from,
        "nominal_features": nominal_features,
        "n_missing": n_missing,
        "notes": notes,
    }
    kind = "sparse" if sparse else "dense"
    source = f"{shown} ({kind} ARFF, relation {relation!r}; {how})"
    return Dataset(
        X=X,
        Y=Y,
        feature_names=[columns[j] for j in feat_idx],
        label_names=label_names,
        source=source,
        category_names=cats,
        meta=meta,
    )


def load_arff(
    path: str | Path,
    *,
    labels: LabelSpec = None,
    xml: str | Path | None = None,
    name: str | None = None,
) -> Dataset:
    """Read a dense or sparse ARFF file.

    Parameters
    ----------
    path : str or Path
        The ARFF file.
    labels : str or sequence of str, optional
        Which attributes are labels: a list of names, a comma-separated string of names,
        or ``"last:K"`` / ``"first:K"``. Takes priority over ``xml`` and MEKA's ``-C``.
    xml : str or Path, optional
        A MULAN label XML file. When omitted and ``labels`` is not given, a file with the same
        stem and the extension ``.xml`` next to ``path`` is used if it exists; otherwise MEKA's
        ``-C ±k`` in the relation name decides.
    name : str, optional
        Name shown in messages and in ``Dataset.source`` (defaults to the file name).

    Returns
    -------
    Dataset
        Numeric features as floats (NaN for ``?``), nominal features as codes 0..k−1 in the
        declared order; labels as non-negative integer codes (−1/+1 read as 0/1).

    Raises
    ------
    DataFormatError
        When the file is not a readable ARFF file (empty, truncated, string features, ...).
    LabelSpecError
        When the label columns are unknown or do not fit the attributes.
    """
    shown = source_name(path, name)
    p = check_readable(path, shown)
    text = read_text(p, shown, _EXPECTED)
    xml_names: list[str] | None = None
    xml_shown: str | None = None
    if labels is None:
        if xml is not None:
            xml_shown = Path(xml).name
            xml_names = read_mulan_xml(xml)
        else:
            sibling = p.with_suffix(".xml")
            if sibling.is_file():
                xml_shown = sibling.name
                xml_names = read_mulan_xml(sibling)
    ds = parse_arff_text(
        text, labels=labels, xml_names=xml_names, xml_shown=xml_shown, shown=shown
    )
    if xml_shown is not None and xml is None:
        ds.meta["xml_found_next_to_file"] = True
    return ds


__all__ = ["load_arff", "parse_arff_text", "parse_mulan_xml"]

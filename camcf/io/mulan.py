"""MULAN label XML files: ``<labels xmlns="http://mulan.sourceforge.net/labels"><label name=…>``."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from ..errors import DataFormatError
from ._common import check_readable, read_bytes

_EXPECTED = 'a MULAN label XML file (<labels> with <label name="..."> elements)'


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def parse_mulan_xml(data: bytes | str, shown: str = "label XML") -> list[str]:
    """Label names listed in MULAN label XML text, in document order.

    Namespaces are ignored; nested (hierarchical) ``<label>`` elements are all returned.

    Parameters
    ----------
    data : bytes or str
        The XML document.
    shown : str
        File name used in error messages.

    Returns
    -------
    list of str

    Raises
    ------
    DataFormatError
        When the text is not XML, or lists no labels, or lists a label twice.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not data.strip():
        raise DataFormatError(f"{shown}: the file is empty; expected {_EXPECTED}")
    try:
        root = ET.fromstring(data)
    except (ET.ParseError, LookupError, ValueError) as exc:  # LookupError: unknown encoding
        raise DataFormatError(f"{shown}: expected {_EXPECTED}, found text that is not XML ({exc})") from None
    names: list[str] = []
    for el in root.iter():
        if _local(el.tag) == "label":
            name = el.attrib.get("name")
            if name is None:
                raise DataFormatError(f"{shown}: a <label> element has no name attribute")
            names.append(name)
    if not names:
        raise DataFormatError(
            f"{shown}: expected {_EXPECTED}, found XML with root <{_local(root.tag)}> and no "
            "<label name=...> elements"
        )
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise DataFormatError(f"{shown}: the XML lists these labels more than once: {dup}")
    return names


def read_mulan_xml(path: str | Path, *, name: str | None = None) -> list[str]:
    """Label names listed in a MULAN label XML file, in document order.

    Parameters
    ----------
    path : str or Path
        The XML file.
    name : str, optional
        Name shown in error messages (defaults to the file name).

    Returns
    -------
    list of str
    """
    shown = name or Path(path).name
    p = check_readable(path, shown)
    return parse_mulan_xml(read_bytes(p, shown), shown)

"""One set of colours and names for every view, so a colour means the same thing everywhere.

Okabe–Ito based (distinguishable with the common colour-vision deficiencies). The graph pages,
the plotly figures and the legend all read :data:`COLORS` and :data:`LEGEND`.
"""

from __future__ import annotations

import html

#: role -> colour
COLORS: dict[str, str] = {
    "target": "#D55E00",  # the target category
    "label-category": "#8E6BBF",  # a label category (skeleton member R)
    "pc": "#0072B2",  # parent/child
    "spouse": "#56B4E9",  # spouse (co-parent of a child)
    "recovered": "#E69F00",  # recovered from label blocking (Phase 3)
    "pruned": "#9E9E9E",  # removed in Phase 4 (k2 cut, symmetry, redundancy)
    "removed": "#D9D9D9",  # removed earlier (backward elimination, not a candidate)
    "tp": "#009E73",  # found and true
    "missed": "#F0C419",  # true but not found
    "extra": "#CC3366",  # found but not true
    "highlight": "#111111",  # border of the variables a step involves
    "rejected": "#D9C8EE",  # a skeleton candidate (I > δ2) that was not accepted into R
    "neighbour": "#EDEDED",  # another category with a large DCSMI, not a candidate
    "points-here": "#F4D7C4",  # a category that has the target in its own R
}

#: role -> legend text
LEGEND: dict[str, str] = {
    "target": "target category",
    "label-category": "label category (skeleton R)",
    "pc": "parent/child (PC)",
    "spouse": "spouse",
    "recovered": "recovered (Phase 3)",
    "pruned": "pruned (Phase 4)",
    "removed": "removed before Phase 4",
    "tp": "found and true",
    "missed": "missed (true, not found)",
    "extra": "extra (found, not true)",
    "rejected": "candidate not accepted into R",
    "neighbour": "strongest other DCSMI (≤ δ2)",
    "points-here": "has the target in its R",
}

#: Phase-4 fate of a feature -> colour key
FATE_COLOR = {
    "blanket": "pc",
    "cut-k2": "pruned",
    "symmetry": "pruned",
    "redundancy": "pruned",
}

#: plotly colours for the fates of a feature in Phase 4 scatter / bars
FATE_COLORS: dict[str, str] = {
    "blanket": COLORS["tp"],
    "cut-k2": "#7F7F7F",
    "symmetry": COLORS["spouse"],
    "redundancy": COLORS["extra"],
    "kept": COLORS["pc"],
    "cut-k1": "#7F7F7F",
    "below-delta1": COLORS["removed"],
    "recovered": COLORS["recovered"],
    "lost": "#7F7F7F",
}

FONT = "Source Sans Pro, Helvetica, Arial, sans-serif"


def text_px(text: str, size: float) -> float:
    """A generous estimate of the width in pixels of ``text`` drawn in :data:`FONT` at ``size``
    px (0.62 em a character; the widest names are written in capitals and underscores): what
    a margin needs so that a label fits on the first draw, before plotly's automatic margins
    run (late on a busy machine)."""
    return 0.62 * float(size) * len(str(text))


def lighten(color: str, share: float = 0.7) -> str:
    """Mix a ``#rrggbb`` colour with white (``share`` of white); used to dim nodes."""
    c = color.lstrip("#")
    r, g, b = (int(c[i:i + 2], 16) for i in (0, 2, 4))
    mix = [round(v + (255 - v) * share) for v in (r, g, b)]
    return "#" + "".join(f"{v:02x}" for v in mix)


def legend_html(keys=None) -> str:
    """A one-line HTML legend (coloured dots and their meaning) for the given roles."""
    keys = list(keys) if keys is not None else [k for k in LEGEND]
    items = []
    for k in keys:
        items.append(
            f'<span style="display:inline-flex;align-items:center;margin-right:14px;'
            f'white-space:nowrap"><span style="display:inline-block;width:12px;height:12px;'
            f'border-radius:50%;background:{COLORS[k]};margin-right:5px;'
            f'border:1px solid #00000030"></span>{html.escape(LEGEND[k])}</span>')
    return ('<div class="camcf-legend" style="font-size:0.85rem;line-height:1.8">'
            + "".join(items) + "</div>")

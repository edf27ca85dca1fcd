"""Readability checks in a real browser, shared by the browser tests: overlapping SVG text in
plotly charts, charts drawn empty without a message, crowded labels in vis-network graphs, and
the data shapes (generated, seeded) on which the landed views were unreadable.

``TEXT_OVERLAPS_JS(root)`` returns, per plotly chart under ``root``, the pairs of visible SVG
``text`` elements whose bounding boxes intersect by more than ``tol`` pixels in both directions.
``EMPTY_CHARTS_JS(root)`` returns the charts that draw no mark and show no message.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

TEXT_OVERLAPS_JS = r"""
([root, tol]) => {
  const out = [];
  const plots = (root || document).querySelectorAll('.js-plotly-plot');
  plots.forEach((gd, k) => {
    const boxes = [];
    gd.querySelectorAll('svg.main-svg text').forEach(t => {
      const s = (t.textContent || '').trim();
      if (!s) return;
      const cs = getComputedStyle(t);
      if (cs.display === 'none' || cs.visibility === 'hidden' || +cs.opacity === 0) return;
      if (t.closest('.hoverlayer')) return;  // a hover label is drawn over the chart on purpose
      let hidden = false;
      for (let el = t; el && el !== gd; el = el.parentElement) {
        const st = getComputedStyle(el);
        if (st.display === 'none' || +st.opacity === 0) { hidden = true; break; }
      }
      if (hidden) return;
      const r = t.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) return;
      boxes.push({s, r});
    });
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i].r, b = boxes[j].r;
        const dx = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const dy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (dx > tol && dy > tol) out.push([k, boxes[i].s, boxes[j].s, Math.round(dx),
                                            Math.round(dy)]);
      }
    }
  });
  return out;
}
"""

EMPTY_CHARTS_JS = r"""
(root) => {
  const out = [];
  (root || document).querySelectorAll('.js-plotly-plot').forEach((gd, k) => {
    const big = el => { const r = el.getBoundingClientRect(); return r.width >= 1 || r.height >= 1; };
    const marks = [
      ...gd.querySelectorAll('.point, .bars path, .sankey-link, .sankey-node rect, .hm image, '
                             + '.scatterlayer .js-line, .scatterpolar .js-line, '
                             + '.scatterlayer .textpoint, .heatmaplayer image')
    ].filter(big);
    const message = [...gd.querySelectorAll('.annotation-text')]
      .some(t => (t.textContent || '').trim().length > 0);
    if (marks.length === 0 && !message) out.push(k);
  });
  return out;
}
"""

#: text of a plotly chart drawn (partly) outside the chart: cut off at its edge
CLIPPED_TEXT_JS = r"""
([root, tol]) => {
  const out = [];
  (root || document).querySelectorAll('.js-plotly-plot').forEach((gd, k) => {
    const g = gd.getBoundingClientRect();
    gd.querySelectorAll('svg.main-svg text').forEach(t => {
      const s = (t.textContent || '').trim();
      if (!s || t.closest('.hoverlayer')) return;
      const r = t.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) return;
      if (r.left < g.left - tol || r.right > g.right + tol || r.top < g.top - tol
          || r.bottom > g.bottom + tol) out.push([k, s]);
    });
  });
  return out;
}
"""

#: names of scatter points drawn on other points (hiding them, or hidden under them)
TEXT_ON_POINTS_JS = r"""
([root, tol]) => {
  const out = [];
  (root || document).querySelectorAll('.js-plotly-plot').forEach((gd, k) => {
    const box = el => el.getBoundingClientRect();
    const points = [...gd.querySelectorAll('.scatterlayer .point')].map(box)
      .filter(r => r.width >= 1 && r.height >= 1);
    gd.querySelectorAll('.scatterlayer .textpoint text').forEach(t => {
      const s = (t.textContent || '').trim();
      if (!s) return;
      const a = box(t);
      const hit = points.filter(b => Math.min(a.right, b.right) - Math.max(a.left, b.left) > tol
        && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > tol);
      if (hit.length) out.push([k, s, hit.length]);
    });
  });
  return out;
}
"""

#: the thickness (pixels) of every Sankey link: a link's path goes along its top edge, down
#: its end ('L'), and back along its bottom edge; the drop at the 'L' is the thickness
SANKEY_LINK_PX_JS = r"""
() => [...document.querySelectorAll('.sankey-link')].map(p => {
  const d = p.getAttribute('d') || '', i = d.indexOf('L');
  const num = s => (s.match(/-?[0-9.]+(e-?[0-9]+)?/g) || []).map(Number);
  const before = num(d.slice(0, i)), after = num(d.slice(i + 1));
  return Math.abs(after[1] - before[before.length - 1]);
})
"""

#: vis-network: pairs of nodes whose boxes (shape and label) intersect, in canvas pixels
GRAPH_OVERLAPS_JS = r"""
(tol) => {
  if (typeof network === 'undefined' || !network) return null;
  const ids = nodes.getIds();
  const boxes = ids.map(id => [id, network.getBoundingBox(id)]).filter(([, b]) => b);
  const out = [];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i][1], b = boxes[j][1];
      const dx = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const dy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (dx > tol && dy > tol) out.push([boxes[i][0], boxes[j][0], Math.round(dx),
                                          Math.round(dy)]);
    }
  }
  return out;
}
"""


def settle(page, root: str = "document", timeout_ms: int = 8000) -> None:
    """Wait until every plotly chart under ``root`` has stopped moving: plotly lays a chart
    out again after its first draw when labels need more margin (automargin), so a chart is
    measured only once its plot area stayed the same for 800 ms."""
    page.evaluate("() => { window.__camcfSizes = undefined; window.__camcfSince = undefined; }")
    page.wait_for_function(
        f"""() => {{
             const now = JSON.stringify([...{root}.querySelectorAll('.js-plotly-plot')]
               .map(g => g._fullLayout ? g._fullLayout._size : null));
             const was = window.__camcfSizes; window.__camcfSizes = now;
             const t = Date.now();
             if (was !== now) {{ window.__camcfSince = t; return false; }}
             return t - (window.__camcfSince || t) >= 800;
           }}""", polling=100, timeout=timeout_ms)


def graph_overlaps(page, html: str, tol: float = 1.0) -> list:
    """Load a vis-network graph page (pyvis HTML) into ``page`` and return the pairs of nodes
    whose boxes (shape and label) overlap."""
    page.set_content(html)
    page.wait_for_function("typeof network !== 'undefined' && network !== null")
    page.wait_for_timeout(200)
    return page.evaluate(f"({GRAPH_OVERLAPS_JS})({tol})")


def plotly_js() -> Path:
    """The plotly.js bundle the plotly package ships (no network needed)."""
    import plotly

    return Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def draw_figures(page, figures: dict, *, width: int = 640,
                 automargin: bool = True) -> dict[str, dict]:
    """Draw plotly ``figures`` (name -> figure, or (figure, width)) on a blank page in the
    browser ``page``, one under the other, each ``width`` px wide (the width the app gives
    it); return per name ``{"overlaps": [...], "empty": bool, "clipped": [...],
    "on_points": [...]}`` (``on_points``: point names drawn on other points).

    ``automargin=False`` draws each figure as its first draw shows it: plotly's automatic
    margins (which lay a chart out again after its first draw, late on a busy machine) are
    turned off, so a figure passes only when its own margins hold its labels.

    The figures drawn before in ``page`` are removed first; plotly.js is loaded only when the
    page does not have it yet (compiling its 3.5 MB costs Chromium seconds: a module draws
    all its figures in one page)."""
    import json

    if page.evaluate("() => typeof Plotly !== 'undefined' && !!document.body"):
        page.evaluate("""() => {
            document.querySelectorAll('.js-plotly-plot').forEach(g => Plotly.purge(g));
            document.body.replaceChildren();
          }""")
    else:
        page.set_content("<html><body style='margin:0;font-family:sans-serif'></body></html>")
        page.add_script_tag(path=str(plotly_js()))
    out = {}
    for name, spec in figures.items():
        fig, w = spec if isinstance(spec, tuple) else (spec, width)
        payload = json.loads(fig.to_json())
        if not automargin:
            lay = payload.setdefault("layout", {})
            for ax in {"xaxis", "yaxis", *(k for k in lay if k[1:5] == "axis")}:
                lay.setdefault(ax, {})["automargin"] = False
        page.evaluate(
            """([name, fig, w]) => {
                 const box = document.createElement('div');
                 box.id = 'box-' + name;
                 const d = document.createElement('div');
                 d.style.width = w + 'px';
                 box.appendChild(d);
                 document.body.appendChild(box);
                 fig.layout.width = w;
                 return Plotly.newPlot(d, fig.data, fig.layout);
               }""", [name, payload, w])
    settle(page)
    for name in figures:
        box = page.locator(f"[id='box-{name}']")
        overlaps = box.evaluate(f"(root) => ({TEXT_OVERLAPS_JS})([root, 2])")
        empty = box.evaluate(f"(root) => ({EMPTY_CHARTS_JS})(root)")
        clipped = box.evaluate(f"(root) => ({CLIPPED_TEXT_JS})([root, 2])")
        on_points = box.evaluate(f"(root) => ({TEXT_ON_POINTS_JS})([root, 2])")
        out[name] = {"overlaps": overlaps, "empty": bool(empty), "clipped": clipped,
                     "on_points": on_points}
    return out


# -- the shapes on which the landed views were unreadable (generated, seeded) ---------------
def arts_like(n: int = 300, seed: int = 2):
    """The arts shape for the label space: 26 labels with long names (52 categories), 40
    continuous features (the real file has 5,000 × 462; the heatmap depends on the labels)."""
    from camcf.dataset import Dataset
    from camcf.datasets import make_wide

    base = make_wide(n, 40, 26, seed=seed)
    rng = np.random.default_rng(seed)
    X = base.X + rng.normal(0, 0.3, size=base.X.shape)  # continuous, as the arts features
    words = ["Art_History", "Body_Art", "Cultural_Studies", "Dance", "Design_Arts",
             "Education", "Events", "Humanities", "Literature", "Museums", "Music",
             "Performing_Arts", "Photography", "Visual_Arts", "Comics_and_Animation",
             "Crafts", "Genres", "Online_Writing", "People", "Television", "Theater",
             "Radio", "Magazines", "Countries_and_Cultures", "Awards", "Reference"]
    return Dataset(X=X, Y=base.Y, feature_names=[f"w{j:03d}" for j in range(40)],
                   label_names=words, source="arts-like (generated)",
                   category_names=base.category_names)


def cal500_like(n: int = 502, seed: int = 4):
    """The CAL500 shape: 502 samples × 68 features, 174 binary labels."""
    from camcf.datasets import make_wide

    return make_wide(n, 68, 174, seed=seed, group_size=8)


def noise(n: int = 300, m: int = 12, q: int = 3, seed: int = 8):
    """Features and labels independent of each other (codes): Ca-MCF selects nothing."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 3, size=(n, m)), rng.integers(0, 2, size=(n, q))


def noise_arff() -> bytes:
    """:func:`noise` as an ARFF file whose MEKA header names the last 3 attributes as labels."""
    X, Y = noise()
    head = ["@relation 'noise: -C -3'"]
    head += [f"@attribute x{j} numeric" for j in range(X.shape[1])]
    head += [f"@attribute y{i} {{0,1}}" for i in range(Y.shape[1])]
    rows = [",".join(map(str, r)) for r in np.hstack([X, Y])]
    return ("\n".join(head + ["@data"] + rows) + "\n").encode()

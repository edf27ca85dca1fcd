"""Shareable state and tuning helpers of the frame: the URL query string, the pinned run, and
parameter values set from a page (a landscape cell) before the widgets are drawn.

The URL holds the data choice and every parameter of the *last run* (what the pages show), so a
link opened on a fresh session loads the same data, sets the same widgets and runs the same
parameters::

    ?data=demo&n=1000&seed=0&delta1=0.05&delta2=0.1&k1=0.7&k2=1&gamma=1.2&min_cat=5
     &recovery=first&disc=auto&bins=3&strategy=uniform
    ?data=shared:yeast&...

An uploaded file cannot travel in a URL: ``data=upload`` says so and opens on the demo.
:func:`to_query` and :func:`from_query` are pure (tests round-trip them); the ``st`` calls are
in :func:`read_url` and :func:`write_url`.
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

import camcf
from camcf.algorithm_params import ALGORITHM_PARAMS, DISCRETIZE_PARAMS, WIDGETS
from camcf.params import Param

#: widget keys of the declared parameters (kept stable: tests and links use them)
WIDGET_KEYS: dict[str, str] = {
    **{p.name: f"p_{p.name}" for p in ALGORITHM_PARAMS},
    "min_category_size": "p_min_cat", "discretize": "d_mode", "bins": "d_bins",
    "strategy": "d_strategy"}
#: shorter query names of some parameters (the rest use the declared name)
_QUERY_NAME = {"min_category_size": "min_cat", "discretize": "disc"}
#: query name -> (the declaration, widget key, run-dict ("params" / "disc"), name in that dict)
FIELDS: dict[str, tuple[Param, str, str, str]] = {
    **{_QUERY_NAME.get(p.name, p.name): (p, WIDGET_KEYS[p.name], "params", p.name)
       for p in ALGORITHM_PARAMS},
    **{_QUERY_NAME.get(p.name, p.name): (p, WIDGET_KEYS[p.name], "disc", p.name)
       for p in DISCRETIZE_PARAMS},
}
#: parameter name (as in a Result) -> widget key, for values set from a page
WIDGET_OF = {name: key for _, key, where, name in FIELDS.values() if where == "params"}
_SOURCE_RADIO = {"demo": "Built-in demo", "upload": "Upload a file",
                 "shared": "Shared data folder"}
UPLOAD_NOTE = ("An uploaded file cannot be put in a link: this link opens on the demo. Share "
               "the file itself, or put it in the shared data folder.")


def _num(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def to_query(params: Mapping, disc: Mapping, data_req: Mapping | None) -> dict[str, str]:
    """The query string (as a dict of strings) for a run's parameters and data choice."""
    q: dict[str, str] = {}
    kind = (data_req or {}).get("kind", "demo")
    if kind == "demo":
        q["data"] = "demo"
        q["n"] = str(int(data_req.get("n", 1000))) if data_req else "1000"
        q["seed"] = str(int(data_req.get("seed", 0))) if data_req else "0"
    elif kind == "shared":
        q["data"] = f"shared:{data_req['name']}"
    else:
        q["data"] = "upload"
    for qn, (_, _, where, name) in FIELDS.items():
        src = params if where == "params" else disc
        if name in src:
            q[qn] = _num(src[name])
    return q


def from_query(q: Mapping[str, str]) -> tuple[dict, dict | None, list[str]]:
    """Parse a query string: (widget values by key, a data load request or None, problems).

    Bad entries are left out and named in ``problems`` (so the rest still applies).
    """
    widgets: dict = {}
    problems: list[str] = []
    for qn, (decl, key, _, _) in FIELDS.items():
        if qn not in q:
            continue
        raw = str(q[qn])
        try:
            v = decl.kind(float(raw)) if decl.kind is int else decl.kind(raw)
            v = decl.validate(v)  # the range the declaration allows, as a run checks it
        except ValueError as e:  # a ParameterError is a ValueError too
            problems.append(f"{qn}={raw!r}: {e}" if isinstance(e, camcf.ParameterError)
                            else f"{qn}={raw!r} is not a number")
            continue
        lo, hi, _ = WIDGETS.get(decl.name, (None, None, None))
        if decl.kind is int and lo is not None and not lo <= v <= hi:
            problems.append(f"{qn}={raw!r} must be between {lo:g} and {hi:g}")
            continue
        widgets[key] = v
    req = None
    data = str(q.get("data", "")).strip()
    if data == "demo" or (not data and ("n" in q or "seed" in q)):
        try:
            n, seed = int(q.get("n", 1000)), int(q.get("seed", 0))
            if not (100 <= n <= 20000 and 0 <= seed <= 10_000):
                raise ValueError
            req = {"kind": "demo", "n": n, "seed": seed}
            widgets.update({"src_kind": _SOURCE_RADIO["demo"], "demo_n": n, "demo_seed": seed})
        except ValueError:
            problems.append("n must be 100–20000 and seed 0–10000 for the demo")
    elif data.startswith("shared:"):
        name = data.split(":", 1)[1]
        req = {"kind": "shared", "name": name}
        widgets.update({"src_kind": _SOURCE_RADIO["shared"], "shared_name": name})
    elif data == "upload":
        problems.append(UPLOAD_NOTE)
    elif data:
        problems.append(f"data={data!r} is not demo, shared:NAME or upload")
    return widgets, req, problems


# ------------------------------------------------------------------------------------------------
# Frame hooks (Streamlit)
# ------------------------------------------------------------------------------------------------
def read_url(state) -> None:
    """On a session's first run: widgets and the data choice from the URL (before any widget is
    drawn). A link with parameters runs them at once."""
    if state.get("_url_read"):
        return
    state["_url_read"] = True
    q = st.query_params.to_dict()
    if not q:
        return
    widgets, req, problems = from_query(q)
    if req is not None and req.get("kind") == "shared":
        from camcf import catalog

        folder = catalog.data_dir()
        if req["name"] not in catalog.available(folder):
            problems.append(f"the shared data set {req['name']!r} is not in {folder}")
            req = None
            widgets.pop("shared_name", None)
            widgets.pop("src_kind", None)
        else:
            req["folder"] = str(folder)
    for k, v in widgets.items():
        state[k] = v
    if req is not None:
        state["load_request"] = req
    if any(k in q for k in FIELDS):
        state["run_pressed"] = True
    if problems:
        state["url_problems"] = problems


def write_url(state) -> None:
    """Keep the URL equal to the last run's parameters and data choice."""
    rec = state.get("run")
    if rec is None:
        return
    req = state.get("data_req")
    if (req or {}).get("kind") == "upload":
        st.sidebar.caption(":material/link_off: The page link carries the parameters but not "
                           "an uploaded file: a link cannot hold a file.")
    q = to_query(rec.params, rec.disc, req)
    if rec.data.fingerprint != getattr(state.get("data"), "fingerprint", None):
        return  # new data not run yet: keep the link of what is shown
    if st.query_params.to_dict() != q:
        st.query_params.from_dict(q)


def apply_pending(state) -> None:
    """Parameter values a page asked for (``state["pending_params"]``, by parameter name),
    applied to the widgets before they are drawn."""
    pending = state.pop("pending_params", None)
    if not pending:
        return
    for name, v in pending.items():
        key = WIDGET_OF.get(name)
        if key is not None:
            state[key] = v


def set_params_from_page(values: Mapping) -> None:
    """Ask the frame to move the parameter widgets (by parameter name) and rerun."""
    st.session_state["pending_params"] = dict(values)
    st.rerun()


def pin_controls(state) -> None:
    """The sidebar's "Pin this run" button and what is pinned."""
    rec = state.get("run")
    pinned = state.get("pinned")
    c1, c2 = st.sidebar.columns(2)
    if c1.button("Pin this run", key="pin_run", disabled=rec is None, width="stretch",
                 help="Keep these results to compare with the next runs (page What changed)."):
        state["pinned"] = pinned = rec
    if c2.button("Unpin", key="unpin_run", disabled=pinned is None, width="stretch"):
        state.pop("pinned", None)
        pinned = None
    if pinned is not None:
        p = pinned.params
        st.sidebar.caption(f":material/push_pin: Pinned: δ1 {p['delta1']:g}, δ2 {p['delta2']:g}, k1 {p['k1']:g}, "
                           f"k2 {p['k2']:g} — {pinned.result.selected_indices.size} features")

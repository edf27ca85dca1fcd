"""Links and widget ranges of the frame: the URL query string, the pinned run, parameter values
set from a page (a landscape cell), and :func:`fit` — the one check every value goes through
before it reaches a parameter widget (sidebar, landscape grid, tuning grid, link).

The URL holds the data choice and every parameter of the *last run* (what the pages show), and
the place in the app: the chosen target category, the step-through position, the page filters
declared with a query name in :mod:`pages._state`, the pinned run's parameters (``pin_…``) and
the grid of the last computed landscape. A link opened on a fresh session loads the same data,
sets the same widgets, runs the same parameters and restores the place::

    ?data=demo&n=1000&seed=0&delta1=0.05&delta2=0.1&k1=0.7&k2=1&gamma=1.2&min_cat=5
     &recovery=first&disc=auto&bins=3&strategy=uniform
     &target=B%3D0&step=4&routine_grouped=0&pin_delta1=0.03&…&grid=delta1:0.02:0.1:5,k1:0.2:1:5
    ?data=shared:yeast&...
    ?data=network:alarm&labels=auto:5&n=1000&seed=0&...

An uploaded file cannot travel in a URL: ``data=upload`` says so and opens on the demo.
:func:`to_query`, :func:`from_query` and :func:`fit` are pure (tests round-trip them); the ``st``
calls are in :func:`read_url`, :func:`restore_view` and :func:`write_url`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

import camcf
from camcf.algorithm_params import ALGORITHM_PARAMS, DISCRETIZE_PARAMS
from camcf.params import SIGNIFICANT, Param, round_sig
from camcf.viz.explain import plural
from pages import _state as S

#: significant digits a float parameter keeps when it enters a widget: the widgets show
#: NUMBER_FORMAT, so the value shown is the value run
SIG = SIGNIFICANT
NUMBER_FORMAT = f"%.{SIG}g"
#: steps per landscape / tuning grid axis
GRID_STEPS = (1, 12)
#: the demo's generator settings a link may ask for (the sidebar offers the same)
DEMO_N = (100, 20_000, 100)
DEMO_SEED = (0, 10_000, 1)

#: shorter query names of some parameters (the rest use the declared name)
_QUERY_NAME = {"min_category_size": "min_cat", "discretize": "disc"}
#: query name -> (the declaration, run-dict ("params" / "disc"))
FIELDS: dict[str, tuple[Param, str]] = {
    **{_QUERY_NAME.get(p.name, p.name): (p, "params") for p in ALGORITHM_PARAMS},
    **{_QUERY_NAME.get(p.name, p.name): (p, "disc") for p in DISCRETIZE_PARAMS},
}
PIN = "pin_"
_SOURCE_RADIO = {"demo": "Built-in demo", "upload": "Upload a file",
                 "shared": "Shared data folder", "network": "Known network"}
UPLOAD_NOTE = ("An uploaded file cannot be put in a link: this link opens on the demo. Share "
               "the file itself, or put it in the shared data folder.")
#: landscape grids a link may ask for (as the page offers them)
GRID_PAIRS = (("delta1", "k1"), ("delta2", "k2"))


# ------------------------------------------------------------------------------------------------
# Values into widgets (pure)
# ------------------------------------------------------------------------------------------------
def fit(p: Param, value: Any) -> tuple[Any, str | None]:
    """``value`` made fit for ``p``'s widget: validated by the declaration, clamped into
    :meth:`Param.ui_range` (the range every widget of ``p`` offers) and, for floats, rounded to
    :data:`SIG` significant digits. Returns ``(value, note)``; ``note`` says what was changed
    (None when nothing was). Raises :class:`camcf.ParameterError` when the declaration refuses
    the value (wrong type, outside the validation range).

    >>> from camcf.algorithm_params import by_name
    >>> fit(by_name()["delta1"], 0.000312345)
    (0.0003123, None)
    >>> fit(by_name()["k1"], 3.0)
    Traceback (most recent call last):
    ...
    camcf.errors.ParameterError: k1 must be in (0, 1], got 3.0
    """
    v = p.validate(value)
    if p.options is not None or isinstance(v, str | bool) or v is None:
        return v, None
    lo, hi, _ = p.ui_range()
    note = None
    if v < lo or v > hi:
        bound = lo if v < lo else hi
        note = (f"{p.label} = {value:g} is outside the range the app offers "
                f"({lo:g} to {hi:g}); set to {bound:g}")
        v = p.kind(bound)
    if p.kind is float:
        v = round_sig(v)
    return v, note


def _num(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def _parse(p: Param, raw: str):
    """A query string value as the declaration's kind (ValueError when it is not one)."""
    if p.words and raw in p.words:
        return raw
    if p.kind is int:
        f = float(raw)
        if not f.is_integer():
            raise ValueError(raw)
        return int(f)
    if p.kind is float:
        return float(raw)
    return p.kind(raw)


# ------------------------------------------------------------------------------------------------
# The query string (pure)
# ------------------------------------------------------------------------------------------------
@dataclass
class Link:
    """What a query string asks for.

    ``params``: parameter values by name (Ca-MCF's and the discretisation's), fit for their
    widgets; ``widgets``: other values by session-state key (declared in :mod:`pages._state`),
    to set before any widget is drawn;
    ``request``: a data load request or None; ``view``: entries that need the run (``target``:
    a category's display name, ``step``: the step-through position, ``pin``: the pinned run's
    ``{"params": …, "disc": …}``); ``problems``: entries refused or changed, in words.
    """

    params: dict = field(default_factory=dict)
    widgets: dict = field(default_factory=dict)
    request: dict | None = None
    view: dict = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def to_query(params: Mapping, disc: Mapping, data_req: Mapping | None,
             view: Mapping | None = None) -> dict[str, str]:
    """The query string (as a dict of strings) for a run's parameters, its data choice and the
    place in the app (``view``: as :func:`view_entries` gives it)."""
    q: dict[str, str] = {}
    kind = (data_req or {}).get("kind", "demo")
    if kind == "demo":
        q["data"] = "demo"
        q["n"] = str(int(data_req.get("n", 1000))) if data_req else "1000"
        q["seed"] = str(int(data_req.get("seed", 0))) if data_req else "0"
    elif kind == "shared":
        q["data"] = f"shared:{data_req['name']}"
    elif kind == "network" and data_req.get("network"):
        q["data"] = f"network:{data_req['network']}"
        q["labels"] = str(data_req.get("labels") or "auto:5")
        q["n"] = str(int(data_req.get("n", 1000)))
        q["seed"] = str(int(data_req.get("seed", 0)))
    else:  # an uploaded file (data or a BIF network) cannot travel in a link
        q["data"] = "upload"
    q.update(_run_query(params, disc))
    view = view or {}
    if view.get("target") is not None:
        q["target"] = str(view["target"])
    if view.get("step") is not None:
        q["step"] = str(int(view["step"]))
    for k in S.url_keys():
        if k.url in view:
            q[k.url] = k.codec.format(view[k.url])
    if view.get("pin"):
        q.update({PIN + qn: v for qn, v in _run_query(view["pin"]["params"],
                                                       view["pin"]["disc"]).items()})
    if view.get("grid"):
        g = view["grid"]
        q["grid"] = ",".join(f"{name}:{_num(lo)}:{_num(hi)}:{int(n)}" for name, lo, hi, n in
                             g["axes"])
        if g.get("metric"):
            q["grid_metric"] = str(g["metric"])
    return q


def _run_query(params: Mapping, disc: Mapping) -> dict[str, str]:
    q = {}
    for qn, (p, where) in FIELDS.items():
        src = params if where == "params" else disc
        if p.name in src:
            q[qn] = _num(src[p.name])
    return q


def _read_run(q: Mapping[str, str], prefix: str, problems: list[str]) -> dict[str, Any]:
    """Parameter values (by name) from ``prefix + query name`` entries: checked by the
    declarations and made fit for the widgets (:func:`fit`); refused entries are named in
    ``problems``, clamped ones too."""
    out: dict[str, Any] = {}
    for qn, (p, _) in FIELDS.items():
        if prefix + qn not in q:
            continue
        raw = str(q[prefix + qn])
        try:
            v, note = fit(p, _parse(p, raw))
        except camcf.ParameterError as e:
            problems.append(f"{prefix}{qn}={raw!r}: {p.label} must be {e.allowed}")
            continue
        except ValueError:
            problems.append(f"{prefix}{qn}={raw!r} is not "
                            + ("one of " + ", ".join(p.options) if p.options else
                               "an integer" if p.kind is int else "a number"))
            continue
        if note:
            problems.append(f"{prefix}{qn}: {note}")
        out[p.name] = v
    return out


def _read_grid(q: Mapping[str, str], problems: list[str]) -> dict:
    """Landscape widgets from ``grid=x:lo:hi:steps,y:lo:hi:steps`` (and ``grid_metric``)."""
    from camcf.algorithm_params import by_name

    decl = by_name()
    out: dict = {}
    raw = str(q["grid"])
    try:
        axes = [a.split(":") for a in raw.split(",")]
        names = tuple(a[0] for a in axes)
        if names not in GRID_PAIRS or any(len(a) != 4 for a in axes):
            raise ValueError
        for name, lo, hi, steps in axes:
            p = decl[name]
            for part, text in (("lo", lo), ("hi", hi)):
                v, note = fit(p, float(text))
                if note:
                    problems.append(f"grid: {note}")
                out[S.LS_AXIS[(name, part)].name] = v
            n = int(steps)
            if not GRID_STEPS[0] <= n <= GRID_STEPS[1]:
                problems.append(f"grid: {n} steps is outside {GRID_STEPS[0]}–{GRID_STEPS[1]}; "
                                f"set to {min(max(n, GRID_STEPS[0]), GRID_STEPS[1])}")
                n = min(max(n, GRID_STEPS[0]), GRID_STEPS[1])
            out[S.LS_AXIS[(name, "steps")].name] = n
    except (ValueError, KeyError, camcf.ParameterError):
        problems.append(f"grid={raw!r} is not a landscape grid such as "
                        "delta1:0.02:0.1:5,k1:0.2:1:5 (axes δ1 × k1 or δ2 × k2)")
        return {}
    out[S.LS_PRESET.name] = names
    metric = q.get("grid_metric")
    if metric:
        from camcf.evaluation import METRICS

        if metric in METRICS:
            out[S.LS_METRIC_ON.name] = True
            out[S.LS_METRIC.name] = metric
        else:
            problems.append(f"grid_metric={metric!r} is not one of {', '.join(METRICS)}")
    return out


def _read_network(name: str, q: Mapping[str, str], link: Link) -> None:
    """``data=network:NAME&labels=…&n=…&seed=…``: a known network's sample (n and seed
    checked by :data:`camcf.networks.SAMPLE_PARAMS`, clamped into the inputs' range)."""
    from camcf.networks import DEFAULT_LABELS, SAMPLE_PARAMS

    values = {}
    for p in SAMPLE_PARAMS:
        raw = str(q.get(p.name, p.default))
        try:
            values[p.name], note = fit(p, _parse(p, raw))
        except (ValueError, camcf.ParameterError):
            link.problems.append(f"{p.name}={raw!r}: must be {p.describe()} for a network")
            return
        if note:
            link.problems.append(f"{p.name}: {note}")
    labels = str(q.get("labels") or DEFAULT_LABELS)
    link.request = {"kind": "network", "network": name, "labels": labels, **values}
    link.widgets.update({S.SRC_KIND.name: _SOURCE_RADIO["network"], S.NET_NAME.name: name,
                         S.NET_LABELS.name: labels, S.NET_N.name: values["n"],
                         S.NET_SEED.name: values["seed"]})


def from_query(q: Mapping[str, str]) -> Link:
    """Parse a query string. Bad entries are left out and named in ``problems`` (so the rest
    still applies); numbers outside a widget's range are clamped into it, with a note."""
    link = Link()
    problems = link.problems
    link.params = _read_run(q, "", problems)
    data = str(q.get("data", "")).strip()
    if data == "demo" or (not data and ("n" in q or "seed" in q)):
        try:
            n, seed = int(q.get("n", 1000)), int(q.get("seed", 0))
            if not (DEMO_N[0] <= n <= DEMO_N[1] and DEMO_SEED[0] <= seed <= DEMO_SEED[1]):
                raise ValueError
            link.request = {"kind": "demo", "n": n, "seed": seed}
            link.widgets.update({S.SRC_KIND.name: _SOURCE_RADIO["demo"], S.DEMO_N.name: n,
                                 S.DEMO_SEED.name: seed})
        except ValueError:
            problems.append(f"n must be {DEMO_N[0]}–{DEMO_N[1]} and seed "
                            f"{DEMO_SEED[0]}–{DEMO_SEED[1]} for the demo")
    elif data.startswith("shared:"):
        name = data.split(":", 1)[1]
        link.request = {"kind": "shared", "name": name}
        link.widgets.update({S.SRC_KIND.name: _SOURCE_RADIO["shared"],
                             S.SHARED_NAME.name: name})
    elif data.startswith("network:"):
        _read_network(data.split(":", 1)[1], q, link)
    elif data == "upload":
        problems.append(UPLOAD_NOTE)
    elif data:
        problems.append(f"data={data!r} is not demo, network:NAME, shared:NAME or upload")
    # the place in the app
    if q.get("target"):
        link.view["target"] = str(q["target"])
    if "step" in q:
        try:
            step = int(q["step"])
            if step < 1:
                raise ValueError
            link.view["step"] = step
        except ValueError:
            problems.append(f"step={q['step']!r} is not a position (1, 2, …)")
    for k in S.url_keys():
        if k.url not in q:
            continue
        try:
            v = k.codec.parse(str(q[k.url]))
            if k.choices is not None and v not in k.choices:
                raise ValueError
            link.widgets[k.name] = v
        except ValueError:
            problems.append(f"{k.url}={q[k.url]!r} is not understood ({k.doc})")
    if any(qn.startswith(PIN) for qn in q):
        pin = _read_run(q, PIN, problems)
        link.view["pin"] = {"params": {p.name: pin.get(p.name, p.default)
                                       for p in ALGORITHM_PARAMS},
                            "disc": {p.name: pin.get(p.name, p.default)
                                     for p in DISCRETIZE_PARAMS}}
    if q.get("grid"):
        link.widgets.update(_read_grid(q, problems))
    return link


# ------------------------------------------------------------------------------------------------
# Frame hooks (Streamlit)
# ------------------------------------------------------------------------------------------------
def read_url() -> None:
    """On a session's first run: widgets, the data choice and the place from the URL (before
    any widget is drawn). A link with parameters runs them at once."""
    if S.URL_READ.get():
        return
    S.URL_READ.set(True)
    q = st.query_params.to_dict()
    if not q:
        return
    link = from_query(q)
    req = link.request
    if req is not None and req.get("kind") == "shared":
        from camcf import catalog

        folder = catalog.data_dir()
        if req["name"] not in catalog.available(folder):
            link.problems.append(f"the shared data set {req['name']!r} is not in {folder}")
            req = None
            link.widgets.pop(S.SHARED_NAME.name, None)
            link.widgets.pop(S.SRC_KIND.name, None)
        else:
            req["folder"] = str(folder)
    for name, v in link.params.items():
        set_param(name, v)
    for name, v in link.widgets.items():
        S.restore(name, v)
    if req is not None:
        S.LOAD_REQUEST.set(req)
    if any(k in q for k in FIELDS):
        S.RUN_PRESSED.set(True)
    if link.view:
        S.URL_VIEW.set(link.view)
    if link.problems:
        S.URL_PROBLEMS.set(link.problems)


def restore_view(run: Callable[[dict, dict], S.RunRecord]) -> None:
    """Apply the link's entries that need the run (once it exists on the link's data): the
    target category, the step position and the pinned run (``run(params, disc)`` computes it,
    from the frame's run cache)."""
    view = S.URL_VIEW.get()
    rec = S.RUN.get()
    if not view or rec is None or S.LOAD_REQUEST.has():
        return
    S.URL_VIEW.pop()
    problems = []
    res = rec.result
    if "target" in view:
        try:
            tid = res.target(view["target"]).id
        except (KeyError, ValueError, IndexError):
            problems.append(f"target={view['target']!r} is not a label category of "
                            f"{rec.data.description}")
            tid = None
        if tid is not None:
            S.CHOSEN_TARGET.set(tid)
            if "step" in view:  # the page's own key, restored from the link
                S.restore(S.STEP_POS.of(tid).name, int(view["step"]))
    if view.get("pin"):
        try:
            S.PINNED.set(run(view["pin"]["params"], view["pin"]["disc"]))
        except camcf.CamcfError as e:
            problems.append(f"the pinned run could not be repeated ({e})")
    if problems:
        S.URL_PROBLEMS.set(S.URL_PROBLEMS.get([]) + problems)


def view_entries() -> dict:
    """The place in the app as it is now, for :func:`to_query` (only what differs from the
    defaults, and only the filters of widgets that exist)."""
    rec = S.RUN.get()
    view: dict = {}
    if rec is None:
        return view
    res = rec.result
    tid = S.CHOSEN_TARGET.get()
    if tid is not None and 0 <= int(tid) < len(res.targets):
        view["target"] = res.targets[int(tid)].category.display
        pos = S.STEP_POS.of(int(tid))
        if pos.has():
            view["step"] = int(pos.get())
    for k in S.url_keys():
        if k.has() and k.get() != k.default:
            view[k.url] = k.get()
    pinned = S.PINNED.get()
    if pinned is not None and pinned.data.fingerprint == rec.data.fingerprint:
        view["pin"] = {"params": pinned.asked or pinned.params, "disc": pinned.disc}
    stored = S.LANDSCAPE.get()
    if stored is not None and stored.belongs_to(rec):
        *_, metric, inputs = stored.request  # the axes as the inputs hold them
        view["grid"] = {"axes": list(inputs), "metric": metric}
    return view


def write_url() -> None:
    """Keep the URL equal to the last run's parameters, data choice and the place in the app."""
    rec = S.RUN.get()
    if rec is None:
        return
    if rec.data.fingerprint != getattr(S.DATA.get(), "fingerprint", None):
        return  # new data not run yet: keep the link of what is shown
    q = to_query(rec.asked or rec.params, rec.disc, S.DATA_REQ.get(), view_entries())
    if st.query_params.to_dict() != q:
        st.query_params.from_dict(q)


def upload_link_note() -> None:
    req = S.DATA_REQ.get() or {}
    if req.get("kind") == "upload" or (req.get("kind") == "network" and not req.get("network")):
        st.sidebar.caption(":material/link_off: The page link carries the parameters but not "
                           "an uploaded file: a link cannot hold a file.")


def set_param(name: str, value: Any) -> str | None:
    """Move the widget of parameter ``name`` to ``value`` (made fit by :func:`fit`); the
    frame calls it before the widgets are drawn. Returns a note when the value was changed."""
    from camcf.algorithm_params import by_name

    p = by_name()[name]
    v, note = fit(p, value)
    if p.words:
        S.WORD[name].set(isinstance(v, str) and v in p.words)
        if isinstance(v, str):
            return note  # the number beside the word stays as it was
    S.PARAM[name].set(v)
    return note


def apply_pending() -> None:
    """Parameter values a page asked for (:func:`set_params_from_page`), applied to the
    widgets before they are drawn; a value outside a widget's range is clamped, with a note."""
    pending = S.PENDING_PARAMS.pop()
    if not pending:
        return
    notes = []
    for name, v in pending.items():
        if name in S.PARAM:
            try:
                note = set_param(name, v)
            except camcf.ParameterError as e:
                note = f"{e.name} = {e.value!r} was not applied: it must be {e.allowed}"
            if note:
                notes.append(note)
    if notes:
        S.PARAM_NOTES.set(notes)


def set_params_from_page(values: Mapping) -> None:
    """Ask the frame to move the parameter widgets (by parameter name) and rerun."""
    S.PENDING_PARAMS.set(dict(values))
    st.rerun()


def pin(rec: S.RunRecord | None) -> None:
    """Pin ``rec`` for What changed (None unpins)."""
    if rec is None:
        S.PINNED.pop()
    else:
        S.PINNED.set(rec)


def pin_controls() -> None:
    """The sidebar's "Pin this run" button and what is pinned."""
    rec = S.RUN.get()
    pinned = S.PINNED.get()
    c1, c2 = st.sidebar.columns(2)
    if c1.button("Pin this run", key="pin_run", disabled=rec is None, width="stretch",
                 help="Keep these results to compare with the next runs (page What changed)."):
        pin(rec)
        pinned = rec
    if c2.button("Unpin", key="unpin_run", disabled=pinned is None, width="stretch"):
        pin(None)
        pinned = None
    if pinned is not None:
        p = pinned.asked or pinned.params
        data = S.DATA.get()
        other = (f" (on {pinned.data.description}: set aside on these data)"
                 if data is not None and pinned.data.fingerprint != data.fingerprint else "")
        st.sidebar.caption(f":material/push_pin: Pinned: δ1 {_num(p['delta1'])}, δ2 "
                           f"{_num(p['delta2'])}, k1 {_num(p['k1'])}, k2 {_num(p['k2'])} — "
                           f"{plural(pinned.result.selected_indices.size, 'feature')}{other}")

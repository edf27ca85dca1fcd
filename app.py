"""Ca-MCF explorer: the frame of the multi-page app.

The sidebar holds the data source (built-in demo, an uploaded file, or the shared data folder),
the discretisation and the Ca-MCF parameters (in a fragment with a Run button: a moved slider
marks the results stale at once without redrawing the page; or applied at once with auto-run on
small data). The run is cached on the data's fingerprint, the
discretisation and the parameters. Each page in ``pages/`` only draws the :class:`camcf.Result`
that this frame stores in ``st.session_state["run"]``.

Loading is a small state machine: a request is turned into a candidate data set, the candidate
is validated fully (it is read, and it can be run with the current discretisation:
:func:`camcf.io.check_runnable`), and only then does it replace the current data. Any failure
leaves the previous data, parameters and results as they were and shows a message. Messages are
events: a load message lasts until the next load or the next new result; a run message belongs to
the (data, discretisation, parameters) it failed for and is never drawn over other results.
User-controlled names (file names, column names) are escaped before they go into HTML.

The functions above ``main()`` hold no Streamlit state, so tests can import them
(``main()`` only runs when Streamlit executes this file).
"""

from __future__ import annotations

import html
import io
import json
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import streamlit as st

import camcf
from camcf import catalog
from camcf.algorithm_params import (
    ALGORITHM_PARAMS,
    DISCRETIZE_PARAMS,
    WIDGETS,
)
from camcf.algorithm_params import by_name as _by_name
from camcf.discretize import discretize
from camcf.errors import CamcfError
from camcf.lru import BoundedLRU
from camcf.viz.summary import app_words

# Streamlit puts the entry file's folder on sys.path while it runs a script (as Python does for
# a script), so the pages' shared modules import as the package ``pages``.
from pages._jobs import page_shown
from pages._nav import PAGES, frame_running, leave_directory_mode, navigate  # noqa: F401
from pages._share import WIDGET_KEYS, apply_pending, pin_controls, read_url, write_url

ROOT = Path(__file__).resolve().parent

#: cells (n × m) up to which a data set counts as small: run on load, auto-run offered
_disc = _by_name(DISCRETIZE_PARAMS)
SMALL = 400_000
#: cells above which a run shows a progress box
SHOW_PROGRESS = 50_000
#: seconds: when the last run on the current data took less, a moved slider re-runs at once
FAST_RUN = 0.5
RUN_CACHE_ENTRIES = 8

PARAM_DEFAULTS = dict(camcf.DEFAULTS)
#: the run's discretisation settings (keys mode/bins/strategy) from the declarations
DISC_DEFAULTS = {p.name: p.default for p in DISCRETIZE_PARAMS}
#: options shown with a friendlier wording
OPTION_NAMES = {"uniform": "equal width", "quantile": "equal frequency"}
DEMO_DEFAULTS = {"n": 1000, "seed": 0}


# ------------------------------------------------------------------------------------------------
# Plain data and functions (no Streamlit state)
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class DataBundle:
    """A loaded data set with where it came from and, for the demo, the truth."""

    dataset: camcf.Dataset
    description: str
    source: dict  # kind, path, labels, xml, description (for the CLI configuration)
    truth: dict | None = None  # (label index, category value) -> frozenset of features
    graph: object = None  # the demo's true DAG
    fingerprint: str = ""

    @property
    def cells(self) -> int:
        return self.dataset.n_samples * self.dataset.n_features


@dataclass(frozen=True, eq=False)
class RunRecord:
    """One finished run and what it ran on."""

    key: tuple
    data: DataBundle
    disc: dict
    params: dict
    result: camcf.Result
    disc_info: dict = field(default_factory=dict)
    warnings: tuple[str, ...] = ()


def demo_bundle(n: int = 1000, seed: int = 0) -> DataBundle:
    from camcf.datasets import make_causal_multilabel

    demo = make_causal_multilabel(int(n), seed=int(seed))
    ds = demo.dataset
    return DataBundle(
        dataset=ds, description=f"Built-in demo (n = {int(n)}, seed {int(seed)})",
        source={"kind": "demo", "path": "demo.csv", "labels": f"last:{ds.n_labels}",
                "xml": None, "description": ds.source},
        truth=dict(demo.true_blankets), graph=demo.graph, fingerprint=ds.fingerprint())


def shared_bundle(name: str, folder: str | None = None) -> DataBundle:
    folder_p = Path(folder) if folder else catalog.data_dir()
    ds = catalog.load_shared(name, folder_p)
    e = catalog.CATALOG[name]
    return DataBundle(
        dataset=ds, description=f"{name} (shared data folder)",
        source={"kind": "shared", "path": str(folder_p / e.path), "labels": e.labels,
                "xml": str(folder_p / e.xml) if e.xml else None, "description": e.note},
        fingerprint=ds.fingerprint())


def upload_bundle(data: bytes, filename: str, labels=None, xml_bytes: bytes | None = None,
                  xml_name: str | None = None, variable: str | None = None) -> DataBundle:
    from camcf.io import load_bytes

    if not data:
        raise camcf.DataFormatError(f"{filename}: the file is empty")
    if isinstance(labels, str):
        labels = labels.strip() or None
    elif labels is not None:
        labels = list(labels) or None
    ds = load_bytes(data, filename, labels=labels, xml_bytes=xml_bytes, variable=variable or None)
    spec = labels if isinstance(labels, str) or labels is None else (
        json.dumps(list(labels), ensure_ascii=False) if any("," in str(v) for v in labels)
        else ",".join(labels))  # a JSON list keeps names with commas for --labels
    shown = f"{filename} ({variable}, uploaded)" if variable else f"{filename} (uploaded)"
    return DataBundle(
        dataset=ds, description=shown,
        source={"kind": "upload", "path": filename, "labels": spec,
                "xml": xml_name if xml_bytes else None, "variable": variable or None,
                "description": ds.source},
        fingerprint=ds.fingerprint())


def mat_choices(data: bytes, filename: str) -> list[dict]:
    """The variable (pairs) an uploaded .mat file offers (for the Variables chooser); empty when
    the file cannot be read (the loader reports the real problem)."""
    from camcf.io import variable_choices_bytes

    try:
        return variable_choices_bytes(data, filename)
    except CamcfError:
        return []


def load_request(req: dict) -> DataBundle:
    """Turn a load request into data; every data source goes through here.

    ``req["kind"]``: ``"demo"`` (n, seed), ``"shared"`` (name, folder) or ``"upload"``
    (data, filename, labels, xml, xml_name, variable). Raises :class:`camcf.CamcfError` for bad input.
    """
    kind = req.get("kind")
    if kind == "demo":
        return _demo_cached(int(req.get("n", 1000)), int(req.get("seed", 0)))
    if kind == "shared":
        return _shared_cached(req["name"], req.get("folder") or str(catalog.data_dir()))
    if kind == "upload":
        return upload_bundle(req["data"], req["filename"], req.get("labels"), req.get("xml"),
                             req.get("xml_name"), req.get("variable"))
    raise CamcfError(f"unknown data source {kind!r}")


def load_checked(req: dict, disc: dict) -> DataBundle:
    """Load the requested data and check that it can be run with ``disc``; raises
    :class:`camcf.CamcfError` (nothing in the caller's state is touched)."""
    from camcf.io import check_runnable

    bundle = load_request(req)
    check_runnable(bundle.dataset, bins=int(disc["bins"]), strategy=disc["strategy"],
                   discretize=disc["discretize"])
    return bundle


def run_key(data: DataBundle, disc: dict, params: dict) -> tuple:
    return (data.fingerprint, tuple(sorted(disc.items())), tuple(sorted(params.items())))


def execute(data: DataBundle, disc: dict, params: dict, progress=None) -> RunRecord:
    """Discretise and run Ca-MCF (no caching here). Raises CamcfError on bad choices."""
    ds = data.dataset
    codes, info = discretize(ds.X, bins=int(disc["bins"]), strategy=disc["strategy"],
                             discretize=disc["discretize"], names=list(ds.feature_names))
    kinds: dict[str, int] = {}
    for col in info:
        kinds[col["kind"]] = kinds.get(col["kind"], 0) + 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", camcf.CamcfWarning)
        res = camcf.run(codes, ds.Y, feature_names=list(ds.feature_names),
                        label_names=list(ds.label_names), category_names=ds.category_names,
                        progress=progress, **params)
    msgs = tuple(dict.fromkeys(app_words(str(w.message)) for w in caught
                               if issubclass(w.category, camcf.CamcfWarning)))
    return RunRecord(key=run_key(data, disc, params), data=data, disc=dict(disc),
                     params=dict(params), result=res, disc_info=kinds, warnings=msgs)


def csv_columns(data: bytes) -> list[str]:
    """Column names of a CSV/TSV upload (for the label-column chooser)."""
    try:
        head = data[:65536].decode("utf-8-sig", errors="replace").splitlines()[0]
        return list(pd.read_csv(io.StringIO(head), sep=None, engine="python", nrows=0).columns)
    except Exception:  # noqa: BLE001 - only offers choices; the reader reports real problems
        return []


# ------------------------------------------------------------------------------------------------
# Caches (Streamlit)
# ------------------------------------------------------------------------------------------------
@st.cache_resource(max_entries=4, show_spinner=False)
def _demo_cached(n: int, seed: int) -> DataBundle:
    return demo_bundle(n, seed)


@st.cache_resource(max_entries=4, show_spinner=False)
def _shared_cached(name: str, folder: str) -> DataBundle:
    return shared_bundle(name, folder)


@st.cache_data(max_entries=4, show_spinner=False)
def _mat_choices_cached(data: bytes, filename: str) -> list[dict]:
    return mat_choices(data, filename)


@st.cache_resource(show_spinner=False)
def _run_store() -> BoundedLRU:
    # Runs are looked up here by (fingerprint, discretisation, parameters); the computation
    # itself happens outside any cached function so that its progress bar can be drawn.
    return BoundedLRU(RUN_CACHE_ENTRIES)


def cached_run(data: DataBundle, disc: dict, params: dict) -> RunRecord:
    store = _run_store()
    key = run_key(data, disc, params)
    rec = store.get(key)
    if rec is not None:
        return rec
    if data.cells > SHOW_PROGRESS:
        with st.status(f"Running Ca-MCF on {data.description}…", expanded=True) as status:
            bar = st.progress(0.0, text="discretising")

            def progress(done: int, total: int, msg: str) -> None:
                bar.progress(min(1.0, done / total) if total else 1.0,
                             text=f"{done}/{total} categories — {msg}")

            rec = execute(data, disc, params, progress)
            status.update(label=f"Ca-MCF finished in {rec.result.stats['seconds']:.2f} s",
                          state="complete", expanded=False)
    else:
        rec = execute(data, disc, params)
    store.put(key, rec)
    return rec


# ------------------------------------------------------------------------------------------------
# The sidebar
# ------------------------------------------------------------------------------------------------
def _sidebar_source(state) -> None:
    st.sidebar.header("Data")
    kind = st.sidebar.radio("Source", ["Built-in demo", "Upload a file", "Shared data folder"],
                            key="src_kind", horizontal=False)
    if kind == "Built-in demo":
        c1, c2 = st.sidebar.columns(2)
        n = c1.number_input("samples", 100, 20000, DEMO_DEFAULTS["n"], 100, key="demo_n")
        seed = c2.number_input("seed", 0, 10_000, DEMO_DEFAULTS["seed"], 1, key="demo_seed")
        if st.sidebar.button("Load demo", key="load_demo"):
            state["load_request"] = {"kind": "demo", "n": int(n), "seed": int(seed)}
    elif kind == "Upload a file":
        up = st.sidebar.file_uploader("Data file (ARFF, MATLAB .mat, CSV/TSV)",
                                      type=["arff", "mat", "csv", "tsv", "txt"],
                                      key="upload_file")
        xml = st.sidebar.file_uploader("MULAN label XML (optional, ARFF/CSV)", type=["xml"],
                                       key="upload_xml")
        suffix = Path(up.name).suffix.lower() if up is not None else ""
        choices = _mat_choices_cached(up.getvalue(), up.name) if suffix == ".mat" else []
        # One form: choosing label columns or variables does not rerun the app, and the button
        # sits above the choosers, so a chooser that shrinks when it closes cannot move it.
        with st.sidebar.form("upload_form", border=False):
            pressed = st.form_submit_button("Load file", key="load_upload", disabled=up is None,
                                            type="secondary")
            variable, labels = None, None
            if choices:
                by_var = {c["variable"]: c for c in choices}
                variable = st.selectbox(
                    "Variables", list(by_var), key="upload_variable",
                    format_func=lambda v: by_var[v]["text"],
                    help="The feature and label variables to read from this MATLAB file.")
            if suffix in (".csv", ".tsv", ".txt"):
                cols = csv_columns(up.getvalue())
                labels = st.multiselect("Label columns", cols, key="upload_label_cols",
                                        help="The columns that hold the labels (type to search).")
            elif not (choices and by_var[variable]["labels"]):
                labels = st.text_input(
                    "Label columns", key="upload_labels",
                    placeholder="last:6, or names a,b,c; empty: XML / MEKA -C header",
                    help="Names separated by commas (a JSON list such as [\"a,b\", \"c\"] for "
                         "names with commas), or last:K / first:K. Leave empty when a MULAN XML "
                         "is given or the ARFF header has MEKA's -C option.")
                if labels and not labels.strip().startswith(("last:", "first:", "[")):
                    labels = [s.strip() for s in labels.split(",") if s.strip()]
        if pressed and up is not None:
            state["load_request"] = {
                "kind": "upload", "data": up.getvalue(), "filename": up.name,
                "labels": labels or None, "xml": xml.getvalue() if xml is not None else None,
                "xml_name": xml.name if xml is not None else None, "variable": variable}
    else:
        folder = catalog.data_dir()
        names = catalog.available(folder)
        st.sidebar.caption(f"Folder: `{folder}` (set `{catalog.ENV_VAR}` to change it)")
        if not names:
            st.sidebar.warning(f"No shared data sets found in {folder}.")
        else:
            name = st.sidebar.selectbox("Data set", names, key="shared_name")
            if catalog.CATALOG[name].note:  # in full below the chooser, never clipped
                st.sidebar.caption(catalog.CATALOG[name].note)
            if st.sidebar.button("Load data set", key="load_shared"):
                state["load_request"] = {"kind": "shared", "name": name, "folder": str(folder)}


def process_load(state) -> None:
    """Apply a pending load request; on failure keep the previous data and say why."""
    req = state.pop("load_request", None)
    if req is None:
        return
    _, disc = params_from_state(state)
    try:
        bundle = load_checked(req, disc)
    except CamcfError as e:
        state["load_error"] = app_words(str(e))
        return
    except MemoryError:
        state["load_error"] = ("the machine ran out of memory reading the data; use a smaller "
                               "data set")
        return
    except Exception as e:  # noqa: BLE001 - a reader bug must not show a traceback
        state["load_error"] = f"could not read the data ({type(e).__name__}: {e})"
        return
    state["data"] = bundle
    state["data_req"] = {k: v for k, v in req.items() if k in ("kind", "n", "seed", "name")}
    state.pop("load_error", None)
    state.pop("run_error", None)


def _widget(p) -> None:
    """One widget for one declared parameter (its value lives under WIDGET_KEYS[p.name])."""
    key, label = WIDGET_KEYS[p.name], p.label
    if p.options is not None:
        if p.name in _disc:
            st.selectbox(label, list(p.options), key=key, help=p.help,
                         format_func=lambda o: OPTION_NAMES.get(o, o))
        else:
            st.radio(label, list(p.options), key=key, horizontal=True, help=p.help)
        return
    lo, hi, step = WIDGETS.get(p.name, (p.low or 0, p.high or 10_000, 1))
    if p.kind is int:
        st.number_input(label, int(lo), int(hi), int(p.default), int(step), key=key, help=p.help)
    elif p.advanced:
        st.number_input(label, float(lo), float(hi), float(p.default), float(step), key=key,
                        help=p.help)
    else:
        st.slider(label, float(lo), float(hi), float(p.default), float(step), key=key,
                  help=p.help, format="%.3f" if step < 0.01 else "%.2f")


def _param_widgets() -> None:
    """The parameter widgets, generated from the declarations (camcf.algorithm_params); their
    values live in st.session_state under WIDGET_KEYS."""
    for p in ALGORITHM_PARAMS:
        if not p.advanced:
            _widget(p)
    with st.expander("Discretisation"):
        for p in DISCRETIZE_PARAMS:
            _widget(p)
    with st.expander("Advanced"):
        for p in ALGORITHM_PARAMS:
            if p.advanced:
                _widget(p)


def params_from_state(state) -> tuple[dict, dict]:
    """(Ca-MCF parameters, discretisation) as the widgets currently hold them."""
    params = {p.name: p.kind(state.get(WIDGET_KEYS[p.name], p.default))
              for p in ALGORITHM_PARAMS}
    disc = {p.name: p.kind(state.get(WIDGET_KEYS[p.name], p.default))
            for p in DISCRETIZE_PARAMS}
    return params, disc


@st.fragment
def _params_panel() -> None:
    """Parameters with a Run button. A fragment: moving a slider reruns only this panel, which
    marks the results stale at once; Run reruns the app with the new values."""
    state = st.session_state
    _param_widgets()
    params, disc = params_from_state(state)
    reason = stale_reason(state, state["data"], params, disc)
    if st.button("Run", type="primary", key="run_button", width="stretch"):
        state["run_pressed"] = True
        st.rerun()
    if reason:
        st.warning(reason, icon=":material/update:")


def auto_possible(state, data: DataBundle) -> bool:
    """Changes may apply at once: the data are small, or the last run on them was fast."""
    last: RunRecord | None = state.get("run")
    fast = (last is not None and last.data.fingerprint == data.fingerprint
            and float(last.result.stats.get("seconds", 1e9)) < FAST_RUN)
    return data.cells <= SMALL or fast


def _sidebar_params(state, data: DataBundle) -> None:
    """Draw the parameter widgets (after the run, so the stale mark describes its outcome)."""
    st.sidebar.header("Parameters")
    possible = auto_possible(state, data)
    auto = st.sidebar.toggle(
        "Auto-run when runs are fast", key="auto_run", disabled=not possible,
        help=f"A moved slider re-runs at once when the last run took under {FAST_RUN:g} s "
             f"(or the data are small: n × m ≤ {SMALL:,}); otherwise press Run.") and possible
    with st.sidebar:
        if auto:  # every change reruns the app and applies at once
            with st.container(border=True):
                _param_widgets()
        else:
            _params_panel()


def requested_run(state, data: DataBundle) -> tuple[dict, dict, bool]:
    """The parameters the widgets hold (from the last interaction) and whether to apply them:
    Run was pressed, or auto-run is on for small data."""
    params, disc = params_from_state(state)
    auto = bool(state.get("auto_run")) and auto_possible(state, data)
    return params, disc, bool(state.pop("run_pressed", False)) or auto


def maybe_run(state, data: DataBundle, params: dict, disc: dict, pressed: bool) -> None:
    key = run_key(data, disc, params)
    last: RunRecord | None = state.get("run")
    if last is not None and last.key == key:
        state.pop("run_error", None)  # the results shown are for exactly these choices
        return
    fresh = last is None or last.data.fingerprint != data.fingerprint
    first_try = state.get("_tried_key") != key
    if not (pressed or (fresh and data.cells <= SMALL)) or (not pressed and not first_try):
        return
    state["_tried_key"] = key
    try:
        state["run"] = cached_run(data, disc, params)
        state.pop("run_error", None)
        state.pop("load_error", None)  # new results: an older message would mislead
    except CamcfError as e:
        state["run_error"] = {"key": key, "message": app_words(str(e))}
    except MemoryError:
        state["run_error"] = {"key": key, "message": "the machine ran out of memory; use a "
                              "smaller data set or fewer categories"}
    except Exception as e:  # noqa: BLE001 - never a traceback in the app
        state["run_error"] = {"key": key, "message": f"the run failed ({type(e).__name__}: {e})"}


def run_error_message(state, data: DataBundle, params: dict, disc: dict) -> str | None:
    """The run error to show: only one raised for the choices the widgets hold now."""
    err = state.get("run_error")
    if not err or err.get("key") != run_key(data, disc, params):
        return None
    return err["message"]


def stale_reason(state, data: DataBundle, params: dict, disc: dict) -> str | None:
    last: RunRecord | None = state.get("run")
    if last is None:
        return "no results yet: press Run"
    if last.data.fingerprint != data.fingerprint:
        return (f"results are stale: they are for {last.data.description}; press Run for "
                f"{data.description}")
    if last.key != run_key(data, disc, params):
        return "results are stale: the parameters changed since the last run; press Run"
    return None


def main() -> None:
    leave_directory_mode()  # public st.navigation + st.rerun; see pages/_nav.py
    with frame_running():
        _frame()


def _frame() -> None:
    st.set_page_config(page_title="Ca-MCF explorer", page_icon=str(ROOT / "assets" / "logo.svg"),
                       layout="wide")
    st.logo(str(ROOT / "assets" / "logo.svg"), size="large")
    st.html(f"<style>{(ROOT / 'assets' / 'style.css').read_text()}</style>")
    state = st.session_state
    read_url(state)  # a shared link: data choice and parameters (first run of a session)
    apply_pending(state)  # parameters a page asked for (a landscape cell)
    if "data" not in state:
        state["data"] = load_request({"kind": "demo", **DEMO_DEFAULTS})
        state["data_req"] = {"kind": "demo", **DEMO_DEFAULTS}

    _sidebar_source(state)
    process_load(state)  # a load error is shown once, above the page (below)
    data: DataBundle = state["data"]
    ds = data.dataset
    st.sidebar.caption(f"**{data.description}** — {ds.n_samples:,} samples, "
                       f"{ds.n_features:,} features, {ds.n_labels} labels")

    params, disc, pressed = requested_run(state, data)
    maybe_run(state, data, params, disc, pressed)
    write_url(state)
    _sidebar_params(state, data)
    pin_controls(state)

    if state.get("load_error"):
        st.error(f"The data could not be loaded: {state['load_error']}. The previous data and "
                 f"results are kept.", icon=":material/error:")
    for msg in state.pop("url_problems", []):
        st.warning(f"From the link: {msg}", icon=":material/link:")
    run_error = run_error_message(state, data, params, disc)
    if run_error:
        st.error(f"Ca-MCF could not run: {run_error}. The previous results are kept.",
                 icon=":material/error:")
    reason = stale_reason(state, data, params, disc)
    if reason:
        st.html(f'<div class="camcf-stale" data-testid="camcf-stale">⚠ '
                f'{html.escape(reason)}</div>')
    rec: RunRecord | None = state.get("run")
    if rec is not None:
        for w in rec.warnings:
            st.warning(w, icon=":material/warning:")

    pg = navigate()
    page_shown(pg.url_path)  # this session's studies on other pages stop (pages/_jobs.py)
    pg.run()


if __name__ == "__main__":
    main()

"""Ca-MCF explorer: the frame of the multi-page app.

The sidebar holds the data source (built-in demo, an uploaded file, or the shared data folder),
the discretisation and the Ca-MCF parameters (in a fragment with a Run button: a moved slider
marks the results stale at once without redrawing the page; or applied at once with auto-run on
small data). The run is cached on the data's fingerprint, the
discretisation and the parameters. Each page in ``pages/`` only draws the :class:`camcf.Result`
that this frame stores in the session state (``pages._state.RUN``; every key is declared there).

Loading is a small state machine: a request is turned into a candidate data set, the candidate
is validated fully (it is read, and it can be run with the current discretisation:
:func:`prepare`, whose codes the run then uses), and only then does it replace the current data. Any failure
leaves the previous data, parameters and results as they were and shows a message. Messages are
events: a load message lasts until the next load or the next new result; a run message belongs to
the (data, discretisation, parameters) it failed for and is never drawn over other results.
User-controlled names (file names, column names) are escaped before they go into HTML.

The functions above ``main()`` hold no Streamlit state, so tests can import them
(``main()`` only runs when Streamlit executes this file).
"""

from __future__ import annotations

import dataclasses
import html
import io
import json
from pathlib import Path

import pandas as pd
import streamlit as st

import camcf
from camcf import catalog, studies
from camcf.algorithm_params import ALGORITHM_PARAMS, DISCRETIZE_PARAMS
from camcf.algorithm_params import by_name as _by_name
from camcf.discretize import discretize
from camcf.errors import CamcfError
from camcf.estimates import Estimate
from camcf.lru import BoundedLRU
from camcf.viz.explain import plural

# Streamlit puts the entry file's folder on sys.path while it runs a script (as Python does for
# a script), so the pages' shared modules import as the package ``pages``.
from pages import _jobs as jobs_ui
from pages import _state as S
from pages._common import number_field, progress_box
from pages._jobs import page_shown
from pages._kept import note_data_change, show_set_aside
from pages._nav import PAGES, frame_running, leave_directory_mode, navigate  # noqa: F401
from pages._share import (
    DEMO_N,
    DEMO_SEED,
    NUMBER_FORMAT,
    apply_pending,
    fit,
    pin_controls,
    read_url,
    restore_view,
    set_param,
    set_params_from_page,
    upload_link_note,
    write_url,
)
from pages._state import DataBundle, RunRecord
from pages._words import say, say_warning

ROOT = Path(__file__).resolve().parent

_disc = _by_name(DISCRETIZE_PARAMS)
_params = _by_name()
#: cells (n × m) up to which a data set counts as small: run on load, auto-run offered
SMALL = 400_000
#: cells above which a run shows a progress box
SHOW_PROGRESS = 50_000
#: seconds: when the last run on the current data took less, a moved slider re-runs at once
FAST_RUN = 0.5
#: seconds from which the sidebar shows the run's estimate before it starts
SHOW_ESTIMATE = 1.0
#: the job slot of the main run
RUN_SLOT = jobs_ui.RUN_SLOT
RUN_CACHE_ENTRIES = 8
#: discretised data sets kept (by fingerprint and discretisation)
PREPARED_ENTRIES = 4

#: options shown with a friendlier wording
OPTION_NAMES = {"uniform": "equal width", "quantile": "equal frequency"}
DEMO_DEFAULTS = {"n": S.DEMO_N.default, "seed": S.DEMO_SEED.default}
#: the declared discretisation
DISC_DEFAULTS = {p.name: p.default for p in DISCRETIZE_PARAMS}
#: the network chooser's entry for a BIF file of one's own
UPLOAD_BIF = "Upload a BIF file…"
#: thresholds shown as number inputs, not sliders: values from significance at large n are far
#: below a slider's step (δ1 ≈ 0.0003 bits at n = 16,000) and must be typed exactly
EXACT = ("delta1", "delta2")


# ------------------------------------------------------------------------------------------------
# Plain data and functions (no Streamlit state)
# ------------------------------------------------------------------------------------------------
def demo_bundle(n: int = 1000, seed: int = 0) -> DataBundle:
    from camcf.datasets import make_causal_multilabel

    demo = make_causal_multilabel(int(n), seed=int(seed))
    ds = demo.dataset
    return DataBundle(
        dataset=ds, description=f"Built-in demo (n = {int(n)}, seed {int(seed)})",
        source={"kind": "demo", "path": "demo.csv", "labels": f"last:{ds.n_labels}",
                "xml": None, "description": ds.source},
        truth=dict(demo.true_blankets), graph=demo.graph, fingerprint=ds.fingerprint())


def network_bundle(network: str | None, labels: str | None = None, n: int = 1000,
                   seed: int = 0, *, bif: bytes | None = None,
                   filename: str | None = None) -> DataBundle:
    """A sample of a known network (:mod:`camcf.networks`: a network pgmpy ships by name, or
    an uploaded BIF file's bytes) with its truth: the same path as the demo's (the category
    blankets colour every page; ``dataset.truth`` scores per label)."""
    from camcf import networks

    net = networks.load_bytes(bif, filename or "network.bif") if bif is not None \
        else networks.load(network)
    spec = labels or networks.DEFAULT_LABELS
    ds = net.simulate(spec, int(n), int(seed))
    t = ds.truth
    cats = [sorted(c) for c in ds.category_names]
    command = (f"camcf simulate {network if bif is None else filename} --labels "
               f"{','.join(ds.label_names)} --n {int(n)} --seed {int(seed)} --output "
               f"{net.name}.arff")
    return DataBundle(
        dataset=ds, description=f"{net.title} (labels {spec}; n = {int(n):,}, seed {int(seed)})",
        source={"kind": "network", "path": f"{net.name}.arff", "labels": None,
                "xml": f"{net.name}.xml", "description": ds.source, "simulate": command,
                "network": network, "bif": bif, "filename": filename},
        truth=t.category_blankets(ds.feature_names, ds.label_names, cats),
        fingerprint=ds.fingerprint())


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
    ds = load_bytes(data, filename, labels=labels, xml_bytes=xml_bytes, xml_filename=xml_name,
                    variable=variable or None)
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

    ``req["kind"]``: ``"demo"`` (n, seed), ``"shared"`` (name, folder), ``"upload"``
    (data, filename, labels, xml, xml_name, variable) or ``"network"`` (network or bif and
    filename, labels, n, seed). Raises :class:`camcf.CamcfError` for bad input.
    """
    kind = req.get("kind")
    if kind == "demo":
        return _demo_cached(int(req.get("n", 1000)), int(req.get("seed", 0)))
    if kind == "shared":
        return _shared_cached(req["name"], req.get("folder") or str(catalog.data_dir()))
    if kind == "upload":
        return upload_bundle(req["data"], req["filename"], req.get("labels"), req.get("xml"),
                             req.get("xml_name"), req.get("variable"))
    if kind == "network":
        if req.get("bif") is not None:
            return network_bundle(None, req.get("labels"), int(req.get("n", 1000)),
                                  int(req.get("seed", 0)), bif=req["bif"],
                                  filename=req.get("filename"))
        return _network_cached(req["network"], req.get("labels") or None,
                               int(req.get("n", 1000)), int(req.get("seed", 0)))
    raise CamcfError(f"unknown data source {kind!r}")


def prepare(data: DataBundle, disc: dict) -> tuple:
    """The feature codes Ca-MCF runs on (``discretize`` with the sidebar's settings) and the
    count of columns per kind; the data are checked once here: this is the load check (a data
    set that cannot be run with ``disc`` is refused before it replaces the current one) and the
    run uses the same codes (the data are discretised once per (data, discretisation)).
    Raises :class:`camcf.CamcfError`."""
    ds = data.dataset
    try:
        codes, info = discretize(ds.X, bins=int(disc["bins"]), strategy=disc["strategy"],
                                 discretize=disc["discretize"], names=list(ds.feature_names))
    except CamcfError as e:
        e.fields.setdefault("source", ds.source)  # the message names the file
        raise
    check_codes(ds, codes)
    kinds: dict[str, int] = {}
    for col in info:
        kinds[col["kind"]] = kinds.get(col["kind"], 0) + 1
    return codes, kinds


def check_codes(ds: camcf.Dataset, codes) -> None:
    """What ``camcf.run`` would refuse in these codes and labels (no rows, no features, every
    label constant), checked before a run is started; the codes are not discretised again."""
    from dataclasses import replace

    from camcf.io import check_runnable

    check_runnable(replace(ds, X=codes), discretize=None)


def load_checked(req: dict, disc: dict) -> DataBundle:
    """Load the requested data and check that it can be run with ``disc``; raises
    :class:`camcf.CamcfError` (nothing in the caller's state is touched). The codes are kept
    for the run."""
    bundle = load_request(req)
    _prepared(bundle, disc)
    return bundle


def run_key(data: DataBundle, disc: dict, params: dict) -> tuple:
    return (data.fingerprint, tuple(sorted(disc.items())), tuple(sorted(params.items())))


def execute(data: DataBundle, disc: dict, params: dict, progress=None, *,
            prepared: tuple | None = None) -> RunRecord:
    """Run Ca-MCF on the data discretised with ``disc`` (``prepared``: :func:`prepare`'s
    result, computed here when not given; no caching here). Raises CamcfError on bad choices."""
    ds = data.dataset
    codes, kinds = prepared if prepared is not None else prepare(data, disc)
    out = studies.run_selection(codes, ds.Y, params=params, progress=progress,
                                **run_names(data))
    return record_of(data, disc, params, out, kinds)


def run_names(data: DataBundle) -> dict:
    """The names :func:`camcf.studies.run_selection` gives the run's record."""
    ds = data.dataset
    return {"feature_names": list(ds.feature_names), "label_names": list(ds.label_names),
            "category_names": ds.category_names}


def record_of(data: DataBundle, disc: dict, params: dict, out: dict, kinds: dict) -> RunRecord:
    """The RunRecord of :func:`camcf.studies.run_selection`'s output ``out`` (a run on
    ``data`` discretised with ``disc``, asked with ``params``)."""
    res = out["result"]
    msgs = tuple(dict.fromkeys(say_warning(w) for w in out["warnings"]))
    ran = {k: res.params.get(k, v) for k, v in params.items()}  # "auto" as the number it was
    return RunRecord(key=run_key(data, disc, params), data=data, disc=dict(disc), params=ran,
                     result=res, disc_info=kinds, warnings=msgs, asked=dict(params))


def data_thresholds(data: DataBundle, disc: dict, significance: float,
                    prepared: tuple | None = None) -> dict:
    """δ1 and δ2 suggested for these data at level ``significance``
    (:func:`camcf.significance.suggest_thresholds` on the codes a run would use: the same
    numbers ``delta1="auto"`` resolves to); ``prepared``: :func:`prepare`'s result."""
    from camcf.significance import suggest_thresholds

    codes, _ = prepared if prepared is not None else prepare(data, disc)
    return suggest_thresholds(codes, data.dataset.Y, float(significance))


def threshold_help(p, value: float, sug: dict) -> str:
    """The help of threshold input ``p`` (delta1 or delta2): its declared help, then what
    ``value`` bits mean on these data (:func:`camcf.significance.threshold_meaning`, with the
    typical table's df from ``sug``, :func:`data_thresholds`)."""
    from camcf.significance import threshold_meaning

    meaning = threshold_meaning(p.name, float(value), sug["n"], sug["df_" + p.name])
    return (f"{meaning}. {p.help} (type any value, e.g. 0.0003; "
            f"**Suggest from the data** sets it from α)")


def suggest_help(sug: dict) -> str:
    """The help of the Suggest button: the numbers it sets and where their df come from."""
    from camcf.significance import typical_table

    return (f"Sets δ1 and δ2 to the G-test thresholds at level α = {sug['significance']:g} on "
            f"these n = {sug['n']:,} rows, δ = χ²₁₋α(df) / (2·n·ln 2): δ1 = "
            f"{sug['delta1']:.4g} bits, δ2 = {sug['delta2']:.4g} bits. "
            f"{typical_table('delta1', sug['df_delta1'])}; "
            f"{typical_table('delta2', sug['df_delta2'])}. The numbers go into the inputs, the "
            f"link and the exported command; press Run to apply them.")


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
def _network_cached(network: str, labels: str | None, n: int, seed: int) -> DataBundle:
    return network_bundle(network, labels, n, seed)


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


@st.cache_resource(show_spinner=False)
def _prepared_store() -> BoundedLRU:
    """Feature codes by (fingerprint, discretisation): the load check's codes are the run's."""
    return BoundedLRU(PREPARED_ENTRIES)


def _prepared(data: DataBundle, disc: dict) -> tuple:
    store = _prepared_store()
    key = (data.fingerprint, tuple(sorted(disc.items())))
    return store.get_or_put(key, lambda: prepare(data, disc))


@st.cache_resource(show_spinner=False)
def _thresholds_store() -> BoundedLRU:
    """Suggested thresholds by (fingerprint, discretisation, α)."""
    return BoundedLRU(PREPARED_ENTRIES * 4)


def _data_thresholds(data: DataBundle, disc: dict, significance: float) -> dict | None:
    """:func:`data_thresholds` for the sidebar (cached; None when the data cannot be prepared
    with ``disc`` or α is out of range: the run reports that)."""
    key = (data.fingerprint, tuple(sorted(disc.items())), float(significance))
    try:
        return _thresholds_store().get_or_put(
            key, lambda: data_thresholds(data, disc, significance, _prepared(data, disc)))
    except CamcfError:
        return None


def resolved(data: DataBundle, disc: dict, params: dict) -> dict | None:
    """``params`` with a threshold given as a word ("auto") as the number a run would derive
    (:func:`_data_thresholds`); None when the data cannot be prepared with ``disc``."""
    words = [k for k in EXACT if isinstance(params.get(k), str)]
    if not words:
        return params
    sug = _data_thresholds(data, disc, float(params.get("significance", 0.01)))
    return None if sug is None else {**params, **{k: sug[k] for k in words}}


@st.cache_resource(show_spinner=False)
def _shape_store() -> BoundedLRU:
    """What a run's cost depends on, by (fingerprint, discretisation, minimum category size)."""
    return BoundedLRU(PREPARED_ENTRIES * 2)


def run_plan(data: DataBundle, disc: dict, params: dict) -> Estimate | None:
    """What a run of ``params`` on ``data`` will cost (:func:`camcf.estimates.run_estimate`):
    from the last run when it is on the same data and discretisation (its scores count the
    candidates at any δ1, and its time scales the model), else from the data's shape and the
    thresholds. None when the data cannot be prepared with ``disc``."""
    from camcf.estimates import RunShape, run_estimate

    asked = resolved(data, disc, params)
    if asked is None:
        return None
    last: RunRecord | None = S.RUN.get()
    try:
        sug = _data_thresholds(data, disc, float(params.get("significance", 0.01)))
        df = sug["df_delta1"] if sug is not None else 1
        if last is not None and last.data.fingerprint == data.fingerprint and last.disc == disc:
            shape = RunShape.of_result(last.result, df=df)
            return run_estimate(shape, asked, measured=(
                last.params, float(last.result.stats.get("seconds", 0.0))))
        key = (data.fingerprint, tuple(sorted(disc.items())), params["min_category_size"])
        shape = _shape_store().get_or_put(key, lambda: RunShape.of(
            _prepared(data, disc)[0], data.dataset.Y,
            min_category_size=int(params["min_category_size"])))
        return run_estimate(shape, asked)
    except CamcfError:
        return None


def run_as_job(data: DataBundle, disc: dict, params: dict, estimate: Estimate) -> None:
    """Start the run of ``params`` on ``data`` as the frame's job (:mod:`pages._jobs`; its
    result comes back in :func:`run_finished`) and rerun the app."""
    codes, _ = _prepared(data, disc)
    jobs_ui.start(RUN_SLOT, studies.run_selection,
                  {"X": codes, "Y": data.dataset.Y, "params": dict(params), **run_names(data)},
                  title="The Ca-MCF run", estimate=estimate, key=run_key(data, disc, params),
                  frame=True)


def run_finished(out: dict, key: tuple) -> None:
    """A finished run job: its record becomes the run every page draws (when its data are
    still the loaded ones), and goes into the run cache."""
    data: DataBundle = S.DATA.get()
    if data is None or data.fingerprint != key[0]:
        return
    disc, params = dict(key[1]), dict(key[2])
    rec = record_of(data, disc, params, out, _prepared(data, disc)[1])
    _run_store().put(key, rec)
    S.RUN.set(rec)
    S.RUN_ERROR.pop()
    S.LOAD_ERROR.pop()


def cached_run(data: DataBundle, disc: dict, params: dict) -> RunRecord:
    store = _run_store()
    key = run_key(data, disc, params)
    rec = store.get(key)
    if rec is not None:  # the same data and choices, perhaps from another source or session:
        # the record says where this session's data came from (its Overview, its export)
        return rec if rec.data is data else dataclasses.replace(rec, data=data)
    if data.cells > SHOW_PROGRESS:
        with progress_box(f"Running Ca-MCF on {data.description}…", unit="categories",
                          finished="Ca-MCF finished in {seconds:.2f} s") as progress:
            progress(0, 1, "discretising")
            rec = execute(data, disc, params, progress, prepared=_prepared(data, disc))
    else:
        rec = execute(data, disc, params, prepared=_prepared(data, disc))
    store.put(key, rec)
    return rec


# ------------------------------------------------------------------------------------------------
# The sidebar
# ------------------------------------------------------------------------------------------------
def _sidebar_source() -> None:
    st.sidebar.header("Data")
    kind = st.sidebar.radio("Source", ["Built-in demo", "Known network", "Upload a file",
                                       "Shared data folder"],
                            key=S.SRC_KIND.init(), horizontal=False)
    if kind == "Built-in demo":
        c1, c2 = st.sidebar.columns(2)
        n = c1.number_input("samples", DEMO_N[0], DEMO_N[1], step=DEMO_N[2],
                            key=S.DEMO_N.init())
        seed = c2.number_input("seed", DEMO_SEED[0], DEMO_SEED[1], step=DEMO_SEED[2],
                               key=S.DEMO_SEED.init())
        if st.sidebar.button("Load demo", key="load_demo"):
            S.LOAD_REQUEST.set({"kind": "demo", "n": int(n), "seed": int(seed)})
    elif kind == "Known network":
        _sidebar_network()
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
                    format_func=lambda v: v.replace("/", " / "),  # short: the box is narrow
                    help="The feature and label variables to read from this MATLAB file.")
                st.caption(by_var[variable]["text"])  # the whole description, wrapped
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
            S.LOAD_REQUEST.set({
                "kind": "upload", "data": up.getvalue(), "filename": up.name,
                "labels": labels or None, "xml": xml.getvalue() if xml is not None else None,
                "xml_name": xml.name if xml is not None else None, "variable": variable})
    else:
        folder = catalog.data_dir()
        names = catalog.available(folder)
        st.sidebar.caption(f"Folder: `{folder}` (set `{catalog.ENV_VAR}` to change it)")
        if not names:
            st.sidebar.warning(f"No shared data sets found in {folder}.")
        else:
            if S.SHARED_NAME.get() not in names:
                S.SHARED_NAME.pop()
            name = st.sidebar.selectbox("Data set", names, key=S.SHARED_NAME.name)
            if catalog.CATALOG[name].note:  # in full below the chooser, never clipped
                st.sidebar.caption(catalog.CATALOG[name].note)
            if st.sidebar.button("Load data set", key="load_shared"):
                S.LOAD_REQUEST.set({"kind": "shared", "name": name, "folder": str(folder)})


def _sidebar_network() -> None:
    """A known network (:mod:`camcf.networks`): one pgmpy ships or an uploaded BIF file, its
    labels (names or auto:K), n and seed; loaded as a sample that carries its truth."""
    from camcf import networks

    try:
        names = [n for n in networks.shipped() if n != "demo"]
    except CamcfError as e:  # pgmpy missing: say what to install
        st.sidebar.warning(say(e))
        return
    choices = [*names, UPLOAD_BIF]
    if S.NET_NAME.get() not in choices:
        S.NET_NAME.pop()
    name = st.sidebar.selectbox("Network", choices, key=S.NET_NAME.init(),
                                help="The discrete Bayesian networks pgmpy ships (read offline), "
                                     "or a BIF file of your own.")
    up = None
    if name == UPLOAD_BIF:
        up = st.sidebar.file_uploader("BIF file (.bif, .bif.gz)", type=["bif", "gz"],
                                      key="upload_bif")
    labels = st.sidebar.text_input("Labels", key=S.NET_LABELS.init(),
                                   help=f"Node names separated by commas, or auto:K: "
                                        f"{networks.AUTO_RULE}. Every other node is a feature.")
    n_p, seed_p = networks.SAMPLE_PARAMS
    c1, c2 = st.sidebar.columns(2)
    lo, hi, step = n_p.ui_range()
    n = c1.number_input("samples", lo, hi, step=step, key=S.NET_N.init(), help=n_p.help)
    lo, hi, step = seed_p.ui_range()
    seed = c2.number_input("seed", lo, hi, step=step, key=S.NET_SEED.init(), help=seed_p.help)
    if st.sidebar.button("Load network", key="load_network",
                         disabled=name == UPLOAD_BIF and up is None):
        req = {"kind": "network", "labels": labels.strip() or None, "n": int(n),
               "seed": int(seed)}
        if up is not None:
            req.update(bif=up.getvalue(), filename=up.name)
        else:
            req["network"] = name
        S.LOAD_REQUEST.set(req)


def process_load() -> None:
    """Apply a pending load request; on failure keep the previous data and say why."""
    req = S.LOAD_REQUEST.pop()
    if req is None:
        return
    _, disc = params_from_state()
    notes = []
    try:
        try:
            bundle = load_checked(req, disc)
        except CamcfError as e:
            if disc == DISC_DEFAULTS:
                raise
            bundle = load_checked(req, DISC_DEFAULTS)  # the discretisation does not apply
            for name, v in DISC_DEFAULTS.items():
                set_param(name, v)
            notes.append(f"The discretisation chosen before ({_disc_words(disc)}) does not "
                         f"apply to these data ({say(e)}); it was reset to the default "
                         f"({_disc_words(DISC_DEFAULTS)}).")
    except CamcfError as e:
        S.LOAD_ERROR.set(say(e))
        return
    except MemoryError:
        S.LOAD_ERROR.set("the machine ran out of memory reading the data; use a smaller data set")
        return
    except Exception as e:  # noqa: BLE001 - a reader bug must not show a traceback
        S.LOAD_ERROR.set(f"could not read the data ({type(e).__name__}: {e})")
        return
    before = S.DATA.get()
    note_data_change(before, bundle)
    if before is not None and before.fingerprint != bundle.fingerprint:
        notes += carry_thresholds(before, bundle)
    if notes:
        S.PARAM_NOTES.set(S.PARAM_NOTES.get([]) + notes)
    running = jobs_ui.running_key(RUN_SLOT)
    if running is not None and running[0] != bundle.fingerprint:
        jobs_ui.stop(RUN_SLOT, f"stopped because {bundle.description} was loaded")
    S.DATA.set(bundle)
    S.DATA_REQ.set({k: v for k, v in req.items()
                    if k in ("kind", "n", "seed", "name", "network", "labels", "filename")})
    S.LOAD_ERROR.pop()
    S.RUN_ERROR.pop()


def _disc_words(disc: dict) -> str:
    return (f"{disc['discretize']}, {int(disc['bins'])} "
            f"{OPTION_NAMES.get(disc['strategy'], disc['strategy'])} bins")


def carry_thresholds(before: DataBundle, after: DataBundle) -> list[str]:
    """The Ca-MCF parameters across a change of data (from ``before`` to ``after``, before the
    widgets are drawn): δ1 and δ2 suggested from ``before``'s data and unchanged since are
    suggested again from ``after``'s at the same α; other values that are not the defaults
    stay (bits mean the same on any data), said in a note with the way back."""
    params, disc = params_from_state()
    sug = S.SUGGESTED.get()
    if sug and sug["fingerprint"] == before.fingerprint and all(
            params.get(k) == sug[k] for k in EXACT):
        new = _data_thresholds(after, disc, sug["significance"])
        if new is not None:
            for k in EXACT:
                set_param(k, new[k])
            shown = {k: fit(_params[k], new[k])[0] for k in EXACT}
            S.SUGGESTED.set({"fingerprint": after.fingerprint,
                             "significance": sug["significance"], **shown})
            return [f"δ1 and δ2 had been suggested from {before.description} at α = "
                    f"{sug['significance']:g}; for {after.description} they are suggested "
                    f"again at the same α: δ1 = {shown['delta1']:g}, δ2 = {shown['delta2']:g} "
                    "(press Run to apply them)."]
    changed = {p.name: params[p.name] for p in ALGORITHM_PARAMS
               if params[p.name] != p.default and p.name != BESIDE_SUGGEST}
    if not changed:
        return []
    words = ", ".join(f"{_params[k].label} = {v:g}" if isinstance(v, float) else
                      f"{_params[k].label} = {v}" for k, v in changed.items())
    return [f"The parameters chosen for {before.description} are kept for "
            f"{after.description}: {words} (not the defaults). **Reset to defaults** or "
            "**Suggest from the data** in the sidebar to start afresh."]


def reset_to_defaults() -> None:
    """Every parameter back at its declared default (a button's callback: before the widgets
    are drawn), said in a note."""
    for p in (*ALGORITHM_PARAMS, *DISCRETIZE_PARAMS):
        set_param(p.name, p.default)
    S.SUGGESTED.pop()
    S.PARAM_NOTES.set(S.PARAM_NOTES.get([]) + [
        "The parameters are back at their defaults ("
        + ", ".join(f"{p.label} = {p.default:g}" if isinstance(p.default, float)
                    else f"{p.label} = {p.default}" for p in ALGORITHM_PARAMS if not p.advanced)
        + "); press Run to apply them."])


def at_defaults() -> bool:
    params, disc = params_from_state()
    return (all(params[p.name] == p.default for p in ALGORITHM_PARAMS)
            and disc == DISC_DEFAULTS)


def _typed(name: str) -> None:
    """A value was typed in the input of ``name``: kept to what the input shows."""
    S.PARAM[name].set(fit(_params[name], S.PARAM[name].get())[0])


def _widget(p, help_: str | None = None) -> None:
    """The widget of one declared parameter; its value lives under ``S.PARAM[p.name]``. Every
    number widget offers ``p.ui_range()`` and shows NUMBER_FORMAT (the value shown is the value
    run); a threshold (EXACT) is a number input (any value can be typed, − / + step by the
    declared step), the shares k1, k2 are sliders."""
    key, label = S.PARAM[p.name], p.label
    if help_ is None:
        help_ = p.help + (" (type any value, e.g. 0.0003)" if p.name in EXACT else "")
    if p.options is not None:
        key.init()
        if p.name in _disc:
            st.selectbox(label, list(p.options), key=key.name, help=p.help,
                         format_func=lambda o: OPTION_NAMES.get(o, o))
        else:
            st.radio(label, list(p.options), key=key.name, horizontal=True, help=p.help)
        return
    if p.words:  # a number or a word ("auto"): the toggle decides which one runs
        word = S.WORD[p.name]
        word.init()
        c1, c2 = st.columns([2, 1], vertical_alignment="bottom")
        with c1:
            number_field(p, key, on_change=_typed, args=(p.name,), disabled=bool(word.get()),
                         help=f"{help_} — or switch **{p.words[0]}** on: {label} = "
                              f"{p.words[0]!r} instead of the number.")
        # no help icon beside the toggle: in the sidebar's column it would cut the word short
        c2.toggle(p.words[0], key=word.name)
        return
    if p.kind is int or p.advanced or p.name in EXACT:
        number_field(p, key, on_change=_typed, args=(p.name,), help=help_)
        return
    lo, hi, step = (float(v) for v in p.ui_range())
    st.slider(label, lo, hi, step=step, key=key.init(), help=p.help, format=NUMBER_FORMAT)


#: drawn beside the Suggest button, not under Advanced
BESIDE_SUGGEST = "significance"


def _suggest_row(sug: dict | None) -> None:
    """The significance level α and "Suggest from the data": the button moves δ1 and δ2 to the
    G-test thresholds at α on the loaded data (through the frame's set_param path)."""
    _widget(_params[BESIDE_SUGGEST])
    pressed = st.button("Suggest from the data", key="suggest_button", width="stretch",
                        disabled=sug is None,
                        help=suggest_help(sug) if sug is not None else
                        "the data cannot be prepared with this discretisation")
    if pressed and sug is not None:
        S.SUGGESTED.set({"fingerprint": S.DATA.get().fingerprint,
                         "significance": sug["significance"],
                         **{k: fit(_params[k], sug[k])[0] for k in EXACT}})
        set_params_from_page({"delta1": sug["delta1"], "delta2": sug["delta2"]})


def _param_widgets() -> None:
    """The parameter widgets, generated from the declarations (camcf.algorithm_params); their
    values live in st.session_state under pages._state.PARAM. The thresholds' help says what
    their values mean on the loaded data; the significance level and "Suggest from the data"
    follow them."""
    data: DataBundle = S.DATA.get()
    _, disc = params_from_state()
    sug = _data_thresholds(data, disc, float(S.PARAM[BESIDE_SUGGEST].get()))
    for p in ALGORITHM_PARAMS:
        if not p.advanced:
            help_ = (threshold_help(p, float(S.PARAM[p.name].get()), sug)
                     if p.name in EXACT and sug is not None else None)
            _widget(p, help_)
            if p.name == "delta2":
                _suggest_row(sug)
    with st.expander("Discretisation"):
        for p in DISCRETIZE_PARAMS:
            _widget(p)

    with st.expander("Advanced"):
        for p in ALGORITHM_PARAMS:
            if p.advanced and p.name != BESIDE_SUGGEST:
                _widget(p)


def _value(p):
    """A parameter's value as its widgets hold it (a word when its toggle is on)."""
    if p.words and S.WORD[p.name].get():
        return p.words[0]
    return p.kind(S.PARAM[p.name].get())


def params_from_state() -> tuple[dict, dict]:
    """(Ca-MCF parameters, discretisation) as the widgets currently hold them."""
    return ({p.name: _value(p) for p in ALGORITHM_PARAMS},
            {p.name: _value(p) for p in DISCRETIZE_PARAMS})


@st.fragment
def _params_panel() -> None:
    """Parameters with a Run button. A fragment: moving a slider reruns only this panel, which
    marks the results stale at once; Run reruns the app with the new values."""
    _param_widgets()
    params, disc = params_from_state()
    data = S.DATA.get()
    reason = stale_reason(data, params, disc)
    under_way = jobs_ui.running_key(RUN_SLOT) == run_key(data, disc, params)
    if st.button("Running…" if under_way else "Run", type="primary", key="run_button",
                 width="stretch", disabled=under_way,
                 help="The run is under way (its progress and Stop are above the page)"
                      if under_way else None):
        S.RUN_PRESSED.set(True)
        st.rerun()
    if reason and not under_way:
        estimate = run_plan(data, disc, params)
        if estimate is not None and estimate.seconds >= SHOW_ESTIMATE:
            job = (" It runs with its progress above the page and a Stop button."
                   if estimate.seconds >= jobs_ui.RUN_AS_JOB else "")
            st.caption(f"This run will take {estimate.describe()}.{job}",
                       help=" ".join(estimate.notes))
    if reason:
        st.warning(reason, icon=":material/update:")


def auto_possible(data: DataBundle) -> bool:
    """Changes may apply at once: the data are small, or the last run on them was fast."""
    last: RunRecord | None = S.RUN.get()
    fast = (last is not None and last.data.fingerprint == data.fingerprint
            and float(last.result.stats.get("seconds", 1e9)) < FAST_RUN)
    return data.cells <= SMALL or fast


def _sidebar_params(data: DataBundle) -> None:
    """Draw the parameter widgets (after the run, so the stale mark describes its outcome)."""
    st.sidebar.header("Parameters")
    possible = auto_possible(data)
    auto = st.sidebar.toggle(
        "Auto-run when runs are fast", key=S.AUTO_RUN.init(), disabled=not possible,
        help=f"A moved slider re-runs at once when the last run took under {FAST_RUN:g} s "
             f"(or the data are small: n × m ≤ {SMALL:,}); otherwise press Run.") and possible
    with st.sidebar:
        if auto:  # every change reruns the app and applies at once
            with st.container(border=True):
                _param_widgets()
        else:
            _params_panel()
        # (outside the panel's fragment: a click reruns the app, which shows the note above)
        st.button("Reset to defaults", key="reset_params", on_click=reset_to_defaults,
                  width="stretch", icon=":material/restart_alt:", disabled=at_defaults(),
                  help="Every parameter and the discretisation back at their defaults (press "
                       "Run to apply them).")


def requested_run(data: DataBundle) -> tuple[dict, dict, bool]:
    """The parameters the widgets hold (from the last interaction) and whether to apply them:
    Run was pressed, or auto-run is on for small data."""
    params, disc = params_from_state()
    auto = bool(S.AUTO_RUN.get()) and auto_possible(data)
    return params, disc, bool(S.RUN_PRESSED.get(False)) or auto


def maybe_run(data: DataBundle, params: dict, disc: dict, pressed: bool) -> None:
    key = run_key(data, disc, params)
    last: RunRecord | None = S.RUN.get()
    if last is not None and last.key == key:
        S.RUN_ERROR.pop()  # the results shown are for exactly these choices
        S.RUN_PRESSED.pop()
        return
    if jobs_ui.running_key(RUN_SLOT) == key:  # under way as a job
        S.RUN_PRESSED.pop()
        return
    fresh = last is None or last.data.fingerprint != data.fingerprint
    first_try = S.TRIED_KEY.get() != key
    if not (pressed or (fresh and data.cells <= SMALL)) or (not pressed and not first_try):
        return
    if _run_store().get(key) is None:
        estimate = run_plan(data, disc, params)
        if estimate is not None and estimate.seconds >= jobs_ui.RUN_AS_JOB:
            S.TRIED_KEY.set(key)
            S.RUN_PRESSED.pop()
            S.RUN_ERROR.pop()
            run_as_job(data, disc, params, estimate)  # reruns the app
            return
    # the key counts as tried, and a press of Run as answered, once the attempt has ended, with
    # results or an error: a run that a click interrupts (Streamlit ends the script run) is
    # tried again on the next script run, also a pressed run on large data
    try:
        S.RUN.set(cached_run(data, disc, params))
        S.RUN_ERROR.pop()
        S.LOAD_ERROR.pop()  # new results: an older message would mislead
    except CamcfError as e:
        S.RUN_ERROR.set({"key": key, "message": say(e)})
    except MemoryError:
        S.RUN_ERROR.set({"key": key, "message": "the machine ran out of memory; use a smaller "
                         "data set or fewer categories"})
    except Exception as e:  # noqa: BLE001 - never a traceback in the app
        S.RUN_ERROR.set({"key": key, "message": f"the run failed ({type(e).__name__}: {e})"})
    S.TRIED_KEY.set(key)
    S.RUN_PRESSED.pop()


def run_error_message(data: DataBundle, params: dict, disc: dict) -> str | None:
    """The run error to show: only one raised for the choices the widgets hold now."""
    err = S.RUN_ERROR.get()
    if not err or err.get("key") != run_key(data, disc, params):
        return None
    return err["message"]


def stale_reason(data: DataBundle, params: dict, disc: dict) -> str | None:
    last: RunRecord | None = S.RUN.get()
    if last is None:
        return "no results yet: press Run"
    if last.data.fingerprint != data.fingerprint:
        return (f"results are stale: they are for {last.data.description}; press Run for "
                f"{data.description}")
    if last.key != run_key(data, disc, params):
        return "results are stale: the parameters changed since the last run; press Run"
    return None


def _engine_ready() -> None:
    """Load the compiled engine's kernels once per server process, with a progress box: the
    first run after an install compiles them (tens of seconds), later ones load numba's disk
    cache (a few tenths of a second)."""
    from camcf.engine import is_ready, warm_up

    if not is_ready():
        with progress_box("Preparing the compiled engine (compiled once after an install, then "
                          "loaded from its cache)…", unit="steps",
                          finished="Engine ready in {seconds:.1f} s") as progress:
            warm_up(progress)


def main() -> None:
    leave_directory_mode()  # public st.navigation + st.rerun; see pages/_nav.py
    with frame_running():
        _frame()


def _frame() -> None:
    st.set_page_config(page_title="Ca-MCF explorer", page_icon=str(ROOT / "assets" / "logo.svg"),
                       layout="wide")
    st.logo(str(ROOT / "assets" / "logo.svg"), size="large")
    st.html(f"<style>{(ROOT / 'assets' / 'style.css').read_text()}</style>")
    S.keep_remembered()  # the study pages' choices outlive their pages
    read_url()  # a shared link: data, parameters and the place (first run of a session)
    apply_pending()  # parameters a page asked for (a landscape cell)
    if not S.DATA.has():
        S.DATA.set(load_request({"kind": "demo", **DEMO_DEFAULTS}))
        S.DATA_REQ.set({"kind": "demo", **DEMO_DEFAULTS})

    _sidebar_source()
    process_load()  # a load error is shown once, above the page (below)
    data: DataBundle = S.DATA.get()
    ds = data.dataset
    st.sidebar.caption(f"**{data.description}** — {ds.n_samples:,} samples, "
                       f"{ds.n_features:,} features, {plural(ds.n_labels, 'label')}")

    params, disc, pressed = requested_run(data)
    _engine_ready()
    maybe_run(data, params, disc, pressed)
    restore_view(lambda p, d: cached_run(data, d, p))  # a link's target, step, pin
    upload_link_note()
    _sidebar_params(data)
    pin_controls()

    if S.LOAD_ERROR.get():
        st.error(f"The data could not be loaded: {S.LOAD_ERROR.get()}. The previous data and "
                 f"results are kept.", icon=":material/error:")
    show_set_aside()
    for msg in S.URL_PROBLEMS.pop([]):
        st.warning(f"From the link: {msg}", icon=":material/link:")
    for msg in S.PARAM_NOTES.pop([]):
        st.warning(msg, icon=":material/tune:")
    run_error = run_error_message(data, params, disc)
    if run_error:
        st.error(f"Ca-MCF could not run: {run_error}. The previous results are kept.",
                 icon=":material/error:")
    reason = stale_reason(data, params, disc)
    if reason:
        st.html(f'<div class="camcf-stale" data-testid="camcf-stale">⚠ '
                f'{html.escape(reason)}</div>')
    jobs_ui.follow(RUN_SLOT, run_finished, kept="the results shown before it stay")
    rec: RunRecord | None = S.RUN.get()
    if rec is not None:
        for w in rec.warnings:
            st.warning(w, icon=":material/warning:")

    pg = navigate()
    pg = navigate()
    page_shown(pg.url_path)  # this session's studies on other pages stop (pages/_jobs.py)
    try:
        pg.run()
    finally:  # also when the page stops early (st.stop) or asks for a rerun
        write_url()  # the link: the run shown and the place the page is at


if __name__ == "__main__":
    main()

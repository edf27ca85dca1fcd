"""The explorer's session state, declared once.

Every ``st.session_state`` key the app reads or writes is declared here, once, as a
:class:`Key` with one owner: the file that writes it (``FRAME`` — ``app.py`` and the shared
``pages/_*.py`` helpers it calls — or one page). Code reads and writes state through the typed
accessors (``RUN.get()``, ``PINNED.set(rec)``, ``key=ST_HIDE.init()`` for a widget), never
through a string key; ``tests/test_state.py`` checks both rules over the source.

Keys that travel in links declare their query name and codec (``url=``, ``codec=``):
``pages/_share.py`` writes them to the URL after every run and restores them when a link is
opened on a fresh session, so adding a page filter to links is one argument here.

Adding state
------------
* A new key: declare it below with its owner and one sentence (``doc``); a widget key also gets
  its ``default`` and is created with ``key=KEY.init()`` (no ``value=``/``default=`` argument:
  a widget given both a default and a value set through the Session State API makes Streamlit
  warn, and a value restored from a link must win).
* A key per target or per run (``st_pos_3``): declare a :class:`KeyFamily` and use
  ``FAMILY.of(suffix)``.
* A new page: add it to ``pages/_nav.py``'s ``PAGES``; its keys are declared here with
  ``owner="pages/<file>.py"``.

The value types of the frame's state (:class:`DataBundle`, :class:`RunRecord`) live here too.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import streamlit as st

import camcf
from camcf.algorithm_params import ALGORITHM_PARAMS, DISCRETIZE_PARAMS
from camcf.evaluation.settings import EVAL_PARAMS, KNN_PARAMS

T = TypeVar("T")
_MISSING: Any = object()

#: the owner name of the frame: app.py and the shared helpers it calls (pages/_*.py)
FRAME = "frame"
#: the files that make up the frame (they may write FRAME keys)
FRAME_FILES = ("app.py", "pages/_share.py", "pages/_common.py", "pages/_nav.py",
               "pages/_state.py", "pages/_kept.py")


# ------------------------------------------------------------------------------------------------
# Value types of the frame's state
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class DataBundle:
    """A loaded data set with where it came from and, for data sampled from a known network
    (the demo, :mod:`camcf.networks`), the truth per category (``dataset.truth`` holds the
    network's :class:`camcf.truth.Truth`)."""

    dataset: camcf.Dataset
    description: str
    source: dict  # kind, path, labels, xml, description (for the CLI configuration)
    truth: dict | None = None  # (label index, category value) -> frozenset of features
    graph: object = None  # the demo's true DAG (its story names the demo's nodes)
    fingerprint: str = ""

    @property
    def cells(self) -> int:
        return self.dataset.n_samples * self.dataset.n_features


@dataclass(frozen=True, eq=False)
class RunRecord:
    """One finished run and what it ran on.

    ``params`` are the parameters as run (a threshold asked for as a word such as "auto" is the
    number the run derived, from ``result.params``); ``asked`` are the parameters as the widgets
    held them (what a link carries and the run cache is keyed on)."""

    key: tuple
    data: DataBundle
    disc: dict
    params: dict
    result: camcf.Result
    disc_info: dict = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    asked: dict = field(default_factory=dict)


def data_id(rec: RunRecord) -> tuple:
    """What a result computed from ``rec`` was computed on: its data's fingerprint and its
    discretisation (the codes every study of the run reads)."""
    return (rec.data.fingerprint, tuple(sorted(rec.disc.items())))


@dataclass(frozen=True, eq=False)
class Kept:
    """A study's result kept in the session, with the data it was computed on.

    ``data``: :func:`data_id` of the run it was computed from; ``source``: that data's
    description; ``what``: the result in a few words ("the landscape δ1 × k1, 25 cells");
    ``request``: what was asked (a page compares it with what its widgets ask now);
    ``result``: the study's result; ``partial``: the study was stopped and ``result`` holds
    the part it had finished (started again with the same request, it continues from it).
    A kept result of other data is never drawn as current nor applied (:mod:`pages._kept`)."""

    data: tuple
    source: str
    what: str
    request: Any
    result: Any
    partial: bool = False

    def belongs_to(self, rec: RunRecord | None) -> bool:
        """Computed on the data and discretisation ``rec`` ran on."""
        return rec is not None and self.data == data_id(rec)


# ------------------------------------------------------------------------------------------------
# Keys
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Codec:
    """How a key's value is written in a link and read back (``parse`` raises ValueError)."""

    format: Callable[[Any], str]
    parse: Callable[[str], Any]


def _parse_bool(s: str) -> bool:
    v = s.strip().lower()
    if v in ("1", "true", "yes", "on"):
        return True
    if v in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{s!r} is not 1/0")


BOOL = Codec(lambda v: "1" if v else "0", _parse_bool)
TEXT = Codec(str, str)
INTS = Codec(lambda v: ",".join(str(int(x)) for x in v),
             lambda s: [int(x) for x in s.split(",") if x.strip()])


@dataclass(frozen=True)
class Key(Generic[T]):
    """One ``st.session_state`` key: its name, owner, meaning, default and (optionally) its
    query name in links."""

    name: str
    owner: str
    doc: str
    default: Any = None
    url: str | None = None
    codec: Codec | None = None
    #: the values a link may set (None: any the codec reads)
    choices: tuple | None = None
    #: a page's widget whose value outlives the page (see :func:`keep_remembered`)
    remember: bool = False

    def get(self, default: Any = _MISSING) -> T | Any:
        """The value, or ``default`` (else the declared default) when absent."""
        return st.session_state.get(self.name, self.default if default is _MISSING
                                    else default)

    def set(self, value: T) -> None:
        st.session_state[self.name] = value

    def pop(self, default: Any = None) -> T | Any:
        return st.session_state.pop(self.name, default)

    def has(self) -> bool:
        return self.name in st.session_state

    def init(self, default: Any = _MISSING) -> str:
        """Put the default in place when the key is absent and return the key's name: a widget
        is created as ``st.toggle(..., key=KEY.init())`` without a value argument."""
        if self.name not in st.session_state:
            value = self.default if default is _MISSING else default
            st.session_state[self.name] = copy.copy(value)  # never share a mutable default
        return self.name


@dataclass(frozen=True)
class KeyFamily:
    """Keys ``prefix + suffix`` (one per target, per run …) with one owner."""

    prefix: str
    owner: str
    doc: str
    default: Any = None

    def of(self, suffix) -> Key:
        return Key(f"{self.prefix}{suffix}", self.owner, self.doc, self.default)


#: every declared key by name, and every family by prefix
KEYS: dict[str, Key] = {}
FAMILIES: dict[str, KeyFamily] = {}


def declare(name: str, owner: str, doc: str, **kw) -> Key:
    """Declare a key (once: a second declaration of a name is an error)."""
    if name in KEYS or any(name.startswith(p) for p in FAMILIES):
        raise ValueError(f"session state key {name!r} is declared twice")
    KEYS[name] = k = Key(name, owner, doc, **kw)
    return k


def family(prefix: str, owner: str, doc: str, **kw) -> KeyFamily:
    if prefix in FAMILIES or any(n.startswith(prefix) for n in KEYS):
        raise ValueError(f"session state key family {prefix!r} clashes with a declared key")
    FAMILIES[prefix] = f = KeyFamily(prefix, owner, doc, **kw)
    return f


def keep_remembered() -> None:
    """Streamlit forgets the value of a widget that a script run does not draw (its page is not
    the one shown, or the page stopped before it: no results for new data yet). The keys
    declared with ``remember=True`` — a study page's choices: its grid, its metric, its
    methods — keep theirs: the frame calls this at the start of every run."""
    for k in KEYS.values():
        if k.remember and k.name in st.session_state:
            st.session_state[k.name] = st.session_state[k.name]


def owner_of(name: str) -> str | None:
    """The owner of a key name (declared or in a family); None when it is not declared."""
    if name in KEYS:
        return KEYS[name].owner
    for prefix, fam in FAMILIES.items():
        if name.startswith(prefix):
            return fam.owner
    return None


def restore(name: str, value: Any) -> None:
    """Set the declared key ``name`` (a value read from a link)."""
    if owner_of(name) is None:
        raise KeyError(f"session state key {name!r} is not declared in pages/_state.py")
    st.session_state[name] = value


# --- the frame: data, run, messages --------------------------------------------------------------
DATA: Key[DataBundle] = declare("data", FRAME, "the data set the sidebar loaded")
DATA_REQ: Key[dict] = declare(
    "data_req", FRAME, "how the current data was asked for (kind, n, seed, name): for links")
LOAD_REQUEST: Key[dict] = declare(
    "load_request", FRAME, "a data load asked for by the sidebar or a link, not yet applied")
LOAD_ERROR: Key[str] = declare("load_error", FRAME, "why the last load failed (shown once)")
RUN: Key[RunRecord] = declare("run", FRAME, "the finished run every page draws")
RUN_ERROR: Key[dict] = declare(
    "run_error", FRAME, "{key, message}: why a run failed, for the choices it failed for")
RUN_PRESSED: Key[bool] = declare(
    "run_pressed", FRAME, "Run was pressed (cleared when the frame's run attempt has ended)")
TRIED_KEY: Key[tuple] = declare(
    "_tried_key", FRAME, "the run key last tried automatically (no retry loop on failure)")
PENDING_PARAMS: Key[dict] = declare(
    "pending_params", FRAME, "parameter values a page asked for (a landscape cell), by name")
PARAM_NOTES: Key[list] = declare(
    "param_notes", FRAME, "messages about values that were clamped into a widget's range")
SUGGESTED: Key[dict] = declare(
    "suggested", FRAME, "{fingerprint, significance, delta1, delta2}: the thresholds "
    "'Suggest from the data' put in the inputs (suggested again for new data while unchanged)")
PINNED: Key[RunRecord] = declare("pinned", FRAME, "the run pinned for What changed")
DATA_NAMES: Key[dict] = declare(
    "data_names", FRAME, "{fingerprint: description} of the data this session loaded (what a "
    "kept result's data are called)")
SET_ASIDE: Key[dict] = declare(
    "set_aside", FRAME, "{source, items: {data: [what]}, fingerprint}: what the last data "
    "change set aside (kept results of other data), said until the next load or dismissed")
CHOSEN_TARGET: Key[int] = declare(
    "chosen_target", FRAME, "the target category shared by every page's chooser (in links as "
    "target=<its display name>, see pages/_share.py)")
TARGET_SORT: Key[str] = declare("target_sort", FRAME, "the order of the target choosers",
                                default="order")
#: each page's target chooser (``pick_target(result, key)``) and its sort control
#: (``<key>_sort``); a page with a new chooser declares its key here
TARGET_CHOOSER: dict[str, Key] = {
    k: declare(k, FRAME, f"the target chooser of {page}")
    for k, page in (("ov_target", "Overview"), ("sk_target", "Label skeleton"),
                    ("ls_target", "Local structure"), ("rc_target", "Recovery"),
                    ("pr_target", "Pruning"), ("st_target", "Step through"),
                    ("ex_target", "Export"))}
TARGET_SORT_OF: dict[str, Key] = {
    k: declare(f"{k}_sort", FRAME, f"the order of {k}'s chooser") for k in TARGET_CHOOSER}
NAV_RERUN: Key[bool] = declare(
    "_camcf_nav_rerun", FRAME, "the navigation guard's one rerun (pages/_nav.py)")

# --- the frame: links ----------------------------------------------------------------------------
URL_READ: Key[bool] = declare("_url_read", FRAME, "the link was read (first run of a session)")
URL_PROBLEMS: Key[list] = declare("url_problems", FRAME, "entries of the link that were refused")
URL_VIEW: Key[dict] = declare(
    "url_view", FRAME, "view entries of a link that need the run (target, step, pin, grid)")

# --- the frame: sidebar widgets --------------------------------------------------------------------
SRC_KIND: Key[str] = declare("src_kind", FRAME, "data source radio", default="Built-in demo")
DEMO_N: Key[int] = declare("demo_n", FRAME, "demo samples", default=1000)
DEMO_SEED: Key[int] = declare("demo_seed", FRAME, "demo seed", default=0)
SHARED_NAME: Key[str] = declare("shared_name", FRAME, "shared data set chooser")
NET_NAME: Key[str] = declare("net_name", FRAME, "known network chooser", default="alarm")
NET_LABELS: Key[str] = declare("net_labels", FRAME, "the known network's labels (names or "
                               "auto:K)", default="auto:5")
NET_N: Key[int] = declare("net_n", FRAME, "rows sampled from the known network", default=1000)
NET_SEED: Key[int] = declare("net_seed", FRAME, "the known network's sampling seed", default=0)
AUTO_RUN: Key[bool] = declare("auto_run", FRAME, "apply parameter changes at once",
                              default=False)

#: widget keys of the declared parameters (kept stable: tests and links use them)
_PARAM_KEY = {**{p.name: f"p_{p.name}" for p in ALGORITHM_PARAMS},
              "min_category_size": "p_min_cat", "discretize": "d_mode", "bins": "d_bins",
              "strategy": "d_strategy"}
def _number_default(p):
    """The default a parameter's widget holds (a number parameter whose default is a word such
    as "auto" holds the low end of its range; its word toggle is on)."""
    return p.ui_range()[0] if p.words and p.default in p.words else p.default


#: parameter name -> the key of its widget (the value run, or the number beside a word)
PARAM: dict[str, Key] = {
    p.name: declare(_PARAM_KEY.get(p.name, f"p_{p.name}"), FRAME,
                    f"parameter {p.name} (sidebar)", default=_number_default(p))
    for p in (*ALGORITHM_PARAMS, *DISCRETIZE_PARAMS)}
#: parameter name -> the key of the toggle of a number parameter that also takes a word
#: (``Param.words``, e.g. δ1 = "auto"): on, the run gets the word instead of the number
WORD: dict[str, Key] = {
    p.name: declare(f"w_{p.name}", FRAME, f"parameter {p.name} is {p.words[0]!r} (sidebar)",
                    default=p.default == p.words[0])
    for p in (*ALGORITHM_PARAMS, *DISCRETIZE_PARAMS) if p.words}

# --- pages -------------------------------------------------------------------------------------
ST_PHASES: Key[list] = declare(
    "st_phases", "pages/step_through.py", "Step through: the phases shown",
    default=[1, 2, 3, 4], url="phases", codec=INTS)
ST_HIDE: Key[bool] = declare(
    "st_hide", "pages/step_through.py", "Step through: group routine rows", default=True,
    url="routine_grouped", codec=BOOL)
STEP_POS = family("st_pos_", "pages/step_through.py", "Step through: position per target",
                  default=1)
PRUNE_PICK = family("pr_pick_", "pages/pruning.py", "Pruning: the feature explained, per target")
WC_QUERY: Key[str] = declare("wc_query", "pages/what_changed.py", "What changed: search",
                             default="", url="wc_find", codec=TEXT)
WC_CHANGED_ONLY: Key[bool] = declare(
    "wc_changed_only", "pages/what_changed.py", "What changed: changed categories only",
    default=True, url="wc_changed", codec=BOOL)
WC_SORT: Key[str] = declare(
    "wc_sort", "pages/what_changed.py", "What changed: sort", default="flattened order",
    url="wc_sort", codec=TEXT,
    choices=("flattened order", "most change", "flips", "category size"))
LANDSCAPE: Key[Kept] = declare(
    "landscape", "pages/landscape.py", "Kept(Landscape): the last landscape computed")
LS_APPLIED: Key[tuple] = declare(
    "ls_applied", "pages/landscape.py", "the landscape cell last applied (once per click)")
LS_PRESET: Key[tuple] = declare("ls_preset", "pages/landscape.py", "landscape: the grid pair",
                                remember=True)
LS_METRIC_ON: Key[bool] = declare("ls_metric_on", "pages/landscape.py",
                                  "landscape: also score with ML-kNN", default=False,
                                  remember=True)
LS_METRIC: Key[str] = declare("ls_metric", "pages/landscape.py", "landscape: the metric",
                              remember=True)
LS_BASIS: Key[tuple] = declare(
    "ls_basis", "pages/landscape.py", "the data (data_id) the threshold axes' ranges were set "
    "around; other data reset them around their thresholds")
#: the Threshold landscape's tabs (the first is the landscape itself)
LS_TABS = ("Features selected", "Tune")
LS_TAB: Key[str] = declare("ls_tab", "pages/landscape.py", "Threshold landscape: the tab shown",
                           default=LS_TABS[0], url="ls_tab", codec=TEXT, choices=LS_TABS)
TUNE: Key[Kept] = declare(
    "tune", "pages/landscape.py", "Kept(TuneResult): the last tuning of the landscape's grid")
TUNE_APPLIED: Key[tuple] = declare(
    "tune_applied", "pages/landscape.py", "the tuned cell last applied (once per click)")
TUNE_METRIC: Key[str] = declare("tune_metric", "pages/landscape.py", "Tune: the metric scored",
                                remember=True)
#: (param, "lo" | "hi" | "steps") -> the landscape's input for one end of an axis
LS_AXIS: dict[tuple[str, str], Key] = {
    (p, part): declare(f"ls_{p}_{part}", "pages/landscape.py", f"landscape: {p} {part}",
                       remember=True)
    for p in ("delta1", "delta2", "k1", "k2") for part in ("lo", "hi", "steps")}
EVAL_KEY: Key[tuple] = declare("eval_key", "pages/evaluation.py",
                               "Evaluation: the key of the evaluation shown")
SENS_KEY: Key[tuple] = declare("sens_key", "pages/evaluation.py",
                               "Evaluation: the key of the sensitivity study shown")
CMP_RESULT: Key[Kept] = declare("cmp_result", "pages/compare.py",
                                "Compare methods: Kept(the last comparison)")
CMP_METHODS: Key[list] = declare("cmp_methods", "pages/compare.py",
                                 "Compare methods: the methods chosen", remember=True)
CMP_DEFAULT: Key[dict] = declare(
    "cmp_default", "pages/compare.py", "Compare methods: {data, methods} the default method "
    "set offered last (a choice equal to it follows the data; a changed one is kept)")
TRUTH_CURVE: Key[Kept] = declare(
    "truth_curve", "pages/overview.py", "Kept(payload): the last F1 against n")
TC_METHODS: Key[list] = declare("tc_methods", "pages/overview.py", "F1 against n: the methods",
                                default=["current", "camcf-auto", "mi-mcf", "pc", "random"])
TC_NS: Key[str] = declare("tc_ns", "pages/overview.py", "F1 against n: the sample sizes",
                          default="250,500,1000,2000")
TC_SEEDS: Key[int] = declare("tc_seeds", "pages/overview.py", "F1 against n: seeds per n",
                             default=3)


def _setting_keys(page: str, title: str, names: dict[str, str]) -> dict[str, Key]:
    """The widget keys of a study page's protocol and ML-kNN settings: ``{setting: Key}``, each
    defaulting to its declaration's default (the names of the keys kept as they were)."""
    decl = {p.name: p for p in (*EVAL_PARAMS, *KNN_PARAMS)}
    return {name: declare(key, page, f"{title}: {name} ({decl[name].help})",
                          default=decl[name].default, remember=True)
            for name, key in names.items()}


#: the Evaluation page's protocol and ML-kNN widgets, by setting name
EV_SETTING: dict[str, Key] = _setting_keys(
    "pages/evaluation.py", "Evaluation",
    {"protocol": "ev_protocol", "n_repeats": "ev_repeats", "n_folds": "ev_folds",
     "test_size": "ev_test_size", "seed": "ev_seed", "k": "ev_k", "neighbours": "ev_neighbours"})
#: the Compare page's protocol and ML-kNN widgets, by setting name
CMP_SETTING: dict[str, Key] = _setting_keys(
    "pages/compare.py", "Compare methods",
    {"protocol": "cmp_protocol", "n_repeats": "cmp_repeats", "n_folds": "cmp_folds",
     "test_size": "cmp_test", "seed": "cmp_seed", "k": "cmp_k", "neighbours": "cmp_nb"})

# --- study jobs (pages/_jobs.py) ----------------------------------------------------------------
JOBS: Key[dict] = declare(
    "jobs_running", "pages/_jobs.py",
    "this session's running jobs: {slot: job id} (a slot is one study of one page)", default={})
JOB_MESSAGES: Key[dict] = declare(
    "jobs_messages", "pages/_jobs.py",
    "the last outcome of each slot to show (stopped, failed, refused): {slot: (kind, text)}",
    default={})
JOB_PAGE: Key[str] = declare(
    "jobs_page", "pages/_jobs.py", "the url path of the page this script run draws")
JOB_OWNER: Key[str] = declare(
    "jobs_owner", "pages/_jobs.py", "a random id of this session (the owner of its jobs)")


def url_keys() -> list[Key]:
    """The declared keys that travel in links as they are (``url`` and ``codec`` set)."""
    return [k for k in KEYS.values() if k.url and k.codec is not None]

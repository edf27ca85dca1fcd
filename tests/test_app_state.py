"""The app's frame and state (issue 15 item 6): every session-state key declared once in
``pages/_state.py`` with one owner and used through typed accessors; one progress box; one cache
class; errors worded by the app from their structured fields; the data discretised once for the
load check and the run."""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("streamlit")

from support import REPO, new_app, run_button, upload  # noqa: E402

import camcf  # noqa: E402
from camcf.lru import BoundedLRU  # noqa: E402
from pages import _state as S  # noqa: E402
from pages._words import FIX, say, say_warning  # noqa: E402

APP_FILES = sorted([REPO / "app.py", *(REPO / "pages").glob("*.py")])
WRITES = {"set", "pop", "init"}


def _rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def _is_session_state(node) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "session_state"


# ------------------------------------------------------------------------------ declared keys
def test_session_state_is_touched_only_in_the_state_module():
    """No string keys on st.session_state anywhere but pages/_state.py; widget keys that the
    state module declares are passed as KEY.init() / KEY.name, never as a literal."""
    declared = set(S.KEYS)
    found = []
    for path in APP_FILES:
        if path.name == "_state.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if _is_session_state(node):
                found.append(f"{_rel(path)}:{node.lineno}: st.session_state")
            if isinstance(node, ast.keyword) and node.arg == "key" and isinstance(
                    node.value, ast.Constant) and node.value.value in declared:
                found.append(f"{_rel(path)}:{node.value.lineno}: key={node.value.value!r}")
    assert not found, "\n".join(found)


def _key_of(node, aliases: dict):
    """The declared Key a node stands for (S.X, S.X[...], S.F.of(...), or a name bound to
    one of these in the same file), else None."""
    if isinstance(node, ast.Name):
        return aliases.get(node.id)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
            node.value.id == "S":
        obj = getattr(S, node.attr, None)
        return obj if isinstance(obj, S.Key) else None
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and \
            isinstance(node.value.value, ast.Name) and node.value.value.id == "S":
        table = getattr(S, node.value.attr, None)
        if isinstance(table, dict) and table:
            owners = {k.owner for k in table.values()}
            return next(iter(table.values())) if len(owners) == 1 else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr == "of" and isinstance(node.func.value, ast.Attribute) and \
            isinstance(node.func.value.value, ast.Name) and node.func.value.value.id == "S":
        fam = getattr(S, node.func.value.attr, None)
        return fam.of("") if isinstance(fam, S.KeyFamily) else None
    return None


def _writes(path: Path) -> list[tuple[int, S.Key]]:
    tree = ast.parse(path.read_text())
    aliases: dict = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], ast.Name):
            k = _key_of(node.value, aliases)
            if k is not None:
                aliases[node.targets[0].id] = k
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in WRITES:
            k = _key_of(node.func.value, aliases)
            if k is not None:
                out.append((node.lineno, k))
    return out


def test_each_key_is_written_only_by_its_owner():
    wrong, seen = [], 0
    for path in APP_FILES:
        name = _rel(path)
        for line, k in _writes(path):
            seen += 1
            allowed = S.FRAME_FILES if k.owner == S.FRAME else (k.owner,)
            if name not in allowed:
                wrong.append(f"{name}:{line} writes {k.name!r} (owner {k.owner})")
    assert seen > 30  # the scan finds the writes
    assert not wrong, "\n".join(wrong)


def test_every_owner_is_the_frame_or_a_page_file():
    pages = {_rel(p) for p in APP_FILES}
    for k in S.KEYS.values():
        assert k.owner == S.FRAME or k.owner in pages, k
        assert k.doc, k
    for f in S.FAMILIES.values():
        assert f.owner == S.FRAME or f.owner in pages, f


def test_a_key_cannot_be_declared_twice():
    with pytest.raises(ValueError, match="declared twice"):
        S.declare("run", S.FRAME, "again")
    with pytest.raises(ValueError, match="declared twice"):
        S.declare("st_pos_3", S.FRAME, "inside a family")
    assert S.owner_of("st_pos_12") == "pages/step_through.py"
    assert S.owner_of("no_such_key") is None


# ------------------------------------------------------------------------------ one helper each
def test_one_cache_class():
    """The app keeps its bounded stores in camcf.lru.BoundedLRU; no hand-written eviction."""
    for path in APP_FILES:
        src = path.read_text()
        assert "popitem(" not in src and "pop(next(iter(" not in src, _rel(path)
    lru = BoundedLRU(2)
    made = []
    for k in ("a", "b", "a", "c", "a"):
        lru.get_or_put(k, lambda k=k: made.append(k) or k.upper())
    assert made == ["a", "b", "c"] and len(lru) == 2 and lru.get("b") is None
    with pytest.raises(ValueError):
        BoundedLRU(0)


def _progress_script():
    import streamlit as st

    from pages._common import progress_box

    with progress_box("Working…", unit="parts", finished="Done in {seconds:.0f} s") as progress:
        for i in range(3):
            progress(i, 3, f"part {i + 1}")
        st.write("inside the box")
    if st.session_state.get("fail"):
        with progress_box("Failing…") as progress:
            raise RuntimeError("boom")


def test_the_progress_box():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_progress_script, default_timeout=30)
    at.run()
    assert not at.exception
    box = at.status[0]
    assert box.label == "Done in 0 s" and not box.proto.expanded
    assert box.proto.state == box.proto.State.COMPLETE
    assert "inside the box" in [m.value for m in at.markdown]
    at.session_state["fail"] = True
    at.run()
    assert at.exception and "boom" in at.exception[0].value
    assert at.status[1].label == "Failing… stopped"
    assert at.status[1].proto.state == at.status[1].proto.State.ERROR


def test_app_py_draws_no_progress_box_of_its_own():
    assert "st.status(" not in (REPO / "app.py").read_text()


# ------------------------------------------------------------------------------ errors, worded
def _arff_without_labels() -> bytes:
    rows = "\n".join(f"{i % 3},{i % 2}" for i in range(40))
    return (f"@relation x\n@attribute a numeric\n@attribute b {{0,1}}\n@data\n{rows}\n").encode()


def _error_of(fn, *args, **kw) -> camcf.CamcfError:
    with pytest.raises(camcf.CamcfError) as e:
        fn(*args, **kw)
    return e.value


def test_errors_are_worded_from_their_fields():
    from camcf.algorithm_params import by_name
    from camcf.io import load_bytes

    e = _error_of(load_bytes, _arff_without_labels(), "x.arff")
    assert e.fix == "labels" and e.problem.startswith("x.arff: the label columns are unknown")
    assert "--labels" in str(e)  # the command line's words stay in the message
    text = say(e)
    assert text == f"{e.problem}; {FIX['labels']}"
    assert "--" not in text and "labels=" not in text and "Label columns" in text
    e = _error_of(by_name()["delta1"].validate, -1)
    assert e.allowed.startswith("in [0, inf)") and say(e) == f"δ1 must be {e.allowed}, got -1"
    e = _error_of(by_name()["k1"].validate, 0)
    assert say(e) == "k1 must be in (0, 1], got 0"
    # an error without fields is shown as its message
    assert say(camcf.DataFormatError("x.csv: file not found")) == "x.csv: file not found"


def test_a_mat_file_with_two_pairs_names_the_variables_chooser(tmp_path):
    import scipy.io

    from camcf.io import load

    rng = np.random.default_rng(0)
    path = tmp_path / "two.mat"
    scipy.io.savemat(path, {"train_data": rng.integers(0, 2, (20, 3)),
                            "train_target": rng.integers(0, 2, (20, 2)),
                            "test_data": rng.integers(0, 2, (20, 3)),
                            "test_target": rng.integers(0, 2, (20, 2))})
    e = _error_of(load, str(path))
    text = say(e)
    assert "choose one under Variables" in text and "variable=" not in text
    assert "--variable" not in text and "train_data" in text


def test_nothing_selected_warning_is_worded_from_its_fields(demo):
    from camcf.discretize import discretize

    ds = demo.dataset
    codes, _ = discretize(ds.X)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", camcf.CamcfWarning)
        camcf.run(codes, ds.Y, delta1=0.99)
    w = next(c.message for c in caught if "selected no feature" in str(c.message))
    assert "delta1" in str(w)
    assert say_warning(w) == f"Ca-MCF selected no feature with these parameters; {FIX['thresholds']}"


def test_the_app_words_a_load_error_without_command_line_flags():
    """The landed app reworded messages by regex: a changed library message leaked
    '--labels NAMES' and "labels='last:K'" into the sidebar's error."""
    at = upload(new_app(), _arff_without_labels(), "nolabels.arff")
    assert not at.exception
    err = " ".join(e.value for e in at.error)
    assert "nolabels.arff" in err and "Label columns" in err
    assert "--" not in err and "labels=" not in err and "label=" not in err


def test_a_parameter_error_of_a_run_names_the_symbol(monkeypatch):
    """A run refused by the library's validation: the app says δ1 and the allowed range."""
    import app

    at = new_app()
    rec = at.session_state[S.RUN.name]
    with pytest.raises(camcf.ParameterError) as e:
        app.execute(rec.data, rec.disc, {**rec.params, "delta1": -0.5})
    assert say(e.value) == f"δ1 must be {e.value.allowed}, got -0.5"


# ------------------------------------------------------------------------------ one validation
def test_a_load_and_its_run_discretise_the_data_once(monkeypatch):
    """The landed load check discretised the data to throw the codes away; the run did it
    again. Now the checked codes are the run's."""
    import camcf.discretize as disc_module

    calls = []
    real = disc_module.discretize

    def counting(X, *a, **kw):
        calls.append(np.shape(X))
        return real(X, *a, **kw)

    at = new_app()
    monkeypatch.setattr(disc_module, "discretize", counting)
    rng = np.random.default_rng(4)
    x = rng.normal(size=(150, 5))
    lines = ["a,b,c,d,e,L1,L2"] + [",".join(f"{v:.3f}" for v in r) + f",{int(r[0] > 0)},"
                                   f"{int(r[1] > 0)}" for r in x]
    upload(at, "\n".join(lines).encode(), "once.csv", labels=["L1", "L2"])
    assert not at.exception and not at.error, [e.value for e in at.error]
    rec = at.session_state[S.RUN.name]
    assert rec.data.description.startswith("once.csv")  # loaded, checked and run
    assert calls == [(150, 5)]
    # a new discretisation is checked and run with one more discretisation, not two
    at.number_input(key=S.PARAM["bins"].name).set_value(4)
    run_button(at).click().run()
    assert at.session_state[S.RUN.name].disc["bins"] == 4
    assert calls == [(150, 5), (150, 5)]


def test_a_cached_run_is_shown_with_the_data_source_of_the_session_asking():
    """Landed (seen in Chromium): an upload of yeast whose run was already cached from the
    shared folder (same data, same choices, any session) showed "Data: yeast (shared data
    folder)" and exported the shared folder's paths. The cached result is reused, with the
    asking session's data and source."""
    import dataclasses

    import app
    from camcf.algorithm_params import ALGORITHM_PARAMS, DISCRETIZE_PARAMS

    shared = app.demo_bundle(300, 11)
    upload = dataclasses.replace(shared, description="demo.csv (uploaded)",
                                 source={**shared.source, "kind": "upload"})
    params = {p.name: p.default for p in ALGORITHM_PARAMS}
    disc = {p.name: p.default for p in DISCRETIZE_PARAMS}
    first = app.cached_run(shared, disc, params)
    again = app.cached_run(upload, disc, params)
    assert again.result is first.result  # not run twice
    assert again.data is upload and first.data is shared
    assert app.cached_run(shared, disc, params).data is shared


def test_make_run_starts_without_the_file_watcher_unless_a_developer_asks():
    """Streamlit's file watcher costs CPU on a big tree: `make run` turns it off, `make run
    DEV=1` keeps it (the README says so)."""
    import shutil
    import subprocess

    if shutil.which("make") is None:
        pytest.skip("make is not installed")

    def command(*extra: str) -> str:
        out = subprocess.run(["make", "-n", "-W", "pyproject.toml", "run", *extra], cwd=REPO,
                             capture_output=True, text=True, check=True).stdout
        return out[out.index("streamlit run"):]

    assert "--server.fileWatcherType none" in command()
    assert "--server.fileWatcherType auto" in command("DEV=1")
    assert "make run DEV=1" in (REPO / "README.md").read_text()

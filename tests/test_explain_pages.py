"""The explaining pages through AppTest: the demo's story on Overview, the step-through that
never hides everything (and names the right variable), the pruning page's redundancy words.

Each test here failed on the landed code (main at 3054e4e) for the defect its docstring names.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402
from support import app_test  # noqa: E402

from camcf.viz import summary  # noqa: E402

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def _app() -> AppTest:
    at = app_test(APP, default_timeout=90)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture(scope="module")
def app() -> AppTest:
    return _app()


def goto(at, page: str) -> AppTest:
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def sentence(at) -> str:
    return next(h.proto.body for h in at.get("html") if "camcf-sentence" in h.proto.body)


def decision_table(at) -> dict:
    for d in [*at.dataframe, *at.table]:
        v = d.value.map(lambda s: re.sub(r"\\(.)", r"\1", s) if isinstance(s, str) else s)
        if "" in v.columns and "decided about" in set(v[""]):
            return dict(zip(v[""], v["value"], strict=True))
    raise AssertionError("no 'This decision' table")


def test_overview_tells_the_demo_story_first_and_it_agrees_with_found_vs_true(app):
    """Landed defect: the notes ("f11 is found as a spouse", "f05 a true spouse") sat collapsed
    at the bottom of Overview and contradicted Found vs true."""
    at = goto(app, "pages/overview.py")
    heads = [s.value for s in at.subheader]
    assert "About the demo data: what this run did" in heads
    assert heads.index("About the demo data: what this run did") < heads.index("Data")
    assert not [e for e in at.expander if "About the demo data" in e.label]  # not collapsed
    from camcf.viz.story import demo_story

    rec = at.session_state["run"]
    tt = summary.truth_table(rec.result, rec.data.truth)
    missed = {f.strip() for f in tt.loc["overall", "missed features"].split(",") if f.strip()}
    assert {"f05", "f11"} <= missed
    md = "\n".join(m.value for m in at.markdown)
    for sec in demo_story(rec.result, rec.data.truth, rec.data.graph):
        for line in sec.lines:
            assert line.text in md
    bullets = ["- " + b for b in ("\n" + md).split("\n- ")[1:] if b.startswith("**")]
    for f in ("f05", "f11"):
        mine = [b for b in bullets if b.startswith(f"- **{f}**")]
        assert mine and all("**missed**" in b and "found: a true positive" not in b
                            for b in mine), mine


def test_step_through_names_the_removed_feature_and_the_conditioning_set(app):
    """Landed defects: "This decision" named A=0 as the variable when f00 was removed; the
    spouse-screen sentence said "on its own" though the test was given R = {A=0}."""
    at = goto(app, "pages/step_through.py")
    res = at.session_state["run"].result
    tid = res.target("B=0").id
    at.selectbox(key="st_target").set_value(tid).run()
    at.toggle(key="st_hide").set_value(False).run()
    df = res.to_frame(tid)
    red = int(df.index[(df["step"] == "redundancy") & (df["decision"] == "dominates")][0])
    at.slider(key=f"st_pos_{tid}").set_value(red + 1).run()
    table = decision_table(at)
    assert table["decided about"] == "f00" and table["explained by"] == "A=0"
    assert "f00 is removed as redundant" in sentence(at)
    scr = int(df.index[(df["step"] == "spouse-screen") & (df["decision"] == "tested")][0])
    at.slider(key=f"st_pos_{tid}").set_value(scr + 1).run()
    s = sentence(at)
    assert "| A=0)" in s and "given A=0" in s and "on its own" not in s
    assert decision_table(at)["given"] == "A=0"


def test_step_through_groups_routine_rows_into_one_line(app):
    """Landed defect: with 'Hide routine rows' on, 22 of the 43 rows shown for B=0 were
    routine spouse-screen passes; now each run of them is one line you can open."""
    at = goto(app, "pages/step_through.py")
    res = at.session_state["run"].result
    tid = res.target("B=0").id
    at.selectbox(key="st_target").set_value(tid).run()
    at.toggle(key="st_hide").set_value(True).run()
    cap = next(c.value for c in at.caption if "decisions shown" in c.value)
    shown = int(cap.split()[0])
    assert shown < 30 and "routine ones grouped into" in cap  # 101 rows; 43 shown before
    from camcf.viz.explain import step_items

    n = len(res.to_frame(tid))
    # the group of spouse-screen passes: one line, its rows in an expander
    df = res.to_frame(tid)
    items = step_items(df)
    assert len(items) == shown
    scr = int(df.index[(df["step"] == "spouse-screen") & (df["decision"] == "tested")][0])
    pos = next(i for i, it in enumerate(items) if scr in it.rows) + 1
    at.slider(key=f"st_pos_{tid}").set_value(pos).run()
    assert "passed the spouse screen" in sentence(at)
    assert "routine tests of phase 2" in sentence(at)
    ex = [e for e in at.expander if "routine decisions, one by one" in e.label]
    assert ex and "passes the spouse screen" in "\n".join(m.value for m in ex[0].markdown)
    at.toggle(key="st_hide").set_value(False).run()
    cap = next(c.value for c in at.caption if "decisions shown" in c.value)
    assert cap.startswith(f"{n} of {n} decisions shown")


def test_step_through_never_hides_everything():
    """Landed defect: a target whose rows are all routine showed "0 of N decisions shown. No
    decision matches the filter", with no hint which filter hid them."""
    at = _app()
    at.number_input(key="p_delta1").set_value(0.3).run()
    at.number_input(key="p_delta2").set_value(0.5).run()
    at.button(key="run_button").click().run()
    assert at.session_state["run"].params["delta1"] == 0.3
    goto(at, "pages/step_through.py")
    res = at.session_state["run"].result
    tid = res.target("D=0").id
    at.selectbox(key="st_target").set_value(tid).run()
    n = len(res.to_frame(tid))
    text = "\n".join([c.value for c in at.caption] + [i.value for i in at.info])
    assert "No decision matches" not in text
    cap = next(c.value for c in at.caption if "decisions shown" in c.value)
    assert not cap.startswith("0 of") and f"{n} routine ones grouped" in cap
    assert "routine tests of phase 1" in sentence(at)
    # a phase filter that leaves nothing: say so, and one click shows every phase again
    at.get("button_group")[0].set_value([3, 4]).run()
    warn = "\n".join(w.value for w in at.warning)
    assert f"The phase filter hides all {n} decisions" in warn and "phases 1, 2" in warn
    at.button(key="st_show_all").click().run()
    assert not at.warning and "routine tests of phase 1" in sentence(at)


def test_pruning_says_the_redundancy_tests_share_one_bound(app):
    """Landed defect: "removed as redundant: y7=0 explains it better (0.030 > 0.020)" was
    followed by "the closest, y3=0, has I = 0.019" without saying how the two relate."""
    at = goto(app, "pages/pruning.py")
    res = at.session_state["run"].result
    tid = res.target("C=0").id
    at.selectbox(key="pr_target").set_value(tid).run()
    f09 = res.feature_names.index("f09")
    at.selectbox(key=f"pr_pick_{tid}").set_value(f09).run()
    md = "\n".join(m.value for m in at.markdown)
    assert "f09 is removed as redundant by M=low" in md
    assert "tested before it, in flattened order, stayed at or under the same bound" in md
    assert "The test stops at the first category above the bound" in md

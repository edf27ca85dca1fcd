"""Every sentence the explorer says about a decision, checked against the record's fields.

Property-style: for the records of several runs (the demo, a shared real data set, and both
benchmark parameter settings), every row of every target is explained, and the explanation must
name the right subject variable (the removed feature for a redundancy removal), the right
comparison (value against δ1/δ2/δ1⁄2, against γ·s_f, or vf against vb), the conditioning set
whenever there is one, and a decision the numbers agree with. The demo's story is checked
against Found vs true at several samples and parameters.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from support import benchmark_module

import camcf
from camcf.datasets import DEMO_STORY, make_causal_multilabel
from camcf.discretize import discretize
from camcf.trace import DECISION_ROWS, STEPS
from camcf.viz import summary
from camcf.viz.explain import (
    ROUTINE,
    _pair,
    describe_cond,
    explain_row_full,
    explain_test,
    feature_path,
    feature_steps,
    feature_story,
    measured,
    redundancy_summary,
    routine_summary,
    step_items,
    subject_of,
)
from camcf.viz.story import demo_story, in_true_blanket, story_markdown, true_role

SETTINGS = benchmark_module("bench_settings").SETTINGS  # the two benchmark settings, declared once there

#: step -> the threshold the record compares with (a function of the run's parameters)
_D1 = {"feature-mi", "backward", "spouse-screen", "spouse", "symmetry"}
_D2 = {"label-mi", "label-cmi"}


def _demo_run(n=1000, seed=0, **params):
    demo = make_causal_multilabel(n, seed=seed)
    ds = demo.dataset
    codes, _ = discretize(ds.X)
    res = camcf.run(codes, ds.Y, feature_names=ds.feature_names, label_names=ds.label_names,
                    category_names=ds.category_names, **params)
    return demo, res


@pytest.fixture(scope="module")
def demo_runs():
    """(name, demo, result) for the demo at both benchmark settings and another sample."""
    out = []
    for name, params in SETTINGS.items():
        demo, res = _demo_run(**params)
        out.append((f"demo/{name}", demo, res))
    demo, res = _demo_run(600, seed=3, delta1=0.02, recovery="all")
    out.append(("demo/seed3-recovery-all", demo, res))
    return out


@pytest.fixture(scope="module")
def shared_runs():
    """The shared Flags data set (its ARFF, discretised by the defaults) at both settings."""
    from conftest import require_file

    from camcf.io import load

    ds = load(require_file("flags/flags.arff"), labels="last:7")
    return [(f"flags/{name}", camcf.run(ds, **params)) for name, params in SETTINGS.items()]


def _check_explanation(res, t, row) -> str:
    """Assert one explanation against its record row; return the (step, decision) checked."""
    e = explain_row_full(row, res)
    step, dec = row["step"], row["decision"]
    a, b, aux = int(row["a"]), int(row["b"]), int(row["aux"])
    v, thr = float(row["value"]), float(row["threshold"])
    p = res.params
    where = f"{t.category.display} {step}/{dec}: {e.text}"
    # the subject: the variable decided about (the removed feature for a redundancy removal)
    subj = a if step == "redundancy" else b
    assert e.subject == subj == subject_of(step, a, b), where
    assert e.subject_name == res.var_name(subj, t.id), where
    assert e.text.startswith(e.subject_name + " ") or e.text.startswith(e.subject_name + ","), \
        where
    table = dict(zip(*e.table().values(), strict=True))
    assert table["decided about"] == e.subject_name, where
    if step == "redundancy":
        assert subj < res.n_features and b >= res.n_features, where  # a feature, a category
        assert table["explained by"] == res.var_name(b, t.id) and e.other_name in e.text, where
    if step in ("recovery", "spouse"):
        assert e.other == aux and res.var_name(aux, t.id) in e.text, where
    # the comparison: what the value is compared with, and the numbers shown
    vs, ts = _pair(v, thr)
    assert vs in e.text, where
    if step in _D1:
        assert e.reference == "δ1" and thr == p["delta1"] and f"δ1 = {ts}" in e.text, where
    elif step in _D2:
        assert e.reference == "δ2" and thr == p["delta2"] and f"δ2 = {ts}" in e.text, where
    elif step == "recovery-skip":
        assert e.reference == "δ1/2" and thr == pytest.approx(p["delta1"] / 2), where
        assert f"δ1/2 = {ts}" in e.text, where
    elif step == "redundancy":
        sf = float(res.mi_table[a, t.id])
        assert thr == pytest.approx(p["gamma"] * sf), where
        assert e.reference.startswith("γ·s") and f"{ts} bits" in e.text, where
        assert f"I({e.subject_name}; {e.other_name})" in e.text, where
    elif step == "recovery":  # vf against vb: the blocker's own value, given the same set
        blocker = res.var_name(aux, t.id)
        assert e.reference.startswith(f"I({blocker}; {t.category.display}"), where
        assert f"{e.reference} = {ts} bits" in e.text, where
    elif step == "k2-cut":
        kept_s = [float(res.mi_table[f, t.id]) for f in t.after_cut]
        assert thr == pytest.approx(min(kept_s)), where  # s of the last feature kept
    elif step == "blocker":
        assert e.op is None and np.isnan(thr), where
    # a decision the numbers agree with (compared as the algorithm compares: 12 decimals)
    rv, rt = round(v, 12), round(thr, 12)
    ok = {">": rv > rt, "≤": rv <= rt, "<": rv < rt, "≥": rv >= rt, None: True}[e.op]
    assert ok, where
    if e.op is not None:
        assert f" {e.op} " in e.text, where
    # ... and the sets the decision changed
    f = subj
    if (step, dec) == ("feature-mi", "kept"):
        assert f in t.candidates, where
    if (step, dec) == ("feature-mi", "cut-k1"):
        assert f in t.candidates_all and f not in t.candidates, where
    if (step, dec) == ("label-cmi", "accepted"):
        assert b - res.n_features in t.skeleton, where
    if (step, dec) == ("spouse", "spouse"):
        assert aux in t.spouses.get(f, ()), where
    if (step, dec) == ("recovery", "recovered"):
        assert (f, aux - res.n_features) in t.recovered, where
    if (step, dec) == ("k2-cut", "cut-k2"):
        assert f in t.cut, where
    if (step, dec) == ("symmetry", "removed"):
        assert f in t.symmetry_removed, where
    if (step, dec) == ("redundancy", "dominates"):
        assert (f, b - res.n_features) in {(x, d) for x, d, *_ in t.redundancy_removed}, where
    # the conditioning set, whenever there is one
    cond = tuple(row["cond"])
    given = describe_cond(cond, res, t.id)
    assert e.given == cond and e.given_text == given, where
    if cond:
        assert f"| {given}" in e.text or f"given {given}" in e.text, where
        assert table["given"] == given, where
        if step == "spouse-screen":
            assert "on its own" not in e.text, where
    else:
        assert " | " not in e.text.split("(")[0] or step == "recovery", where
        if step == "spouse-screen":
            assert "on its own" in e.text, where
    assert e.text.endswith("."), where
    assert "n/a" not in e.text, where
    return step, dec


def _check_run(res) -> set:
    seen = set()
    for t in res.targets:
        if t.skipped:
            continue
        for _, row in res.to_frame(t.id).iterrows():
            seen.add(_check_explanation(res, t, row))
    return seen


def test_every_sentence_agrees_with_its_record_row_demo(demo_runs):
    seen = set()
    for _name, _demo, res in demo_runs:
        seen |= _check_run(res)
    assert {s for s, _ in seen} == set(STEPS)  # every step type was checked
    assert ("redundancy", "dominates") in seen and ("spouse-screen", "tested") in seen
    assert ("recovery", "recovered") in seen and ("backward", "removed") in seen


def test_every_sentence_agrees_with_its_record_row_shared_data(shared_runs):
    seen = set()
    for _name, res in shared_runs:
        seen |= _check_run(res)
    assert len({s for s, _ in seen}) >= 9


def test_recovery_counts_cover_every_feature_outside_the_pc_and_spouses(demo_runs, shared_runs):
    """The Recovery page's numbers, from the record: each feature outside PC ∪ SP is skipped,
    tried or not reached, and the features not reached are those after the last recovered
    one, left when the scan ended early (landed defect: the page said "Not tried (s_f <
    δ1/2): 0" for the demo's B=0, whose scan stopped at its first feature and never looked at
    the 22 others)."""
    runs = [res for _, _, res in demo_runs] + [res for _, res in shared_runs]
    ended = set()
    for res in runs:
        for t in res.targets:
            if t.skipped or not t.skeleton:
                continue
            n = summary.recovery_counts(res, t.id)
            df = res.to_frame(t.id, names=False)
            skip = df[df["step"] == "recovery-skip"]
            comp = df[df["step"] == "recovery"]
            where = f"{t.category.display}, recovery={res.params['recovery']}"
            assert n["skipped"] == len(skip) == skip["b"].nunique(), where
            assert n["lost"] == int((comp["decision"] == "lost").sum()), where
            assert n["recovered"] == int((comp["decision"] == "recovered").sum()), where
            assert n["tried"] == comp["b"].nunique(), where
            outside = set(range(res.n_features)) - set(t.pc) - set(t.spouses)
            looked = set(skip["b"]) | set(comp["b"])
            assert looked <= outside and n["outside"] == len(outside), where
            missed = outside - looked
            assert n["not_reached"] == len(missed), where
            if missed:  # only after an early end, and only after the last recovered feature
                assert n["ended"] in ("first", "consumed"), where
                assert min(missed) > t.recovered[-1][0], where
            ended.add(n["ended"])
    assert "first" in ended  # the case of the defect is among the runs checked
    res = demo_runs[0][2]
    b0 = summary.recovery_counts(res, res.target("B=0").id)
    assert b0["ended"] == "first" and b0["not_reached"] > 0 and b0["skipped"] == 0


_NUM = r"(-?\d+\.\d+)"
_BOUND = re.compile(rf"γ·s = {_NUM} × {_NUM} = {_NUM} bits")


def _shown(text: str) -> int:
    """The decimals of a number as shown."""
    return len(text.split(".")[1])


@pytest.mark.parametrize("params", [{}, {"delta1": 0.002749, "delta2": 0.01}],
                         ids=["defaults", "small-thresholds"])
def test_pruning_sentences_show_each_number_one_way_and_their_sums_add_up(params):
    """Landed defect (yeast at the suggested thresholds): "I(Att70; Class12=0) = 0.0048 > γ·s
    = 0.0047 bits" and, in the same paragraph, "the same bound γ·s = 1.2 × 0.004 = 0.005
    bits"; "δ1 = 0.003" for δ1 = 0.002749; then "1.2 × 0.00389 = 0.00466". Every number of a
    feature's Phase 4 sentences must be written one way, γ × s as shown must make the bound
    shown (rounded as it is shown), and δ1 is shown with all its digits,
    as the sidebar shows it (the thresholds the app suggests are rounded to four significant
    digits, as 0.002749 here)."""
    _, res = _demo_run(**params)
    checked = 0
    for t in res.targets:
        if t.skipped:
            continue
        for f in sorted(set(t.cmb)):
            texts = [e.text for e in feature_path(res, t.id, f) if e.step in ("symmetry",
                                                                              "redundancy")]
            summary_text = redundancy_summary(res, t.id, f)
            texts += [summary_text] if summary_text else []
            texts += feature_steps(res, t.id, f)[0]
            bounds = [m for text in texts for m in _BOUND.findall(text)]
            for g, sv, bound in bounds:  # γ × s shown, rounded as shown: the bound shown
                assert f"{float(g) * float(sv):.{_shown(bound)}f}" == bound, (g, sv, bound)
                checked += 1
            # one number, one text: s and the bound the same in every sentence
            assert len({sv for _, sv, _ in bounds}) <= 1, bounds
            assert len({b for _, _, b in bounds}) <= 1, bounds
            d1 = res.params["delta1"]
            for text in texts:
                if "δ1 = " in text:
                    assert re.search(rf"δ1 = {d1!r}0*\b", text), text
    assert checked


def test_the_subject_of_a_redundancy_removal_is_the_removed_feature(demo_runs):
    """Landed defect: "This decision" named A=0 as the variable when f00 was removed."""
    _, _, res = demo_runs[0]
    t = res.target("B=0")
    row = next(r for _, r in res.to_frame(t.id).iterrows()
               if r["step"] == "redundancy" and r["decision"] == "dominates")
    e = explain_row_full(row, res)
    table = dict(zip(*e.table().values(), strict=True))
    assert table["decided about"] == "f00" and table["explained by"] == "A=0"
    assert e.text.startswith("f00 is removed as redundant")


def test_the_spouse_screen_names_its_conditioning_set(demo_runs):
    """Landed defect: "not dependent on B=0 on its own" though the test is given R."""
    _, _, res = demo_runs[0]
    t = res.target("B=0")
    assert [res.categories[q].display for q in t.skeleton] == ["A=0"]
    test = next(x for x in res.tests(t.id) if x.step == "spouse-screen"
                and x.decision == "tested")
    s = explain_test(test, res).text
    assert "| A=0)" in s and "given A=0" in s and "on its own" not in s


def test_redundancy_summary_says_it_is_one_bound_for_every_category(demo_runs):
    """Landed defect: the dominating category and "the closest" read as one comparison."""
    for _, _, res in demo_runs:
        for t in res.targets:
            for f, d, _v, sf in t.redundancy_removed:
                s = redundancy_summary(res, t.id, f)
                bound = res.params["gamma"] * sf
                assert s.startswith(f"{res.feature_names[f]} is removed as redundant by "
                                    f"{res.categories[d].display}")
                assert "the first category of another label above the bound" in s
                under = [x for x in res.tests(t.id) if x.step == "redundancy" and x.a == f
                         and x.decision == "does-not-dominate"]
                assert all(round(x.value, 12) <= round(bound, 12) for x in under)
                if under:
                    assert f"The {len(under):,} categor" in s and "same bound" in s
                    best = max(under, key=lambda x: x.value)
                    assert f"the closest, {res.var_name(best.b)}" in s
            for f in t.after_symmetry:
                if f not in {x for x, *_ in t.redundancy_removed}:
                    s = redundancy_summary(res, t.id, f)
                    assert s is None or "is not redundant" in s


def test_significance_is_shown_beside_bits_by_one_function(demo_runs):
    """The record's n, g, df, p_value: measured() is the one place that shows them."""
    _, _, res = demo_runs[0]
    full_row = res.to_frame(0).iloc[5].copy()
    assert np.isfinite(full_row["p_value"])
    assert (f"df = {int(full_row['df'])}, p = {float(full_row['p_value']):.3g})"
            in explain_row_full(full_row, res).text)
    row = full_row.drop(["n", "g", "df", "p_value", "log10_p"], errors="ignore")
    plain = explain_row_full(row, res).text
    assert "p =" not in plain
    # (a p that agrees with the row's decision: a disagreement adds its own sentence, below)
    above = row["decision"] in ("candidate", "accepted", "kept", "cut-k1", "stays", "spouse",
                                "not-tested")
    pv = 0.0004 if above else 0.4
    row = pd.concat([row, pd.Series({"n": 1000, "g": 12.5, "df": 1, "p_value": pv})])
    e = explain_row_full(row, res)
    assert f"(G = 12.50, df = 1, p = {pv:g})" in e.text
    assert e.text.replace(f" (G = 12.50, df = 1, p = {pv:g})", "") == plain
    assert f"p = {pv:g}" in dict(zip(*e.table().values(), strict=True))["value"]
    assert measured("0.1", {"p_value": float("nan")}) == "0.1 bits"


def test_routine_rows_change_no_set_and_items_cover_every_row(demo_runs):
    for step, dec in ROUTINE:
        assert step in STEPS and dec not in DECISION_ROWS.get(step, ())
    _, _, res = demo_runs[0]
    df = res.to_frame("B=0")
    items = step_items(df)
    assert [i for it in items for i in it.rows] == list(range(len(df)))  # all, in order
    groups = [it for it in items if it.routine_group]
    assert groups and all(len(set(df["phase"].iloc[list(it.rows)])) == 1 for it in groups)
    for it in items:
        routine = [(df["step"].iat[i], df["decision"].iat[i]) in ROUTINE for i in it.rows]
        assert all(routine) if it.routine_group else len(it.rows) == 1
    # the demo's B=0: the 22 spouse-screen passes that led nowhere are one line, not 22
    assert len(items) < len(df) - 20
    big = max(groups, key=lambda it: len(it.rows))
    text = routine_summary(df.iloc[list(big.rows)], res)
    assert text.startswith(f"{len(big.rows)} routine tests of phase ")
    assert len(step_items(df, group_routine=False)) == len(df)


def test_feature_story_ends_where_the_sets_say(demo_runs):
    for _, _, res in demo_runs:
        for t in res.targets:
            if t.skipped:
                continue
            for f in set(t.cmb) | set(t.candidates_all) | {0, 5, 11}:
                s = feature_story(res, t.id, f)
                fin = f in set(t.blanket)
                assert s.endswith(f"So it is {'' if fin else 'not '}in the final blanket of "
                                  f"{t.category.display}."), s


def _truth_sets(tt, cat):
    row = tt.loc[cat]
    split = lambda s: set(filter(None, (x.strip() for x in s.split(",")))) # noqa: E731
    return (split(row["true positives"]), split(row["missed features"]),
            split(row["extra features"]))


def test_demo_story_agrees_with_found_vs_true(demo_runs):
    """Landed defect: the notes said f11 "is found as a spouse" and f05 is "a true spouse"
    (found), while Found vs true listed both as missed. The story is generated from the run,
    and every verdict is the table's, at any sample and parameters."""
    n_lines = 0
    verdicts = set()
    for _name, demo, res in demo_runs:
        tt = summary.truth_table(res, demo.true_blankets)
        for sec in demo_story(res, demo.true_blankets, demo.graph):
            for line in sec.lines:
                n_lines += 1
                verdicts.add(line.verdict)
                tp, missed, extra = _truth_sets(tt, line.category)
                f = line.feature_name
                expect = ("tp" if f in tp else "missed" if f in missed else
                          "extra" if f in extra else "left-out")
                assert line.verdict == expect, (line.category, f)
                assert in_true_blanket(line.role) == line.true
                assert line.path.endswith(("So it is in the final blanket of "
                                           if line.found else
                                           "So it is not in the final blanket of ")
                                          + line.category + ".")
                for other in line.same_as:  # a complement said to agree does agree
                    tp2, missed2, extra2 = _truth_sets(tt, other)
                    assert (f in tp2, f in missed2, f in extra2) == (
                        f in tp, f in missed, f in extra)
                if line.verdict == "missed":
                    assert "**missed**" in line.text
        md = story_markdown(res, demo.true_blankets, demo.graph)
        assert f"δ1 = {res.params['delta1']:g}" in md
    assert n_lines > 40 and {"tp", "missed", "left-out"} <= verdicts


def test_demo_story_at_the_defaults_tells_f11_and_f05_as_missed(demo_runs):
    _, demo, res = demo_runs[0]
    lines = {(ln.category, ln.feature_name): ln
             for sec in demo_story(res, demo.true_blankets, demo.graph) for ln in sec.lines}
    f11 = lines[("C=0", "f11")]
    assert f11.verdict == "missed" and "a spouse induced by f10" in f11.path
    assert "removed by the symmetry check" in f11.path
    f05 = lines[("A=0", "f05")]
    assert f05.role.startswith("spouse") and f05.verdict == "missed"


def test_true_roles_match_the_true_blankets():
    demo = make_causal_multilabel(200, seed=1)
    ds = demo.dataset
    for (li, _c), members in demo.true_blankets.items():
        label = ds.label_names[li]
        for j, fname in enumerate(ds.feature_names):
            assert in_true_blanket(true_role(demo.graph, label, fname)) == (j in members)
    assert true_role(demo.graph, "D", "f02") == "related"
    assert true_role(demo.graph, "M", "f06") == "ancestor"
    assert {p.title for p in DEMO_STORY} and all(
        f in ds.feature_names and lab in ds.label_names for p in DEMO_STORY
        for lab, f in p.pairs)

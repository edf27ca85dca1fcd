"""Every registered selector is a scikit-learn estimator (parametrize_with_checks), and the
method registry works with and without the baseline modules."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

import camcf
from camcf import methods
from camcf.algorithm import DEFAULTS, check_params
from camcf.algorithm_params import ALGORITHM_PARAMS, CAMCF_PARAMS
from camcf.errors import CamcfError, NotFittedError, ParameterError

#: checks a method is known to fail, with the reason: {(method, check name): reason}
EXPECTED_FAILURES: dict[tuple[str, str], str] = {}


def _instances():
    out = []
    for name in methods.available():
        est = methods.make(name)
        if methods.kind(name) == "ranking" and "n_features_to_select" in est.get_params():
            est.set_params(n_features_to_select=1)
        out.append(est)
    return out


def _expected(est) -> dict[str, str]:
    cls = type(est)
    name = next((n for n in methods.available() if methods.get(n) is cls), cls.__name__)
    return {check: why for (m, check), why in EXPECTED_FAILURES.items() if m == name}


@parametrize_with_checks(_instances(), expected_failed_checks=_expected)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_registry_names_kinds_and_lazy_baselines():
    assert list(methods.METHODS)[:1] == ["camcf"]
    assert set(methods.METHODS) == {"camcf", "mi-mcf", "d2f", "fimf", "mdfs", "jfsc", "mcls",
                                    "m2lc", "all", "random", "pc"}
    # PC runs only when named: compare and reproduce leave it out by default
    assert "pc" in methods.available() and "pc" not in methods.defaults()
    assert "pc" not in methods.check_names(None)
    assert {"camcf", "all", "random"} <= set(methods.available())
    assert methods.get("camcf") is camcf.CaMCF
    assert methods.kind("camcf") == "subset" and methods.kind("random") == "ranking"
    assert methods.display("mi-mcf") == "MI-MCF"
    for name, why in methods.unavailable().items():
        assert name in why and "not available" in why
        with pytest.raises(methods.MethodUnavailableError, match=name):
            methods.get(name)
    with pytest.raises(ParameterError, match="unknown method"):
        methods.get("nope")
    with pytest.raises(ParameterError, match="no parameter"):
        methods.make("all", delta1=0.1)


def test_a_missing_module_is_unavailable_not_an_import_error(monkeypatch):
    spec = methods.MethodSpec("ghost", "Ghost", "ranking", "camcf.baselines.no_such:Ghost")
    monkeypatch.setitem(methods.METHODS, "ghost", spec)
    monkeypatch.delitem(methods._CACHE, "ghost", raising=False)
    assert "ghost" not in methods.available()
    with pytest.raises(methods.MethodUnavailableError, match="no_such"):
        methods.make("ghost")
    assert "camcf.baselines.no_such" not in sys.modules


def test_parameters_declared_once():
    assert DEFAULTS == {p.name: p.default for p in ALGORITHM_PARAMS}
    assert set(camcf.CaMCF().get_params()) == {p.name for p in CAMCF_PARAMS}
    assert camcf.CaMCF().get_params() == {p.name: p.default for p in CAMCF_PARAMS}
    assert check_params(0.1, 0.2, 0.5, 1, 2, 3, "all") == dict(
        delta1=0.1, delta2=0.2, k1=0.5, k2=1.0, gamma=2.0, min_category_size=3, recovery="all")
    with pytest.raises(ParameterError, match=r"k1 must be in \(0, 1\]"):
        check_params(0.1, 0.2, 0, 1, 2, 3, "all")
    with pytest.raises(ParameterError, match="bins"):
        camcf.CaMCF(bins=1).fit(np.zeros((10, 2)), np.arange(10) % 2)


def test_camcf_estimator_clone_errors_and_selection():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(300, 6))
    Y = np.column_stack([(X[:, 0] > 0), (X[:, 2] == 1)]).astype(int)
    sel = clone(camcf.CaMCF(delta1=0.05)).fit(X, Y)
    assert sel.get_support(indices=True).tolist() == [0, 2]
    assert sel.result_.selected_indices.tolist() == [0, 2]
    assert sel.transform(X).shape == (300, 2)
    with pytest.raises(NotFittedError, match="fit"):
        camcf.CaMCF().transform(X)
    with pytest.raises(CamcfError):
        camcf.CaMCF().fit(X[:1], Y[:1])


def test_references():
    X = np.arange(40).reshape(10, 4) % 3
    y = np.arange(10) % 2
    assert methods.make("all").fit(X, y).get_support().all()
    r = methods.make("random", n_features_to_select=2, random_state=3).fit(X, y)
    assert r.get_support().sum() == 2
    assert sorted(r.ranking_.tolist()) == [0, 1, 2, 3]
    r2 = methods.make("random", n_features_to_select=2, random_state=3).fit(X + 1, 1 - y)
    assert r2.ranking_.tolist() == r.ranking_.tolist()  # seeded, blind to the data


def test_exported_command_and_params_table_follow_the_declarations():
    from camcf.viz.export import cli_command, params_table

    cmd = cli_command("d.csv", labels="last:2", xml=None,
                      discretize={"discretize": "auto", "bins": 3, "strategy": "uniform"},
                      params=dict(DEFAULTS, delta1=0.02))
    for p in ALGORITHM_PARAMS:  # every declared parameter; adequacy only when its rule is on
        assert (p.flag in cmd) == (p.name != "adequacy"), p.name
    assert "--delta1 0.02" in cmd
    on = cli_command("d.csv", labels="last:2", xml=None, discretize={},
                     params=dict(DEFAULTS, adequacy=5.0))
    assert all(p.flag in on for p in ALGORITHM_PARAMS) and "--adequacy 5" in on
    table = params_table(dict(DEFAULTS))
    assert table["parameter"].tolist() == [p.label for p in ALGORITHM_PARAMS]


def _defaults_of(fn) -> dict:
    import inspect

    return {name: p.default for name, p in inspect.signature(fn).parameters.items()
            if p.default is not inspect.Parameter.empty}


@pytest.mark.parametrize("name", list(methods.METHODS))
def test_every_signature_matches_the_declarations(name):
    """One test over the registry: each method's ``__init__`` takes exactly its declared
    parameters, in order, with the declared defaults, and its class reads the same tuple."""
    declared = methods.params(name)
    assert len({p.name for p in declared}) == len(declared)      # one name, once
    try:
        cls = methods.get(name)
    except methods.MethodUnavailableError:
        assert declared == ()            # nothing declared for what is not implemented
        return
    assert tuple(cls.params) == declared
    import inspect

    sig = inspect.signature(cls.__init__).parameters
    assert list(sig)[1:] == [p.name for p in declared]
    defaults = _defaults_of(cls.__init__)
    for p in declared:
        assert p.name in defaults and defaults[p.name] == p.default, p.name
        assert p.validate(p.default) == p.default or p.default is None
    assert methods.make(name).get_params() == {p.name: p.default for p in declared}


def test_camcf_run_signature_matches_the_declarations():
    # camcf.run (the engine's entry point) types Ca-MCF's defaults again: they must agree
    run_defaults = _defaults_of(camcf.run)
    for p in ALGORITHM_PARAMS:
        assert run_defaults[p.name] == p.default, p.name


def test_method_specific_names_mean_one_thing_per_method():
    # the same name in two methods is two parameters; the command line keeps them apart
    from camcf.cli.flags import flag
    from camcf.cli.groups import method_params

    flags = [flag(p, name) for name in methods.METHODS for p in method_params(name)]
    assert len(flags) == len(set(flags))
    shared = {"k1", "k2", "gamma", "alpha", "variant"}
    owners = {n: [m for m in methods.METHODS if n in {p.name for p in method_params(m)}]
              for n in shared}
    assert all(len(v) >= 2 for v in owners.values())       # the names that did collide
    jfsc_variant = next(p for p in methods.params("jfsc") if p.name == "variant")
    mimcf_variant = next(p for p in methods.params("mi-mcf") if p.name == "variant")
    assert set(jfsc_variant.options) == {"corrected", "reproduction"}
    assert set(mimcf_variant.options) == {"code", "paper"}

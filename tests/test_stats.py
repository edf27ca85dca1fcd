"""camcf.stats against Demšar's formulas and the paper's own Hamming-loss table."""

from __future__ import annotations

import math

import numpy as np
import pytest

from camcf import stats
from camcf.errors import InvalidDataError, ParameterError

# The paper's Table "HAMMING LOSS FOR EIGHT ALGORITHMS ON SEVEN DATASETS": rows Flags, VirusGO,
# CHD_49, PlantGO, Enron, Image, Yeast; columns Ca-MCF, MI-MCF, M2LC, D2F, MDFS, JFSC, FIMF, MCLS.
HL = np.array([
    [0.2481, 0.2926, 0.3041, 0.2981, 0.2788, 0.3221, 0.2794, 0.2707],
    [0.0373, 0.0482, 0.0658, 0.0571, 0.0570, 0.0593, 0.0752, 0.0855],
    [0.2727, 0.3065, 0.3042, 0.3235, 0.3051, 0.2877, 0.3436, 0.3095],
    [0.0318, 0.0429, 0.0499, 0.0471, 0.0456, 0.0395, 0.0804, 0.0473],
    [0.0470, 0.0492, 0.0506, 0.1097, 0.0505, 0.0482, 0.0833, 0.0544],
    [0.1740, 0.2056, 0.1912, 0.2243, 0.1827, 0.2034, 0.2129, 0.2620],
    [0.1919, 0.2035, 0.1934, 0.2301, 0.1908, 0.1946, 0.2416, 0.2167],
])


def test_paper_hamming_loss_friedman():
    fr = stats.friedman(HL, lower_is_better=True)
    assert round(fr.iman_davenport, 4) == 9.0954
    assert round(fr.critical_value, 4) == 2.2371
    assert fr.significant
    assert fr.average_ranks[0] == pytest.approx(8 / 7)  # Ca-MCF: first six times, second once
    assert fr.average_ranks.sum() == pytest.approx(8 * 9 / 2)


def test_critical_differences():
    assert round(stats.critical_difference(8, 7), 3) == 3.522
    assert round(stats.q_alpha(8), 3) == 2.690
    # Demšar 2006, Table 5: Nemenyi q_0.05 for k = 2..5: 1.960, 2.343, 2.569, 2.728
    for k, q in [(2, 1.960), (3, 2.343), (4, 2.569), (5, 2.728)]:
        assert stats.q_alpha(k, test="nemenyi") == pytest.approx(q, abs=1e-3)
    # Bonferroni-Dunn for k = 2 is the plain two-sided normal quantile
    assert round(stats.q_alpha(2), 3) == 1.960
    with pytest.raises(ParameterError, match="test"):
        stats.critical_difference(3, 4, test="tukey")
    with pytest.raises(ParameterError, match="alpha"):
        stats.critical_difference(3, 4, alpha=1.5)


def test_ranks_direction_and_ties():
    S = np.array([[0.1, 0.2, 0.2], [0.3, 0.1, 0.2]])
    assert stats.rank_scores(S, lower_is_better=True).tolist() == [[1, 2.5, 2.5], [3, 1, 2]]
    assert stats.rank_scores(S, lower_is_better=False).tolist() == [[3, 1.5, 1.5], [1, 3, 2]]
    fr = stats.friedman(S, lower_is_better=True)
    # chi2 by the formula on the average ranks (2, 1.75, 2.25)
    assert fr.chi2 == pytest.approx(12 * 2 / 12 * (4 + 1.75 ** 2 + 2.25 ** 2 - 12))
    with pytest.raises(InvalidDataError, match="missing"):
        stats.friedman([[0.1, np.nan]], lower_is_better=True)
    one = stats.friedman([[0.1, 0.2, 0.3]], lower_is_better=True)
    assert math.isnan(one.iman_davenport)


def test_every_printed_ff_recomputed_from_the_paper_tables():
    """Where the paper's source is at hand: which printed F_F follow from its tables."""
    from support import paper_tables

    mod, tables = paper_tables()
    assert np.allclose(tables["hamming_loss"], HL)
    rows = {r["metric"]: r for r in mod.recompute(tables)}
    follows = {m for m, r in rows.items() if r["follows"]}
    assert follows == {"hamming_loss", "coverage", "ranking_loss", "micro_f1"}
    assert round(rows["average_precision"]["ff"], 4) == 5.1646  # printed 5.4545


def test_cd_diagram_and_radar_figures():
    import pandas as pd

    from camcf.viz.comparison import _cliques, cd_diagram, normalised_radar, normalised_scores

    names = ["Ca-MCF", "MI-MCF", "M2LC", "D2F", "MDFS", "JFSC", "FIMF", "MCLS"]
    fr = stats.friedman(HL, lower_is_better=True)
    ranks = dict(zip(names, fr.average_ranks, strict=True))
    fig = cd_diagram(ranks, stats.critical_difference(8, 7), control="Ca-MCF")
    hollow = {t.text[0].split(" (")[0] for t in fig.data if t.marker.symbol == "circle-open"}
    # rank differences to Ca-MCF (1.143) above CD 3.522: M2LC 4.857, D2F 6.286, FIMF 6.857,
    # MCLS 6.0
    assert hollow == {"M2LC", "D2F", "FIMF", "MCLS"}
    assert _cliques([1.0, 1.5, 2.6, 3.0], 1.0) == [(0, 1), (2, 3)]
    means = pd.DataFrame({"hamming_loss": [0.2, 0.25], "micro_f1": [0.7, 0.35]}, index=["a", "b"])
    norm = normalised_scores(means)
    assert norm.loc["a"].tolist() == [1.0, 1.0]
    assert norm.loc["b"].tolist() == pytest.approx([0.8, 0.5])
    radar = normalised_radar(means, highlight="a")
    assert [t.name for t in radar.data] == ["a", "b"] and radar.data[0].line.width == 4

"""Seeded synthetic data sets shaped like real ones, for benchmarks (import from here).

:func:`delicious_like` has the shape of MULAN's *delicious* (16,105 × 500 binary bag-of-words
features, 983 labels, label cardinality ≈ 19): 16,000 rows × 500 binary features and 1,000
sparse binary labels at ``scale=1``. The real file is not in the shared data sets; the figures
below are MULAN's published statistics, the rest is an assumption stated here:

* features: binary, feature ``f`` present with probability ``p_f`` drawn log-uniformly in
  [0.002, 0.2] (a word-frequency-like spread; mean density ≈ 4 %);
* labels: Zipf-like frequencies (label ``l`` has base rate ∝ 1/(l+10), scaled so that the mean
  number of labels per row is ≈ 19), each label made more likely by two "parent" features
  (so that a selector has something to find).

``scale`` multiplies the rows and the labels (not the 500 features, which set ML-kNN's distance
width): ``scale=0.1`` gives 1,600 × 500 with 100 labels.

:func:`corel16k_like` has the shape of MULAN's *Corel16k* (sample 1: 13,766 × 500 binary
"blob" features, 153 labels, label cardinality ≈ 2.9): 13,766 rows × 500 binary features and 153
binary labels at ``scale=1``, built the same way with other assumed spreads (features present
with probability log-uniform in [0.005, 0.1]; labels' base rates ∝ 1/(l+5), ≈ 2.9 labels a
row).

``write_arff`` writes such a data set as a sparse MULAN ARFF file with its label XML, the form
in which the explorer and the command line read the real ones.
"""

from __future__ import annotations

import json

import numpy as np

__all__ = ["COREL16K", "DELICIOUS", "DELICIOUS_FILE", "corel16k_like", "delicious_like",
           "delicious_tags", "delicious_topics", "write_arff"]

#: (rows, features, labels) at scale 1.
DELICIOUS = (16_000, 500, 1_000)
#: (rows, features, labels) of MULAN's delicious file itself
DELICIOUS_FILE = (16_105, 500, 983)
#: (rows, features, labels) at scale 1.
COREL16K = (13_766, 500, 153)


def delicious_like(scale: float = 1.0, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Features ``X`` (n × 500, uint8 0/1) and labels ``Y`` (n × q, uint8 0/1).

    Parameters
    ----------
    scale : float, default 1.0
        Multiplies the rows (16,000) and the labels (1,000); at least 50 rows and 5 labels.
    seed : int, default 0

    Returns
    -------
    X, Y : ndarray of uint8
    """
    return _bag_of_words(DELICIOUS, scale, seed, present=(0.002, 0.2), offset=10.0,
                         cardinality=19.0)


def corel16k_like(scale: float = 1.0, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """:func:`delicious_like`'s ``X``, ``Y`` (uint8 0/1) for Corel16k's shape: 13,766 rows and
    153 labels at ``scale=1`` (``scale`` multiplies both), 500 features; see the module."""
    return _bag_of_words(COREL16K, scale, seed, present=(0.005, 0.1), offset=5.0,
                         cardinality=2.9)


def _bag_of_words(shape, scale: float, seed: int, *, present: tuple[float, float],
                  offset: float, cardinality: float) -> tuple[np.ndarray, np.ndarray]:
    n0, m, q0 = shape
    n = max(50, round(n0 * scale))
    q = max(5, round(q0 * scale))
    rng = np.random.default_rng(seed)
    p = np.exp(rng.uniform(np.log(present[0]), np.log(present[1]), size=m))
    X = (rng.random((n, m), dtype=np.float32) < p[None, :].astype(np.float32)).astype(np.uint8)
    base = 1.0 / (np.arange(q) + offset)
    # mean labels per row ≈ cardinality at q = q0 (the parents' boost below adds 4·2·mean(p))
    base *= cardinality * (q / q0) / base.sum() / (1.0 + 8.0 * p.mean())
    base = np.minimum(base, 0.5)
    parents = rng.integers(0, m, size=(q, 2))
    Y = np.empty((n, q), dtype=np.uint8)
    for j in range(q):
        boost = X[:, parents[j, 0]].astype(np.float32) + X[:, parents[j, 1]]
        prob = np.minimum(0.95, base[j] * (1.0 + 4.0 * boost))
        Y[:, j] = rng.random(n, dtype=np.float32) < prob
    return X, Y


def delicious_topics(n: int, m: int, q: int, seed: int = 0, topics: int = 60
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Seeded binary features (n × m) and sparse binary labels (n × q) driven by latent topics:
    each row has two topics (drawn with replacement), each word and each label one; a word or
    label is present with a probability drawn per word (label) when its topic is (label
    cardinality ≈ 15 at delicious's size). The labels of a topic co-occur, but one label of it
    explains the others away given the topic's words (int64 arrays, as MI-MCF's benchmark
    has always used them)."""
    r = np.random.default_rng(seed)
    z = np.zeros((n, topics), dtype=bool)
    rows = np.arange(n)
    z[rows, r.integers(0, topics, n)] = True
    z[rows, r.integers(0, topics, n)] = True
    ft = r.integers(0, topics, m)
    pf = np.where(z[:, ft], r.uniform(0.05, 0.5, m), 0.02)
    X = (r.random((n, m)) < pf).astype(np.int64)
    lt = r.integers(0, topics, q)
    pl = np.where(z[:, lt], r.uniform(0.05, 0.6, q), 0.003)
    Y = (r.random((n, q)) < pl).astype(np.int64)
    return X, Y


def delicious_tags(scale: float = 1.0, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Data of the delicious file's shape whose labels behave like tags (uint8 0/1): 16,105 ×
    500 binary features and 983 sparse labels at ``scale=1`` (rows and labels scaled).

    Each row has three of 40 latent topics; a word (feature) belongs to one topic and is present
    with probability 0.05–0.4 when its topic is (0.01 otherwise: feature density ≈ 2.6 %); a
    label depends on two topics (strengths 0.02–0.4 and 0–0.2) and on one parent word (+0.1),
    with a base rate of 0.002 (label cardinality ≈ 27; MULAN's delicious has 19). Labels that
    share topics stay dependent given each other, so at small thresholds a target's label
    skeleton R grows large (up to about 100 categories; about 30 on the real file) and its
    conditioning sets split the rows into thousands of strata: the regime in which Ca-MCF is
    slow on the real file. An assumption stated here, not a copy of the real data.
    """
    n0, m, q0 = DELICIOUS_FILE
    n, q = max(50, round(n0 * scale)), max(5, round(q0 * scale))
    topics = 40
    r = np.random.default_rng(seed)
    z = np.zeros((n, topics), dtype=bool)
    rows = np.arange(n)
    for _ in range(3):
        z[rows, r.integers(0, topics, n)] = True
    ft = r.integers(0, topics, m)
    pf = np.where(z[:, ft], r.uniform(0.05, 0.4, m), 0.01)
    X = (r.random((n, m)) < pf).astype(np.uint8)
    la, lb = r.integers(0, topics, q), r.integers(0, topics, q)
    sa, sb = r.uniform(0.02, 0.4, q), r.uniform(0.0, 0.2, q)
    parent = r.integers(0, m, q)
    pl = 0.002 + sa * z[:, la] + sb * z[:, lb] + 0.1 * X[:, parent]
    Y = (r.random((n, q)) < pl).astype(np.uint8)
    return X, Y


def write_arff(path, X: np.ndarray, Y: np.ndarray, relation: str = "synthetic") -> tuple:
    """Write ``X`` (features) and ``Y`` (binary labels) as a sparse MULAN ARFF file ``path``
    (labels after the features, ``{index value, …}`` rows) and its label XML beside it
    (``path`` with ``.xml``); returns both paths."""
    from pathlib import Path

    path = Path(path)
    n, m = X.shape
    q = Y.shape[1]
    names = [f"f{j}" for j in range(m)] + [f"y{j}" for j in range(q)]
    header = [f"@relation {relation}", "", *(f"@attribute {a} {{0,1}}" for a in names), "",
              "@data"]
    with path.open("w") as fh:
        fh.write("\n".join(header) + "\n")
        both = np.hstack([X, Y]).astype(bool)
        for row in both:
            cols = np.flatnonzero(row)
            fh.write("{" + ",".join(f"{c} 1" for c in cols) + "}\n")
    xml = path.with_suffix(".xml")
    xml.write_text('<?xml version="1.0" encoding="utf-8"?>\n'
                   '<labels xmlns="http://mulan.sourceforge.net/labels">\n'
                   + "".join(f'<label name="y{j}"></label>\n' for j in range(q))
                   + "</labels>\n")
    return path, xml


def keep_selection(selection: list, save: str | None, compare: str | None) -> bool:
    """Write a benchmark's selection to ``save`` and check it against ``compare`` (JSON files),
    printing the verdict; False when it differs from the saved one."""
    if save:
        with open(save, "w") as fh:
            json.dump(selection, fh)
    if not compare:
        return True
    with open(compare) as fh:
        same = json.load(fh) == selection
    print(f"selection {'identical to' if same else 'DIFFERS from'} {compare}")
    return same

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
"""

from __future__ import annotations

import numpy as np

__all__ = ["DELICIOUS", "delicious_like"]

#: (rows, features, labels) at scale 1.
DELICIOUS = (16_000, 500, 1_000)


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
    n0, m, q0 = DELICIOUS
    n = max(50, round(n0 * scale))
    q = max(5, round(q0 * scale))
    rng = np.random.default_rng(seed)
    p = np.exp(rng.uniform(np.log(0.002), np.log(0.2), size=m))
    X = (rng.random((n, m), dtype=np.float32) < p[None, :].astype(np.float32)).astype(np.uint8)
    base = 1.0 / (np.arange(q) + 10.0)
    # mean labels per row ≈ 19 at q = 1,000 (the parents' boost below adds 4 · 2 · mean(p))
    base *= 19.0 * (q / q0) / base.sum() / (1.0 + 8.0 * p.mean())
    base = np.minimum(base, 0.5)
    parents = rng.integers(0, m, size=(q, 2))
    Y = np.empty((n, q), dtype=np.uint8)
    for j in range(q):
        boost = X[:, parents[j, 0]].astype(np.float32) + X[:, parents[j, 1]]
        prob = np.minimum(0.95, base[j] * (1.0 + 4.0 * boost))
        Y[:, j] = rng.random(n, dtype=np.float32) < prob
    return X, Y

"""The parameter settings benchmarks measure: the authors' (0.05, 0.1, 0.7, 1.0), a heavier one
(0.01, 0.02, 1.0, 0.3) that keeps many more candidates, the thresholds the app suggests (a G test
at α = 0.01 on the data: ``delta1 = delta2 = "auto"``, where users work since the suggestion
exists) and the heavier one with the paper's recovery (``recovery="all"``: every blocked feature
tried, not only the first). Imported by the scripts beside it (run as
``python benchmarks/<script>.py``, this folder is on the path). :data:`SETTINGS` holds the first
two, the ones every benchmark measured before; :data:`CHECKS` all four (check_decisions)."""

SETTINGS = {
    "authors": dict(delta1=0.05, delta2=0.1, k1=0.7, k2=1.0),
    "heavier": dict(delta1=0.01, delta2=0.02, k1=1.0, k2=0.3),
}
CHECKS = {
    **SETTINGS,
    "suggested": dict(delta1="auto", delta2="auto", significance=0.01, k1=0.7, k2=1.0),
    "recovery-all": dict(delta1=0.01, delta2=0.02, k1=1.0, k2=0.3, recovery="all"),
}

"""The two parameter settings every benchmark measures: the authors' (0.05, 0.1, 0.7, 1.0) and a
heavier one (0.01, 0.02, 1.0, 0.3) that keeps many more candidates. Imported by the scripts
beside it (run as ``python benchmarks/<script>.py``, this folder is on the path)."""

SETTINGS = {
    "authors": dict(delta1=0.05, delta2=0.1, k1=0.7, k2=1.0),
    "heavier": dict(delta1=0.01, delta2=0.02, k1=1.0, k2=0.3),
}

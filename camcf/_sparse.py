"""``scipy.sparse`` only where a sparse matrix is about.

Importing ``scipy.sparse`` costs about a third of a second (its array-API layer imports much of
numpy), more than a small file's whole run. No scipy sparse matrix or array can exist before
``scipy.sparse`` has been imported, so a check for one needs no import: :func:`issparse` asks the
module only when it is loaded. Code that builds sparse matrices imports ``scipy.sparse`` where it
does so.
"""

from __future__ import annotations

import sys
from typing import Any


def issparse(x: Any) -> bool:
    """Whether ``x`` is a ``scipy.sparse`` matrix or array (``scipy.sparse.issparse``), without
    importing ``scipy.sparse`` when it is not loaded (then nothing can be one)."""
    mod = sys.modules.get("scipy.sparse")
    return mod is not None and bool(mod.issparse(x))

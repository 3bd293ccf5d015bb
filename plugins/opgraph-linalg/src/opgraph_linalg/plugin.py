"""Entry point ``opgraph-linalg`` (group ``opgraph.plugins``): cheap, imports only the core.

The rewrites (and with them SciPy) are loaded by import string when the
rewrite database asks for them, so installing the package costs nothing to
programs that never use linear algebra.
"""

from __future__ import annotations

import importlib
from typing import Any

from opgraph.plugins import PublicModule, hookimpl

_REWRITES = "opgraph_linalg.rewrites"


@hookimpl
def opgraph_register_rewrites(db: Any) -> None:
    """inv(A) @ b -> solve, log(det) -> slogdet, cholesky of PSD products, ... ."""
    importlib.import_module(_REWRITES).register_rewrites(db)


@hookimpl
def opgraph_public_modules() -> list[PublicModule]:
    """PyTensor's linear-algebra paths (and the modules below ``linalg``)."""
    return [
        PublicModule("opgraph.tensor.linalg", "opgraph_linalg.faces.linalg"),
        PublicModule("opgraph.tensor.nlinalg", "opgraph_linalg.faces.nlinalg"),
        PublicModule("opgraph.tensor.slinalg", "opgraph_linalg.faces.slinalg"),
        # PyTensor keeps the diagonal/triangle helpers in ``pytensor.tensor.basic``.
        PublicModule("opgraph.tensor.basic", "opgraph_linalg.constructors",
                     names=("AllocDiag", "ExtractDiag", "alloc_diag", "diag", "diagonal",
                            "trace", "tril", "triu")),
    ]

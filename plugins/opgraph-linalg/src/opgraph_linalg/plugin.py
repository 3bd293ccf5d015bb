"""Entry point ``opgraph-linalg`` (group ``opgraph.plugins``): cheap, imports only the core.

The rewrites (and with them SciPy) are loaded by import string when the
rewrite database asks for them, so installing the package costs nothing to
programs that never use linear algebra.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

from opgraph.plugins import OpImpl, PublicModule, hookimpl

_REWRITES = "opgraph_linalg.rewrites"
_C_IMPL = "opgraph_linalg.c_impl"
#: modules defining the Ops that have C; none loaded means no such Op exists yet
_OPS_WITH_C = ("opgraph_linalg.decomposition", "opgraph_linalg.solvers",
               "opgraph_linalg.cholesky_grad", "opgraph_linalg.constructors")
#: names ``opgraph.tensor`` takes from this plugin (``pt.diag``, ... as in PyTensor)
_TENSOR_NAMES = ("diag", "diagonal", "trace", "tril", "triu")


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
        PublicModule("opgraph.tensor.optimize", "opgraph_linalg.optimize"),
        PublicModule("opgraph.tensor.rewriting.linalg", "opgraph_linalg.faces.rewriting"),
        # PyTensor exports these from tensor.basic; the core has none of its own
        PublicModule("opgraph.tensor", "opgraph_linalg.constructors", names=_TENSOR_NAMES),
        # PyTensor keeps the diagonal/triangle helpers in ``pytensor.tensor.basic``.
        PublicModule("opgraph.tensor.basic", "opgraph_linalg.constructors",
                     names=("AllocDiag", "ExtractDiag", "alloc_diag", "diag", "diagonal",
                            "trace", "tril", "triu")),
    ]


@hookimpl
def opgraph_op_impl(op: Any, backend: str) -> OpImpl | None:
    """C (LAPACK from SciPy) for cholesky, the solves, the Cholesky pullback; diagonal Ops."""
    if backend != "c" or not any(m in sys.modules for m in _OPS_WITH_C):
        return None
    impl = importlib.import_module(_C_IMPL).c_provider(op)
    return None if impl is None else OpImpl("c", impl, "LAPACK through scipy.linalg.cython_lapack")

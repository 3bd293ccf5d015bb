"""Entry point of opgraph-xtensor: serves ``opgraph.xtensor`` and registers the lowering.

Imports the core only.  The registered ``lower_xtensor`` rewriter loads the
library (about a second: linear algebra, SciPy) only when a graph could hold
xtensor Ops, that is when ``opgraph.xtensor`` has been imported; every other
program compiles without it.  The casts between tensors and xtensors
(``XTypeCastOp``) that remain on a graph's inputs and outputs are views: the
``opgraph_op_impl`` hook gives backends that cannot call ``perform`` (JAX) the
identity for them.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

from opgraph.graph.rewriting.basic import GraphRewriter
from opgraph.plugins import OpImpl, PublicModule, hookimpl

_LIBRARY = "opgraph_xtensor.xtensor"
_REWRITES = "opgraph_xtensor.xtensor.rewriting"
_BASIC = "opgraph_xtensor.xtensor.basic"


class LowerXTensor(GraphRewriter):
    """``lower_xtensor``: every xtensor Op replaced by the tensor graph it states."""

    def __init__(self) -> None:
        self._rewriter: Any = None

    def _inner(self) -> Any:
        if self._rewriter is None:
            self._rewriter = importlib.import_module(_REWRITES).lower_xtensor_rewriter()
        return self._rewriter

    def add_requirements(self, fgraph: Any) -> None:
        if _LIBRARY in sys.modules:
            self._inner().add_requirements(fgraph)

    def apply(self, fgraph: Any) -> Any:
        if _LIBRARY not in sys.modules:  # no xtensor Op can exist without the library
            return None
        return self._inner().apply(fgraph)

    def __str__(self) -> str:
        return "lower_xtensor"


@hookimpl
def opgraph_public_modules() -> list[PublicModule]:
    """PyTensor's ``pytensor.xtensor`` path (its submodules follow) is this package."""
    return [PublicModule("opgraph.xtensor", _LIBRARY)]


@hookimpl
def opgraph_register_rewrites(db: Any) -> None:
    """``lower_xtensor`` at PyTensor's position 0.1 (after the first merge), in every mode."""
    db.register("lower_xtensor", LowerXTensor(), "fast_run", "fast_compile", "minimum_compile",
                position=0.1)


def _view(op: Any, node: Any = None, **kwargs: Any) -> Any:
    """A cast between a tensor and an xtensor computes nothing: the array passes through."""

    def view(x: Any) -> Any:
        return x

    return view


@hookimpl
def opgraph_op_impl(op: Any, backend: str) -> OpImpl | None:
    """The JAX translation of the tensor/xtensor casts (``jax_funcify``'s contract)."""
    basic = sys.modules.get(_BASIC)  # no cast Op exists before the library is imported
    if backend == "jax" and basic is not None and isinstance(op, basic.XTypeCastOp):
        return OpImpl("jax", _view, description="tensor/xtensor cast: the identity")
    return None

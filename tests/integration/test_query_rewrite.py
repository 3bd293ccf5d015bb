"""``mode.optimizer.rewrite(fgraph)``: a mode optimizer is a rewriter (PyMC's JAX samplers)."""

from __future__ import annotations

import numpy as np

import opgraph
import opgraph.tensor as pt
from opgraph.compile.mode import JAX, RewriteQuery, get_mode
from opgraph.graph.fg import FunctionGraph


def _ops(fgraph: FunctionGraph) -> list[str]:
    return [type(node.op).__name__ for node in fgraph.toposort()]


def test_query_rewrite_applies_the_database_in_place() -> None:
    x = pt.dvector("x")
    fg = FunctionGraph([x], [pt.log(pt.exp(x)) * 1.0 + 0.0], clone=True)
    get_mode("FAST_RUN").optimizer.rewrite(fg)
    assert _ops(fg) in ([], ["DeepCopyOp"], ["ViewOp"]), _ops(fg)
    f = opgraph.function(fg.inputs, fg.outputs[0], mode="FAST_COMPILE")
    np.testing.assert_allclose(f(np.array([1.0, -2.0])), [1.0, -2.0])


def test_jax_mode_query_rewrites_without_compiling() -> None:
    # what pymc.sampling.jax.get_jaxified_graph does before jax_funcify
    x = pt.dmatrix("x")
    fg = FunctionGraph([x], [(x * 2).sum()], clone=True)
    assert isinstance(JAX.optimizer, RewriteQuery)
    JAX.optimizer.rewrite(fg)
    assert len(fg.outputs) == 1 and fg.outputs[0].type.ndim == 0


def test_empty_query_leaves_the_graph() -> None:
    x = pt.dvector("x")
    fg = FunctionGraph([x], [x * 1.0], clone=True)
    before = _ops(fg)
    RewriteQuery().rewrite(fg)
    assert _ops(fg) == before and "Elemwise" in before

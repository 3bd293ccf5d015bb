"""Unsafe rewrites run only when asked for by name or tag, never because a query
includes the whole phase they sit in."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import compile_pair

import opgraph.tensor as pt
from opgraph.compile.mode import get_mode
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.utils import rewrite_graph
from opgraph.raise_op import CheckAndRaise, assert_op


def _asserts(fgraph) -> list:
    return [n for n in fgraph.toposort() if isinstance(n.op, CheckAndRaise)]


@pytest.mark.parametrize("phases", [("canonicalize",), ("canonicalize", "specialize"),
                                    ("canonicalize", "stabilize", "specialize")])
def test_including_phases_keeps_variable_assertions(phases):
    x, y = pt.scalar("x"), pt.scalar("y")
    fgraph = FunctionGraph(outputs=[assert_op(x, pt.eq(x, y), 1)], clone=False)
    rewrite_graph(fgraph, include=phases)
    (node,) = _asserts(fgraph)
    assert len(node.inputs) == 2  # the constant true condition went, the other stayed


def test_remove_all_assert_by_name_or_tag():
    x, y = pt.scalar("x"), pt.scalar("y")
    out = assert_op(x, pt.eq(x, y))
    for name in ("local_remove_all_assert", "unsafe"):
        fgraph = FunctionGraph(outputs=[out], clone=True)
        rewrite_graph(fgraph, include=("canonicalize", name))
        assert not _asserts(fgraph)
    fast, _ = compile_pair([x, y], out, get_mode("FAST_RUN"))
    assert fast(np.float64(2), np.float64(2)) == 2
    with pytest.raises(AssertionError):
        fast(np.float64(2), np.float64(3))

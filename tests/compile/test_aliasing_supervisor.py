"""add_supervisor_to_fgraph: only inputs declared mutable may be destroyed afterwards."""

from __future__ import annotations

import pytest

import opgraph.tensor as pt
from opgraph.compile.aliasing import add_supervisor_to_fgraph
from opgraph.compile.io import In
from opgraph.graph.destroyhandler import DestroyHandler
from opgraph.graph.fg import FunctionGraph


def _handler(fg):
    return [f for f in fg.features if isinstance(f, DestroyHandler)]


def test_attaches_one_destroy_handler_with_the_mutable_inputs():
    x, y = pt.dvectors("x", "y")
    fg = FunctionGraph([x, y], [x + y], clone=False)
    add_supervisor_to_fgraph(fg, [In(x, mutable=True, borrow=True), In(y)])
    (handler,) = _handler(fg)
    assert handler.mutable == {x}
    add_supervisor_to_fgraph(fg, [In(x), In(y, mutable=True, borrow=True)])
    assert len(_handler(fg)) == 1 and handler.mutable == {x, y}


def test_checks_its_arguments():
    x = pt.dvector("x")
    fg = FunctionGraph([x], [x * 2], clone=False)
    with pytest.raises(ValueError, match="input specs"):
        add_supervisor_to_fgraph(fg, [])
    with pytest.raises(TypeError, match="FunctionGraph"):
        add_supervisor_to_fgraph([x], [In(x)])

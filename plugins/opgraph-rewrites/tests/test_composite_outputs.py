"""local_useless_composite_outputs: an Elemwise of a Composite loses its unread outputs
and unused inputs; the outputs kept have the values of the full Composite."""

from __future__ import annotations

import numpy as np
from helpers_rw import compile_pair
from opgraph.tensor.rewriting.elemwise import local_useless_composite_outputs

import opgraph.scalar as ps
import opgraph.tensor as pt
from opgraph.compile.database import optdb
from opgraph.compile.mode import get_mode
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.walking import in2out
from opgraph.tensor.elemwise import Elemwise

EDGE = np.array([[0.0, -0.0, np.inf], [-np.inf, np.nan, 1e308]])


def _three_in_two_out():
    x, y, z = ps.float64(), ps.float64(), ps.float64()
    comp = ps.Composite([x, y, z], [ps.exp(x) + 1, y * y - 1])
    X, Y, Z = pt.dmatrix("X"), pt.dmatrix("Y"), pt.dmatrix("Z")
    o1, o2 = Elemwise(scalar_op=comp)(X, Y, Z)
    return [X, Y, Z], o1, o2


def _composite_nodes(outs, inputs):
    fg = FunctionGraph(inputs, outs, clone=True)
    in2out(local_useless_composite_outputs).rewrite(fg)
    return [n for n in fg.apply_nodes if isinstance(n.op, Elemwise)]


def test_unused_input_dropped_both_outputs_kept():
    inputs, o1, o2 = _three_in_two_out()
    (node,) = _composite_nodes([o1, o2], inputs)
    assert len(node.inputs) == 2 and len(node.outputs) == 2
    fast, ref = compile_pair(inputs, [o1, o2], "FAST_RUN")
    with np.errstate(all="ignore"):
        for a, b in zip(fast(EDGE, EDGE[::-1], EDGE), ref(EDGE, EDGE[::-1], EDGE)):
            np.testing.assert_array_equal(a, b)


def test_one_output_read():
    inputs, o1, o2 = _three_in_two_out()
    for out, vals in ((o1, (EDGE, np.ones((2, 3)), EDGE)), (o2, (np.ones((2, 3)), EDGE, EDGE))):
        (node,) = _composite_nodes([out], inputs)
        assert len(node.inputs) == 1 and len(node.outputs) == 1
        fast, ref = compile_pair(inputs, out, get_mode("FAST_RUN").excluding("fusion"))
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(fast(*vals), ref(*vals))


def test_nothing_to_drop_is_left_alone():
    x, y = ps.float64(), ps.float64()
    comp = ps.Composite([x, y], [x + y, x * y])
    X, Y = pt.dvector("X"), pt.dvector("Y")
    o1, o2 = Elemwise(scalar_op=comp)(X, Y)
    fg = FunctionGraph([X, Y], [o1, o2], clone=True)
    before = list(fg.apply_nodes)
    in2out(local_useless_composite_outputs).rewrite(fg)
    assert list(fg.apply_nodes) == before


def test_registered_with_pytensor_tag():
    assert optdb["canonicalize"]["local_useless_composite_outputs"] is \
        local_useless_composite_outputs
    assert "local_useless_composite_outputs" in optdb["specialize"]

"""``Function.outputs``: the outputs as given, with their variables (PyTensor code reads
``f.outputs[0].variable.dtype``)."""

from __future__ import annotations

import numpy as np

import opgraph
import opgraph.tensor as pt
from opgraph.compile.io import Out


def test_outputs_are_the_out_items_in_order():
    x = pt.bscalar("x")
    y = pt.dvector("y")
    f = opgraph.function([x, y], [x * 2, Out(y, borrow=True)])
    outs = f.outputs
    assert [type(o) for o in outs] == [Out, Out]
    assert outs[0].variable.dtype == "int8"
    assert outs[1].variable is y and outs[1].borrow
    assert f(np.int8(3), np.ones(2))[0] == 6
    outs.append(None)  # a copy: the function's own list is unchanged
    assert len(f.outputs) == 2

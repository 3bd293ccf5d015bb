"""PyTensor's ``pytensor.link.basic.PerformLinker`` path resolves to this plugin's "py" linker."""

from __future__ import annotations

import numpy as np
from opgraph_numpy.linker import PerformLinker as Ours

import opgraph.tensor as pt
from opgraph.graph.fg import FunctionGraph
from opgraph.link.basic import PerformLinker  # resolved through the plugin's record


def test_perform_linker_face_runs_a_graph():
    assert PerformLinker is Ours
    x = pt.dvector("x")
    res = PerformLinker().accept(FunctionGraph([x], [x * 2])).make_thunk()
    res.input_storage[0][0] = np.array([1.0, 2.0])
    res.fn()
    np.testing.assert_array_equal(res.output_storage[0][0], [2.0, 4.0])

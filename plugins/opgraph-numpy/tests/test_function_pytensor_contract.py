"""Function behaviours PyTensor code relies on: dprint, update types, input downcasts."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.sharedvalue import shared
from opgraph.printing import debugprint


def test_dprint_is_debugprint_of_the_function() -> None:
    x = pt.dscalar("x")
    f = function([x], x + 1, mode="FAST_COMPILE")
    text = f.dprint(file="str")
    assert text == debugprint(f, file="str")
    assert "x [id" in text


def test_update_with_a_more_specific_static_shape_is_refused() -> None:
    out = shared(np.zeros((3, 3)), name="out")
    with pytest.raises(TypeError, match=r"update of shared variable out must have its type"):
        function([], [], updates={out: out.sum().dimshuffle("x", "x")})
    # an update of the shared variable's own type is fine
    f = function([], [], updates={out: out + out.sum() + 1}, mode="FAST_COMPILE")
    f()
    np.testing.assert_array_equal(out.get_value(), np.ones((3, 3)))


def test_allow_input_downcast_wraps_like_a_c_cast() -> None:
    a, b = pt.wvector("a"), pt.bvector("b")
    f = function([a, b], a + b, allow_input_downcast=True, mode="FAST_COMPILE")
    np.testing.assert_array_equal(f([2**20], [1]), [1])
    np.testing.assert_array_equal(f([3], [312]), [59])
    g = function([a, b], a + b, mode="FAST_COMPILE")
    with pytest.raises(OverflowError, match="cannot store"):
        g([3], [312])
    with pytest.raises(TypeError):
        g([3], np.array([6], dtype="int16"))


def test_compiled_graph_carries_the_function_name_through_deepcopy() -> None:
    x = pt.dscalar("x")
    f = function([x], x * 2, name="double", mode="FAST_COMPILE")
    assert f.maker.fgraph.name == "double"
    g = copy.deepcopy(f)
    assert g.maker.fgraph.name == "double" and g(3.0) == 6.0

"""A rewrite that drops a computation must not drop its error: an integer power with a
negative exponent raises in NumPy, so ``(x ** x) < (x ** x)`` raises in every mode."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.tensor.elemwise import Elemwise

MODES = ("FAST_COMPILE", "FAST_RUN")


def _compile(inputs, outputs, mode):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return opgraph.function(inputs, outputs, mode=mode)


@pytest.mark.parametrize("mode", MODES)
def test_comparison_of_an_integer_power_with_itself_keeps_its_error(mode):
    x = pt.matrix("x", dtype="int8")
    p = x ** x
    f = _compile([x], pt.lt(p, p), mode)
    with pytest.raises(ValueError, match="negative integer powers"):
        f(np.array([[1, -2], [3, 1]], dtype="int8"))
    np.testing.assert_array_equal(f(np.array([[1, 2], [3, 1]], dtype="int8")),
                                  np.zeros((2, 2), bool))


@pytest.mark.parametrize("mode", MODES)
def test_comparison_kept_inside_a_larger_integer_graph(mode):
    x = pt.matrix("x", dtype="int8")
    p = x ** x
    out = pt.dot(pt.lt(p, p), pt.arctan(pt.constant(np.full((2, 2), 427))))
    f = _compile([x], out, mode)
    with pytest.raises(ValueError, match="negative integer powers"):
        f(np.array([[-1, 2], [3, 1]], dtype="int8"))


def test_float_comparison_with_itself_is_still_folded():
    x = pt.matrix("x")
    y = pt.exp(x) + 1
    f = _compile([x], pt.lt(y, y), "FAST_RUN")
    assert not any(isinstance(n.op, Elemwise) and n.inputs and n.inputs[0] is not None
                   and "exp" in str(n.op).lower() for n in f.maker.fgraph.apply_nodes)
    np.testing.assert_array_equal(f(np.array([[np.nan, 1.0]])), [[False, False]])

"""IfElse as PyTensor code uses it: construction, printing, gradients by branch shape."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
import opgraph.tensor.basic as ptb
from opgraph.compile.debug.debugmode import DebugMode
from opgraph.compile.function import function
from opgraph.gradient import grad
from opgraph.ifelse import IfElse, ifelse
from opgraph.tensor.type import TensorType

dvec = TensorType("float64", (None,))
iscal = TensorType("int32", ())


def run_mode() -> DebugMode:
    return DebugMode(optimizer=None, check_c_code=False)


def test_construction_checks() -> None:
    with pytest.raises(ValueError, match="positive int"):
        IfElse(0)
    with pytest.raises(TypeError, match="The condition argument"):
        IfElse(1)(dvec("c"), dvec("x"), dvec("y"))
    assert IfElse(2) == IfElse(2) and IfElse(2) != IfElse(2, as_view=True)
    assert IfElse(1, name="a") == IfElse(1, name="b")  # the name is only a label


def test_str_follows_name_and_view() -> None:
    res = ifelse(iscal("c"), dvec("x"), dvec("y"))
    assert str(res.owner).startswith("if{}")
    res.owner.op.name = "name"
    res.owner.op.as_view = True
    assert str(res.owner).startswith("if{name,inplace}")
    assert str(IfElse(1, as_view=True)) == "if{inplace}"


def test_branch_gradients_have_each_branch_shape() -> None:
    c = iscal("c")
    x1, x2, y1, y2 = (dvec(n) for n in ("x1", "x2", "y1", "y2"))
    z = ifelse(c, (x1, x2), (y1, y2))
    grads = grad(z[0].sum() + z[1].sum(), [x1, x2, y1, y2])
    f = function([c, x1, x2, y1, y2], grads, mode=run_mode())
    values = [np.ones(n) for n in (2, 3, 4, 5)]
    for cond, expect in ((1, [1, 1, 0, 0]), (0, [0, 0, 1, 1])):
        outs = f(cond, *values)
        assert [o.shape[0] for o in outs] == [2, 3, 4, 5]
        assert [float(o[0]) for o in outs] == expect


def test_condition_gets_a_zero_gradient() -> None:
    w = dvec("w")
    loss = ifelse(w.sum() > 0, np.float64(0.0), np.float64(1.0))
    g = function([w], grad(loss, w), mode=run_mode())(np.ones(3))
    np.testing.assert_array_equal(g, np.zeros(3))


def test_mismatched_branch_types_say_they_do_not_match() -> None:
    c = pt.iscalar("c")
    with pytest.raises(TypeError, match=r"branch types do not match.*then branch x"):
        ifelse(c, pt.matrix("x"), pt.vector("y"))


def test_tensor_constructor_is_reachable_from_tensor_basic() -> None:
    x = ptb.tensor(dtype="float64", shape=(2, None), name="x")
    assert x.type.shape == (2, None) and x.name == "x"

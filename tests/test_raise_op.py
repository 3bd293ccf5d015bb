"""CheckAndRaise / Assert: the value passes through, a false condition raises."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from opgraph.compile.debug.debugmode import DebugMode
from opgraph.compile.function import function
from opgraph.graph.basic import Constant
from opgraph.raise_op import Assert, CheckAndRaise, assert_op
from opgraph.scalar.type import ScalarType
from opgraph.tensor.type import TensorType

dvec = TensorType("float64", (None,))
dscal = TensorType("float64", ())


class MyError(ValueError):
    pass


def run_mode() -> DebugMode:
    # Runs every node and checks view_map: CheckAndRaise returns its input as a view.
    return DebugMode(optimizer=None, check_c_code=False)


def test_str_props_and_pickle() -> None:
    op = CheckAndRaise(MyError, "boom")
    assert str(op) == "CheckAndRaise{raises=MyError, msg='boom'}"
    assert op == CheckAndRaise(MyError, "boom") and op != CheckAndRaise(MyError, "other")
    y = op(dvec("x"), dscal("c"))
    y2 = pickle.loads(pickle.dumps(y))
    assert y2.owner.op == op and y2.owner.op.exc_type is MyError
    assert pickle.loads(pickle.dumps(assert_op)) == assert_op


def test_validation() -> None:
    with pytest.raises(ValueError, match="exception class"):
        CheckAndRaise(str)
    with pytest.raises(TypeError, match="must be a scalar"):
        assert_op(dvec("x"), dvec("c"))
    assert isinstance(assert_op(np.array(1.0)).owner.inputs[0], Constant)


def test_raises_the_given_exception_and_passes_the_value() -> None:
    x, c = dvec("x"), dscal("c")
    f = function([x, c], CheckAndRaise(MyError, "x is bad")(x, c), mode=run_mode())
    np.testing.assert_array_equal(f([1.0, 2.0], 1.0), [1.0, 2.0])
    with pytest.raises(MyError, match="x is bad"):
        f([1.0, 2.0], 0.0)


def test_assert_raises_assertion_error_on_any_false_condition() -> None:
    x, c1, c2 = dvec("x"), dscal("c1"), dscal("c2")
    f = function([x, c1, c2], Assert("custom")(x, c1, c2), mode=run_mode())
    assert f([3.0], 1.0, 1.0).tolist() == [3.0]
    with pytest.raises(AssertionError, match="custom"):
        f([3.0], 1.0, 0.0)


def test_scalar_values_stay_scalars() -> None:
    val = ScalarType("float64")("val")
    y = assert_op(val, val)
    assert isinstance(y.type, ScalarType)


def test_gradient_flows_to_the_value_only() -> None:
    op = CheckAndRaise(MyError, "m")
    x, c = dvec("x"), dscal("c")
    node = op(x, c).owner
    assert op.connection_pattern(node) == [[True], [False]]
    g = dvec("g")
    grads = op.pullback(node.inputs, node.outputs, [g])
    assert grads[0] is g
    assert op.infer_shape(None, node, [("n",), ()]) == [("n",)]


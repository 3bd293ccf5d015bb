"""blockwise_inplace: a Blockwise writes into the inputs its core Op may overwrite."""

from __future__ import annotations

import numpy as np

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.io import In
from opgraph.graph.basic import Apply
from opgraph.graph.op import Op
from opgraph.tensor.blockwise import Blockwise


class AddOneOp(Op):
    """``(x + 1, y * 2)``, overwriting the inputs listed in ``inplace``."""

    __props__ = ("inplace",)

    def __init__(self, inplace=()):
        self.inplace = tuple(inplace)
        self.destroy_map = {i: [i] for i in self.inplace}

    def inplace_on_inputs(self, allowed_inplace_inputs):
        return type(self)(inplace=allowed_inplace_inputs)

    def make_node(self, x, y):
        x, y = pt.as_tensor_variable(x), pt.as_tensor_variable(y)
        return Apply(self, [x, y], [x.type(), y.type()])

    def perform(self, node, inputs, outputs):
        x, y = inputs
        x = x if 0 in self.inplace else x.copy()
        y = y if 1 in self.inplace else y.copy()
        x += 1
        y *= 2
        outputs[0][0], outputs[1][0] = x, y


BOP = Blockwise(AddOneOp(), signature="(n),(n)->(n),(n)")


def compiled(mutable_x: bool, mutable_y: bool, x_shape=(None, None)):
    x = pt.tensor("x", shape=x_shape)
    y = pt.matrix("y")
    f = function([In(x, mutable=mutable_x), In(y, mutable=mutable_y)], BOP(x, y),
                 mode="FAST_RUN")
    return f, f.maker.fgraph.outputs[0].owner.op


def test_mutable_inputs_are_overwritten_and_results_are_right():
    f, op = compiled(True, True)
    assert isinstance(op, Blockwise) and op.destroy_map == {0: [0], 1: [1]}
    xv, yv = np.arange(6.0).reshape(2, 3), np.ones((2, 3))
    gx, gy = f(xv, yv)
    np.testing.assert_array_equal(gx, np.arange(6.0).reshape(2, 3) + 1)
    np.testing.assert_array_equal(gy, np.full((2, 3), 2.0))
    np.testing.assert_array_equal(xv, gx)  # written in place


def test_protected_input_is_left_alone():
    f, op = compiled(True, False)
    assert op.destroy_map == {0: [0]}
    yv = np.ones((2, 3))
    f(np.zeros((2, 3)), yv)
    np.testing.assert_array_equal(yv, np.ones((2, 3)))


def test_batch_broadcast_input_is_not_overwritten():
    f, op = compiled(True, True, x_shape=(1, None))
    assert 0 not in {i for idx in op.destroy_map.values() for i in idx}
    xv = np.zeros((1, 3))
    gx, _ = f(xv, np.ones((4, 3)))
    np.testing.assert_array_equal(gx, np.ones((4, 3)))
    np.testing.assert_array_equal(xv, np.zeros((1, 3)))


def test_core_op_without_inplace_version_is_unchanged():
    x = pt.matrix("x")
    neg = Blockwise(pt.exp(pt.vector()).owner.op, signature="(n)->(n)")
    f = function([In(x, mutable=True)], neg(x), mode="FAST_RUN")
    assert not f.maker.fgraph.outputs[0].owner.op.destroy_map

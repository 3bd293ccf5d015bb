"""Toy Ops for the gradient driver tests (each exercises one part of the contract),
and ``ev``, the perform-based evaluator those tests share.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.autodiff.evaluate import perform_callable
from opgraph.gradient import (
    disconnected_type,
    grad_not_implemented,
    grad_undefined,
    is_disconnected,
)
from opgraph.graph.basic import Apply
from opgraph.graph.op import Op
from opgraph.tensor.type import TensorType


def ev(outputs: Any, givens: dict) -> Any:
    """Values of ``outputs`` given {var: value}."""
    single = not isinstance(outputs, list)
    outs = [outputs] if single else outputs
    vals = perform_callable(list(givens), outs)(*givens.values())
    return vals[0] if single else vals


def _as(x: Any) -> Any:
    return pt.as_tensor_variable(x)


class Scale(Op):
    """y = k * x with a counter of pullback calls."""

    __props__ = ("k",)

    def __init__(self, k: float) -> None:
        self.k = k
        self.calls = 0

    def make_node(self, x: Any) -> Apply:
        x = _as(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):  # type: ignore[no-untyped-def]
        out[0][0] = np.asarray(inputs[0] * self.k, dtype=node.outputs[0].type.dtype)

    def pullback(self, inputs, outputs, cotangents):  # type: ignore[no-untyped-def]
        self.calls += 1
        return [cotangents[0] * self.k]

    def pushforward(self, inputs, outputs, tangents):  # type: ignore[no-untyped-def]
        return [tangents[0] * self.k]


class TwoStreams(Op):
    """(x, y) -> (x * y, y ** 2): output 1 does not depend on x."""

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = _as(x), _as(y)
        return Apply(self, [x, y], [x.type(), y.type()])

    def perform(self, node, inputs, out):  # type: ignore[no-untyped-def]
        x, y = inputs
        out[0][0] = np.asarray(x * y)
        out[1][0] = np.asarray(y**2)

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True, False], [True, True]]

    def pullback(self, inputs, outputs, cotangents):  # type: ignore[no-untyped-def]
        x, y = inputs
        g0, g1 = cotangents
        self.seen = list(cotangents)
        return [g0 * y, g0 * x + g1 * 2 * y]

    def pushforward(self, inputs, outputs, tangents):  # type: ignore[no-untyped-def]
        x, y = inputs
        tx, ty = (None if is_disconnected(t) else t for t in tangents)
        if ty is None:
            return [tx * y, disconnected_type()]
        if tx is None:
            return [x * ty, 2 * y * ty]
        return [tx * y + x * ty, 2 * y * ty]


class Undefined(Op):
    """y = x0 + x1 whose gradient is undefined for x0 and not implemented for x1."""

    def make_node(self, a: Any, b: Any) -> Apply:
        a, b = _as(a), _as(b)
        return Apply(self, [a, b], [a.type()])

    def perform(self, node, inputs, out):  # type: ignore[no-untyped-def]
        out[0][0] = np.asarray(inputs[0] + inputs[1])

    def pullback(self, inputs, outputs, cotangents):  # type: ignore[no-untyped-def]
        return [
            grad_undefined(self, 0, inputs[0], "toy"),
            grad_not_implemented(self, 1, inputs[1], "toy"),
        ]


class RoundToInt(Op):
    """Integer output: gradients through it are zero."""

    def make_node(self, x: Any) -> Apply:
        x = _as(x)
        return Apply(self, [x], [TensorType("int64", x.type.shape)()])

    def perform(self, node, inputs, out):  # type: ignore[no-untyped-def]
        out[0][0] = np.asarray(np.round(inputs[0]), dtype="int64")

    def pullback(self, inputs, outputs, cotangents):  # type: ignore[no-untyped-def]
        raise AssertionError("pullback of an op reached only through integer outputs")


class Cut(Op):
    """Identity whose pullback says disconnected (but keeps the default pattern)."""

    def make_node(self, x: Any) -> Apply:
        x = _as(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):  # type: ignore[no-untyped-def]
        out[0][0] = inputs[0]

    def pullback(self, inputs, outputs, cotangents):  # type: ignore[no-untyped-def]
        return [disconnected_type()]


class LegacyGrad(Op):
    """Old style: y = x ** 2 with ``grad``."""

    def make_node(self, x: Any) -> Apply:
        x = _as(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):  # type: ignore[no-untyped-def]
        out[0][0] = np.asarray(inputs[0] ** 2)

    def grad(self, inputs, output_grads):  # type: ignore[no-untyped-def]
        return [output_grads[0] * 2 * inputs[0]]


class LegacyLOp(Op):
    """Old style: y = x ** 3 with ``L_op``."""

    def make_node(self, x: Any) -> Apply:
        x = _as(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):  # type: ignore[no-untyped-def]
        out[0][0] = np.asarray(inputs[0] ** 3)

    def L_op(self, inputs, outputs, output_grads):  # type: ignore[no-untyped-def]
        return [output_grads[0] * 3 * inputs[0] ** 2]


class LegacyROp(Op):
    """Old style: y = a * b with ``R_op`` taking None for an input not differentiated."""

    def make_node(self, a: Any, b: Any) -> Apply:
        a, b = _as(a), _as(b)
        return Apply(self, [a, b], [a.type()])

    def perform(self, node, inputs, out):  # type: ignore[no-untyped-def]
        out[0][0] = np.asarray(inputs[0] * inputs[1])

    def R_op(self, inputs, eval_points):  # type: ignore[no-untyped-def]
        a, b = inputs
        ta, tb = eval_points
        self.points = list(eval_points)
        terms = []
        if ta is not None:
            terms.append(ta * b)
        if tb is not None:
            terms.append(a * tb)
        if not terms:
            return [None]
        return [terms[0] if len(terms) == 1 else terms[0] + terms[1]]


class LegacyRNone(Op):
    """Old style R_op that returns None: the output is disconnected in forward mode."""

    def make_node(self, x: Any) -> Apply:
        x = _as(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):  # type: ignore[no-untyped-def]
        out[0][0] = inputs[0]

    def R_op(self, inputs, eval_points):  # type: ignore[no-untyped-def]
        return [None]

"""Vectorised Jacobians: one reverse pass whose cotangent is a batch of unit vectors.

The vector-Jacobian product graph is built once for a symbolic cotangent
``u``; then every node that depends on ``u`` is rebuilt with a leading batch
axis, by a rule per Op class (a table, below).  ``u`` becomes the identity
matrix, so row k of the result is the gradient of element k.  A graph with an
Op that has no rule raises :class:`NoBatchingRule`; ``jacobian`` then falls
back to one ``grad`` per element.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from opgraph.autodiff import arith
from opgraph.autodiff.reverse import apply_nodes_above, grad
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.replace import BATCHING_RULES, NoBatchingRule, register_batching_rules
from opgraph.graph.replace import batching_rule_for as _rule_for

__all__ = ["BATCHING_RULES", "NoBatchingRule", "batched_jacobian", "vectorize_outputs"]


#: rule(node, inputs, batched) -> (outputs, batched flags); inputs carry the batch axis
#: first where ``batched[i]`` is True.
Rule = Callable[[Apply, list[Variable], list[bool]], tuple[list[Variable], list[bool]]]


def _elemwise(node: Apply, ins: list[Variable], batched: list[bool]) -> Any:
    # Elemwise pads lower-rank inputs on the left, so unbatched inputs broadcast.
    outs = type(node.op)(node.op.scalar_op)(*ins, return_list=True)
    return outs, [True] * len(outs)


def _dimshuffle(node: Apply, ins: list[Variable], batched: list[bool]) -> Any:
    op = node.op
    order = (0, *(o if o == "x" else int(o) + 1 for o in op.new_order))
    return [type(op)(input_ndim=op.input_ndim + 1, new_order=order)(ins[0])], [True]


def _sum(node: Apply, ins: list[Variable], batched: list[bool]) -> Any:
    op = node.op
    ndim = node.inputs[0].type.ndim
    axis = tuple(range(ndim)) if op.axis is None else tuple(op.axis)
    new = type(op)(axis=tuple(a + 1 for a in axis), dtype=op.dtype, acc_dtype=op.acc_dtype)
    return [new(ins[0])], [True]


def _dot(node: Apply, ins: list[Variable], batched: list[bool]) -> Any:
    pt = arith._pt()
    a, b = ins
    a_nd, b_nd = (v.type.ndim for v in node.inputs)
    if batched[0] and batched[1]:
        if a_nd == 2 and b_nd == 2:
            return [pt.matmul(a, b)], [True]
        raise NoBatchingRule(f"no batching rule for {node.op} with both inputs batched")
    if batched[0]:
        return [pt.matmul(a, b) if a_nd == 2 else pt.dot(a, b)], [True]
    # only b batched
    if b_nd == 2:
        return [pt.matmul(a, b)], [True]
    if a_nd == 1:
        return [pt.dot(b, a)], [True]
    return [pt.dot(b, a.T)], [True]


def _matmul(node: Apply, ins: list[Variable], batched: list[bool]) -> Any:
    if any(v.type.ndim < 2 for v in node.inputs):
        raise NoBatchingRule(f"no batching rule for {node.op} on 1-d inputs")
    pt = arith._pt()
    a, b = ins
    if not batched[0] and a.type.ndim > 2:
        a = pt.expand_dims(a, 0)
    if not batched[1] and b.type.ndim > 2:
        b = pt.expand_dims(b, 0)
    return [pt.matmul(a, b)], [True]


def _reshape(node: Apply, ins: list[Variable], batched: list[bool]) -> Any:
    if batched[1]:
        raise NoBatchingRule(f"no batching rule for {node.op} with a batched shape")
    pt = arith._pt()
    x, shape = ins
    ndim = node.outputs[0].type.ndim
    dims = [x.shape[0], *(shape[i] for i in range(ndim))]
    return [pt.reshape(x, dims, ndim=ndim + 1)], [True]


def _shape_i(node: Apply, ins: list[Variable], batched: list[bool]) -> Any:
    return [type(node.op)(node.op.i + 1)(ins[0])], [False]


def _rules() -> dict[type, Rule]:
    from opgraph.tensor.elemwise import DimShuffle, Elemwise
    from opgraph.tensor.products import Dot, MatMul
    from opgraph.tensor.reduction import Sum
    from opgraph.tensor.shape import Reshape, Shape_i

    return {Elemwise: _elemwise, DimShuffle: _dimshuffle, Sum: _sum, Dot: _dot,
            MatMul: _matmul, Shape_i: _shape_i, Reshape: _reshape}


# The table lives in the graph layer (vectorize_graph uses it too); the rules
# load on first use, since the tensor library is imported lazily.
register_batching_rules(_rules)


def vectorize_outputs(
    outputs: Sequence[Variable], replace: dict[Variable, Variable], batch: Variable
) -> list[Variable]:
    """``outputs`` rebuilt with each ``replace`` key swapped for its batched value.

    Every result has a leading batch axis of length ``batch``.
    """
    new: dict[Variable, Variable] = dict(replace)
    is_batched: dict[Variable, bool] = {k: True for k in replace}
    for node in apply_nodes_above(outputs, set(replace)):
        flags = [is_batched.get(i, False) for i in node.inputs]
        if not any(flags):
            continue
        ins = [new.get(i, i) for i in node.inputs]
        outs, out_flags = _rule_for(node.op)(node, ins, flags)
        for old, o, f in zip(node.outputs, outs, out_flags):
            new[old] = o
            is_batched[old] = f
    pt = arith._pt()
    result = []
    for out in outputs:
        if is_batched.get(out, False):
            result.append(new[out])
        else:  # does not depend on the batched input: the same for every row
            result.append(pt.alloc(new.get(out, out), batch, *_dims(out)))
    return result


def _dims(var: Variable) -> list[Any]:
    static = var.type.shape
    return [s if s is not None else var.shape[i] for i, s in enumerate(static)]


def batched_jacobian(
    expression: Variable, wrt: Sequence[Variable], consider_constant: Any = None,
    disconnected_inputs: str = "raise",
) -> list[Variable]:
    """Rows ``d expression.flatten()[k] / d wrt`` stacked on a leading axis."""
    pt = arith._pt()
    u = expression.type()
    vjps = grad(None, list(wrt), consider_constant=consider_constant,
                disconnected_inputs=disconnected_inputs, known_grads={expression: u})
    n = expression.size if expression.type.ndim != 1 else expression.shape[0]
    units = pt.reshape(pt.eye(n, dtype=u.type.dtype), (n, *_dims(expression)),
                       ndim=expression.type.ndim + 1)
    return vectorize_outputs(vjps, {u: units}, n)

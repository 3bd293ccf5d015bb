"""Fill (``second(x, y)``) elimination: fills sink to where they are useless, and vanish.

``second(x, y)`` is ``y`` broadcast to ``x``'s shape; gradients of sums and
:func:`keep_type` produce them. Left alone, a fill keeps ``x``'s value alive
only for its shape (the MLP gradient computed a full ``sqr`` for that) and
sits inside fused loops. Three rules:

- ``local_fill_sink``: ``f(second(x, y), z) -> second(x, f(y, z))`` moves the
  fill toward the output, where another input (``z``) often already has
  ``x``'s shape;
- ``local_useless_fill``: ``second(x, y) -> y`` when ``y``'s broadcast shape
  is already the result's (decided by static lengths, see :func:`covers_shape`);
- ``local_fill_to_alloc`` (specialize): ``second(x, y) -> alloc(y, *shape)``
  when ``x`` is read only by fills, so its value need not be computed.

They run before fusion (canonicalize/specialize), so Composites never need
rewriting from inside.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.rewriting.basic import NodeRewriter, is_output_client, node_rewriter
from opgraph.scalar.structural import Second, second
from opgraph.tensor.creation import Alloc
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.math import mul
from opgraph.tensor.reduction import Sum
from opgraph.tensor.variable import constant
from opgraph_rewrites.shape_feature import ShapeFeature
from opgraph_rewrites.utils import ew, keep_type

__all__ = ["covers_shape", "fill_rewriters", "local_sum_of_fill"]


def _second() -> Any:
    """The Second scalar op class (imported late: the scalar library loads after plugins)."""

    return Second


def _fill_op() -> Any:
    return ew(second)


def _add_shape_feature(fgraph: Any) -> None:
    if getattr(fgraph, "shape_feature", None) is None:
        fgraph.attach_feature(ShapeFeature())


def _fill_parts(var: Variable) -> tuple[Variable, Variable] | None:
    """``(x, y)`` when ``var`` is ``second(x, y)`` (a non-inplace Elemwise), else None."""
    node = var.owner
    if node is None or getattr(node.op, "inplace_pattern", None):
        return None
    sop = getattr(node.op, "scalar_op", None)
    if sop is None or not isinstance(sop, _second()) or len(node.inputs) != 2:
        return None
    return node.inputs[0], node.inputs[1]


def covers_shape(value: Variable, out: Variable) -> bool:
    """``value`` already has ``out``'s shape, ``out`` being ``value`` broadcast against
    other Elemwise inputs.

    Elemwise broadcasts only dimensions of static length 1 (a length known only
    at run time must equal the result's, or the node raises), so static
    lengths decide: every dimension of ``out`` that ``value`` lacks (it has
    fewer axes) or has as a static 1 must be a static 1 of ``out`` too.
    """
    vt, ot = value.type, out.type
    if getattr(vt, "ndim", None) is None or vt.ndim > ot.ndim:
        return False
    pad = ot.ndim - vt.ndim
    for d, o_static in enumerate(ot.shape):
        v_static = vt.shape[d - pad] if d >= pad else 1
        if v_static == 1 and o_static != 1:
            return False
    return True


def local_fill_sink() -> NodeRewriter:
    @node_rewriter([Elemwise], name="local_fill_sink")
    def rewrite(fgraph: Any, node: Apply) -> Any:
        """f(second(x, y), z) -> second(x, f(y, z)): the fill moves to the output."""
        op = node.op
        if len(node.outputs) != 1 or op.inplace_pattern or isinstance(op.scalar_op, _second()):
            return False
        models: list[Variable] = []
        values: list[Variable] = []
        for inp in node.inputs:
            parts = _fill_parts(inp)
            if parts is None:
                values.append(inp)
                continue
            model, value = parts
            if model not in models:
                models.append(model)
            values.append(value)
        if not models:
            return False
        out = node.outputs[0]
        try:
            new = op(*values)
        except (TypeError, ValueError):
            return False
        fill = _fill_op()
        for model in models:
            # a fill whose value already has the result's shape is not rebuilt
            if not covers_shape(new, out):
                new = fill(model, new)
        fixed = keep_type(out, new, refs=node.inputs)
        return [fixed] if fixed is not None else False

    return rewrite


def local_useless_fill() -> NodeRewriter:
    @node_rewriter([_fill_op()], name="local_useless_fill")
    def rewrite(fgraph: Any, node: Apply) -> Any:
        """second(x, y) -> y when y's broadcast shape already is the result's."""
        _x, y = node.inputs
        out = node.outputs[0]
        if not covers_shape(y, out):
            return False
        fixed = keep_type(out, y)
        return [fixed] if fixed is not None and fixed is not out else False

    return rewrite


def _only_fills_read(fgraph: Any, x: Variable) -> bool:
    """Every use of ``x`` is as the model (shape source) of a fill."""
    users = fgraph.clients.get(x, ())
    if not users:
        return False
    for client, k in users:
        if is_output_client(client) or k != 0:
            return False
        if _fill_parts(client.outputs[0]) is None:
            return False
    return True


def local_fill_to_alloc() -> NodeRewriter:
    @node_rewriter([_fill_op()], requirements=[_add_shape_feature], name="local_fill_to_alloc")
    def rewrite(fgraph: Any, node: Apply) -> Any:
        """second(x, y) -> alloc(y, *shape) when x's value is read by nothing else:
        the shape comes from the ShapeFeature, so x itself need not be computed."""

        x, y = node.inputs
        out = node.outputs[0]
        feature = getattr(fgraph, "shape_feature", None)
        if feature is None or x.owner is None or not _only_fills_read(fgraph, x):
            return False
        dims = feature.get_shape(out)
        if dims is None or any(d.owner is not None and x in d.owner.inputs for d in dims):
            return False  # the shape would still read x
        try:
            new = Alloc()(y, *dims)
        except (TypeError, ValueError):
            return False
        fixed = keep_type(out, new)
        return [fixed] if fixed is not None else False

    return rewrite


def _computed_anyway(fgraph: Any, x: Variable, node: Apply) -> bool:
    """``x`` is an input or constant, or is read by something besides the fill ``node``:
    dropping the fill's read of it drops no computation (nor the errors it may raise)."""
    if x.owner is None or isinstance(x, Constant):
        return True
    return any(client is not node for client, _k in fgraph.clients.get(x, ()))


def local_sum_of_fill() -> NodeRewriter:
    @node_rewriter([Sum], name="local_sum_of_fill")
    def rewrite(fgraph: Any, node: Apply) -> Any:
        """sum(second(x, c)) over every axis -> c * x.size when ``c`` holds one value
        and x's lengths are static (a gradient's ``fill(logp, -1)`` summed)."""
        parts = _fill_parts(node.inputs[0])
        if parts is None or fgraph is None:
            return False
        x, c = parts
        fill_node = node.inputs[0].owner
        axes = node.op.axis
        if axes is not None and sorted(axes) != list(range(x.type.ndim)):
            return False
        shape = node.inputs[0].type.shape
        if any(n is None for n in shape) or any(n != 1 for n in c.type.shape):
            return False
        if not _computed_anyway(fgraph, x, fill_node):
            return False
        out = node.outputs[0]
        size = constant(np.asarray(int(np.prod(shape, dtype=np.int64)), dtype=out.type.dtype))
        value = c if c.type.ndim == 0 else DimShuffle(
            input_ndim=c.type.ndim, new_order=())(c)
        fixed = keep_type(out, mul(value, size))
        return [fixed] if fixed is not None else False

    return rewrite


def fill_rewriters() -> dict[str, list[tuple[str, NodeRewriter, tuple[str, ...]]]]:
    """(name, rewriter, extra tags) per phase: canonicalize and specialize."""
    sink, useless = local_fill_sink(), local_useless_fill()
    return {
        "canonicalize": [
            ("local_fill_sink", sink, ("fill",)),
            ("local_useless_fill", useless, ("fill",)),
            ("local_sum_of_fill", local_sum_of_fill(), ("fill",)),
        ],
        "specialize": [
            ("specialize_fill_sink", sink, ("fill",)),
            ("specialize_useless_fill", useless, ("fill",)),
            ("local_fill_to_alloc", local_fill_to_alloc(), ("fill",)),
        ],
    }

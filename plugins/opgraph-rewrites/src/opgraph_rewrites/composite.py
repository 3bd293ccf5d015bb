"""After fusion: a constant input of a fused ``Composite`` that holds one value goes
inside it as a scalar constant (PyTensor's ``local_inline_composite_constants``).

The constant no longer broadcasts the loop, so the shape it set is restored:
lengths it fixed are asserted (``specify_shape``) and axes only it made longer
than 1 are broadcast with ``alloc`` (which checks them too). Same values and
the same shape errors.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Constant
from opgraph.graph.replace import clone_replace
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.scalar.composite import Composite
from opgraph.tensor.creation import alloc
from opgraph.tensor.elemwise import Elemwise
from opgraph.tensor.variable import constant
from opgraph_rewrites.utils import keep_type

__all__ = ["local_inline_composite_constants"]


def _single_value(var: Any) -> Any:
    """The one value a constant holds (None when it holds several, or none)."""
    if not isinstance(var, Constant):
        return None
    data = np.asarray(var.data)
    if data.size == 0 or not np.all(data == data.flat[0]):
        return None
    return data.flat[0]


def _restore_shape(old: Any, new: Any) -> Any:
    """``new`` broadcast (alloc) where only the constant gave ``old`` its length, and
    narrowed to ``old``'s type (asserting the lengths the constant fixed)."""
    old_shape, new_shape = old.type.shape, new.type.shape
    if any(n == 1 and o != 1 for n, o in zip(new_shape, old_shape)):
        dims = []
        for d, (n, o) in enumerate(zip(new_shape, old_shape)):
            if n == 1 and o != 1:
                if o is None:
                    return None
                dims.append(constant(o, dtype="int64"))
            else:
                dims.append(new.shape[d])
        new = alloc(new, *dims)
    return keep_type(old, new)


@node_rewriter([Elemwise], name="local_inline_composite_constants")
def local_inline_composite_constants(fgraph: Any, node: Apply) -> Any:
    """Composite(x, c, y) -> Composite'(x, y) with the one value of ``c`` inside."""
    comp = node.op.scalar_op
    if not isinstance(comp, Composite):
        return None
    kept, replace = [], {}
    for outer, inner in zip(node.inputs, comp.inner_inputs):
        value = _single_value(outer)
        if value is None:
            kept.append((outer, inner))
        else:
            replace[inner] = inner.type.make_constant(np.asarray(value, dtype=inner.type.dtype))
    if not replace or not kept:
        return None
    outputs = clone_replace(list(comp.inner_outputs), replace=replace)
    new_comp = Composite([inner for _, inner in kept], outputs)
    new_outs = Elemwise(new_comp).make_node(*[outer for outer, _ in kept]).outputs
    fixed = [_restore_shape(old, new) for old, new in zip(node.outputs, new_outs)]
    return None if any(f is None for f in fixed) else fixed

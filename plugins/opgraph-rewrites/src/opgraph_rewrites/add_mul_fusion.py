"""PyTensor's ``add_mul_fusion`` step of the fusion phase (``tensor.rewriting.elemwise``):

- ``flatten_nested_add_mul``: ``(a + b) + c -> a + b + c`` (the same for ``*``) when
  the inner sum is read only there: one loop over all the terms;
- ``constant_fold_branches_of_add_mul``: the constant terms of such a sum folded
  into one, ``(a + x) + b -> (a + b) + x``, as long as the folded constant is no
  bigger than the largest one it replaces (a small constant broadcast against a big
  one stays apart: folding it would allocate more memory than it saves).

Both reorder the terms of a sum or product (the rounding may change in the last
place, as with any regrouping; an inf and a -inf give NaN in every order).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import opgraph.scalar as ps
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.variable import constant
from opgraph_rewrites.db import EquilibriumDB
from opgraph_rewrites.utils import elemwise_of, ew, keep_type

__all__ = [
    "add_mul_fusion_seqopt",
    "constant_fold_branches_of_add_mul",
    "flatten_nested_add_mul",
]

_NUMPY = {ps.Add: np.add, ps.Mul: np.multiply}


def _fixed(node: Apply, new: Variable) -> Any:
    out = keep_type(node.outputs[0], new, refs=node.inputs)
    return [out] if out is not None else None


def _kind(node: Apply) -> type | None:
    for cls in _NUMPY:
        if elemwise_of(node.outputs[0], cls) is not None:
            return cls
    return None


@node_rewriter([ew(ps.add), ew(ps.mul)], name="flatten_nested_add_mul")
def flatten_nested_add_mul(fgraph: Any, node: Apply) -> Any:
    """add(add(a, b), c) -> add(a, b, c) when the inner add has no other reader."""
    kind = _kind(node)
    if kind is None or fgraph is None:
        return None
    terms, changed = [], False
    for var in node.inputs:
        inner = elemwise_of(var, kind)
        if inner is not None and len(fgraph.clients.get(var, ())) == 1 \
                and var not in fgraph.outputs and var.type.dtype == node.outputs[0].type.dtype:
            terms.extend(inner.inputs)
            changed = True
        else:
            terms.append(var)
    if not changed:
        return None
    return _fixed(node, node.op(*terms))


def _size(shape: tuple[int, ...]) -> int:
    return int(np.prod(shape, dtype=np.int64))


@node_rewriter([ew(ps.add), ew(ps.mul)], name="constant_fold_branches_of_add_mul")
def constant_fold_branches_of_add_mul(fgraph: Any, node: Apply) -> Any:
    """add(a, x, b) -> add(a + b, x) for constants ``a``, ``b`` whose sum is no bigger
    than the bigger of the two."""
    kind = _kind(node)
    consts = [v for v in node.inputs if isinstance(v, Constant)]
    if kind is None or len(consts) < 2:
        return None
    fn = _NUMPY[kind]
    folded = np.asarray(consts[0].data)
    kept, n_folded = [], 1
    for c in consts[1:]:
        data = np.asarray(c.data)
        shape = np.broadcast_shapes(folded.shape, data.shape)
        if _size(shape) <= max(_size(folded.shape), _size(data.shape)):
            folded = fn(folded, data)
            n_folded += 1
        else:
            kept.append(c)
    if n_folded < 2:
        return None
    dtype = np.result_type(*[np.asarray(c.data) for c in consts if c not in kept])
    rest = [v for v in node.inputs if not isinstance(v, Constant)]
    terms = [constant(np.asarray(folded, dtype=dtype)), *kept, *rest]
    new = terms[0] if len(terms) == 1 else node.op(*terms)
    return _fixed(node, new)


add_mul_fusion_seqopt = EquilibriumDB(name="add_mul_fusion")
add_mul_fusion_seqopt.register("flatten_nested_add_mul", flatten_nested_add_mul, "fast_run",
                               "fusion")
add_mul_fusion_seqopt.register("constant_fold_branches_of_add_mul",
                               constant_fold_branches_of_add_mul, "fast_run", "fusion")

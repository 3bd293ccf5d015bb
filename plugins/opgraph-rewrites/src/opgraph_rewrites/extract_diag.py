"""A diagonal read (``ExtractDiag``) moved toward the inputs, computing only the
diagonal (PyTensor's ``extract_diag_lift_pass`` in ``subtensor_lift``):

- ``diagonal(f(x, y)) -> f(diagonal(x), diagonal(y))`` for an Elemwise read only
  there; an input broadcast along one diagonal axis contributes its slice along
  the other, one broadcast along both its single value;
- ``diagonal(alloc_diag(v, k), k) -> v`` (another offset: zeros);
- ``diagonal(eye(n, m, 0)) -> alloc(1, min(n, m))``;
- ``diagonal(alloc(s, n, m)) -> alloc(s, min(n, m))`` for a scalar ``s``.

``ExtractDiag`` and ``AllocDiag`` come from opgraph-linalg through
``opgraph.tensor.basic``; without that plugin the rewrites never apply.
Every form reads the same elements, so values are exact.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import opgraph.scalar as ps
import opgraph.tensor.basic as tensor_basic
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.op import Op
from opgraph.graph.rewriting.basic import NodeRewriter, SequentialGraphRewriter, node_rewriter
from opgraph.graph.rewriting.walking import out2in
from opgraph.plugins import MissingPluginName
from opgraph.tensor.creation import Alloc, Eye, alloc
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.math import minimum
from opgraph.tensor.shape import static_int
from opgraph.tensor.variable import constant
from opgraph_rewrites.utils import keep_type, single_client

__all__ = [
    "extract_diag_lift_pass",
    "local_extract_diag_lift",
    "local_extract_diag_of_alloc",
    "local_extract_diag_of_alloc_diag",
    "local_extract_diag_of_eye",
]


def _plugin_op(name: str) -> Any:
    op = getattr(tensor_basic, name, None)
    return None if op is None or isinstance(op, MissingPluginName) else op


ExtractDiag = _plugin_op("ExtractDiag")
AllocDiag = _plugin_op("AllocDiag")


class _NoExtractDiag(Op):
    """Tracked in ExtractDiag's place when opgraph-linalg is not installed: no node has
    it, so the rewrites below never run (an empty track list means "every node")."""

    __props__ = ()


_TRACKS = [ExtractDiag if ExtractDiag is not None else _NoExtractDiag]


def _fixed(node: Apply, new: Any) -> Any:
    out = keep_type(node.outputs[0], new)
    return [out] if out is not None else None


def _axes(node: Apply) -> tuple[int, int]:
    ndim = node.inputs[0].type.ndim
    return node.op.axis1 % ndim, node.op.axis2 % ndim


def _diag_of_input(node: Apply, inp: Variable, out_shape: tuple) -> Variable | None:
    """The diagonal of one Elemwise input of a 2-d diagonal read (None: not lifted)."""
    a1, a2 = _axes(node)
    offset = node.op.offset
    b1, b2 = (inp.type.shape[a] == 1 and out_shape[a] != 1 for a in (a1, a2))
    if not b1 and not b2:
        return node.op(inp)
    if not _statically_checked(inp, out_shape, (a1, a2)):
        return None
    if b1 and b2:
        owner = inp.owner
        if (owner is not None and isinstance(owner.op, DimShuffle)
                and owner.op.new_order == ("x",) * inp.type.ndim):
            return owner.inputs[0]  # elemwise broadcasts the 0-d value
        return inp.squeeze(axis=(a1, a2)) if inp.type.ndim == 2 else None
    if inp.type.ndim != 2:
        return None
    # broadcast along one axis: the diagonal runs along the other
    along, dropped = (a2, a1) if b1 else (a1, a2)
    start = max(offset, 0) if along == a2 else max(-offset, 0)
    n_along, n_other = out_shape[along], out_shape[dropped]
    other_start = max(-offset, 0) if along == a2 else max(offset, 0)
    if n_along is None or n_other is None:
        return None
    length = max(0, min(n_along - start, n_other - other_start))
    if start + length != n_along:
        return None
    if start:
        index = [slice(None), slice(None)]
        index[along] = slice(start, None)
        inp = inp[tuple(index)]
    return inp.squeeze(axis=dropped)


def _statically_checked(inp: Variable, out_shape: tuple, axes: tuple[int, int]) -> bool:
    """The diagonal axes of every input of a lifted Elemwise have static lengths (the
    output's, or 1): a length mismatch the Elemwise would raise cannot be hidden by
    two diagonals that happen to have one length."""
    return all(out_shape[a] is not None and inp.type.shape[a] in (1, out_shape[a])
               for a in axes)


@node_rewriter(_TRACKS, name="local_extract_diag_lift")
def local_extract_diag_lift(fgraph: Any, node: Apply) -> Any:
    """diagonal(f(x, y)) -> f(diagonal(x), diagonal(y)) for a single-use Elemwise."""
    inner = node.inputs[0].owner
    if inner is None or not isinstance(inner.op, Elemwise) or len(inner.outputs) != 1:
        return None
    if fgraph is not None and not single_client(fgraph, node.inputs[0]):
        return None
    out_shape = inner.outputs[0].type.shape
    if len(out_shape) != 2 and any(
            i.type.shape[a] == 1 != out_shape[a] for i in inner.inputs for a in _axes(node)):
        return None
    if len(inner.inputs) > 1 and not all(
            _statically_checked(i, out_shape, _axes(node)) for i in inner.inputs):
        return None
    new_inputs = [_diag_of_input(node, i, out_shape) for i in inner.inputs]
    if any(i is None for i in new_inputs):
        return None
    if isinstance(inner.op.scalar_op, ps.Mul):
        # eye(n) * x: a factor whose diagonal is all ones drops out
        kept = [d for i, d in zip(inner.inputs, new_inputs) if not _ones_on_diagonal(node, i)]
        if kept and len(kept) < len(new_inputs):
            return _fixed(node, kept[0] if len(kept) == 1 else inner.op(*kept))
    return _fixed(node, inner.op(*new_inputs))


def _ones_on_diagonal(node: Apply, var: Variable) -> bool:
    if not isinstance(var, Constant) or var.type.ndim != 2:
        return False
    diag = np.diagonal(np.asarray(var.data), node.op.offset, *_axes(node))
    return diag.size > 0 and bool(np.all(diag == 1))


@node_rewriter(_TRACKS, name="local_extract_diag_of_alloc_diag")
def local_extract_diag_of_alloc_diag(fgraph: Any, node: Apply) -> Any:
    """diagonal(alloc_diag(v, k), k) -> v; another offset reads only zeros."""
    inner = node.inputs[0].owner
    if inner is None or AllocDiag is None or not isinstance(inner.op, AllocDiag):
        return None
    if (inner.op.axis1, inner.op.axis2) != (node.op.axis1, node.op.axis2):
        return None
    v = inner.inputs[0]
    out = node.outputs[0]
    if inner.op.offset == node.op.offset:
        if v.type.shape != out.type.shape or None in v.type.shape:
            return None
        return _fixed(node, v)
    length = out.type.shape[-1]
    if out.type.ndim != 1 or length is None:
        return None
    zero = np.asarray(0, dtype=out.type.dtype)
    return _fixed(node, alloc(zero, constant(length, dtype="int64")))


def _common_length(n: Variable, m: Variable) -> Variable:
    """min(n, m), or n itself when both are the same variable or constant."""
    if n is m or (static_int(n) is not None and static_int(n) == static_int(m)):
        return n
    return minimum(n, m)


@node_rewriter(_TRACKS, name="local_extract_diag_of_eye")
def local_extract_diag_of_eye(fgraph: Any, node: Apply) -> Any:
    """diagonal(eye(n, m, 0)) -> alloc(1, min(n, m)) (offset 0 of a 2-d eye)."""
    inner = node.inputs[0].owner
    if inner is None or not isinstance(inner.op, Eye) or node.op.offset != 0:
        return None
    n, m, k = inner.inputs
    if static_int(k) != 0 or _axes(node) != (0, 1):
        return None
    one = np.asarray(1, dtype=node.outputs[0].type.dtype)
    return _fixed(node, alloc(one, _common_length(n, m)))


@node_rewriter(_TRACKS, name="local_extract_diag_of_alloc")
def local_extract_diag_of_alloc(fgraph: Any, node: Apply) -> Any:
    """diagonal(alloc(s, n, m)) -> alloc(s, min(n, m)) for a 0-d ``s`` (offset 0)."""
    inner = node.inputs[0].owner
    if inner is None or not isinstance(inner.op, Alloc) or node.op.offset != 0:
        return None
    value, *dims = inner.inputs
    if value.type.ndim != 0 or len(dims) != 2:
        return None
    return _fixed(node, alloc(value, _common_length(*dims)))


def _parts() -> list[NodeRewriter]:
    return [local_extract_diag_of_alloc_diag, local_extract_diag_of_eye,
            local_extract_diag_of_alloc, local_extract_diag_lift]


extract_diag_lift_pass = SequentialGraphRewriter(
    out2in(*_parts(), name="extract_diag_lift_out2in"),
)
extract_diag_lift_pass.name = "extract_diag_lift_pass"

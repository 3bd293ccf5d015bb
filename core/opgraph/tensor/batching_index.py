"""Index updates and allocations over batch axes: the forms a Blockwise of them lowers to.

``vectorize_graph`` gives IncSubtensor, AdvancedIncSubtensor and Alloc nodes
over batched inputs as a Blockwise of the node, as PyTensor does; a rewrite
(``opgraph_rewrites.blockwise_passes``) then replaces that loop by one node
built here:

- :func:`batched_index_update`: ``x[idx] += y`` (or ``=``) for every batch
  entry at once.  Unbatched indices become leading whole slices; batched ones
  become one advanced index, with an ``arange`` per batch axis picking each
  entry's own row, as NumPy writes ``x[b, i[b]]``.  A slice bound that varies
  over the batch has no single-node form (the Blockwise stays).
- :func:`batched_alloc`: an Alloc whose batched shape is the same in every
  batch entry (an Alloc of one scalar) is one Alloc over the batch.

Both take the core node, the batched inputs and how many leading batch axes
each carries (the batching-rule signature), and raise ``NoBatchingRule`` for a
case they do not cover.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.autodiff.vectorize import NoBatchingRule
from opgraph.graph.basic import Apply, Variable
from opgraph.tensor.advanced import AdvancedIncSubtensor
from opgraph.tensor.creation import Alloc, alloc, arange
from opgraph.tensor.indexing import SliceSpec, split_inputs
from opgraph.tensor.subtensor import IncSubtensor, inc_subtensor

__all__ = ["batch_shape", "batched_alloc", "batched_index_update", "lower_blockwise"]


def batch_shape(inputs: Sequence[Variable], extra: Sequence[int]) -> list[Any]:
    """The broadcast batch shape of ``inputs`` (each with ``extra[i]`` leading batch axes,
    left-padded): a static length where one is known, else a symbolic one.

    As everywhere in opgraph, only an axis of static length 1 broadcasts.
    """
    nb = max(extra, default=0)
    dims: list[Any] = []
    for j in range(nb):
        static, symbolic = None, None
        for v, e in zip(inputs, extra):
            k = j - (nb - e)
            if k < 0:
                continue
            s = v.type.shape[k]
            if s is not None and s != 1:
                static = s
            elif s is None and symbolic is None:
                symbolic = v.shape[k]
        dims.append(static if static is not None else symbolic if symbolic is not None else 1)
    return dims


def _expand(var: Variable, e: int, nb: int, gap: int) -> Variable:
    """``var`` (``e`` batch axes, then its core ones) with its batch axes left-padded to
    ``nb`` and ``gap`` broadcastable axes inserted before its core axes."""
    core = var.type.ndim - e
    order = [*["x"] * (nb - e), *range(e), *["x"] * gap, *range(e, e + core)]
    return var if order == list(range(var.type.ndim)) else var.dimshuffle(*order)


def _core_layout(spec: Sequence[Any], adv: list[int], n_slices: int, a_nd: int) -> list[int]:
    """Where each axis of the full region (advanced axes, then every slice axis) sits in
    the core region, whose advanced axes stay in place only when adjacent (NumPy)."""
    adjacent = adv == list(range(adv[0], adv[-1] + 1)) if adv else True
    before = sum(1 for e in spec[:adv[0]] if isinstance(e, SliceSpec)) if adv and adjacent else 0
    # core region: `before` slice axes, the advanced axes, the remaining slice axes
    full_to_core = [before + i for i in range(a_nd)]
    full_to_core += [i if i < before else i + a_nd for i in range(n_slices)]
    return full_to_core


def batched_index_update(node: Apply, inputs: Sequence[Variable], extra: Sequence[int]
                         ) -> list[Variable]:
    """The IncSubtensor/AdvancedIncSubtensor ``node`` over batched ``inputs``, as one node."""
    op = node.op
    if not isinstance(op, IncSubtensor | AdvancedIncSubtensor):
        raise NoBatchingRule(f"{op}: not an indexed update")
    spec = op.idx_spec
    x, y, *idx = inputs
    core_idx = node.inputs[2:]
    nb = max(extra)
    parts = split_inputs(spec, idx)
    part_extra = split_inputs(spec, list(extra[2:]))
    core_parts = split_inputs(spec, core_idx)
    adv = [k for k, e in enumerate(spec) if not isinstance(e, SliceSpec)]
    for k, e in enumerate(spec):
        if isinstance(e, SliceSpec) and any(part_extra[k][i] for i in range(3)
                                            if part_extra[k][i] is not None):
            raise NoBatchingRule(f"{op}: a slice bound varies over the batch")
        if k in adv and core_parts[k].type.dtype == "bool":
            raise NoBatchingRule(f"{op}: a boolean index")
    dims = batch_shape(inputs, extra)
    if extra[0] != nb or any(s == 1 for s in x.type.shape[:nb]):  # x must hold every entry
        x = alloc(x, *dims, *(x.shape[d] for d in range(extra[0], x.type.ndim)))
    adjacent = adv == list(range(adv[0], adv[-1] + 1)) if adv else True
    if not any(part_extra[k] for k in adv) and (isinstance(op, IncSubtensor) or adjacent):
        # unbatched indices: whole slices over the batch axes, then the core index
        index: list[Any] = [slice(None)] * nb
        index += [slice(*p) if isinstance(e, SliceSpec) else p for e, p in zip(spec, parts)]
        region = x[tuple(index)]
        y = _expand(y, extra[1], nb, region.type.ndim - nb - (y.type.ndim - extra[1]))
        return [_update(op, region, y)]
    a_nd = max(core_parts[k].type.ndim for k in adv)
    index = [arange(dims[j]).dimshuffle(*["x"] * j, 0, *["x"] * (nb - 1 - j + a_nd))
             for j in range(nb)]
    for k, e in enumerate(spec):
        if isinstance(e, SliceSpec):
            index.append(slice(*parts[k]))
        else:
            part = parts[k]
            index.append(_expand(part, part_extra[k], nb, a_nd - core_parts[k].type.ndim))
    n_slices = x.type.ndim - nb - len(adv)  # indexed and trailing slice axes
    region_nd = a_nd + n_slices
    y = _expand(y, extra[1], nb, region_nd - (y.type.ndim - extra[1]))
    perm = _core_layout(spec, adv, n_slices, a_nd)
    if perm != list(range(region_nd)):
        y = y.dimshuffle(*range(nb), *(nb + p for p in perm))
    return [_update(op, x[tuple(index)], y)]


def _update(op: Any, region: Variable, y: Variable) -> Variable:
    return inc_subtensor(region, y, set_instead_of_inc=op.set_instead_of_inc,
                         ignore_duplicates=getattr(op, "ignore_duplicates", False))


def batched_alloc(node: Apply, inputs: Sequence[Variable], extra: Sequence[int]
                  ) -> list[Variable]:
    """The Alloc ``node`` over batched inputs whose batched lengths are each an Alloc of
    one scalar (the same in every batch entry): one Alloc over the batch."""
    if not isinstance(node.op, Alloc):
        raise NoBatchingRule(f"{node.op}: not an Alloc")
    value, *lengths = inputs
    nb = max(extra)
    core_lengths = []
    for n, e in zip(lengths, extra[1:]):
        if e:
            owner = n.owner
            if owner is None or not isinstance(owner.op, Alloc) or owner.inputs[0].type.ndim:
                raise NoBatchingRule(f"{node.op}: a length that varies over the batch")
            n = owner.inputs[0]
        core_lengths.append(n)
    dims = batch_shape([value, *lengths], extra)
    out_core = node.outputs[0].type.ndim
    value = _expand(value, extra[0], nb, out_core - (value.type.ndim - extra[0]))
    return [alloc(value, *dims, *core_lengths)]


def lower_blockwise(node: Apply) -> list[Variable] | None:
    """A Blockwise node of an index update or an Alloc as one node of the core's kind
    (None when its inputs do not allow it: a slice bound or a length that varies)."""
    op = node.op
    core = op.core_op
    if not isinstance(core, IncSubtensor | AdvancedIncSubtensor | Alloc):
        return None
    extra = [i.type.ndim - len(sig) for i, sig in zip(node.inputs, op.inputs_sig)]
    if not any(extra):
        return None
    lower = batched_alloc if isinstance(core, Alloc) else batched_index_update
    try:
        return lower(op._core_node(node), node.inputs, extra)
    except NoBatchingRule:
        return None

"""Rewrites of random variables: in-place generators and lifting ``size``/DimShuffle.

``random_make_inplace`` lets a RandomVariable advance its generator in place
where the DestroyHandler allows it (the generator is an updated shared
variable or an intermediate nobody else reads); elsewhere it keeps copying,
so every mode gives the same draws.  The lifts are the ones PyTensor offers
for graph manipulation; they are available by name, not run by default.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.creation import alloc
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.indexing import INT, SliceSpec, split_inputs
from opgraph.tensor.random.op import RandomVariable
from opgraph.tensor.shape import Shape, Shape_i
from opgraph.tensor.subtensor import AdvancedSubtensor, Subtensor
from opgraph.tensor.type_other import NoneConst, NoneTypeT
from opgraph_rewrites.swap import NodeSwapRewriter

__all__ = [
    "RandomMakeInplace",
    "is_rv_used_in_graph",
    "local_dimshuffle_rv_lift",
    "local_rv_size_lift",
    "local_subtensor_rv_lift",
    "random_make_inplace",
    "sidestep_unused_rng_consumer",
]


def _with_props(op: RandomVariable, **changes: Any) -> RandomVariable:
    props = op._props_dict()
    props.update(changes)
    return type(op)(**props)


class RandomMakeInplace(NodeSwapRewriter):
    """Swaps each RandomVariable for its ``inplace=True`` twin where that is safe."""

    name = "random_make_inplace"

    def twin_outputs(self, fgraph: Any, node: Apply) -> list | None:
        if not isinstance(node.op, RandomVariable) or node.op.inplace:
            return None
        return _with_props(node.op, inplace=True).make_node(*node.inputs).outputs


random_make_inplace = RandomMakeInplace()


@node_rewriter([RandomVariable], name="local_rv_size_lift")
def local_rv_size_lift(fgraph: Any, node: Apply) -> list | None:
    """``rv(params, size=s)`` -> ``rv(broadcast(params to s), size=None)``.

    The draws are the same numbers: the new node draws as many values.
    """
    op: RandomVariable = node.op
    rng, size, *params = node.inputs
    if isinstance(size.type, NoneTypeT):
        return None
    n = size.type.shape[0]
    batch = [size[i] for i in range(n)]
    new_params = []
    for p, nd in zip(params, op.ndims_params, strict=True):
        core = [p.shape[p.type.ndim - nd + j] for j in range(nd)]
        new_params.append(alloc(p, *batch, *core))
    new_node = op.make_node(rng, NoneConst, *new_params)
    old_out, new_out = node.outputs[1], new_node.outputs[1]
    if new_out.type.ndim != old_out.type.ndim:
        return None
    if new_out.type != old_out.type:
        new_out = old_out.type.filter_variable(new_out)
    return [new_node.outputs[0], new_out]


@node_rewriter([DimShuffle], name="local_dimshuffle_rv_lift")
def local_dimshuffle_rv_lift(fgraph: Any, node: Apply) -> list | None:
    """``dimshuffle(rv(params, size))`` -> ``rv(dimshuffle(params), dimshuffle(size))``.

    Only when the RV's draw has no other reader, the order keeps the support
    dimensions last and in place, and only batch dimensions move or get added.
    """
    ds = node.op
    rv = node.inputs[0]
    rv_node = rv.owner
    if rv_node is None or not isinstance(rv_node.op, RandomVariable):
        return None
    if len(fgraph.clients.get(rv, ())) != 1:
        return None
    op: RandomVariable = rv_node.op
    order = list(ds.new_order)
    ndim = rv.type.ndim
    n_supp = op.ndim_supp
    batch_ndim = ndim - n_supp
    kept = [o for o in order if o != "x"]
    if sorted(kept) != list(range(ndim)):
        return None  # dropping dimensions is not lifted
    if n_supp and order[len(order) - n_supp:] != list(range(batch_ndim, ndim)):
        return None
    batch_order = order[: len(order) - n_supp]
    rng, size, *params = rv_node.inputs
    new_params = []
    for p, nd in zip(params, op.ndims_params, strict=True):
        p_batch = p.type.ndim - nd
        pad = batch_ndim - p_batch
        p_order = []
        for o in batch_order:
            if o == "x" or o < pad:
                p_order.append("x")
            else:
                p_order.append(o - pad)
        p_order += list(range(p_batch, p.type.ndim))
        new_params.append(p.dimshuffle(p_order))
    if isinstance(size.type, NoneTypeT):
        new_size = size
    else:
        entries = [size[i] for i in range(size.type.shape[0])]
        new_size = [1 if o == "x" else entries[o] for o in batch_order]
    new_node = op.make_node(rng, new_size, *new_params)
    new_out = new_node.outputs[1]
    if new_out.type.ndim != node.outputs[0].type.ndim:
        return None
    _name_lifted(rv, new_out)
    return {node.outputs[0]: new_out, rv_node.outputs[0]: new_node.outputs[0]}


def _name_lifted(old: Any, new: Any) -> None:
    if old.name is not None:
        new.name = f"{old.name}_lifted"



def _index_entries(op: Any, inputs: Sequence[Any]) -> list[Any] | None:
    """The symbolic index of a (boolean-)indexing node, or None if it is not liftable.

    Integer arrays are refused: a repeated index repeats one draw, which
    independent draws of the lifted RV would not reproduce.
    """
    entries = list(op.idx_spec)
    parts = split_inputs(entries, inputs)
    while entries and entries[-1] == SliceSpec():  # x[..., :] is x[...]
        entries.pop()
        parts.pop()
    index = []
    for entry, part in zip(entries, parts, strict=True):
        if isinstance(entry, SliceSpec):
            index.append(slice(*part))
        elif entry == INT:
            index.append(part)
        elif getattr(part.type, "dtype", "") == "bool":
            index.append(part)
        else:
            return None
    return index


def is_rv_used_in_graph(base_rv: Variable, node: Apply, fgraph: Any) -> bool:
    """Whether a node other than ``node`` reads ``base_rv``'s values in ``fgraph`` (or it
    is an output); ``Shape``/``Shape_i`` readers only need its shape and do not count.
    A lift that redraws the variable is only valid when nothing else sees the draw."""
    for client, _ in fgraph.clients.get(base_rv, ()):
        if client is node or isinstance(getattr(client, "op", None), Shape | Shape_i):
            continue
        return True
    return False


def _consumed_dims(index: Sequence[Any]) -> int:
    return sum(getattr(i.type, "ndim", 1) if isinstance(i, Variable) and
               getattr(i.type, "dtype", "") == "bool" else 1 for i in index)


@node_rewriter([Subtensor, AdvancedSubtensor], name="local_subtensor_rv_lift")
def local_subtensor_rv_lift(fgraph: Any, node: Apply) -> dict | None:
    """``rv(params, size)[idx]`` -> ``rv(broadcast(params)[idx])`` on batch dimensions.

    For basic and boolean indices.  The new RV draws only the selected
    entries: the same distribution, fewer (hence different) numbers.  Only
    when the draw has no other reader and the index leaves the support
    dimensions alone.
    """
    rv = node.inputs[0]
    rv_node = rv.owner
    if rv_node is None or not isinstance(rv_node.op, RandomVariable):
        return None
    if len(fgraph.clients.get(rv, ())) != 1:
        return None
    op: RandomVariable = rv_node.op
    index = _index_entries(node.op, node.inputs[1:])
    batch_ndim = rv.type.ndim - op.ndim_supp
    if index is None or _consumed_dims(index) > batch_ndim:
        return None
    rng, size, *params = rv_node.inputs
    batch = list(op._infer_shape(size, params)[:batch_ndim])
    new_params = []
    for p, nd in zip(params, op.ndims_params, strict=True):
        core = [p.shape[p.type.ndim - nd + j] for j in range(nd)]
        new_params.append(alloc(p, *batch, *core)[tuple(index)])
    new_node = op.make_node(rng, NoneConst, *new_params)
    new_out = new_node.outputs[1]
    old_out = node.outputs[0]
    if new_out.type.ndim != old_out.type.ndim:
        return None
    if new_out.type != old_out.type:
        new_out = old_out.type.filter_variable(new_out)
    _name_lifted(rv, new_out)
    return {old_out: new_out, rv_node.outputs[0]: new_node.outputs[0]}


@node_rewriter([RandomVariable], name="sidestep_unused_rng_consumer")
def sidestep_unused_rng_consumer(fgraph: Any, node: Apply) -> dict | None:
    """An RV whose draw nobody reads passes its generator through untouched.

    Only when this node is the generator's sole reader (a duplicate of the
    node whose draw is read must keep advancing it).  Changes the final
    generator state, hence the tag ``random_unsafe``.
    """
    rng, next_rng, draw = node.inputs[0], node.outputs[0], node.outputs[1]
    if fgraph.clients.get(draw):
        return None
    if len(fgraph.clients.get(rng, ())) != 1 or not fgraph.clients.get(next_rng):
        return None
    if draw in fgraph.outputs:
        return None
    return {next_rng: rng}

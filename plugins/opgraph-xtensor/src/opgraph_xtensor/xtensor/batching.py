"""``vectorize_graph`` for graphs with named dims: inputs replaced by versions with batch dims.

xtensor replacements bring their new dims by name; tensor replacements add
leading axes named by ``new_tensor_dims``.  The batch dims of the whole call
(in order: each replacement's new dims, then ``new_tensor_dims``) are ``B``.
xtensor Ops are rebuilt on the new inputs (they work by name); tensor values
carry the batch dims they have in front, and a tensor Op sees its inputs
lined up on ``B`` (Elemwise by expanding, other Ops by broadcasting).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import opgraph.tensor as pt
from opgraph.graph.basic import Variable, ancestors
from opgraph.graph.replace import vectorize_graph as tensor_vectorize_graph
from opgraph.graph.replace import vectorize_node
from opgraph.tensor.elemwise import Elemwise
from opgraph_xtensor.xtensor.basic import (
    Rename,
    TensorFromXTensor,
    XOp,
    XTensorFromTensor,
    rename,
    tensor_from_xtensor,
    xtensor_from_tensor,
)
from opgraph_xtensor.xtensor.shape import transpose
from opgraph_xtensor.xtensor.type import XTensorType

__all__ = ["vectorize_graph"]


def _check(old: Variable, new: Variable, ntd: Sequence[str], graph_dims: set[str]
           ) -> tuple[str, ...]:
    """The new dims ``new`` brings (errors name what is wrong)."""
    if isinstance(old.type, XTensorType):
        missing = [d for d in old.type.dims if d not in new.type.dims]
        if missing:
            raise ValueError(f"vectorize_graph: the replacement {new} of {old} is missing "
                             f"pre-existing dims {missing}")
        dims = tuple(d for d in new.type.dims if d not in old.type.dims)
        clash = [d for d in dims if d in graph_dims]
        if clash:
            raise ValueError(f"vectorize_graph: {new} has new dimensions that were present in "
                             f"the original graph: {clash}")
        return dims
    extra = new.type.ndim - old.type.ndim
    if extra < 0:
        raise ValueError(f"vectorize_graph: the replacement {new} of {old} is missing "
                         "pre-existing dims")
    if extra and not ntd:
        raise ValueError("You must specify `new_tensor_dims` when a tensor is replaced by one "
                         "with more dims")
    if extra > len(ntd):
        raise ValueError(f"{new} adds {extra} dims, but only {len(ntd)} new tensor dims were "
                         "specified")
    if extra and extra < len(ntd):
        raise ValueError(f"{len(ntd)} new tensor dims were specified, but only {extra} were "
                         f"added by {new}")
    return tuple(ntd) if extra else ()


def vectorize_graph(outputs: Any, replace: Mapping[Variable, Variable],
                    new_tensor_dims: Sequence[str] = ()) -> Any:
    """``outputs`` rebuilt over ``replace`` (variables -> versions with batch dims)."""
    single = isinstance(outputs, Variable)
    outs = [outputs] if single else list(outputs)
    graph_dims = {d for v in ancestors(outs) if isinstance(v.type, XTensorType)
                  for d in v.type.dims}
    memo: dict[Variable, Any] = {}
    order: list[str] = []
    sources: dict[str, list[tuple[Variable, int]]] = {}
    for old, new in replace.items():
        dims = _check(old, new, tuple(new_tensor_dims), graph_dims)
        order.extend(d for d in dims if d not in order)
        if isinstance(old.type, XTensorType):
            want = (*dims, *old.type.dims)
            memo[old] = transpose(new, *want) if new.type.dims != want else new
            for d in dims:
                sources.setdefault(d, []).append((new, new.type.dims.index(d)))
        else:
            memo[old] = (new, dims)
            for k, d in enumerate(dims):
                sources.setdefault(d, []).append((new, k))
    walker = _Walker(memo, tuple(order), sources)
    result = [walker.output(o) for o in outs]
    return result[0] if single else result


class _Walker:
    """The rebuild: ``memo`` maps xtensors to xtensors, tensors to (tensor, batch dims)."""

    def __init__(self, memo: dict[Variable, Any], batch: tuple[str, ...],
                 sources: dict[str, list[tuple[Variable, int]]]) -> None:
        self.memo, self.batch, self.sources = memo, batch, sources

    def size(self, d: str) -> Any:
        cands = self.sources[d]
        for var, k in cands:
            if var.type.shape[k] != 1:
                break
        else:
            var, k = cands[0]
        return var.sizes[d] if isinstance(var.type, XTensorType) else var.shape[k]

    def value(self, v: Variable) -> Any:
        if v in self.memo:
            return self.memo[v]
        if v.owner is None:
            res = v if isinstance(v.type, XTensorType) else (v, ())
        else:
            ins = [self.value(i) for i in v.owner.inputs]
            res = self.apply(v, ins)
        self.memo[v] = res
        return res

    def output(self, o: Variable) -> Variable:
        r = self.value(o)
        if isinstance(o.type, XTensorType):
            bd = [d for d in self.batch if d in r.type.dims]
            want = (*bd, *o.type.dims)
            return transpose(r, *want) if r.type.dims != want else r
        return r[0] if isinstance(r, tuple) else r

    def apply(self, v: Variable, ins: Sequence[Any]) -> Any:
        node = v.owner
        op = node.op
        k = node.outputs.index(v)
        if isinstance(op, TensorFromXTensor):
            [x] = ins
            core = node.inputs[0].type.dims
            bd = tuple(d for d in self.batch if d in x.type.dims)
            x = transpose(x, *bd, *core) if x.type.dims != (*bd, *core) else x
            return (tensor_from_xtensor(x), bd)
        if isinstance(op, XTensorFromTensor):
            t, bd = ins[0]
            return xtensor_from_tensor(t, dims=(*bd, *op.dims))
        if isinstance(op, Rename):
            return rename(ins[0], dict(zip(node.inputs[0].type.dims, op.new_dims)))
        if isinstance(op, XOp):
            return self.apply_xop(node, ins)[k]
        return self.apply_tensor(node, ins)[k]

    def apply_xop(self, node: Any, ins: Sequence[Any]) -> list[Any]:
        plain = []
        for new in ins:
            if isinstance(new, tuple):
                t, bd = new
                if bd:
                    if getattr(node.op, "extra_dims", None) is not None:
                        raise NotImplementedError("XRV: vectorization with batched "
                                                  "extra_dim_lengths is not implemented")
                    raise NotImplementedError(f"Vectorization of {node.op} with batched tensor "
                                              "inputs is not implemented")
                new = t
            plain.append(new)
        outs = node.op.batch_apply(node, plain)
        return [o if isinstance(o.type, XTensorType) else (o, ()) for o in outs]

    def apply_tensor(self, node: Any, ins: Sequence[Any]) -> list[Any]:
        tins = [i[0] if isinstance(i, tuple) else tensor_from_xtensor(i) for i in ins]
        bds = [i[1] if isinstance(i, tuple) else () for i in ins]
        if not any(bds):
            if all(a is b for a, b in zip(tins, node.inputs)):
                return [(o, ()) for o in node.outputs]
            return [(o, ()) for o in node.clone_with_new_inputs(tins, strict=False).outputs]
        if isinstance(node.op, Elemwise):
            used = tuple(d for d in self.batch if any(d in bd for bd in bds))
            lined = [self.expand(t, bd, used) if bd else t for t, bd in zip(tins, bds)]
            return [(o, used) for o in node.op.make_node(*lined).outputs]
        batch = self.batch
        lined = [self.broadcast(t, bd, o) if bd else t
                 for t, bd, o in zip(tins, bds, node.inputs)]
        if len(batch) == 1:
            out = vectorize_node(node, *lined)
            outs = out.outputs if hasattr(out, "outputs") else list(out)
            return [(o, batch) for o in outs]
        sizes = [self.size(d) for d in batch]
        nb = len(batch)
        flat = {o: t.reshape((-1, *[t.shape[nb + j] for j in range(o.type.ndim)]),
                             ndim=o.type.ndim + 1)
                for t, bd, o in zip(lined, bds, node.inputs) if bd}
        outs = tensor_vectorize_graph(list(node.outputs), flat)
        return [(o.reshape((*sizes, *[o.shape[1 + j] for j in range(o.type.ndim - 1)]),
                           ndim=o.type.ndim - 1 + nb), batch) for o in outs]

    @staticmethod
    def expand(t: Variable, bd: Sequence[str], used: Sequence[str]) -> Variable:
        if tuple(bd) == tuple(used):
            return t
        core = list(range(len(bd), t.type.ndim))
        return t.dimshuffle([bd.index(d) if d in bd else "x" for d in used] + core)

    def broadcast(self, t: Variable, bd: Sequence[str], old: Variable) -> Variable:
        e = self.expand(t, bd, self.batch)
        nb = len(self.batch)
        static = [self.sources_static(d) for d in self.batch]
        if tuple(bd) == self.batch and all(
                s is not None and s == e.type.shape[j] for j, s in enumerate(static)):
            return e
        core = [e.shape[nb + j] for j in range(e.type.ndim - nb)]
        return pt.broadcast_to(e, (*[self.size(d) for d in self.batch], *core))

    def sources_static(self, d: str) -> int | None:
        cands = self.sources[d]
        for var, k in cands:
            if var.type.shape[k] != 1:
                return var.type.shape[k]
        return cands[0][0].type.shape[cands[0][1]]




"""Core functions mapped over named batch dims (XBlockwise, XRV) and ``vectorize_graph``.

An :class:`XBlockwise` names the core dims each input contributes; every
other dim is a batch dim, and the lowering lines the batch dims up (in order
of first appearance) in front of the core dims before calling the tensor
function, which batches over leading axes.  :class:`XRV` does the same for
a RandomVariable, with ``extra_dims`` of given lengths in front.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.graph.basic import Variable, ancestors
from opgraph.graph.replace import vectorize_graph as tensor_vectorize_graph
from opgraph.link.sharedvalue import shared
from opgraph.tensor.random.type import RandomType
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable
from opgraph_xtensor.xtensor.basic import (
    Rename,
    TensorFromXTensor,
    XOp,
    XTensorFromTensor,
    as_xtensor,
    expand_to,
    rename,
    tensor_from_xtensor,
    union_dims,
    xtensor_from_tensor,
)
from opgraph_xtensor.xtensor.shape import transpose
from opgraph_xtensor.xtensor.type import XTensorType, XTensorVariable

__all__ = ["XRV", "XBlockwise", "vectorize_graph"]


def _batch_dims(inputs: Sequence[Variable], core: Sequence[Sequence[str]]) -> tuple[str, ...]:
    return union_dims(*(tuple(d for d in i.type.dims if d not in c) for i, c in zip(inputs, core)))


def _align(i: Variable, t: Variable, batch: Sequence[str], core: Sequence[str]) -> Variable:
    return expand_to(t, i.type.dims, (*batch, *core))


class XBlockwise(XOp):
    """``fn`` (a tensor function batching over leading axes) over named core dims."""

    __props__ = ("fn", "core_dims", "kwargs", "static_core")

    def __init__(self, fn: Callable[..., Any], core_dims: tuple[Any, Any],
                 kwargs: Sequence[tuple[str, Any]] = (), static_core: bool = True) -> None:
        self.fn = fn
        self.static_core = static_core
        self.core_dims = (tuple(tuple(c) for c in core_dims[0]),
                          tuple(tuple(c) for c in core_dims[1]))
        self.kwargs = tuple(kwargs)

    def make_node(self, *inputs: Any) -> Any:
        inputs = [as_xtensor(i) for i in inputs]
        for k, (i, core) in enumerate(zip(inputs, self.core_dims[0], strict=True)):
            if not set(core) <= set(i.type.dims):
                raise ValueError(f"{self}: input {k} ({i}, dims {i.type.dims}) lacks core dims "
                                 f"{[d for d in core if d not in i.type.dims]}")
        return super().make_node(*inputs)

    def output_dims(self, inputs: Sequence[Variable]) -> list[tuple[str, ...]]:
        batch = _batch_dims(inputs, self.core_dims[0])
        return [(*batch, *c) for c in self.core_dims[1]]

    def static_shape(self, k: int, shape: tuple[int | None, ...]) -> tuple[int | None, ...]:
        n = len(self.core_dims[1][k])
        if self.static_core or not n:
            return shape
        return (*shape[:len(shape) - n], *(None,) * n)

    def lower(self, inputs: Sequence[Variable], tins: Sequence[Variable]) -> list[Variable]:
        batch = _batch_dims(inputs, self.core_dims[0])
        aligned = [_align(i, t, batch, c) for i, t, c in zip(inputs, tins, self.core_dims[0])]
        out = self.fn(*aligned, **dict(self.kwargs))
        return list(out) if isinstance(out, list | tuple) else [out]

    def __str__(self) -> str:
        return f"XBlockwise{{{getattr(self.fn, '__name__', self.fn)}}}"


class XRV(XOp):
    """A RandomVariable over named dims: ``(rng, *extra_dim_lengths, *params)``."""

    __props__ = ("core_op", "core_dims", "extra_dims")
    default_output = 1

    def __init__(self, core_op: Any, core_dims: tuple[Any, Any], extra_dims: Sequence[str] = (),
                 name: str | None = None) -> None:
        self.core_op = core_op
        self.core_dims = (tuple(tuple(c) for c in core_dims[0]), tuple(core_dims[1]))
        self.extra_dims = tuple(extra_dims)
        self.name = name

    def convert_input(self, x: Any, index: int) -> Variable:
        if index == 0:
            if x is None:
                return shared(np.random.default_rng())
            if isinstance(x, Variable) and isinstance(x.type, RandomType):
                return x
            raise TypeError(f"{self}: rng must be a random generator variable, got {x!r:.60}")
        if index <= len(self.extra_dims):
            t = x.values if isinstance(x, XTensorVariable) else as_tensor_variable(x)
            if t.type.ndim != 0:
                raise ValueError(f"{self}: extra dim lengths must be scalars, got {t}")
            return t
        return as_xtensor(x)

    def _params(self, inputs: Sequence[Variable]) -> Sequence[Variable]:
        return inputs[1 + len(self.extra_dims):]

    def output_dims(self, inputs: Sequence[Variable]) -> list[tuple[str, ...] | None]:
        batch = _batch_dims(self._params(inputs), self.core_dims[0])
        return [None, (*self.extra_dims, *batch, *self.core_dims[1])]

    def lower(self, inputs: Sequence[Variable], tins: Sequence[Variable]) -> list[Variable]:
        n = len(self.extra_dims)
        rng, lengths = tins[0], tins[1:1 + n]
        params, tparams = self._params(inputs), tins[1 + n:]
        batch = _batch_dims(params, self.core_dims[0])
        aligned = [_align(i, t, batch, c) for i, t, c in zip(params, tparams, self.core_dims[0])]
        size = None
        if n:
            bsizes = []
            for d in batch:
                for i, t in zip(params, tparams):
                    if d in i.type.dims:
                        k = i.type.dims.index(d)
                        s = i.type.shape[k]
                        bsizes.append(s if s is not None else t.shape[k])
                        break
            size = pt.stack([pt.cast(s, "int64") for s in (*lengths, *bsizes)])
        next_rng, draw = self.core_op.make_node(rng, size, *aligned).outputs
        return [next_rng, draw]

    def __str__(self) -> str:
        return f"XRV{{{self.name or self.core_op}}}"


def _new_dims(old: Variable, new: Variable, new_tensor_dims: Sequence[str]) -> tuple[str, ...]:
    if isinstance(old.type, XTensorType):
        missing = [d for d in old.type.dims if d not in new.type.dims]
        if missing:
            raise ValueError(f"vectorize_graph: the replacement {new} of {old} is missing "
                             f"pre-existing dims {missing}")
        return tuple(d for d in new.type.dims if d not in old.type.dims)
    extra = new.type.ndim - old.type.ndim
    if extra < 0:
        raise ValueError(f"vectorize_graph: the replacement {new} of {old} is missing "
                         "pre-existing dims")
    if extra and not new_tensor_dims:
        raise ValueError("You must specify `new_tensor_dims` when replacing tensors by tensors "
                         "with more dims")
    if extra > len(new_tensor_dims):
        raise ValueError(f"{extra} new tensor dims in {new}, but only {len(new_tensor_dims)} "
                         "were specified")
    return tuple(new_tensor_dims[len(new_tensor_dims) - extra:]) if extra else ()


def vectorize_graph(outputs: Any, replace: Mapping[Variable, Variable],
                    new_tensor_dims: Sequence[str] = ()) -> Any:
    """``outputs`` with inputs replaced by versions carrying extra (batch) dims.

    xtensor replacements bring named new dims; tensor replacements have their
    new leading axes named by ``new_tensor_dims``.  Each is lifted to an
    xtensor, the xtensor graph is rebuilt (every xtensor Op is name-based),
    and tensor outputs get the batch dims in front.
    """
    single = not isinstance(outputs, list | tuple)
    outs = [outputs] if single else list(outputs)
    new_tensor_dims = tuple(new_tensor_dims)
    graph_dims = {d for v in ancestors(outs) if isinstance(v.type, XTensorType)
                  for d in v.type.dims}
    used = set()
    lifted: dict[Variable, Variable] = {}
    for old, new in replace.items():
        dims = _new_dims(old, new, new_tensor_dims)
        conflict = [d for d in dims if d in graph_dims]
        if conflict:
            raise ValueError(f"vectorize_graph: {new} has new dimensions that were present in "
                             f"the original graph: {conflict}")
        used.update(dims)
        lifted[old] = (new, dims)
    if new_tensor_dims and len(used & set(new_tensor_dims)) < len(new_tensor_dims):
        tensor_new = [d for old, (_, dims) in lifted.items() if not
                      isinstance(old.type, XTensorType) for d in dims]
        if len(set(new_tensor_dims)) > len(set(tensor_new)):
            raise ValueError(f"{len(new_tensor_dims)} new tensor dims were specified, but only "
                             f"{len(set(tensor_new))} were added")
    batch = union_dims(*(dims for _, dims in lifted.values()))
    mapping = {}
    for old, (new, dims) in lifted.items():
        if isinstance(old.type, XTensorType):
            mapping[old] = new
        else:
            core = tuple(f"__core{k}" for k in range(old.type.ndim))
            xt = xtensor_from_tensor(new, dims=(*dims, *core))
            mapping[old] = xt
    result = _rebuild(outs, mapping, batch)
    return result[0] if single else result


def _rebuild(outs: Sequence[Variable], mapping: dict[Variable, Variable], batch: Sequence[str]
             ) -> list[Variable]:
    """Rebuild ``outs`` over the replacements (tensor graph parts through the tensor
    vectorizer, one batch axis at a time, after stacking the batch dims)."""
    memo: dict[Variable, Variable] = {}

    def visit(v: Variable) -> Variable:
        if v in memo:
            return memo[v]
        if v in mapping:
            res = mapping[v]
        elif v.owner is None:
            res = v
        else:
            ins = [visit(i) for i in v.owner.inputs]
            res = _apply(v, ins, batch)
        memo[v] = res
        return res

    out = []
    for o in outs:
        r = visit(o)
        if isinstance(o.type, XTensorType):
            r = transpose(r, *[d for d in r.type.dims if d not in o.type.dims], *o.type.dims) \
                if r.type.dims != o.type.dims else r
        elif isinstance(r.type, XTensorType):
            r = tensor_from_xtensor(r)
        out.append(r)
    return out


def _apply(v: Variable, ins: Sequence[Variable], batch: Sequence[str]) -> Variable:
    node = v.owner
    if all(a is b for a, b in zip(ins, node.inputs)):
        return v
    op = node.op
    if isinstance(op, XTensorFromTensor):
        [x] = ins
        if isinstance(x.type, XTensorType):
            core = [d for d in x.type.dims if d.startswith("__core")]
            return rename(x, dict(zip(core, op.dims)))
        return xtensor_from_tensor(x, dims=op.dims) if x.type.ndim == len(op.dims) else \
            _raise_labels()
    if isinstance(op, Rename):
        return rename(ins[0], dict(zip(node.inputs[0].type.dims, op.new_dims)))
    if isinstance(op, XOp) or not all(isinstance(i.type, TensorType | RandomType | XTensorType)
                                      for i in node.inputs):
        if isinstance(op, XRV):
            n = len(op.extra_dims)
            for a, b in zip(ins[1:1 + n], node.inputs[1:1 + n]):
                if a is not b and getattr(a.type, "ndim", 0) > 0:
                    raise NotImplementedError("XRV: vectorization with batched extra_dim_lengths "
                                              "is not implemented")
        for a, b in zip(ins, node.inputs):
            if (a is not b and not isinstance(b.type, XTensorType)
                    and getattr(a.type, "ndim", 0) != getattr(b.type, "ndim", 0)):
                raise NotImplementedError(f"Vectorization of {op} with batched tensor inputs "
                                          "not implemented")
        return op.batch_apply(node, ins)[node.outputs.index(v)]
    return _apply_tensor(v, ins, batch)


def _apply_tensor(v: Variable, ins: Sequence[Variable], batch: Sequence[str]) -> Variable:
    """A tensor node whose inputs may now be xtensors with batch dims (from the lifting)."""
    node = v.owner
    xins = [i for i in ins if isinstance(i.type, XTensorType)]
    bdims = union_dims(*(tuple(d for d in i.type.dims if d in batch) for i in xins))
    if isinstance(node.op, TensorFromXTensor):
        [x] = ins
        core = node.inputs[0].type.dims
        return xtensor_from_tensor(tensor_from_xtensor(transpose(x, *bdims, *core)),
                                   dims=(*bdims, *(f"__core{k}" for k in range(len(core)))))
    tins = []
    for i in ins:
        if isinstance(i.type, XTensorType):
            core = tuple(d for d in i.type.dims if d not in batch)
            t = tensor_from_xtensor(transpose(i, *bdims, *core)) if i.type.dims != (
                *bdims, *core) else tensor_from_xtensor(i)
            t = expand_to(t, (*[d for d in bdims if d in i.type.dims], *core), (*bdims, *core))
            shape = [(_size_of(d, xins) if d not in i.type.dims else t.shape[k])
                     for k, d in enumerate((*bdims, *core))]
            tins.append(pt.broadcast_to(t, shape))
        else:
            tins.append(i)
    if len(bdims) == 0:
        new = node.clone_with_new_inputs(tins, strict=False)
        return new.outputs[node.outputs.index(v)]
    if len(bdims) == 1:
        [r] = tensor_vectorize_graph([v], dict(zip(node.inputs, tins)))
        core = tuple(f"__core{k}" for k in range(v.type.ndim))
        return xtensor_from_tensor(r, dims=(*bdims, *core))
    flat = [pt.reshape(t, (-1, *[t.shape[k] for k in range(len(bdims), t.type.ndim)]))
            if isinstance(t.type, TensorType) and t.type.ndim >= len(bdims) and any(
                isinstance(i.type, XTensorType) for i in [x]) else t
            for t, x in zip(tins, ins)]
    [r] = tensor_vectorize_graph([v], dict(zip(node.inputs, flat)))
    sizes = [_size_of(d, xins) for d in bdims]
    r = pt.reshape(r, (*sizes, *[r.shape[k] for k in range(1, r.type.ndim)]))
    core = tuple(f"__core{k}" for k in range(v.type.ndim))
    return xtensor_from_tensor(r, dims=(*bdims, *core))


def _size_of(d: str, xins: Sequence[Variable]) -> Any:
    for i in xins:
        if d in i.type.dims:
            k = i.type.dims.index(d)
            s = i.type.shape[k]
            return s if s is not None else tensor_from_xtensor(i).shape[k]
    raise ValueError(f"no input has dim {d!r}")


def _raise_labels() -> Any:
    raise NotImplementedError("cannot infer the new dimension labels of a tensor converted to "
                              "an xtensor: pass new_tensor_dims")

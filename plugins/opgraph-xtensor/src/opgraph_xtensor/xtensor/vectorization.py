"""Core functions mapped over named batch dims (XBlockwise, XRV) and ``vectorize_graph``.

An :class:`XBlockwise` names the core dims each input contributes; every
other dim is a batch dim, and the lowering lines the batch dims up (in order
of first appearance) in front of the core dims before calling the tensor
function, which batches over leading axes.  :class:`XRV` does the same for
a RandomVariable, with ``extra_dims`` of given lengths in front.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.compile.sharedvalue import shared
from opgraph.graph.basic import Variable
from opgraph.tensor.random.type import RandomType
from opgraph.tensor.variable import as_tensor_variable
from opgraph_xtensor.xtensor.basic import (
    XOp,
    as_xtensor,
    expand_to,
    union_dims,
)
from opgraph_xtensor.xtensor.batching import vectorize_graph as batching_vectorize_graph
from opgraph_xtensor.xtensor.math import XElemwise
from opgraph_xtensor.xtensor.type import XTensorVariable

__all__ = ["XRV", "XBlockwise", "XElemwise", "combine_dims_and_shape", "vectorize_graph"]

# PyTensor keeps vectorize_graph here; it lives in batching.py (a module below this one)
vectorize_graph = batching_vectorize_graph


def combine_dims_and_shape(inputs: Sequence[XTensorVariable], exclude: Sequence[str] | None = None
                           ) -> dict[str, int | None]:
    """Every dim of ``inputs`` (first-seen order, ``exclude`` left out) with its static length
    (None when no input knows it); two different known lengths are a ValueError."""
    skip = set(exclude or ())
    out: dict[str, int | None] = {}
    for x in inputs:
        for dim, length in zip(x.type.dims, x.type.shape):
            if dim in skip:
                continue
            known = out.get(dim)
            if known is not None and length is not None and known != length:
                raise ValueError(f"Dimension {dim} has conflicting shapes: {known} and {length}")
            out[dim] = known if length is None else length
    return out


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

    def rng_param(self, node: Any) -> Variable:
        """The generator input (RandomVariable's accessor names)."""
        return node.inputs[0]

    def extra_dim_lengths(self, node: Any) -> Sequence[Variable]:
        """The lengths of ``extra_dims``."""
        return node.inputs[1:1 + len(self.extra_dims)]

    def dist_params(self, node: Any) -> Sequence[Variable]:
        """The distribution's parameters (what printers and logp functions read)."""
        return self._params(node.inputs)

    @property
    def _print_name(self) -> Any:
        """The core RandomVariable's print name (PyMC sets one on its distributions)."""
        return getattr(self.core_op, "_print_name", None)

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

"""The xtensor Op base and the conversions between tensors and xtensors.

Every xtensor Op (:class:`XOp`) states its result as an ordinary tensor
graph: ``lower(inputs, tensor_inputs)`` builds it from the inputs seen as
tensors (axes in ``dims`` order).  ``make_node`` builds that graph once to
read the output dtype and static shape, so a node's Type is exactly what its
lowering computes; the ``lower_xtensor`` rewrite builds it again in place of
the node, and the gradient differentiates it.  The casts between the two
worlds (:class:`TensorFromXTensor`, :class:`XTensorFromTensor`,
:class:`Rename`) are views that need no lowering.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from opgraph.gradient import DisconnectedType, grad
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.graph.replace import vectorize_node_dispatch as _vectorize_node
from opgraph.tensor.shape import specify_shape
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import TensorVariable, as_tensor_variable
from opgraph.tensor.variable import as_tensor_variable_dispatch as _as_tensor_variable
from opgraph_xtensor.xtensor.type import (
    XFUNCS,
    XTensorType,
    XTensorVariable,
    dims_of,
    is_dataarray,
    xtensor_constant,
)

__all__ = [
    "Rename",
    "TensorFromXTensor",
    "XOp",
    "XTensorFromTensor",
    "XTypeCastOp",
    "as_xtensor",
    "rename",
    "tensor_from_xtensor",
    "xtensor_from_tensor",
]


class XOp(Op):
    """An Op on xtensors that the ``lower_xtensor`` rewrite replaces by a tensor graph."""

    def lower(self, inputs: Sequence[Variable], tensor_inputs: Sequence[Variable]
              ) -> list[Variable]:
        """The outputs as tensors, axes in the output dims order (subclasses define it)."""
        raise NotImplementedError(f"{type(self).__name__} has no lowering")

    def output_dims(self, inputs: Sequence[Variable]) -> list[tuple[str, ...] | None]:
        """The dims of each output (None: the output is not an xtensor)."""
        raise NotImplementedError

    def make_node(self, *inputs: Any) -> Apply:
        inputs = [self.convert_input(i, k) for k, i in enumerate(inputs)]
        touts = self.lower(inputs, [as_tensor_view(i) for i in inputs])
        outs = []
        for k, (dims, t) in enumerate(zip(self.output_dims(inputs), touts, strict=True)):
            outs.append(t.type() if dims is None else
                        XTensorType(t.type.dtype, dims=dims,
                                    shape=self.static_shape(k, t.type.shape))())
        return Apply(self, inputs, outs)

    def static_shape(self, k: int, shape: tuple[int | None, ...]) -> tuple[int | None, ...]:
        """The static shape output ``k`` states (default: what the lowering infers)."""
        return shape

    def rebatch(self, node: Apply, inputs: Sequence[Variable]) -> XOp:
        """This Op for ``inputs`` that carry extra (batch) dims; name-based Ops are unchanged."""
        return self

    def batch_apply(self, node: Apply, inputs: Sequence[Variable]) -> list[Variable]:
        """The outputs of ``node`` for ``inputs`` with extra (batch) dims (vectorize_graph)."""
        return self.rebatch(node, inputs).make_node(*inputs).outputs

    def convert_input(self, x: Any, index: int) -> Variable:
        """Inputs are xtensors unless a subclass says otherwise."""
        return as_xtensor(x)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        raise NotImplementedError(
            f"{self} is an xtensor Op: compile with a mode that runs the 'lower_xtensor' "
            "rewrites (every standard mode does)"
        )

    def pullback(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 cotangents: Sequence[Variable]) -> list[Variable]:
        """The gradient of the lowered graph, given names again."""
        tins = [as_tensor_view(i) for i in inputs]
        touts = self.lower(inputs, tins)
        known = {}
        for t, c in zip(touts, cotangents):
            if isinstance(c.type, DisconnectedType) or not _is_float(t):
                continue
            known[t] = as_tensor_view(c)
        wrt = [t for t in tins if isinstance(t.type, TensorType)]
        grads = dict(zip(wrt, grad(None, wrt=wrt, known_grads=known,
                                   disconnected_inputs="ignore",
                                   return_disconnected="zero"))) if known and wrt else {}
        out = []
        for i, t in zip(inputs, tins):
            g = grads.get(t)
            if g is None:
                g = (np.zeros((), dtype=t.type.dtype) if isinstance(t.type, TensorType)
                     else DisconnectedType()())
                if isinstance(i.type, XTensorType):
                    g = XFUNCS.zeros_like(i)
            elif isinstance(i.type, XTensorType):
                g = xtensor_from_tensor(g, dims=i.type.dims)
            out.append(g)
        return out

    def __str__(self) -> str:
        props = getattr(type(self), "__props__", ())
        args = ", ".join(f"{p}={getattr(self, p)!r}" for p in props)
        return f"{type(self).__name__}{{{args}}}" if args else type(self).__name__


def _is_float(t: Variable) -> bool:
    return str(getattr(t.type, "dtype", "")).startswith(("float", "complex"))


class XTypeCastOp(Op):
    """An Op that only changes how the array is seen (names on/off): a view, no lowering."""

    view_map = {0: [0]}

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = inputs[0]

    def do_constant_folding(self, fgraph: Any, node: Apply) -> bool:
        return False


class TensorFromXTensor(XTypeCastOp):
    """The array of an xtensor as an ordinary tensor (axes in dims order)."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        if not isinstance(getattr(x, "type", None), XTensorType):
            raise TypeError(f"tensor_from_xtensor expects an xtensor, got {x!r}")
        return Apply(self, [x], [TensorType(x.type.dtype, shape=x.type.shape)()])

    def pullback(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 cotangents: Sequence[Variable]) -> list[Variable]:
        return [xtensor_from_tensor(cotangents[0], dims=inputs[0].type.dims)]


class XTensorFromTensor(XTypeCastOp):
    """A tensor seen as an xtensor with ``dims``."""

    __props__ = ("dims",)

    def __init__(self, dims: Sequence[str]) -> None:
        self.dims = tuple(dims)

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.type.ndim != len(self.dims):
            raise ValueError(f"xtensor_from_tensor: {x} has {x.type.ndim} axes but dims "
                             f"{self.dims} name {len(self.dims)}")
        return Apply(self, [x], [XTensorType(x.type.dtype, dims=self.dims, shape=x.type.shape)()])

    def pullback(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 cotangents: Sequence[Variable]) -> list[Variable]:
        return [tensor_from_xtensor(cotangents[0])]


class Rename(XTypeCastOp):
    """The same array under new dim names."""

    __props__ = ("new_dims",)

    def __init__(self, new_dims: Sequence[str]) -> None:
        self.new_dims = tuple(new_dims)

    def make_node(self, x: Any) -> Apply:
        x = as_xtensor(x)
        if len(self.new_dims) != x.type.ndim:
            raise ValueError(f"rename: {x} has dims {x.type.dims}, new dims {self.new_dims}")
        return Apply(self, [x], [x.type.clone(dims=self.new_dims)()])

    def pullback(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 cotangents: Sequence[Variable]) -> list[Variable]:
        return [rename(cotangents[0], dict(zip(self.new_dims, inputs[0].type.dims)))]


_TENSOR_FROM_XTENSOR = TensorFromXTensor()


def tensor_from_xtensor(x: Any) -> TensorVariable:
    """The array of ``x`` as a tensor."""
    return _TENSOR_FROM_XTENSOR(x)


def xtensor_from_tensor(x: Any, dims: str | Sequence[str], name: str | None = None
                        ) -> XTensorVariable:
    """Tensor ``x`` seen with ``dims``."""
    out = XTensorFromTensor(dims_of(dims))(x)
    if name is not None:
        out.name = name
    return out


def as_tensor_view(x: Variable) -> Variable:
    """An xtensor as a tensor; anything else unchanged (the lowering's inputs)."""
    return tensor_from_xtensor(x) if isinstance(x.type, XTensorType) else x


def as_xtensor(x: Any, dims: str | Sequence[str] | None = None, *, name: str | None = None
               ) -> XTensorVariable:
    """``x`` as an xtensor: xtensors pass (transposed to ``dims``), tensors and arrays get
    ``dims`` (0-d ones need none), DataArrays become constants."""
    if isinstance(x, Apply):
        x = x.default_output()
    if isinstance(x, Variable) and isinstance(x.type, XTensorType):
        if dims is None or dims_of(dims) == x.type.dims:
            return x
        return XFUNCS.transpose(x, *dims_of(dims))
    if is_dataarray(x):
        return xtensor_constant(x, name=name, dims=dims)
    if not isinstance(x, Variable):
        arr = np.asarray(x)
        if arr.ndim == 0 and dims is None:
            dims = ()
        if dims is None:
            raise TypeError(f"as_xtensor: a {type(x).__name__} of {arr.ndim} dims needs dims=")
        if arr.dtype == object:
            raise TypeError(f"as_xtensor: cannot convert {x!r:.60} to an xtensor")
        return xtensor_constant(arr, name=name, dims=dims)
    t = as_tensor_variable(x)
    if dims is None:
        if t.type.ndim != 0:
            raise TypeError(f"as_xtensor: the {t.type.ndim}-d tensor {t} needs dims=")
        dims = ()
    return xtensor_from_tensor(t, dims=dims, name=name)


def rename(x: Any, name_dict: Mapping[str, str] | None = None, **names: str) -> XTensorVariable:
    """``x`` with dims renamed (``rename(x, a="b")``, xarray's ``DataArray.rename``)."""
    x = as_xtensor(x)
    mapping = dict(name_dict or {}, **names)
    for old in mapping:
        if old not in x.type.dims:
            raise ValueError(f"rename: cannot rename {old!r}: it is not a dim of {x} "
                             f"(dims {x.type.dims})")
    new = tuple(mapping.get(d, d) for d in x.type.dims)
    if len(set(new)) != len(new):
        raise ValueError(f"rename: the new dims {new} of {x} repeat a name")
    return Rename(new)(x)


def specify_xshape(x: XTensorVariable, shape: Sequence[int | None]) -> XTensorVariable:
    """``x`` with its static shape stated (checked when it runs)."""
    return xtensor_from_tensor(specify_shape(tensor_from_xtensor(x), tuple(shape)),
                               dims=x.type.dims)


@_as_tensor_variable.register(XTensorVariable)
def _xtensor_to_tensor(x: XTensorVariable, name: str | None, ndim: int | None,
                       allow_xtensor_conversion: bool = False, **kwargs: Any) -> Variable:
    """``as_tensor(xtensor)`` only on request: names would be dropped silently."""
    if not allow_xtensor_conversion:
        raise TypeError(
            "PyTensor forbids automatic conversion of XTensorVariable to TensorVariable "
            f"({x}); use x.values or pass allow_xtensor_conversion=True"
        )
    return as_tensor_variable(tensor_from_xtensor(x), name=name, ndim=ndim)


@_vectorize_node.register(XTensorFromTensor)
def _vectorize_xtensor_from_tensor(op: XTensorFromTensor, node: Apply, *inputs: Any) -> Any:
    raise NotImplementedError(
        "cannot infer the new dimension labels. "
        "Use opgraph.xtensor.vectorization.vectorize_graph instead."
    )


@_vectorize_node.register(TensorFromXTensor)
def _vectorize_tensor_from_xtensor(op: TensorFromXTensor, node: Apply, x: Any) -> Any:
    old = node.inputs[0].type.dims
    new = [d for d in x.type.dims if d not in old]
    if len(new) > 1:
        raise NotImplementedError(
            f"tensor_from_xtensor: {len(new)} new dims {new}; the tensor vectorize_graph adds "
            "one leading axis (use opgraph.xtensor.vectorization.vectorize_graph)"
        )
    return [tensor_from_xtensor(XFUNCS.transpose(x, *new, *old))]


XFUNCS.register(as_xtensor=as_xtensor, tensor_from_xtensor=tensor_from_xtensor,
                specify_shape=specify_shape,
                xtensor_from_tensor=xtensor_from_tensor, specify_xshape=specify_xshape,
                rename=rename)


def check_static_sizes(inputs: Sequence[Variable], what: str) -> dict[str, int | None]:
    """``{dim: static length}`` over ``inputs``; a dim with two lengths raises, naming it."""
    sizes: dict[str, int | None] = {}
    for x in inputs:
        if not isinstance(x.type, XTensorType):
            continue
        for d, s in zip(x.type.dims, x.type.shape):
            old = sizes.get(d)
            if old is not None and s is not None and old != s and old != 1 and s != 1:
                raise ValueError(f"{what}: dimension {d!r} has conflicting static lengths "
                                 f"{old} and {s}")
            if old is None or old == 1:
                sizes[d] = s if s is not None else old
            if d not in sizes:
                sizes[d] = s
    return sizes


def is_xtensor(x: Any) -> bool:
    return isinstance(getattr(x, "type", None), XTensorType)


def expand_to(t: Variable, dims: Sequence[str], target: Sequence[str]) -> Variable:
    """Tensor ``t`` with axes named ``dims`` reordered to ``target`` (new dims: length 1)."""
    order = [dims.index(d) if d in dims else "x" for d in target]
    if order == list(range(len(dims))):
        return t
    return t.dimshuffle(order)


def union_dims(*dim_lists: Sequence[str]) -> tuple[str, ...]:
    """All dims, in order of first appearance."""
    out: list[str] = []
    for dims in dim_lists:
        out.extend(d for d in dims if d not in out)
    return tuple(out)

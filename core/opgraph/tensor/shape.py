"""Shapes as symbolic values: Shape, Shape_i, Reshape, SpecifyShape, MakeVector.

Shape entries flow through graphs as int64 scalars (or int64 vectors for a
whole shape). What is known at graph construction goes into the static
``TensorType.shape`` so errors surface early and later ops can use it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.null_type import disconnected_type
from opgraph.graph.op import Op
from opgraph.tensor import ufuncs as _ufuncs
from opgraph.tensor.constant_value import (
    get_underlying_scalar_constant_value,
    passthrough,
    register_constant_rule,
    unique_value,
)
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.exceptions import NotScalarConstantError, ShapeAssertionError, ShapeError
from opgraph.tensor.type import TensorType, integer_dtypes
from opgraph.tensor.type_other import NoneTypeT
from opgraph.tensor.variable import as_tensor_variable, constant

__all__ = [
    "MakeVector",
    "Reshape",
    "Shape",
    "Shape_i",
    "SpecifyShape",
    "as_index_scalar",
    "expand_dims",
    "flatten",
    "make_vector",
    "reshape",
    "shape",
    "shape_i",
    "shape_padaxis",
    "shape_padleft",
    "shape_padright",
    "shape_tuple",
    "specify_broadcastable",
    "specify_shape",
    "squeeze",
    "static_int",
]


# --------------------------------------------------------------------------- helpers


def _name(var: Any) -> str:
    return var.name if getattr(var, "name", None) else str(var)


def is_int_dtype(dtype: str) -> bool:
    return dtype in integer_dtypes


def as_index_scalar(value: Any, what: str = "index") -> Variable:
    """``value`` as an integer 0-d tensor (Python ints become int64 constants)."""
    if isinstance(value, bool | np.bool_):
        raise TypeError(f"{what} must be an integer, got the bool {value!r}")
    if isinstance(value, int | np.integer):
        return constant(np.int64(value))
    var = as_tensor_variable(value)
    if var.type.ndim != 0 or not is_int_dtype(var.type.dtype):
        raise TypeError(
            f"{what} must be an integer scalar, got {_name(var)} of type {var.type} (shape "
            "entries must be integer types)"
        )
    return var


def static_int(value: Any) -> int | None:
    """The Python int a scalar shape entry is known to hold at graph construction, or None."""
    if isinstance(value, int | np.integer):
        return int(value)
    if not isinstance(value, Variable):
        return None
    if isinstance(value, Constant):
        data = np.asarray(value.data)
        return int(data) if data.ndim == 0 and data.dtype.kind in "iu" else None
    if value.owner is None:
        return None
    try:
        return int(get_underlying_scalar_constant_value(value))
    except (NotScalarConstantError, TypeError, ValueError):
        return None


def static_vector_entries(vec: Variable) -> list[int | None]:
    """Per-entry static values of an integer shape vector (None where unknown)."""
    length = vec.type.shape[0]
    if isinstance(vec, Constant):
        return [int(v) for v in np.asarray(vec.data).ravel()]
    owner = vec.owner
    if owner is not None:
        if isinstance(owner.op, MakeVector):
            return [static_int(v) for v in owner.inputs]
        if isinstance(owner.op, Shape):
            return list(owner.inputs[0].type.shape)
    return [None] * (length or 0)


def dims_of(shape_arg: Any, what: str = "shape") -> list[Variable]:
    """A shape argument (int, sequence, or integer vector of known length) as int scalars."""
    if isinstance(shape_arg, int | np.integer) and not isinstance(shape_arg, bool | np.bool_):
        return [as_index_scalar(shape_arg, what)]
    if isinstance(shape_arg, list | tuple):
        return [as_index_scalar(s, f"{what}[{i}]") for i, s in enumerate(shape_arg)]
    var = as_tensor_variable(shape_arg)
    if isinstance(var, Constant) and var.type.ndim == 1 and var.type.shape[0] == 0:
        return []  # ``[]`` (a float64 constant): the shape of a 0-d array
    if not is_int_dtype(var.type.dtype) or var.type.ndim > 1:
        raise TypeError(
            f"{what} must be an int, a sequence of ints or an integer vector, "
            f"got {_name(var)} of type {var.type}"
        )
    if var.type.ndim == 0:
        return [var]
    if isinstance(var, Constant):
        return [constant(np.int64(v)) for v in np.asarray(var.data)]
    if var.owner is not None and isinstance(var.owner.op, MakeVector):
        return list(var.owner.inputs)
    if var.owner is not None and isinstance(var.owner.op, Shape):
        return list(shape_tuple(var.owner.inputs[0]))
    length = var.type.shape[0]
    if length is None:
        raise ValueError(
            f"{what}: the length of the shape vector {_name(var)} is not known at graph "
            "construction; give the shape as a tuple or a vector of static length"
        )
    return [var[i] for i in range(length)]


def _dimshuffle(x: Variable, new_order: Sequence[Any]) -> Variable:
    return DimShuffle(input_ndim=x.type.ndim, new_order=tuple(new_order))(x)


def dim_prod(dims: Sequence[Any]) -> Variable:
    """Product of shape entries, folded to a constant when they are all known."""
    known = [static_int(d) for d in dims]
    if all(k is not None for k in known):
        return constant(np.int64(int(np.prod(known, dtype=np.int64))))
    m = _ufuncs
    result = None
    const = 1
    for d, k in zip(dims, known):
        if k is not None:
            const *= k
        else:
            result = as_index_scalar(d) if result is None else m.mul(result, as_index_scalar(d))
    return result if const == 1 else m.mul(result, constant(np.int64(const)))


def dim_sum(dims: Sequence[Any]) -> Variable:
    """Sum of shape entries, folded to a constant when they are all known."""
    known = [static_int(d) for d in dims]
    if all(k is not None for k in known):
        return constant(np.int64(sum(known)))
    m = _ufuncs
    result = None
    const = 0
    for d, k in zip(dims, known):
        if k is not None:
            const += k
        else:
            result = as_index_scalar(d) if result is None else m.add(result, as_index_scalar(d))
    return result if const == 0 else m.add(result, constant(np.int64(const)))


# --------------------------------------------------------------------------- Shape


class Shape(Op):
    """``shape(x)``: the int64 vector of x's dimensions."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        if not _is_shaped(x):
            x = as_tensor_variable(x)
        return Apply(self, [x], [TensorType("int64", (x.type.ndim,))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = np.asarray(np.shape(inputs[0]), dtype="int64")

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [(constant(np.int64(len(input_shapes[0]))),)]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False]]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        return [disconnected_type()]

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        return [None]


_shape = Shape()


def _is_shaped(x: Any) -> bool:
    """A Variable of a TensorType, or of another array Type with a fixed ``ndim`` >= 1
    (a plugin's sparse matrices): its values have ``.shape``.  Scalars (ndim 0) are
    converted to tensors as before."""
    if not isinstance(x, Variable):
        return False
    ndim = getattr(x.type, "ndim", None)
    return isinstance(x.type, TensorType) or (isinstance(ndim, int) and ndim >= 1)


def shape(x: Any) -> Variable:
    """The symbolic shape of ``x`` (an int64 vector)."""
    return _shape(x)


@attrs.frozen
class Shape_i(Op):
    """``x.shape[i]`` as one int64 scalar (what shape rewrites reduce ``shape(x)[i]`` to)."""

    i: int

    def make_node(self, x: Any) -> Apply:
        if not _is_shaped(x):
            raise TypeError(
                f"Shape_i({self.i}): expected a tensor variable, got {x!r} of type "
                f"{type(x).__name__}"
            )
        if not 0 <= self.i < x.type.ndim:
            raise TypeError(
                f"Shape_i({self.i}): {_name(x)} has {x.type.ndim} dimension(s); "
                f"expected an index in [0, {x.type.ndim})"
            )
        return Apply(self, [x], [TensorType("int64", ())()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = np.asarray(inputs[0].shape[self.i], dtype="int64")

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [()]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False]]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        return [disconnected_type()]

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        return [None]

    def __str__(self) -> str:
        return f"Shape_i{{{self.i}}}"


def shape_i(x: Any, i: int, fgraph: Any = None) -> Variable:
    """Dimension ``i`` of ``x``: a constant when static, else ``Shape_i(i)(x)``.

    With an ``fgraph`` carrying a ``shape_feature`` the feature's entry is used.
    """
    x = as_tensor_variable(x)
    feature = getattr(fgraph, "shape_feature", None)
    if feature is not None and x in getattr(feature, "shape_of", {}):
        return feature.shape_of[x][i]
    if not -x.type.ndim <= i < x.type.ndim:
        raise ValueError(f"shape_i: {_name(x)} has {x.type.ndim} dimension(s), got index {i}")
    i %= max(x.type.ndim, 1)
    known = x.type.shape[i]
    if known is not None:
        return constant(np.int64(known))
    return Shape_i(i)(x)


def shape_tuple(x: Any) -> tuple[Variable, ...]:
    """One int64 scalar per dimension of ``x`` (constants where the size is static)."""
    x = as_tensor_variable(x)
    return tuple(shape_i(x, i) for i in range(x.type.ndim))


# --------------------------------------------------------------------------- MakeVector


@attrs.frozen
class MakeVector(Op):
    """Scalars ``(a, b, c)`` to the vector ``[a, b, c]`` (symbolic shapes are built so)."""

    dtype: str = "int64"

    def make_node(self, *inputs: Any) -> Apply:
        elems = []
        for i, value in enumerate(inputs):
            var = as_tensor_variable(value)
            if var.type.ndim != 0:
                raise TypeError(
                    f"MakeVector: element {i} ({_name(var)}) must be a scalar, got {var.type}"
                )
            if var.type.dtype != self.dtype:
                if isinstance(var, Constant) and np.can_cast(
                    np.min_scalar_type(var.data), self.dtype
                ):
                    var = constant(np.asarray(var.data, dtype=self.dtype))
                elif np.can_cast(var.type.dtype, self.dtype, "safe"):
                    var = _ufuncs.cast(var, self.dtype)
                else:
                    raise TypeError(
                        f"MakeVector: element {i} ({_name(var)}) has dtype {var.type.dtype}, "
                        f"which cannot be safely cast to the vector dtype {self.dtype}"
                    )
            elems.append(var)
        return Apply(self, elems, [TensorType(self.dtype, (len(elems),))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = np.asarray(inputs, dtype=self.dtype).reshape(len(inputs))

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [(constant(np.int64(len(node.inputs))),)]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        if is_int_dtype(self.dtype) or self.dtype == "bool":
            return [disconnected_type() for _ in inputs]
        return [cotangents[0][i] for i in range(len(inputs))]

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        if any(t is None for t in tangents):
            return [None]
        return [make_vector(*tangents, dtype=self.dtype)]


def make_vector(*elements: Any, dtype: str | None = None) -> Variable:
    """A vector from scalars; the dtype defaults to their common (NumPy) type."""
    elems = [as_tensor_variable(e) for e in elements]
    if dtype is None:
        dtype = (
            np.result_type(*[e.type.dtype for e in elems]).name if elems else "int64"
        )
    return MakeVector(dtype)(*elems)


# --------------------------------------------------------------------------- Reshape


@attrs.frozen
class Reshape(Op):
    """``reshape(x, shp)`` to ``ndim`` dimensions; one entry of ``shp`` may be -1."""

    #: Static output shapes come from input values: remade by non-strict clones.
    _output_type_depends_on_input_value = True

    ndim: int
    # np.reshape returns a view whenever it can: the DestroyHandler must know.
    view_map = {0: [0]}

    def make_node(self, x: Any, shp: Any) -> Apply:
        x = as_tensor_variable(x)
        shp = as_tensor_variable(shp)
        if shp.type.ndim != 1 or not is_int_dtype(shp.type.dtype):
            raise TypeError(
                f"reshape of {_name(x)}: the new shape must be an integer vector, "
                f"got {_name(shp)} of type {shp.type}"
            )
        if shp.type.shape[0] not in (None, self.ndim):
            raise ValueError(
                f"reshape of {_name(x)}: the new shape has {shp.type.shape[0]} entries, "
                f"expected ndim={self.ndim}"
            )
        entries = static_vector_entries(shp) or [None] * self.ndim
        out_shape = _static_reshape(x, entries)
        return Apply(self, [x, shp], [TensorType(x.type.dtype, out_shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, shp = inputs
        if len(shp) != self.ndim:
            raise ShapeAssertionError(
                f"reshape of {_name(node.inputs[0])}: the new shape {tuple(shp)} has "
                f"{len(shp)} entries, expected {self.ndim}"
            )
        try:
            output_storage[0][0] = np.reshape(x, shp)
        except ValueError as exc:
            raise ShapeError(
                f"reshape of {_name(node.inputs[0])}: cannot reshape an array of shape "
                f"{np.shape(x)} (size {np.size(x)}) into shape {tuple(int(s) for s in shp)}"
            ) from exc

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        _x, shp = node.inputs
        out_static = node.outputs[0].type.shape
        entries = dims_of(shp, "reshape shape") if shp.type.shape[0] is not None else None
        if entries is None:
            entries = [shp[i] for i in range(self.ndim)]
        size = dim_prod(input_shapes[0])
        m = None
        dims = []
        for i, entry in enumerate(entries):
            known = static_int(entry)
            if out_static[i] is not None:
                dims.append(constant(np.int64(out_static[i])))
            elif known is not None and known != -1:
                dims.append(constant(np.int64(known)))
            else:
                m = m or _ufuncs
                others = [e for j, e in enumerate(entries) if j != i]
                missing = m.int_div(size, dim_prod(others)) if others else size
                if known == -1:
                    dims.append(missing)
                else:
                    # size // -prod(all entries) is the -1 entry's value when entry i is -1
                    inferred = m.int_div(size, m.neg(dim_prod(entries)))
                    dims.append(m.switch(m.eq(entry, -1), inferred, entry))
        return [tuple(dims)]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False]]

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        x = inputs[0]
        return [reshape(cotangents[0], shape(x), ndim=x.type.ndim), disconnected_type()]

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        if tangents[0] is None:
            return [None]
        return [reshape(tangents[0], inputs[1], ndim=self.ndim)]


def _static_reshape(x: Variable, entries: list[int | None]) -> tuple[int | None, ...]:
    """Static output shape of a reshape, raising when the target cannot fit ``x``."""
    name = _name(x)
    shown = tuple("?" if e is None else e for e in entries)
    if sum(1 for e in entries if e == -1) > 1:
        raise ValueError(f"reshape of {name}: at most one entry may be -1, got shape {shown}")
    for e in entries:
        if e is not None and e < -1:
            raise ValueError(
                f"reshape of {name}: shape entries must be >= -1, got shape {shown}"
            )
    out = [None if e is None or e == -1 else e for e in entries]
    if any(s is None for s in x.type.shape):
        return tuple(out)
    size = int(np.prod(x.type.shape, dtype=np.int64))
    incompatible = ValueError(
        f"Reshape: Input shape {x.type.shape} is incompatible with new shape {shown}: "
        f"cannot reshape {name} (size {size})"
    )
    unknown = [i for i, e in enumerate(entries) if e is None or e == -1]
    known = [e for e in entries if e is not None and e != -1]
    prod = int(np.prod(known, dtype=np.int64))
    if (prod == 0 and size != 0) or (prod != 0 and size % prod != 0):
        raise incompatible
    if not unknown and prod != size:
        raise incompatible
    if len(unknown) == 1 and prod != 0:
        # The one entry not known statically (-1 or symbolic) must hold what is left.
        out[unknown[0]] = size // prod
    return tuple(out)


def _shape_vector(newshape: Any, what: str) -> Variable:
    if isinstance(newshape, int | np.integer) and not isinstance(newshape, bool | np.bool_):
        newshape = (newshape,)
    if isinstance(newshape, list | tuple):
        dims = [as_index_scalar(s, f"{what}[{i}]") for i, s in enumerate(newshape)]
        if all(isinstance(d, Constant) for d in dims):
            return constant(np.asarray([int(d.data) for d in dims], dtype="int64"))
        return MakeVector("int64")(*dims)
    var = as_tensor_variable(newshape)
    if var.type.ndim == 0 and is_int_dtype(var.type.dtype):
        return MakeVector("int64")(var)
    if var.type.ndim != 1 or not is_int_dtype(var.type.dtype):
        raise TypeError(
            f"{what} must be an int, a sequence of ints or an integer vector, "
            f"got {_name(var)} of type {var.type}"
        )
    return var


def reshape(x: Any, newshape: Any, ndim: int | None = None) -> Variable:
    """``x`` with shape ``newshape`` (ints, symbolic scalars or an int vector; one -1)."""
    x = as_tensor_variable(x)
    shp = _shape_vector(newshape, "reshape: newshape")
    length = shp.type.shape[0]
    if ndim is None:
        if length is None:
            raise ValueError(
                f"reshape of {_name(x)}: the length of newshape {_name(shp)} is not known "
                "at graph construction; pass ndim="
            )
        ndim = length
    elif length is not None and length != ndim:
        raise ValueError(
            f"reshape of {_name(x)}: ndim={ndim} but newshape has {length} entries"
        )
    return Reshape(int(ndim))(x, shp)


def flatten(x: Any, ndim: int = 1) -> Variable:
    """Keep the first ``ndim - 1`` dimensions and merge the rest into one."""
    x = as_tensor_variable(x)
    if not 1 <= ndim <= max(x.type.ndim, 1):
        raise ValueError(
            f"flatten of {_name(x)}: ndim must be in [1, {max(x.type.ndim, 1)}], got {ndim}"
        )
    lead = list(shape_tuple(x)[: ndim - 1])
    rest = x.type.shape[ndim - 1 :]
    if all(s is not None for s in rest):
        last: Any = int(np.prod(rest, dtype=np.int64))
    else:
        last = -1
    return reshape(x, [*lead, last], ndim=ndim)


# --------------------------------------------------------------------------- SpecifyShape


@attrs.frozen
class SpecifyShape(Op):
    """Assert ``x`` has the given dimensions (``given[i]``: dim i has an input).

    The output is ``x`` itself (a view) with a more precise static type.
    """

    #: Static output shapes come from input values: remade by non-strict clones.
    _output_type_depends_on_input_value = True

    given: tuple[bool, ...] | None = None
    view_map = {0: [0]}

    def make_node(self, x: Any, *dims: Any) -> Apply:
        x = as_tensor_variable(x)
        if self.given is None:
            # PyTensor's SpecifyShape(): one entry per dimension, None (or NoneConst) for
            # "unknown"; the node's op records which entries were given.
            if len(dims) != x.type.ndim:
                raise ValueError(
                    f"specify_shape: {_name(x)} has {x.type.ndim} dimension(s), but the shape "
                    f"given has {len(dims)} entries, so it will never match"
                )
            given = tuple(not _is_none_entry(d) for d in dims)
            return SpecifyShape(given).make_node(
                x, *(d for d, has in zip(dims, given) if has)
            )
        if x.type.ndim != len(self.given):
            raise ValueError(
                f"specify_shape: {_name(x)} has {x.type.ndim} dimension(s), but the shape "
                f"given has {len(self.given)} entries"
            )
        if len(dims) != sum(self.given):
            raise TypeError(
                f"SpecifyShape expected {sum(self.given)} dimension inputs, got {len(dims)}"
            )
        dims = tuple(as_index_scalar(d, f"specify_shape dim of {_name(x)}") for d in dims)
        out_shape = list(x.type.shape)
        it = iter(dims)
        for axis, has in enumerate(self.given):
            if not has:
                continue
            known = static_int(next(it))
            if known is None:
                continue
            if known < 0:
                raise ValueError(
                    f"specify_shape: dimension {axis} of {_name(x)} must be >= 0, got {known}"
                )
            if out_shape[axis] is not None and out_shape[axis] != known:
                raise ValueError(
                    f"specify_shape: dimension {axis} of {_name(x)} is statically "
                    f"{out_shape[axis]}, but {known} was specified"
                )
            out_shape[axis] = known
        return Apply(self, [x, *dims], [TensorType(x.type.dtype, out_shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, *dims = inputs
        if np.ndim(x) != len(self.given):
            raise ShapeAssertionError(
                f"SpecifyShape: {_name(node.inputs[0])} should have {len(self.given)} "
                f"dimension(s), got a value of shape {np.shape(x)}"
            )
        it = iter(dims)
        for axis, has in enumerate(self.given):
            if has:
                want = int(next(it))
                if x.shape[axis] != want:
                    raise ShapeAssertionError(
                        f"SpecifyShape: dimension {axis} of {_name(node.inputs[0])} should "
                        f"be {want}, got a value of shape {x.shape}"
                    )
        output_storage[0][0] = x

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        it = iter(node.inputs[1:])
        out = []
        for axis, has in enumerate(self.given):
            out.append(next(it) if has else input_shapes[0][axis])
        return [tuple(out)]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True]] + [[False]] * (len(node.inputs) - 1)

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        g = self(cotangents[0], *inputs[1:])
        return [g] + [disconnected_type() for _ in inputs[1:]]

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        if tangents[0] is None:
            return [None]
        return [self(tangents[0], *inputs[1:])]


def specify_broadcastable(x: Any, *axes: int) -> Variable:
    """``x`` with the dimensions in ``axes`` asserted to have length 1."""
    x = as_tensor_variable(x)
    if not axes:
        return x
    for a in axes:
        if not -x.type.ndim <= a < x.type.ndim:
            raise ValueError(
                f"specify_broadcastable of {_name(x)}: axis {a} is out of range (axis {a} is "
                f"out of bounds for array of dimension {x.type.ndim})"
            )
    wanted = {a % x.type.ndim for a in axes}
    return specify_shape(x, [1 if d in wanted else None for d in range(x.type.ndim)])


def _is_none_entry(entry: Any) -> bool:
    """A shape entry meaning "unknown": None or PyTensor's NoneConst."""
    return entry is None or isinstance(getattr(entry, "type", None), NoneTypeT)


def _expand_ellipsis(entries: list[Any], ndim: int) -> list[Any]:
    """``entries`` with one Ellipsis replaced by as many None as the missing dimensions."""
    entries = [None if _is_none_entry(e) else e for e in entries]
    n = sum(1 for e in entries if e is Ellipsis)
    if n > 1:
        raise ValueError(f"Multiple Ellipsis in specify_shape: {tuple(entries)}")
    if n == 0:
        return entries
    at = entries.index(Ellipsis)
    fill = max(ndim - (len(entries) - 1), 0)
    return entries[:at] + [None] * fill + entries[at + 1 :]


def _specify_shape(x: Any, *shape: Any) -> Variable:
    """PyTensor's spelling: ``specify_shape(x, shape)`` with the entries as arguments."""
    return specify_shape(x, list(shape))


def specify_shape(x: Any, shape: Any) -> Variable:
    """``x`` asserted (at run time) to have ``shape``; entries may be None (unknown)."""
    x = as_tensor_variable(x)
    if shape is None:
        return x
    if isinstance(shape, int | np.integer) or shape is Ellipsis:
        shape = (shape,)
    if isinstance(shape, list | tuple):
        entries = _expand_ellipsis(list(shape), x.type.ndim)
    else:
        var = as_tensor_variable(shape)
        if var.type.ndim == 1 and var.type.shape[0] is None:
            raise ValueError(
                f"specify_shape of {_name(x)}: the shape vector {_name(var)} must have fixed "
                "dimensions (a static length); give a tuple or a vector of known length"
            )
        if var.type.ndim == 1 and not isinstance(var, Constant):
            # Index the vector itself, so the graph depends on it (rewrites simplify).
            entries = [var[i] for i in range(var.type.shape[0])]
        else:
            entries = list(dims_of(var, f"specify_shape of {_name(x)}"))
    if len(entries) != x.type.ndim:
        raise ValueError(
            f"specify_shape: {_name(x)} has {x.type.ndim} dimension(s), but the shape given "
            f"has {len(entries)} entries, so it will never match"
        )
    given = tuple(e is not None for e in entries)
    dims = [
        as_index_scalar(e, f"specify_shape: dimension {axis} of {_name(x)}")
        for axis, e in enumerate(entries)
        if e is not None
    ]
    if not any(given):
        return x
    if all(
        not has or (x.type.shape[axis] is not None and x.type.shape[axis] == static_int(e))
        for axis, (has, e) in enumerate(zip(given, entries))
    ):
        return x
    return SpecifyShape(given)(x, *dims)


# --------------------------------------------------------------------------- padding


def shape_padleft(t: Any, n_ones: int = 1) -> Variable:
    """``t`` with ``n_ones`` broadcastable dimensions added on the left."""
    t = as_tensor_variable(t)
    return _dimshuffle(t, ["x"] * n_ones + list(range(t.type.ndim)))


def shape_padright(t: Any, n_ones: int = 1) -> Variable:
    """``t`` with ``n_ones`` broadcastable dimensions added on the right."""
    t = as_tensor_variable(t)
    return _dimshuffle(t, list(range(t.type.ndim)) + ["x"] * n_ones)


def shape_padaxis(t: Any, axis: int) -> Variable:
    """``t`` with one broadcastable dimension inserted at ``axis`` (negative counts back)."""
    return expand_dims(t, axis)


def _normalize_axes(axis: Any, ndim: int, who: str) -> list[int]:
    axes = [axis] if isinstance(axis, int | np.integer) else list(axis)
    out = []
    for a in axes:
        if not isinstance(a, int | np.integer) or not -ndim <= a < ndim:
            raise ValueError(
                f"{who}: axis {a!r} is out of range for {ndim} dimension(s) (axis {a!r} is out "
                f"of bounds for array of dimension {ndim})"
            )
        out.append(int(a) % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"{who}: repeated axis in {axes}")
    return out


def expand_dims(a: Any, axis: Any) -> Variable:
    """NumPy's ``expand_dims``: new length-1 dimensions at the positions in ``axis``."""
    a = as_tensor_variable(a)
    n_new = 1 if isinstance(axis, int | np.integer) else len(axis)
    out_ndim = a.type.ndim + n_new
    axes = set(_normalize_axes(axis, out_ndim, f"expand_dims of {_name(a)}"))
    rest = iter(range(a.type.ndim))
    return _dimshuffle(a, ["x" if i in axes else next(rest) for i in range(out_ndim)])


def squeeze(x: Any, axis: Any = None) -> Variable:
    """Drop length-1 dimensions (all statically known ones, or those in ``axis``)."""
    x = as_tensor_variable(x)
    if axis is None:
        axes = [i for i, s in enumerate(x.type.shape) if s == 1]
    else:
        axes = _normalize_axes(axis, x.type.ndim, f"squeeze of {_name(x)}")
    if not axes:
        return x
    for a in axes:
        if x.type.shape[a] not in (None, 1):
            raise ValueError(
                f"squeeze of {_name(x)}: cannot remove axis {a} of static length "
                f"{x.type.shape[a]}; only length-1 axes can be squeezed"
            )
    if any(x.type.shape[a] is None for a in axes):
        x = specify_shape(x, [1 if i in axes else None for i in range(x.type.ndim)])
    return _dimshuffle(x, [i for i in range(x.type.ndim) if i not in axes])


# What each op tells get_underlying_scalar_constant_value (tensor/constant_value.py).


def _shape_i_constant(v: Variable, owner: Apply, elemwise: bool, budget: int) -> Any:
    dim = owner.inputs[0].type.shape[owner.op.i]
    if dim is None:
        raise NotScalarConstantError(f"dimension {owner.op.i} of {owner.inputs[0]} is not static")
    return dim


def _shape_constant(v: Variable, owner: Apply, elemwise: bool, budget: int) -> Any:
    static = owner.inputs[0].type.shape
    if static and all(s is not None for s in static) and len(set(static)) == 1:
        return static[0]
    raise NotScalarConstantError(f"{v} is a whole shape, not one scalar")


def _make_vector_constant(v: Variable, owner: Apply, elemwise: bool, budget: int) -> Any:
    values = [
        get_underlying_scalar_constant_value(i, elemwise, False, budget) for i in owner.inputs
    ]
    return unique_value(np.asarray(values))


register_constant_rule(Shape_i, _shape_i_constant)
register_constant_rule(Shape, _shape_constant)
register_constant_rule(MakeVector, _make_vector_constant)
register_constant_rule(Reshape, passthrough)
register_constant_rule(SpecifyShape, passthrough)

# ``x.shape``, ``x.reshape``... (the methods live in opgraph.tensor.variable), and
# TensorType.convert_variable's specify_shape.

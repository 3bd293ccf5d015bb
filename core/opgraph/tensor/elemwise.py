"""Elemwise (a scalar op applied to every element, with broadcasting) and
DimShuffle (reorder, add and drop dimensions: the op broadcasting is built on).

Broadcasting follows PyTensor: ``Elemwise.make_node`` pads lower-rank inputs
on the left with a DimShuffle of ``"x"`` entries, so ``x * 2.`` on a matrix has
``DimShuffle{x,x}(TensorConstant{2.0})`` as its second input.  Only
dimensions of static length 1 broadcast; a length that is only known at run
time never broadcasts silently (that keeps gradients' shapes right).
"""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import attrs
import numpy as np

import opgraph.scalar as _scalar_ops
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.null_type import DisconnectedType, NullType, disconnected_type
from opgraph.graph.op import Op
from opgraph.graph.utils import lazy_exports, type_name
from opgraph.scalar.arith import Mul, TrueDiv
from opgraph.scalar.type import get_scalar_type
from opgraph.tensor.constant_value import (
    elemwise_constant,
    get_underlying_scalar_constant_value,
    passthrough,
    register_constant_rule,
)
from opgraph.tensor.elemwise_thunk import make_elemwise_thunk
from opgraph.tensor.exceptions import NotScalarConstantError
from opgraph.tensor.function_table import TENSOR_FUNCTIONS as _tensor_functions
from opgraph.tensor.type import TensorType, get_floatX
from opgraph.tensor.variable import (
    as_tensor_variable,
    constant,
    python_number_dtype,
)

__all__ = [
    "DimShuffle",
    "Elemwise",
    "as_elemwise_inputs",
    "broadcast_static_shape",
    "transpose",
    "weak_scalar_dtype",
]


# --------------------------------------------------------------------------- DimShuffle


def _check_new_order(input_ndim: int, new_order: tuple) -> None:
    seen = set()
    for entry in new_order:
        if entry == "x" and isinstance(entry, str):
            continue
        if not isinstance(entry, int | np.integer) or isinstance(entry, bool):
            raise TypeError(
                f"DimShuffle: new_order entries must be input axes (int) or 'x', got {entry!r} "
                f"in {new_order}"
            )
        if not 0 <= entry < input_ndim:
            raise ValueError(
                f"DimShuffle: axis {entry} in new_order {new_order} is out of range for an "
                f"input with {input_ndim} dimension(s)"
            )
        if entry in seen:
            raise ValueError(
                f"DimShuffle: axis {entry} appears twice in new_order {new_order} (an axis "
                "may not appear twice)"
            )
        seen.add(entry)


def _as_ndim(value: Any) -> int:
    """DimShuffle's ``input_ndim``: a non-negative integer (not a bool or a pattern)."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"DimShuffle: input_ndim must be an integer, got {type(value).__name__} {value!r}"
        )
    if value < 0:
        raise ValueError(f"DimShuffle: input_ndim must be >= 0, got {value}")
    return int(value)


@attrs.frozen(repr=False)
class DimShuffle(Op):
    """Reorder the input's axes, insert broadcastable ones ("x"), drop length-1 ones.

    ``DimShuffle(input_ndim=2, new_order=(1, "x", 0))`` turns shape (a, b) into
    (b, 1, a).  The output is a view of the input.
    """

    #: PyTensor's C source of this Op, relative to the class's file; opgraph generates its
    #: C code, but subclasses of ported code read the attribute (with :meth:`get_path`).
    c_func_file: ClassVar[str] = "c_code/dimshuffle.c"

    input_ndim: int = attrs.field(converter=_as_ndim)
    new_order: tuple = attrs.field(converter=tuple)
    shuffle: tuple = attrs.field(init=False, eq=False)
    augment: tuple = attrs.field(init=False, eq=False)
    drop: tuple = attrs.field(init=False, eq=False)
    # How perform builds the view, decided once: transpose axes (None: none needed) and
    # the basic index inserting/dropping axes (None: reshape, for a 0-d result).
    _perm: tuple | None = attrs.field(init=False, eq=False, repr=False)
    _index: tuple | None = attrs.field(init=False, eq=False, repr=False)

    view_map = {0: [0]}

    @classmethod
    def get_path(cls, f: Path) -> Path:
        """``f`` made absolute relative to the directory of the file defining ``cls``."""
        return f if f.is_absolute() else Path(inspect.getfile(cls)).parent / f

    def __attrs_post_init__(self) -> None:
        _check_new_order(self.input_ndim, self.new_order)
        order = tuple(o if isinstance(o, str) else int(o) for o in self.new_order)
        object.__setattr__(self, "new_order", order)
        kept = [o for o in order if o != "x"]
        object.__setattr__(self, "shuffle", tuple(kept))
        object.__setattr__(self, "augment", tuple(i for i, o in enumerate(order) if o == "x"))
        object.__setattr__(
            self, "drop", tuple(i for i in range(self.input_ndim) if i not in kept)
        )
        perm = self.shuffle + self.drop
        object.__setattr__(self, "_perm", None if perm == tuple(range(len(perm))) else perm)
        # After the transpose, kept axes are in output order and dropped ones (length 1)
        # trail: None inserts an axis, a full slice keeps one, 0 drops one.
        index = tuple(None if o == "x" else slice(None) for o in order) + (0,) * len(self.drop)
        object.__setattr__(self, "_index", index if order else None)

    @property
    def transposition(self) -> tuple[int, ...]:
        return self.shuffle + self.drop

    @property
    def is_transpose(self) -> bool:
        identity = tuple(range(len(self.shuffle)))
        return not self.augment and not self.drop and self.shuffle != identity

    @property
    def is_left_expand_dims(self) -> bool:
        n = len(self.augment)
        return not self.drop and self.new_order[n:] == tuple(range(self.input_ndim))

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if not isinstance(x.type, TensorType) or x.type.ndim != self.input_ndim:
            raise TypeError(
                f"{self}: expected an input with {self.input_ndim} dimension(s), got {x} of "
                f"type {x.type}"
            )
        in_shape = x.type.shape
        for d in self.drop:
            if in_shape[d] not in (1, None):
                raise TypeError(
                    f"{self}: cannot drop dimension {d} of {x} (static shape {in_shape}): a "
                    "dropped dimension must have length 1"
                )
        out_shape = tuple(1 if o == "x" else in_shape[o] for o in self.new_order)
        out = TensorType(x.type.dtype, out_shape)()
        return Apply(self, [x], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        x = inputs[0]
        if self.drop and any(x.shape[d] != 1 for d in self.drop):
            # Only reachable for dimensions of unknown static length (make_node checks the rest).
            raise ValueError(
                f"{self}: cannot drop dimension(s) {self.drop} of an input of shape {x.shape}: "
                "a dropped dimension must have length 1"
            )
        perm = self._perm
        if perm is not None:
            x = x.transpose(perm)
        index = self._index
        output_storage[0][0] = x.reshape(()) if index is None else x[index]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list:
        (ishape,) = input_shapes
        return [tuple(1 if o == "x" else ishape[o] for o in self.new_order)]

    def pullback(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable],
        cotangents: Sequence[Variable],
    ) -> list[Variable]:
        (x,) = inputs
        (gz,) = cotangents
        if _is_disconnected(gz):
            return [disconnected_type()]
        if x.type.dtype not in _CONTINUOUS:
            return [_float_zeros_like(x)]
        gz = as_tensor_variable(gz)
        # Sum away the inserted axes (a DimShuffle if they are statically 1),
        # then put the input's axes back in place, re-adding dropped ones.
        if any(gz.type.shape[a] != 1 for a in self.augment):
            gz = _tensor_functions.sum(gz, axis=self.augment, keepdims=True)
        grad_order: list[Any] = ["x"] * self.input_ndim
        for pos, o in enumerate(self.new_order):
            if o != "x":
                grad_order[o] = pos
        g = DimShuffle(input_ndim=gz.type.ndim, new_order=tuple(grad_order))(gz)
        if g.type.dtype != x.type.dtype:
            g = _tensor_functions.cast(g, x.type.dtype)
        return [g]

    def pushforward(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable],
        tangents: Sequence[Variable],
    ) -> list[Variable]:
        (t,) = tangents
        if t is None or _is_disconnected(t):
            return [disconnected_type()]
        return [self(t)]

    def __str__(self) -> str:
        return "DimShuffle{" + ",".join(str(o) for o in self.new_order) + "}"

    __repr__ = __str__


def transpose(x: Any, axes: Sequence[int] | None = None) -> Variable:
    """Reverse (or permute by ``axes``) the dimensions of ``x``; negative axes count back."""
    x = as_tensor_variable(x)
    ndim = x.type.ndim
    if axes is None:
        axes = tuple(range(ndim - 1, -1, -1))
    axes = tuple(axes)
    if len(axes) != ndim:
        raise ValueError(
            f"transpose of {x}: axes {axes} must list each of the {ndim} dimensions once"
        )
    norm = []
    for a in axes:
        if not isinstance(a, int | np.integer) or not -ndim <= a < ndim:
            raise ValueError(f"transpose of {x}: axis {a!r} is out of range for ndim={ndim}")
        norm.append(int(a) % ndim)
    if norm == list(range(ndim)):
        return x
    out = DimShuffle(input_ndim=ndim, new_order=tuple(norm))(x)
    if x.name and norm == list(range(ndim - 1, -1, -1)):
        out.name = f"{x.name}.T"  # PyTensor names a full reversal so
    return out


# --------------------------------------------------------------------------- inputs


def _is_python_number(x: Any) -> bool:
    return isinstance(x, numbers.Number) and not isinstance(x, np.generic | np.ndarray)


def _smallest_int_dtype(value: int) -> np.dtype:
    for name in ("int8", "int16", "int32", "int64"):
        info = np.iinfo(name)
        if info.min <= value <= info.max:
            return np.dtype(name)
    return np.dtype("uint64")


def weak_scalar_dtype(value: Any, strong_dtypes: Sequence[str]) -> str:
    """Dtype for a Python number combined with arrays of ``strong_dtypes`` (NEP 50).

    The number adopts the arrays' kind and precision; an int that does not fit
    (or a float that would overflow) widens just enough to hold it.
    """
    if not strong_dtypes:
        return python_number_dtype(value)
    dtype = np.result_type(*[np.dtype(d) for d in strong_dtypes], value)
    if isinstance(value, int | bool) and dtype.kind in "iu" and not isinstance(value, bool):
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            dtype = np.result_type(dtype, _smallest_int_dtype(value))
            if dtype.kind == "f":  # uint64 mixed with a negative int
                raise TypeError(
                    f"the Python int {value} cannot be combined with {dtype} data without "
                    "changing its value; cast explicitly"
                )
    elif isinstance(value, float | complex) and dtype.kind in "fc" and np.isfinite(value):
        with np.errstate(over="ignore"):
            if not np.isfinite(np.asarray(value, dtype=dtype)):
                dtype = np.result_type(dtype, np.float64)
    return dtype.name


def as_elemwise_inputs(inputs: Sequence[Any], integer_inputs: Sequence[int] = ()
                       ) -> list[Variable]:
    """Convert Elemwise inputs; Python numbers are weak scalars (see ``weak_scalar_dtype``),
    except a Python int at a position of ``integer_inputs`` (an order, a count), which
    keeps an integer dtype whatever the other inputs are."""
    converted: list[Any] = [None] * len(inputs)
    weak = []
    for i, x in enumerate(inputs):
        if _is_python_number(x) and not (i in integer_inputs and isinstance(x, int)):
            weak.append(i)
        else:
            try:
                converted[i] = as_tensor_variable(x)
            except TypeError as exc:
                raise TypeError(f"input {i}: {exc}") from None
    strong_dtypes = [v.type.dtype for v in converted if v is not None]
    for i in weak:
        converted[i] = constant(inputs[i], dtype=weak_scalar_dtype(inputs[i], strong_dtypes))
    return converted


def broadcast_static_shape(
    shapes: Sequence[tuple[int | None, ...]], names: Sequence[str] | None = None
) -> tuple[int | None, ...]:
    """The static shape of broadcasting equal-rank ``shapes``; ValueError if incompatible."""
    out: list[int | None] = []
    for dim, entries in enumerate(zip(*shapes)):
        known = {s for s in entries if s is not None and s != 1}
        if len(known) > 1:
            described = ", ".join(
                f"{names[i] if names else 'input ' + str(i)} {shapes[i]}"
                for i in range(len(shapes))
            )
            raise ValueError(
                f"Incompatible static shapes for broadcasting at dimension {dim}: lengths "
                f"{sorted(known)} cannot be broadcast together ({described})"
            )
        if known:
            out.append(known.pop())
        elif all(s == 1 for s in entries):
            out.append(1)
        else:
            out.append(None)
    return tuple(out)


# --------------------------------------------------------------------------- Elemwise

_CONTINUOUS = frozenset({"float16", "float32", "float64", "complex64", "complex128"})


def _is_disconnected(v: Any) -> bool:
    return isinstance(getattr(v, "type", None), DisconnectedType)


def _is_null(v: Any) -> bool:
    return isinstance(getattr(v, "type", None), NullType)


def _is_structural_zero(v: Variable) -> bool:
    """``v`` is 0 everywhere, known when the graph is built (a constant, or Elemwise of them)."""
    try:
        value = get_underlying_scalar_constant_value(v, elemwise=True, max_recur=4)
    except (NotScalarConstantError, ValueError, TypeError):
        return False
    return bool(value == 0)


def _zero_partials(scalar_op: Any, inputs: Sequence[Variable]) -> set[int]:
    """Inputs whose partial derivative is a structural zero: ``x`` in ``x * 0`` and ``y``
    in ``0 / y``.  Their gradient is zeros, not ``cotangent * 0`` (NaN for an infinite
    cotangent): PyTensor's value, where its canonicalizer folds ``x * 0`` to 0 before
    the gradient is computed (docs/migrating.md).  Forward graphs keep IEEE's ``x * 0``.
    """
    if isinstance(scalar_op, Mul) and len(inputs) > 1:
        zeros = [k for k, x in enumerate(inputs) if _is_structural_zero(x)]
        if not zeros:
            return set()
        # with two zero factors every input's partial holds one of them
        return {k for k in range(len(inputs)) if k != zeros[0] or len(zeros) > 1}
    if isinstance(scalar_op, TrueDiv) and _is_structural_zero(inputs[0]):
        return {1}
    return set()


def _float_zeros_like(x: Variable) -> Variable:
    """A floatX zero of ``x``'s shape: the gradient of a discrete input."""
    return _tensor_functions.second(x, constant(0, dtype=get_floatX()))


def _scalar_type(dtype: str) -> Any:
    return get_scalar_type(dtype)


def _op_label(scalar_op: Any) -> str:
    text = str(scalar_op)
    cls = type(scalar_op).__name__
    return cls if text == cls.lower() else text


class Elemwise(Op):
    """Apply ``scalar_op`` elementwise, broadcasting inputs of static length 1.

    ``inplace_pattern`` maps an output index to the input index it overwrites
    (that input must have the output's type).
    """

    __props__ = ("scalar_op", "inplace_pattern")

    def __init__(
        self, scalar_op: Any, inplace_pattern: dict[int, int] | None = None,
        name: str | None = None,
    ) -> None:
        if not isinstance(scalar_op, Op):
            raise TypeError(f"Elemwise: scalar_op must be a scalar Op, got {type_name(scalar_op)}")
        self.scalar_op = scalar_op
        self.inplace_pattern = dict(inplace_pattern or {})
        self.destroy_map = {o: [i] for o, i in self.inplace_pattern.items()}
        self.name = name
        self._ufunc = None
        self.nin = getattr(scalar_op, "nin", -1)
        self.nout = getattr(scalar_op, "nout", 1)

    def __getstate__(self) -> dict:
        # the cached ufunc may be a local function: rebuilt after unpickling
        return {**self.__dict__, "_ufunc": None}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._ufunc = None

    # -- building -------------------------------------------------------------------
    def outer(self, x: Any, y: Any) -> Variable:
        """Like NumPy's ``ufunc.outer``: the op on every pair of elements of ``x`` and ``y``.

        The result has the axes of ``x`` followed by those of ``y``.
        """
        x, y = as_tensor_variable(x), as_tensor_variable(y)
        nx, ny = x.type.ndim, y.type.ndim
        xe = DimShuffle(input_ndim=nx, new_order=(*range(nx), *["x"] * ny))(x)
        ye = DimShuffle(input_ndim=ny, new_order=(*["x"] * nx, *range(ny)))(y)
        return self(xe, ye)

    def make_node(self, *inputs: Any) -> Apply:
        try:
            inputs = as_elemwise_inputs(inputs, getattr(self.scalar_op, "integer_inputs", ()))
        except TypeError as exc:
            raise TypeError(f"{self}: {exc}") from None
        if self.nin >= 0 and len(inputs) != self.nin:
            raise TypeError(f"{self} takes {self.nin} input(s), got {len(inputs)}")
        for i, x in enumerate(inputs):
            if not isinstance(x.type, TensorType):
                raise TypeError(f"{self}: input {i} ({x}) is not a tensor: type {x.type}")
        out_ndim = max((x.type.ndim for x in inputs), default=0)
        padded = []
        for x in inputs:
            if x.type.ndim < out_ndim:
                pad = ["x"] * (out_ndim - x.type.ndim)
                x = DimShuffle(input_ndim=x.type.ndim, new_order=(*pad, *range(x.type.ndim)))(x)
            padded.append(x)
        try:
            out_shape = broadcast_static_shape(
                [x.type.shape for x in padded], [str(x) for x in inputs]
            )
        except ValueError as exc:
            shapes = [x.type.shape for x in padded]
            raise ValueError(f"Incompatible Elemwise input shapes {shapes}: {exc}") from None
        scalar_node = self.scalar_op.make_node(*[_scalar_type(x.type.dtype)() for x in padded])
        out_dtypes = [o.type.dtype for o in scalar_node.outputs]
        outputs = [TensorType(dt, out_shape)() for dt in out_dtypes]
        for o, i in self.inplace_pattern.items():
            if not 0 <= o < len(outputs) or not 0 <= i < len(padded):
                raise ValueError(f"{self}: inplace_pattern entry {o}->{i} is out of range")
            if padded[i].type != outputs[o].type:
                raise TypeError(
                    f"{self}: output {o} ({outputs[o].type}) cannot overwrite input {i} "
                    f"({padded[i].type}): their types differ"
                )
        return Apply(self, padded, outputs)

    # -- computing -------------------------------------------------------------------
    @property
    def ufunc(self) -> Any:
        uf = self._ufunc
        if uf is None:
            uf = self._ufunc = self.scalar_op.ufunc
        return uf

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        if len(inputs) > 1:
            _check_runtime_broadcast(self, node, inputs)
        uf = self.ufunc
        kwargs = {}
        if self.inplace_pattern and isinstance(uf, np.ufunc):
            outs = tuple(
                inputs[self.inplace_pattern[o]] if o in self.inplace_pattern else None
                for o in range(len(node.outputs))
            )
            kwargs["out"] = outs if len(outs) > 1 else outs[0]
        with np.errstate(all="ignore"):  # inf/nan results are values, not warnings
            results = uf(*inputs, **kwargs)
        if len(node.outputs) == 1:
            results = (results,)
        for o, (cell, value, var) in enumerate(zip(output_storage, results, node.outputs)):
            dtype = var.type.numpy_dtype
            if not isinstance(value, np.ndarray) or value.dtype != dtype:
                value = np.asarray(value, dtype=dtype)
            if o in self.inplace_pattern and not kwargs:
                target = inputs[self.inplace_pattern[o]]
                target[...] = value
                value = target
            cell[0] = value

    def make_thunk(
        self,
        node: Apply,
        storage_map: dict[Variable, list],
        compute_map: dict[Variable, list] | None,
        no_recycling: Sequence[Variable],
        impl: str | None = None,
    ) -> Any:
        """A thunk specialised to ``node`` (see ``elemwise_thunk``); it computes as ``perform``.

        It never writes into an existing output buffer (results are fresh arrays or,
        when inplace, the destroyed input), so ``no_recycling`` holds trivially.
        """
        if type(self).perform is not Elemwise.perform or "perform" in self.__dict__:
            # a subclass (or a patched instance) computes its own way: honour its perform
            return super().make_thunk(node, storage_map, compute_map, no_recycling, impl)
        self.prepare_node(node, storage_map, compute_map, "py")
        marks = [compute_map[v] for v in node.outputs] if compute_map is not None else None

        def check(inputs: list) -> None:
            _check_runtime_broadcast(self, node, inputs)

        thunk = make_elemwise_thunk(
            self, node,
            [storage_map[v] for v in node.inputs],
            [storage_map[v] for v in node.outputs],
            marks or None,
            check,
        )
        thunk.inputs = [storage_map[v] for v in node.inputs]  # type: ignore[attr-defined]
        thunk.outputs = [storage_map[v] for v in node.outputs]  # type: ignore[attr-defined]
        thunk.perform = self.perform  # type: ignore[attr-defined]
        thunk.lazy = False  # type: ignore[attr-defined]
        return thunk

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list:
        out_type = node.outputs[0].type
        shape = []
        for d, static in enumerate(out_type.shape):
            if static is not None:
                shape.append(static)
                continue
            for inp, ishape in zip(node.inputs, input_shapes):
                if inp.type.shape[d] != 1:
                    shape.append(ishape[d])
                    break
            else:
                shape.append(1)
        # tensor variables throughout (static lengths as int64 constants), as PyTensor
        dims = tuple(as_tensor_variable(np.int64(d) if isinstance(d, int | np.integer) else d)
                     for d in shape)
        return [dims] * len(node.outputs)

    # -- differentiation ------------------------------------------------------------
    def pullback(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable],
        cotangents: Sequence[Variable],
    ) -> list[Variable]:
        if all(_is_disconnected(c) for c in cotangents):
            return [disconnected_type() for _ in inputs]
        s_inputs = [_scalar_type(x.type.dtype)() for x in inputs]
        s_outputs = self.scalar_op.make_node(*s_inputs).outputs
        s_cots = [
            c if _is_disconnected(c) or _is_null(c) else _scalar_type(c.type.dtype)()
            for c in cotangents
        ]
        s_grads = self.scalar_op.pullback(s_inputs, s_outputs, s_cots)
        mapping: dict[Variable, Variable] = {}
        mapping.update(zip(s_inputs, inputs))
        mapping.update(zip(s_outputs, outputs))
        mapping.update((s, c) for s, c in zip(s_cots, cotangents) if s is not c)
        grads = []
        zero_partials = _zero_partials(self.scalar_op, inputs)
        for k, (x, sg) in enumerate(zip(inputs, s_grads)):
            if _is_disconnected(sg) or _is_null(sg):
                grads.append(sg)
                continue
            if k in zero_partials and x.type.dtype in _CONTINUOUS:
                grads.append(_tensor_functions.second(x, constant(0, dtype=x.type.dtype)))
                continue
            g = _lift_scalar_graph(sg, mapping)
            grads.append(_reduce_to_input(g, x))
        return grads

    def pushforward(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable],
        tangents: Sequence[Variable],
    ) -> list[Variable]:
        s_inputs = [_scalar_type(x.type.dtype)() for x in inputs]
        s_outputs = self.scalar_op.make_node(*s_inputs).outputs
        s_tans: list[Any] = []
        mapping: dict[Variable, Variable] = {}
        mapping.update(zip(s_inputs, inputs))
        mapping.update(zip(s_outputs, outputs))
        for t in tangents:
            if t is None or _is_disconnected(t):
                s_tans.append(disconnected_type())
            else:
                s = _scalar_type(as_tensor_variable(t).type.dtype)()
                mapping[s] = as_tensor_variable(t)
                s_tans.append(s)
        s_results = self.scalar_op.pushforward(s_inputs, s_outputs, s_tans)
        out = []
        for o, r in zip(outputs, s_results):
            if r is None or _is_disconnected(r) or _is_null(r):
                out.append(r if r is not None else disconnected_type())
                continue
            out.append(_broadcast_like(_lift_scalar_graph(r, mapping), o))
        return out

    # -- printing ---------------------------------------------------------------------
    def __str__(self) -> str:
        if self.name:
            return self.name
        # As PyTensor: in-place or not, the label is the scalar op's (dprint shows d={...}).
        return _op_label(self.scalar_op)

    __repr__ = __str__


def _check_runtime_broadcast(op: Elemwise, node: Apply, inputs: Sequence[Any]) -> None:
    first = inputs[0].shape
    if all(x.shape == first for x in inputs):
        return
    try:
        target = np.broadcast_shapes(*[x.shape for x in inputs])
    except ValueError:
        raise ValueError(
            f"{op}: input shapes {[x.shape for x in inputs]} cannot be broadcast together "
            f"(inputs {[str(v) for v in node.inputs]})"
        ) from None
    for var, x in zip(node.inputs, inputs):
        for d, (static, length) in enumerate(zip(var.type.shape, x.shape)):
            if length == 1 and target[d] != 1 and static != 1:
                raise ValueError(
                    f"{op}: Runtime broadcasting not allowed: dimension {d} of {var} has "
                    f"length 1 at run time but its type {var.type} does not declare it "
                    f"broadcastable (shapes {[v.shape for v in inputs]}); runtime broadcasting "
                    "needs a static shape of 1 (e.g. from specify_shape or a row/col type)"
                )


def _lift_scalar_graph(root: Variable, mapping: dict[Variable, Variable]) -> Variable:
    """Rebuild a scalar graph over tensors: each scalar Apply becomes an Elemwise."""
    stack = [root]
    while stack:
        v = stack[-1]
        if v in mapping:
            stack.pop()
            continue
        if isinstance(v, Constant):
            mapping[v] = constant(np.asarray(v.data), dtype=v.type.dtype)
            stack.pop()
            continue
        if v.owner is None:
            raise ValueError(f"Elemwise gradient: the scalar graph uses an unknown input {v}")
        missing = [i for i in v.owner.inputs if i not in mapping]
        if missing:
            stack.extend(missing)
            continue
        stack.pop()
        node = v.owner
        outs = Elemwise(node.op)(*[mapping[i] for i in node.inputs], return_list=True)
        mapping.update(zip(node.outputs, outs))
    return mapping[root]


def _broadcast_like(g: Variable, like: Variable) -> Variable:
    """``g`` with ``like``'s rank (a lifted graph of constants may be 0-d)."""
    if g.type.ndim < like.type.ndim or any(
        gs == 1 and ls != 1 for gs, ls in zip(g.type.shape, like.type.shape)
    ):
        return _tensor_functions.second(like, g)
    return g


def _reduce_to_input(g: Variable, x: Variable) -> Variable:
    """Sum a cotangent over the dimensions ``x`` was broadcast along."""
    g = _broadcast_like(g, x)
    axes = tuple(
        d for d in range(x.type.ndim) if x.type.shape[d] == 1 and g.type.shape[d] != 1
    )
    if axes:
        g = _tensor_functions.sum(g, axis=axes, keepdims=True)
    if x.type.dtype in _CONTINUOUS and g.type.dtype != x.type.dtype:
        g = _tensor_functions.cast(g, x.type.dtype)
    return g


# PyTensor defines CAReduce beside Elemwise; opgraph keeps the reductions in their
# own module (which builds on this one), so the name resolves on first use.
__getattr__, __dir__ = lazy_exports(__name__, {"CAReduce": "opgraph.tensor.reduction"})

register_constant_rule(DimShuffle, passthrough)
register_constant_rule(Elemwise, elemwise_constant)



def get_normalized_batch_axes(core_axes: int | tuple[int, ...] | None, core_ndim: int,
                              batch_ndim: int) -> tuple[int, ...]:
    """The axes of a batched input that a core operation's ``core_axes`` (None: all core
    axes) become: ``sum(matrix, axis=0)`` batched to 4 dims reduces axis 2."""
    if core_axes is None:
        core_axes = tuple(range(core_ndim))
    else:
        core_axes = tuple(np.lib.array_utils.normalize_axis_tuple(core_axes, core_ndim))
    return tuple(axis + batch_ndim for axis in core_axes)


def scalar_elemwise(*symbol: Any, nfunc: str | None = None, nin: int | None = None,
                    nout: int | None = None, symbolname: str | None = None) -> Any:
    """Decorator: the function becomes the Elemwise of the scalar op of the same name
    (``symbolname`` overrides it) with the function's docstring.  ``nfunc``/``nin``/
    ``nout`` are accepted for PyTensor code; the scalar op already knows its NumPy function.
    """
    def construct(fn: Any) -> Elemwise:
        name = symbolname or fn.__name__
        if name.endswith("_inplace"):
            raise ValueError("scalar_elemwise: automatic in-place Elemwise ops are not made")
        scalar_op = getattr(_scalar_ops, name, None)
        if scalar_op is None:
            raise AttributeError(f"scalar_elemwise: opgraph.scalar has no op named {name!r}")
        out = Elemwise(scalar_op)
        if fn.__doc__:
            out.__doc__ = fn.__doc__
        return out

    return construct(symbol[0]) if symbol else construct

"""Reductions: CAReduce (commutative-associative reduce by a scalar op) with
Sum, Prod, Max, Min, All, Any; mean, var, std; Argmax / Argmin.

Axes follow NumPy: None (all), an int or a tuple, negative counting back;
``keepdims`` is a DimShuffle after the reduction (as in PyTensor), so the op
itself always drops the reduced axes.  Output dtypes follow NumPy (a sum of
int8 is int64); float32 is accumulated in float64 and returned as float32.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any as _Any

import numpy as np

from opgraph.autodiff.undefined import grad_not_implemented
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.null_type import disconnected_type
from opgraph.graph.op import Op
from opgraph.scalar import arith as _sa
from opgraph.scalar import logic as _sl
from opgraph.scalar.type import get_scalar_type
from opgraph.tensor import ufuncs as _uf
from opgraph.tensor.elemwise import DimShuffle, _float_zeros_like, _is_disconnected
from opgraph.tensor.shape import shape_i
from opgraph.tensor.type import TensorType, continuous_dtypes, normalize_dtype
from opgraph.tensor.variable import as_tensor_variable, constant

__all__ = [
    "All",
    "Any",
    "Argmax",
    "Argmin",
    "CAReduce",
    "Max",
    "Min",
    "Prod",
    "Sum",
    "all",
    "any",
    "argmax",
    "argmin",
    "max",
    "max_and_argmax",
    "mean",
    "min",
    "normalize_axis",
    "prod",
    "std",
    "sum",
    "var",
]


def normalize_axis(axis: _Any, ndim: int, who: str = "reduction") -> tuple[int, ...]:
    """``axis`` (None, int, sequence, range or int array; negatives allowed) as sorted
    non-negative ints."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, np.ndarray) and axis.dtype.kind in "iu":  # PyTensor takes int arrays
        axis = axis.tolist()
    if isinstance(axis, int | np.integer):
        items = [axis]
    elif isinstance(axis, list | tuple | range):
        items = list(axis)
    else:
        raise TypeError(f"{who}: axis must be None, an int or a tuple of ints, got {axis!r}")
    out = []
    for a in items:
        if isinstance(a, bool | np.bool_) or not isinstance(a, int | np.integer):
            raise TypeError(f"{who}: axis entries must be ints, got {a!r}")
        if ndim == 0 and a in (0, -1):
            continue  # a scalar reduced over its one implicit axis is itself (as in NumPy)
        if not -ndim <= a < ndim:
            # AxisError is a ValueError (and an IndexError), as NumPy raises it.
            raise np.exceptions.AxisError(
                f"{who}: axis {axis!r} is out of bounds for array of dimension {ndim} "
                f"(axis {int(a)}; valid axes: {-ndim}..{ndim - 1})"
            )
        out.append(int(a) % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"{who}: repeated axis in {tuple(items)}")
    return tuple(sorted(out))


def _name(x: Variable) -> str:
    return x.name or str(x)


def _keepdims(out: Variable, ndim: int, axes: Sequence[int]) -> Variable:
    """Re-insert the reduced ``axes`` as length-1 dimensions."""
    rest = iter(range(out.type.ndim))
    order = tuple("x" if i in axes else next(rest) for i in range(ndim))
    return DimShuffle(input_ndim=out.type.ndim, new_order=order)(out)


def _expand_like(g: Variable, x: Variable, axes: Sequence[int]) -> Variable:
    """A reduced value broadcast back to ``x``'s shape."""
    return _uf.second(x, _keepdims(g, x.type.ndim, axes))


# NumPy's accumulator / result dtypes for sums and products.
_SUM_OUT = {
    "bool": "int64",
    "int8": "int64",
    "int16": "int64",
    "int32": "int64",
    "uint8": "uint64",
    "uint16": "uint64",
    "uint32": "uint64",
}
_SUM_ACC = {**_SUM_OUT, "float16": "float32", "float32": "float64", "complex64": "complex128"}


class CAReduce(Op):
    """Reduce ``axis`` of the input with the (commutative, associative) ``scalar_op``."""

    __props__ = ("scalar_op", "axis", "dtype", "acc_dtype")
    #: NumPy reducer used by perform, keyed in the table below by scalar op class.
    _default_out: dict[str, str] = {}
    _default_acc: dict[str, str] = {}

    def __init__(
        self, scalar_op: _Any, axis: _Any = None, dtype: _Any = None, acc_dtype: _Any = None
    ) -> None:
        self.scalar_op = scalar_op
        if axis is not None:
            axis = (axis,) if isinstance(axis, int | np.integer) else tuple(axis)
            axis = tuple(int(a) for a in axis)
        self.axis = axis
        self.dtype = None if dtype is None else normalize_dtype(dtype)
        self.acc_dtype = None if acc_dtype is None else normalize_dtype(acc_dtype)

    def _clone(self, axis: tuple[int, ...] | None) -> CAReduce:
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.axis = axis
        return new

    # -- types -----------------------------------------------------------------------
    def output_dtype(self, idtype: str) -> str:
        if self.dtype is not None:
            return self.dtype
        if self._default_out:
            return self._default_out.get(idtype, idtype)
        st = get_scalar_type(idtype)
        return self.scalar_op.make_node(st(), st()).outputs[0].type.dtype

    def accumulate_dtype(self, idtype: str) -> str:
        if self.acc_dtype is not None:
            return self.acc_dtype
        return self._default_acc.get(idtype, self.output_dtype(idtype))

    def make_node(self, x: _Any) -> Apply:
        x = as_tensor_variable(x)
        if not isinstance(x.type, TensorType):
            raise TypeError(f"{self}: expected a tensor, got {x} of type {x.type}")
        ndim = x.type.ndim
        axes = normalize_axis(self.axis, ndim, f"{self} of {_name(x)}")
        if self.axis is not None and axes != self.axis:
            return self._clone(axes).make_node(x)
        if self.acc_dtype is not None:
            up = np.result_type(x.type.dtype, self.acc_dtype).name
            if up != self.acc_dtype:
                raise TypeError(
                    f"{self} of {_name(x)}: acc_dtype {self.acc_dtype} would lose precision "
                    f"of the input dtype {x.type.dtype} (expected at least {up})"
                )
        if self._needs_identity():
            for a in axes:
                if x.type.shape[a] == 0:
                    raise ValueError(
                        f"{self} of {_name(x)}: cannot reduce axis {a} of static length 0 "
                        "(this reduction has no identity)"
                    )
        out_shape = tuple(s for i, s in enumerate(x.type.shape) if i not in axes)
        out = TensorType(self.output_dtype(x.type.dtype), out_shape)()
        return Apply(self, [x], [out])

    def _needs_identity(self) -> bool:
        return getattr(self.scalar_op, "identity", None) is None

    # -- computing --------------------------------------------------------------------
    def perform(
        self, node: Apply, inputs: Sequence[_Any], output_storage: list[list[_Any]]
    ) -> None:
        (x,) = inputs
        out_dtype = node.outputs[0].type.numpy_dtype
        axis = self.axis
        reducer = _REDUCERS.get(type(self.scalar_op))
        if reducer is not None and reducer[0] == "logical" and out_dtype != np.bool_:
            reducer = None  # and_/or_ of integers are bitwise: the ufunc's reduce
        try:
            if reducer is not None:
                kind, fn = reducer
                if kind == "acc":
                    dtype = self.accumulate_dtype(x.dtype.name)
                    # One axis at a time, last first: PyTensor's rounding, so results
                    # match it bit for bit (one multi-axis call sums in another order).
                    axes = range(x.ndim) if axis is None else axis
                    if len(axes) > 1:
                        res = x
                        for a in sorted(axes, reverse=True):
                            res = fn(res, axis=a, dtype=dtype)
                    else:
                        res = fn(x, axis=axis, dtype=dtype)
                else:
                    res = fn(x, axis=axis)
            else:
                res = _generic_reduce(self.scalar_op, x, axis)
        except ValueError as exc:
            raise ValueError(
                f"{self} of {node.inputs[0]}: cannot reduce a value of shape {x.shape} "
                f"over axes {axis}: {exc}"
            ) from None
        output_storage[0][0] = np.asarray(res, dtype=out_dtype)

    def infer_shape(
        self, fgraph: _Any, node: Apply, input_shapes: Sequence[Sequence[_Any]]
    ) -> list:
        (ishape,) = input_shapes
        axes = self.axis if self.axis is not None else tuple(range(len(ishape)))
        return [tuple(s for i, s in enumerate(ishape) if i not in axes)]

    # -- differentiation -----------------------------------------------------------------
    def _axes(self, x: Variable) -> tuple[int, ...]:
        return self.axis if self.axis is not None else tuple(range(x.type.ndim))

    def pullback(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable],
        cotangents: Sequence[Variable],
    ) -> list[Variable]:
        (x,), (out,), (gz,) = inputs, outputs, cotangents
        if _is_disconnected(gz):
            return [disconnected_type()]
        if x.type.dtype not in continuous_dtypes:
            return [_float_zeros_like(x)]
        rule = _PULLBACKS.get(type(self.scalar_op))
        if rule is None:
            return [grad_not_implemented(self, 0, x, f"the gradient of a {self} reduction")]
        g = rule(self, x, out, gz, self._axes(x))
        return [_uf.cast(g, x.type.dtype)]

    def pushforward(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable],
        tangents: Sequence[Variable],
    ) -> list[Variable]:
        (x,), (out,), (t,) = inputs, outputs, tangents
        if t is None or _is_disconnected(t) or out.type.dtype not in continuous_dtypes:
            return [disconnected_type()]
        axes = self._axes(x)
        if isinstance(self, Sum):
            return [_uf.cast(self(t), out.type.dtype)]
        rule = _PULLBACKS.get(type(self.scalar_op))
        if rule is None:
            raise NotImplementedError(f"{self} has no pushforward")
        # Each reduction here is linear in the tangent with the pullback's weights.
        ones = _uf.second(out, constant(1, dtype=out.type.dtype))
        weights = rule(self, x, out, ones, axes)
        return [_uf.cast(sum(_uf.mul(weights, t), axis=axes), out.type.dtype)]

    # -- printing --------------------------------------------------------------------
    def _label(self) -> str:
        return type(self).__name__ if type(self) is not CAReduce else (
            f"CAReduce{{{self.scalar_op}"
        )

    def __str__(self) -> str:
        if self.axis is None:
            ax = "axes=None"
        elif len(self.axis) == 1:
            ax = f"axis={self.axis[0]}"
        else:
            ax = f"axes={list(self.axis)}"
        label = self._label()
        if label.endswith("}") or "{" not in label:
            return f"{label}{{{ax}}}"
        return f"{label}, {ax}}}"

    __repr__ = __str__


def _generic_reduce(scalar_op: _Any, x: np.ndarray, axis: tuple[int, ...] | None) -> _Any:
    fn = scalar_op.ufunc
    if isinstance(fn, np.ufunc) and fn.nin == 2:
        return fn.reduce(x, axis=axis)
    axes = tuple(range(x.ndim)) if axis is None else axis
    res = x
    fresh = False
    for a in sorted(axes, reverse=True):
        parts = np.moveaxis(res, a, 0)
        if parts.shape[0] == 0:
            raise ValueError("zero-size reduction with no identity")
        acc = parts[0]
        for p in parts[1:]:
            acc = fn(acc, p)
            fresh = True
        res = acc
    # With no axes or only length-1 axes, ``res`` is a view of x: the op declares no view.
    return res if fresh else np.array(res, copy=True)


class Sum(CAReduce):
    """Sum over ``axis`` (NumPy dtypes: ints give int64, uints uint64)."""

    _default_out = _SUM_OUT
    _default_acc = _SUM_ACC

    def __init__(self, axis: _Any = None, dtype: _Any = None, acc_dtype: _Any = None) -> None:
        super().__init__(_sa.add, axis, dtype, acc_dtype)


class Prod(CAReduce):
    """Product over ``axis``; the gradient handles zeros in the input."""

    __props__ = ("scalar_op", "axis", "dtype", "acc_dtype", "no_zeros_in_input")
    _default_out = _SUM_OUT
    _default_acc = _SUM_ACC

    def __init__(
        self, axis: _Any = None, dtype: _Any = None, acc_dtype: _Any = None,
        no_zeros_in_input: bool = False,
    ) -> None:
        super().__init__(_sa.mul, axis, dtype, acc_dtype)
        self.no_zeros_in_input = bool(no_zeros_in_input)


class ProdWithoutZeros(Prod):
    """PyTensor's product Op for inputs known to hold no zero (``prod(no_zeros_in_input=True)``)."""

    def __init__(self, axis: _Any = None, dtype: _Any = None, acc_dtype: _Any = None) -> None:
        super().__init__(axis, dtype, acc_dtype, no_zeros_in_input=True)


class _ExtremumRules:
    """Max/Min: the input dtype is kept, and an empty axis is an error (like NumPy)."""

    def output_dtype(self, idtype: str) -> str:
        return idtype

    def _needs_identity(self) -> bool:
        return True


class _LogicalRules:
    """All/Any: a bool result, and an empty axis gives the identity (True/False)."""

    def output_dtype(self, idtype: str) -> str:
        return "bool"

    def _needs_identity(self) -> bool:
        return False


class Max(_ExtremumRules, CAReduce):
    """Maximum over ``axis`` (same dtype; an empty axis is an error)."""

    def __init__(self, axis: _Any = None) -> None:
        super().__init__(_sa.maximum, axis)


class Min(_ExtremumRules, CAReduce):
    """Minimum over ``axis`` (same dtype; an empty axis is an error)."""

    def __init__(self, axis: _Any = None) -> None:
        super().__init__(_sa.minimum, axis)


class All(_LogicalRules, CAReduce):
    """True where every element along ``axis`` is nonzero (bool output)."""

    def __init__(self, axis: _Any = None) -> None:
        super().__init__(_sl.and_, axis)


class Any(_LogicalRules, CAReduce):
    """True where some element along ``axis`` is nonzero (bool output)."""

    def __init__(self, axis: _Any = None) -> None:
        super().__init__(_sl.or_, axis)


# How perform reduces, per scalar op class: ("acc", fn) takes an accumulator dtype;
# "logical" ones apply to bool results only (integers reduce bitwise).
_REDUCERS: dict[type, tuple[str, Callable[..., _Any]]] = {
    type(_sa.add): ("acc", np.sum),
    type(_sa.mul): ("acc", np.prod),
    type(_sa.maximum): ("plain", np.max),
    type(_sa.minimum): ("plain", np.min),
    type(_sl.and_): ("logical", np.all),
    type(_sl.or_): ("logical", np.any),
}


# --------------------------------------------------------------------------- gradients
# Each rule returns d(out)/dx weighted by the cotangent gz, with x's shape.


def _sum_pullback(op: CAReduce, x: Variable, out: Variable, gz: Variable, axes: _Any) -> Variable:
    return _expand_like(gz, x, axes)


def _prod_pullback(op: CAReduce, x: Variable, out: Variable, gz: Variable, axes: _Any) -> Variable:
    gz_full = _expand_like(gz, x, axes)
    if getattr(op, "no_zeros_in_input", False):
        return _uf.mul(gz_full, _uf.true_div(_keepdims(out, x.type.ndim, axes), x))
    is_zero = _uf.eq(x, 0)
    nonzero_x = _uf.switch(is_zero, constant(1, dtype=x.type.dtype), x)
    prod_nonzero = prod(nonzero_x, axis=axes, keepdims=True)
    n_zeros = sum(is_zero, axis=axes, keepdims=True)
    # No zero: prod / x.  One zero: only that element gets the product of the others.
    zero = constant(0, dtype=x.type.dtype)
    weight = _uf.switch(
        _uf.eq(n_zeros, 0),
        _uf.true_div(prod_nonzero, nonzero_x),
        _uf.switch(_uf.and_(_uf.eq(n_zeros, 1), is_zero), prod_nonzero, zero),
    )
    return _uf.mul(gz_full, weight)


def _extremum_pullback(
    op: CAReduce, x: Variable, out: Variable, gz: Variable, axes: _Any
) -> Variable:
    """The cotangent goes to the maximal elements (split evenly between ties)."""
    mask = _uf.cast(_uf.eq(x, _keepdims(out, x.type.ndim, axes)), x.type.dtype)
    count = sum(mask, axis=axes, keepdims=True)
    return _uf.mul(_expand_like(gz, x, axes), _uf.true_div(mask, count))


def _zero_pullback(op: CAReduce, x: Variable, out: Variable, gz: Variable, axes: _Any) -> Variable:
    return _float_zeros_like(x)


_PULLBACKS: dict[type, Callable[..., Variable]] = {
    type(_sa.add): _sum_pullback,
    type(_sa.mul): _prod_pullback,
    type(_sa.maximum): _extremum_pullback,
    type(_sa.minimum): _extremum_pullback,
    type(_sl.and_): _zero_pullback,
    type(_sl.or_): _zero_pullback,
}


# --------------------------------------------------------------------------- functions


def _reduce(op_cls: _Any, x: _Any, axis: _Any, keepdims: bool, **kw: _Any) -> Variable:
    x = as_tensor_variable(x)
    who = f"{op_cls.__name__.lower()} of {_name(x)}"
    axes = normalize_axis(axis, x.type.ndim, who)
    op_axis = None if len(axes) == x.type.ndim else axes
    out = op_cls(axis=op_axis, **kw)(x)
    return _keepdims(out, x.type.ndim, axes) if keepdims else out


def sum(
    input: _Any, axis: _Any = None, dtype: _Any = None, keepdims: bool = False,
    acc_dtype: _Any = None,
) -> Variable:
    """Sum over ``axis`` (None: all); int inputs give int64 like NumPy."""
    return _reduce(Sum, input, axis, keepdims, dtype=dtype, acc_dtype=acc_dtype)


def prod(
    input: _Any, axis: _Any = None, dtype: _Any = None, keepdims: bool = False,
    acc_dtype: _Any = None, no_zeros_in_input: bool = False,
) -> Variable:
    """Product over ``axis`` (None: all)."""
    return _reduce(
        Prod, input, axis, keepdims, dtype=dtype, acc_dtype=acc_dtype,
        no_zeros_in_input=no_zeros_in_input,
    )


def max(x: _Any, axis: _Any = None, keepdims: bool = False) -> Variable:
    """Maximum over ``axis``."""
    return _reduce(Max, x, axis, keepdims)


def min(x: _Any, axis: _Any = None, keepdims: bool = False) -> Variable:
    """Minimum over ``axis``, built as PyTensor builds it: ``-max(-x)``.

    Unsigned integers: ``top - max(top - x)``; bool: ``~max(~x)``. The same
    values as a ``Min`` node, and the graph PyMC's logprob rewrites read (the
    logp of the minimum of iid variables is found from ``-max(-x)``); FAST_RUN's
    ``local_min_of_neg`` and the backends treat it as fast as a ``Min``.
    """
    x = as_tensor_variable(x)
    dtype = x.type.dtype
    if dtype.startswith("uint"):
        top = constant(np.iinfo(dtype).max, dtype=dtype)
        return _uf.sub(top, max(_uf.sub(top, x), axis=axis, keepdims=keepdims))
    if dtype == "bool":
        return _uf.invert(max(_uf.invert(x), axis=axis, keepdims=keepdims))
    if dtype.startswith(("float", "int")):
        return _uf.neg(max(_uf.neg(x), axis=axis, keepdims=keepdims))
    return _reduce(Min, x, axis, keepdims)  # complex: NumPy's order, no negation trick


def _truth(x: _Any) -> Variable:
    """``x != 0`` for a non-boolean ``x`` (PyTensor's graph of ``all``/``any``; NaN is
    true, as in NumPy)."""
    x = as_tensor_variable(x)
    return x if x.type.dtype == "bool" else _uf.neq(x, constant(0, dtype=x.type.dtype))


def all(x: _Any, axis: _Any = None, keepdims: bool = False) -> Variable:
    """Logical AND over ``axis`` (bool)."""
    return _reduce(All, _truth(x), axis, keepdims)


def any(x: _Any, axis: _Any = None, keepdims: bool = False) -> Variable:
    """Logical OR over ``axis`` (bool)."""
    return _reduce(Any, _truth(x), axis, keepdims)


def _count(x: Variable, axes: Sequence[int]) -> Variable:
    """Number of elements reduced over ``axes`` (an int64 scalar)."""
    static = [x.type.shape[a] for a in axes]
    if builtins.all(s is not None for s in static):
        return constant(int(np.prod(static, dtype=np.int64)), dtype="int64")
    dims = [shape_i(x, a) for a in axes]
    return dims[0] if len(dims) == 1 else _uf.mul(*dims)


def mean(
    input: _Any, axis: _Any = None, dtype: _Any = None, keepdims: bool = False,
    acc_dtype: _Any = None,
) -> Variable:
    """Arithmetic mean over ``axis``; integer inputs give float64 (NumPy).

    ``dtype`` is the dtype of the sum; a discrete one (int, bool) still gives a
    float64 mean, as PyTensor (NumPy would truncate it).
    """
    x = as_tensor_variable(input)
    axes = normalize_axis(axis, x.type.ndim, f"mean of {_name(x)}")
    sum_dtype = dtype
    if sum_dtype is None and x.type.dtype not in continuous_dtypes:
        sum_dtype = "float64"
    s = sum(x, axis=axes, dtype=sum_dtype, keepdims=keepdims, acc_dtype=acc_dtype)
    count_dtype = s.type.dtype if s.type.dtype in continuous_dtypes else "float64"
    out = _uf.true_div(s, _uf.cast(_count(x, axes), count_dtype))
    if dtype is not None and normalize_dtype(dtype) in continuous_dtypes:
        out = _uf.cast(out, dtype)
    return out


def var(
    input: _Any, axis: _Any = None, ddof: int = 0, keepdims: bool = False,
    corrected: bool = False,
) -> Variable:
    """Variance over ``axis`` with ``ddof`` delta degrees of freedom (np.var)."""
    x = as_tensor_variable(input)
    axes = normalize_axis(axis, x.type.ndim, f"var of {_name(x)}")
    if corrected and ddof == 0:
        ddof = 1
    centered = _uf.sub(x, mean(x, axis=axes, keepdims=True))
    if centered.type.dtype.startswith("complex"):
        centered = _uf.abs(centered)
    ss = sum(_uf.sqr(centered), axis=axes, keepdims=keepdims)
    n = _count(x, axes)
    if ddof:
        n = _uf.sub(n, constant(int(ddof), dtype="int64"))
    return _uf.true_div(ss, _uf.cast(n, ss.type.dtype))


def std(
    input: _Any, axis: _Any = None, ddof: int = 0, keepdims: bool = False,
    corrected: bool = False,
) -> Variable:
    """Standard deviation over ``axis`` (square root of ``var``)."""
    return _uf.sqrt(var(input, axis=axis, ddof=ddof, keepdims=keepdims, corrected=corrected))


# --------------------------------------------------------------------------- argmax


class Argmax(Op):
    """Index (int64) of the largest element over ``axis`` (None: the flattened input)."""

    __props__ = ("axis",)
    _np_fn = staticmethod(np.argmax)

    def __init__(self, axis: _Any = None) -> None:
        if axis is not None:
            axis = (axis,) if isinstance(axis, int | np.integer) else tuple(int(a) for a in axis)
        self.axis = axis

    def make_node(self, x: _Any) -> Apply:
        x = as_tensor_variable(x)
        axes = normalize_axis(self.axis, x.type.ndim, f"{type(self).__name__.lower()} of "
                              f"{_name(x)}")
        if self.axis is not None and axes != self.axis:
            return type(self)(axes).make_node(x)
        for a in axes:
            if x.type.shape[a] == 0:
                raise ValueError(
                    f"{self} of {_name(x)}: axis {a} has static length 0 (no element to pick)"
                )
        out_shape = tuple(s for i, s in enumerate(x.type.shape) if i not in axes)
        return Apply(self, [x], [TensorType("int64", out_shape)()])

    def perform(
        self, node: Apply, inputs: Sequence[_Any], output_storage: list[list[_Any]]
    ) -> None:
        (x,) = inputs
        axes = self.axis if self.axis is not None else tuple(range(x.ndim))
        try:
            if len(axes) == x.ndim:
                res = self._np_fn(x.reshape(-1)) if x.ndim else np.int64(0)
            elif len(axes) == 1:
                res = self._np_fn(x, axis=axes[0])
            else:
                kept = [i for i in range(x.ndim) if i not in axes]
                moved = x.transpose(kept + list(axes))
                res = self._np_fn(moved.reshape((*moved.shape[: len(kept)], -1)), axis=-1)
        except ValueError as exc:
            raise ValueError(f"{self} of {node.inputs[0]} (shape {x.shape}): {exc}") from None
        output_storage[0][0] = np.asarray(res, dtype="int64")

    def infer_shape(
        self, fgraph: _Any, node: Apply, input_shapes: Sequence[Sequence[_Any]]
    ) -> list:
        (ishape,) = input_shapes
        axes = self.axis if self.axis is not None else tuple(range(len(ishape)))
        return [tuple(s for i, s in enumerate(ishape) if i not in axes)]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False]]

    def pullback(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 cotangents: Sequence[Variable]) -> list[Variable]:
        return [disconnected_type()]

    def pushforward(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                    tangents: Sequence[Variable]) -> list[Variable]:
        return [disconnected_type()]

    def __str__(self) -> str:
        return f"{type(self).__name__}{{axis={None if self.axis is None else list(self.axis)}}}"

    __repr__ = __str__


class Argmin(Argmax):
    """Index (int64) of the smallest element over ``axis``."""

    _np_fn = staticmethod(np.argmin)


def argmax(x: _Any, axis: _Any = None, keepdims: bool = False) -> Variable:
    """Index of the maximum over ``axis`` (None: over the flattened input)."""
    return _reduce(Argmax, x, axis, keepdims)


def max_and_argmax(x: _Any, axis: _Any = None, keepdims: bool = False) -> list[Variable]:
    """``[max(x, axis), argmax(x, axis)]`` (PyTensor's pair; two nodes that merge)."""
    return [max(x, axis, keepdims), argmax(x, axis, keepdims)]


def argmin(x: _Any, axis: _Any = None, keepdims: bool = False) -> Variable:
    """Index of the minimum over ``axis`` (None: over the flattened input)."""
    return _reduce(Argmin, x, axis, keepdims)


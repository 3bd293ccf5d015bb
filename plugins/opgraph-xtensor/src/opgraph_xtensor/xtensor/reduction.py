"""Reductions over named dims: sum, prod, max, min, all, any, mean, var, std, cumsum, cumprod.

``dim=None`` or ``...`` reduces over every dim, as in xarray.  Integer sums
and products (cumulative ones too) accumulate in 64 bits, so they do not
overflow the input's dtype.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import EllipsisType
from typing import Any

import opgraph.tensor as pt
from opgraph.graph.basic import Variable
from opgraph_xtensor.xtensor.basic import XOp, as_xtensor
from opgraph_xtensor.xtensor.math import neq
from opgraph_xtensor.xtensor.type import XFUNCS, XTensorVariable, dims_of

__all__ = ["REDUCE_DIM", "XCumReduce", "XReduce", "all", "any", "bool_reduce", "cumprod",
           "cumreduce", "cumsum", "max", "mean", "min", "prod", "reduce", "std", "sum", "var"]

_BUILTIN_ALL, _BUILTIN_ANY = all, any


def _dims(x: XTensorVariable, dim: Any, what: str) -> tuple[str, ...]:
    if dim is None or dim is Ellipsis:
        return x.type.dims
    dims = dims_of(dim, "dim")
    missing = [d for d in dims if d not in x.type.dims]
    if missing:
        raise ValueError(f"{what}: dims {missing} not found in {x} (dims {x.type.dims})")
    return tuple(dict.fromkeys(dims))


def _upcast(t: Variable) -> Variable:
    dtype = t.type.dtype
    if dtype.startswith("uint"):
        return pt.cast(t, "uint64")
    if dtype.startswith("int") or dtype == "bool":
        return pt.cast(t, "int64")
    return t


class XReduce(XOp):
    """``method`` (sum, prod, max, ...) over ``dims``; ``ddof`` for var/std."""

    __props__ = ("dims", "method", "ddof")

    def __init__(self, dims: Sequence[str], method: str, ddof: int = 0) -> None:
        self.dims, self.method, self.ddof = tuple(dims), method, int(ddof)

    def output_dims(self, inputs: Sequence[Variable]) -> list[tuple[str, ...]]:
        return [tuple(d for d in inputs[0].type.dims if d not in self.dims)]

    def lower(self, inputs: Sequence[Variable], tins: Sequence[Variable]) -> list[Variable]:
        x, [t] = inputs[0], tins
        axes = tuple(x.type.dims.index(d) for d in self.dims)
        if not axes:
            return [_upcast(t) if self.method in ("sum", "prod") else t]
        if self.method in ("var", "std"):
            n = pt.prod([t.shape[a] for a in axes]) if axes else 1
            mean = pt.mean(t, axis=axes, keepdims=True)
            ss = pt.sum(pt.sqr(t - mean), axis=axes)
            out = ss / (n - self.ddof)
            return [pt.sqrt(out) if self.method == "std" else out]
        fn = getattr(pt, self.method)
        return [fn(t, axis=axes)]


class XCumReduce(XOp):
    """Cumulative ``method`` (cumsum, cumprod) along each of ``dims`` in turn."""

    __props__ = ("dims", "method")

    def __init__(self, dims: Sequence[str], method: str) -> None:
        self.dims, self.method = tuple(dims), method

    def output_dims(self, inputs: Sequence[Variable]) -> list[tuple[str, ...]]:
        return [inputs[0].type.dims]

    def lower(self, inputs: Sequence[Variable], tins: Sequence[Variable]) -> list[Variable]:
        x, [t] = inputs[0], tins
        t = _upcast(t)
        fn = getattr(pt, self.method)
        for d in self.dims:
            t = fn(t, axis=x.type.dims.index(d))
        return [t]


def _reducer(method: str) -> Any:
    def fn(x: Any, dim: Any = None, **kwargs: Any) -> XTensorVariable:
        x = as_xtensor(x)
        kwargs.pop("skipna", None)
        kwargs.pop("keep_attrs", None)
        if kwargs:
            raise TypeError(f"{method}() got unexpected arguments {sorted(kwargs)}")
        return XReduce(_dims(x, dim, method), method)(x)

    fn.__name__ = fn.__qualname__ = method
    fn.__doc__ = f"``{method}`` over ``dim`` (every dim when None or ``...``)."
    return fn


sum = _reducer("sum")
prod = _reducer("prod")
max = _reducer("max")
min = _reducer("min")
all = _reducer("all")
any = _reducer("any")
mean = _reducer("mean")


def var(x: Any, dim: Any = None, *, ddof: int = 0, **kwargs: Any) -> XTensorVariable:
    """Variance over ``dim`` with ``ddof`` delta degrees of freedom (xarray's default 0)."""
    x = as_xtensor(x)
    return XReduce(_dims(x, dim, "var"), "var", ddof)(x)


def std(x: Any, dim: Any = None, *, ddof: int = 0, **kwargs: Any) -> XTensorVariable:
    """Standard deviation over ``dim`` with ``ddof`` delta degrees of freedom."""
    x = as_xtensor(x)
    return XReduce(_dims(x, dim, "std"), "std", ddof)(x)


def cumsum(x: Any, dim: Any = None, **kwargs: Any) -> XTensorVariable:
    """Cumulative sum along each of ``dim`` (every dim when None)."""
    x = as_xtensor(x)
    return XCumReduce(_dims(x, dim, "cumsum"), "cumsum")(x)


def cumprod(x: Any, dim: Any = None, **kwargs: Any) -> XTensorVariable:
    """Cumulative product along each of ``dim`` (every dim when None)."""
    x = as_xtensor(x)
    return XCumReduce(_dims(x, dim, "cumprod"), "cumprod")(x)


REDUCE_DIM = str | Sequence[str] | EllipsisType | None
"""What a reduction's ``dim`` may be: one name, several, or all (``None`` / ``...``)."""

#: the binary scalar op of a reduction, and the method it is
_REDUCE_METHODS = {"add": "sum", "mul": "prod", "maximum": "max", "minimum": "min",
                   "and_": "all", "or_": "any"}
_CUMREDUCE_METHODS = {"add": "cumsum", "mul": "cumprod"}


def _method_of(binary_op: Any, table: dict[str, str], what: str) -> str:
    name = getattr(binary_op, "name", None)
    if name not in table:
        raise NotImplementedError(f"{what}: binary_op must be one of the scalar ops "
                                  f"{sorted(table)}, got {binary_op!r}")
    return table[name]


def reduce(x: Any, dim: REDUCE_DIM = None, *, binary_op: Any,
           upcast_discrete_inp: bool = False) -> XTensorVariable:
    """``x`` reduced over ``dim`` with the scalar ``binary_op`` (``ps.add`` is ``sum``...);
    integer sums and products are taken in 64 bits, as the named reductions do."""
    x = as_xtensor(x)
    method = _method_of(binary_op, _REDUCE_METHODS, "reduce")
    return XReduce(_dims(x, dim, "reduce"), method)(x)


def bool_reduce(x: Any, dim: REDUCE_DIM = None, *, binary_op: Any) -> XTensorVariable:
    """``reduce`` of ``x != 0`` (``x`` itself when boolean): ``all`` / ``any``."""
    x = as_xtensor(x)
    if x.type.dtype != "bool":
        x = neq(x, 0)
    return reduce(x, dim, binary_op=binary_op)


def cumreduce(x: Any, dim: REDUCE_DIM, *, binary_op: Any) -> XTensorVariable:
    """Cumulative reduction with ``binary_op`` (``ps.add``: cumsum) along each of ``dim``."""
    x = as_xtensor(x)
    method = _method_of(binary_op, _CUMREDUCE_METHODS, "cumreduce")
    return XCumReduce(_dims(x, dim, method), method)(x)


XFUNCS.register(sum=sum, max=max, min=min, prod=prod, mean=mean)

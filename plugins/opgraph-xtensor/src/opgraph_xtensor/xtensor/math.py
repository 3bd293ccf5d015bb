"""Elementwise functions on xtensors, aligned by dim name, and ``dot``/``softmax``.

Every scalar Op of ``opgraph.scalar`` has a wrapper here under its own name
(``add``, ``exp``, ``true_div``, ...); NumPy's names (``divide``,
``logical_and``, ...) are aliases, and the special functions other plugins give
``opgraph.tensor.math`` (``erf``, ``gammaln``, ...) resolve on first use.
Inputs broadcast by name: the output has every input's dims in order of
first appearance, and a dim with two static lengths is an error naming it.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import opgraph.scalar as ps
import opgraph.tensor.math as ptm
from opgraph.graph.basic import Variable
from opgraph.scalar import ScalarOp
from opgraph.tensor.elemwise import Elemwise
from opgraph.tensor.ufuncs import cast
from opgraph_xtensor.xtensor.basic import (
    XOp,
    as_xtensor,
    check_static_sizes,
    expand_to,
    union_dims,
)
from opgraph_xtensor.xtensor.type import XFUNCS, XTensorVariable, dims_of

__all__ = ["XElemwise", "cast", "dot", "logsumexp", "softmax", "where"]


class XElemwise(XOp):
    """A scalar Op applied elementwise, inputs aligned by dim name."""

    __props__ = ("scalar_op",)

    def __init__(self, scalar_op: ScalarOp) -> None:
        self.scalar_op = scalar_op

    def convert_input(self, x: Any, index: int) -> Variable:
        return as_xtensor(x)

    def output_dims(self, inputs: Sequence[Variable]) -> list[tuple[str, ...]]:
        dims = union_dims(*(i.type.dims for i in inputs))
        return [dims] * self.scalar_op.nout

    def lower(self, inputs: Sequence[Variable], tins: Sequence[Variable]) -> list[Variable]:
        check_static_sizes(inputs, str(self.scalar_op))
        dims = union_dims(*(i.type.dims for i in inputs))
        aligned = [expand_to(t, i.type.dims, dims) for i, t in zip(inputs, tins)]
        out = Elemwise(self.scalar_op)(*aligned)
        return list(out) if isinstance(out, list | tuple) else [out]

    def __str__(self) -> str:
        return f"XElemwise{{{self.scalar_op}}}"


def _wrap(op: ScalarOp, name: str) -> Callable[..., Any]:
    xop = XElemwise(op)

    def fn(*args: Any, **kwargs: Any) -> Any:
        return xop(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{name}`` elementwise on xtensors, aligned by dim name."
    return fn


_SCALAR_OPS = {name: op for name, op in inspect.getmembers(ps) if isinstance(op, ScalarOp)}
for _name, _op in _SCALAR_OPS.items():
    globals()[_name] = _wrap(_op, _name)

_ALIASES = {
    "bitwise_and": "and_", "bitwise_or": "or_", "bitwise_xor": "xor", "bitwise_not": "invert",
    "logical_and": "and_", "logical_or": "or_", "logical_xor": "xor", "logical_not": "invert",
    "divide": "true_div", "true_divide": "true_div", "floor_divide": "int_div",
    "negative": "neg", "power": "pow", "square": "sqr", "absolute": "abs",
    "equal": "eq", "not_equal": "neq", "less": "lt", "less_equal": "le", "greater": "gt",
    "greater_equal": "ge", "arccosh": "arccosh", "multiply": "mul", "subtract": "sub",
    "bitwise_invert": "invert", "conjugate": "conj", "expit": "sigmoid", "ifelse_switch": "switch",
}
for _alias, _target in _ALIASES.items():
    globals()[_alias] = globals()[_target]

#: names ``opgraph.tensor.math`` gets from plugins (special functions), wrapped on first use
_PLUGIN_ELEMWISE = (
    "erf", "erfc", "erfcx", "erfinv", "erfcinv", "gamma", "gammaln", "psi", "tri_gamma",
    "polygamma", "gammainc", "gammaincc", "gammaincinv", "gammainccinv", "gammau", "gammal",
    "j0", "j1", "jv", "i0", "i1", "iv", "ive", "kv", "kve", "log1pexp", "betainc",
    "betaincinv", "hyp2f1", "chi2sf", "owens_t", "logit", "deg2rad", "rad2deg", "xlogx",
    "xlogy0", "conj", "real", "imag", "angle", "complex", "log1msigmoid", "softsign",
    "sinc", "digamma", "betaln", "hypot", "nextafter", "ldexp", "copysign",
)


def _plugin_wrap(name: str) -> Callable[..., Any]:
    def fn(*args: Any) -> Any:
        elemwise = getattr(ptm, name)
        scalar_op = getattr(elemwise, "scalar_op", None)
        if scalar_op is None:
            raise NotImplementedError(f"opgraph.tensor.math.{name} is not an Elemwise; "
                                      "opgraph.xtensor cannot wrap it")
        return XElemwise(scalar_op)(*args)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{name}`` elementwise on xtensors (from ``opgraph.tensor.math``)."
    return fn


for _name in _PLUGIN_ELEMWISE:
    if _name not in globals():
        globals()[_name] = _plugin_wrap(_name)


def astype(x: Any, dtype: Any) -> XTensorVariable:
    """``x`` cast to ``dtype`` (complex to real raises, as in PyTensor)."""
    x = as_xtensor(x)
    if str(dtype) == x.type.dtype:
        return x
    if x.type.dtype.startswith("complex") and not str(dtype).startswith("complex"):
        raise TypeError("Casting from complex to real is ambiguous: consider real(), "
                        "imag(), angle() or abs()")
    return XCast(str(np.dtype(dtype)) if str(dtype) != "floatX" else "floatX")(x)


class XCast(XOp):
    """Cast to ``dtype`` (a separate Op: the scalar casts are one Op per dtype)."""

    __props__ = ("dtype",)

    def __init__(self, dtype: str) -> None:
        self.dtype = dtype

    def output_dims(self, inputs: Sequence[Variable]) -> list[tuple[str, ...]]:
        return [inputs[0].type.dims]

    def lower(self, inputs: Sequence[Variable], tins: Sequence[Variable]) -> list[Variable]:
        return [cast(tins[0], self.dtype)]


def where(cond: Any, x: Any, other: Any = np.nan) -> XTensorVariable:
    """``x`` where ``cond`` holds, else ``other`` (xarray's ``where``; NaN by default)."""
    return XElemwise(ps.switch)(cond, x, other)


def _reduce_dims(x: XTensorVariable, dim: Any) -> tuple[str, ...]:
    if dim is None or dim is Ellipsis:
        return x.type.dims
    dims = dims_of(dim)
    for d in dims:
        if d not in x.type.dims:
            raise ValueError(f"Dimension {d!r} not found in {x} (dims {x.type.dims})")
    return dims


def softmax(x: Any, dim: Any = None) -> XTensorVariable:
    """``exp(x) / sum(exp(x))`` over ``dim`` (all dims by default), computed stably."""
    x = as_xtensor(x)
    dims = _reduce_dims(x, dim)
    shifted = x - XFUNCS.max(x, dim=dims)
    e = globals()["exp"](shifted)
    return e / XFUNCS.sum(e, dim=dims)


def logsumexp(x: Any, dim: Any = None) -> XTensorVariable:
    """``log(sum(exp(x)))`` over ``dim`` (all dims by default), computed stably."""
    x = as_xtensor(x)
    dims = _reduce_dims(x, dim)
    m = XFUNCS.max(x, dim=dims)
    safe_m = where(globals()["isinf"](m), 0, m)
    s = XFUNCS.sum(globals()["exp"](x - safe_m), dim=dims)
    return globals()["log"](s) + safe_m


class XDot(XOp):
    """Sum of products over ``dims`` (xarray's ``dot``), lowered to one batched matmul."""

    __props__ = ("dims",)

    def __init__(self, dims: Sequence[str]) -> None:
        self.dims = tuple(dims)

    def output_dims(self, inputs: Sequence[Variable]) -> list[tuple[str, ...]]:
        allx = union_dims(*(i.type.dims for i in inputs))
        return [tuple(d for d in allx if d not in self.dims)]

    def lower(self, inputs: Sequence[Variable], tins: Sequence[Variable]) -> list[Variable]:
        (x, y), (tx, ty) = inputs, tins
        xd, yd = list(x.type.dims), list(y.type.dims)
        # dims summed that only one operand has: a plain sum first
        for dims, t, other in ((xd, "x", yd), (yd, "y", xd)):
            own = [d for d in dims if d in self.dims and d not in other]
            if own:
                axes = tuple(dims.index(d) for d in own)
                if t == "x":
                    tx = ptm.sum(tx, axis=axes)
                else:
                    ty = ptm.sum(ty, axis=axes)
                for d in own:
                    dims.remove(d)
        contracted = [d for d in xd if d in self.dims]
        batch = [d for d in xd if d in yd and d not in self.dims]
        xonly = [d for d in xd if d not in yd]
        yonly = [d for d in yd if d not in xd]
        tx = tx.dimshuffle([xd.index(d) for d in (*batch, *xonly, *contracted)])
        ty = ty.dimshuffle([yd.index(d) for d in (*batch, *contracted, *yonly)])
        nb = len(batch)
        bshape = [tx.shape[k] for k in range(nb)]
        xo = [tx.shape[nb + k] for k in range(len(xonly))]
        yo = [ty.shape[nb + len(contracted) + k] for k in range(len(yonly))]
        c_x = [tx.shape[nb + len(xonly) + k] for k in range(len(contracted))]
        c_y = [ty.shape[nb + k] for k in range(len(contracted))]
        mx = tx.reshape((*bshape, _prod(xo), _prod(c_x)), ndim=nb + 2) if (
            len(xonly) != 1 or len(contracted) != 1) else tx
        my = ty.reshape((*[ty.shape[k] for k in range(nb)], _prod(c_y), _prod(yo)),
                        ndim=nb + 2) if (len(yonly) != 1 or len(contracted) != 1) else ty
        out = ptm.matmul(mx, my)
        if len(xonly) != 1 or len(yonly) != 1:
            out = out.reshape((*bshape, *xo, *yo), ndim=nb + len(xonly) + len(yonly))
        have = (*batch, *xonly, *yonly)
        [want] = self.output_dims(inputs)
        return [out.dimshuffle([have.index(d) for d in want]) if have != want else out]


def _prod(sizes: Sequence[Any]) -> Any:
    out: Any = 1
    for s in sizes:
        out = out * s
    return out


def dot(x: Any, y: Any, dim: Any = None) -> XTensorVariable:
    """Contract ``x`` and ``y`` over ``dim`` (default: their shared dims; ``...``: all)."""
    x, y = as_xtensor(x), as_xtensor(y)
    allx = union_dims(x.type.dims, y.type.dims)
    if dim is None:
        dims = tuple(d for d in x.type.dims if d in y.type.dims)
    elif dim is Ellipsis:
        dims = allx
    else:
        dims = dims_of(dim)
        for d in dims:
            if d not in allx:
                raise ValueError(f"Dimension {d} not found in either input: {x.type.dims}, "
                                 f"{y.type.dims}")
    xs, ys = dict(zip(x.type.dims, x.type.shape)), dict(zip(y.type.dims, y.type.shape))
    for d in set(xs) & set(ys):
        if xs[d] is not None and ys[d] is not None and xs[d] != ys[d]:
            raise ValueError(f"Size of dim '{d}' does not match: {xs[d]} in {x}, {ys[d]} in {y}")
    return XDot(dims)(x, y)


#: PyTensor's name of the contraction Op
Dot = XDot

#: PyTensor's handle on this module (its functions are attributes of it)
this_module = sys.modules[__name__]

__all__ += sorted({*_SCALAR_OPS, *_ALIASES, *_PLUGIN_ELEMWISE, "astype", "Dot"})

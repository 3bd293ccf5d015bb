"""XTensorVariable's operators and xarray-style methods (``x + y``, ``x.sum("a")``, ``x[i]``).

XTensorVariable is defined in ``type.py``, below the modules that define the
functions; this module, imported by the package, gives the class its methods.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import opgraph_xtensor.xtensor.math as xm
from opgraph_xtensor.xtensor import indexing, reduction, shape
from opgraph_xtensor.xtensor.basic import rename, union_dims
from opgraph_xtensor.xtensor.type import XTensorVariable

__all__ = ["METHODS"]


def _binary(name: str, reflected: bool = False) -> Any:
    fn = getattr(xm, name)
    if reflected:
        def method(self: XTensorVariable, other: Any) -> Any:
            return fn(other, self)
    else:
        def method(self: XTensorVariable, other: Any) -> Any:
            return fn(self, other)
    return method


def _unary(name: str) -> Any:
    fn = getattr(xm, name)

    def method(self: XTensorVariable) -> Any:
        return fn(self)
    return method


def _getitem(self: XTensorVariable, key: Any) -> Any:
    return indexing.index(self, key)


def _transpose(self: XTensorVariable, *dims: Any, missing_dims: str = "raise") -> Any:
    return shape.transpose(self, *dims, missing_dims=missing_dims)


def _rename(self: XTensorVariable, new_name_or_name_dict: Any = None, **names: str) -> Any:
    if isinstance(new_name_or_name_dict, str):
        out = self.copy()
        out.name = new_name_or_name_dict
        return out if not names else rename(out, **names)
    return rename(self, new_name_or_name_dict, **names)


def _copy(self: XTensorVariable, name: str | None = None) -> Any:
    out = xm.identity(self)
    out.name = name
    return out


def _where(self: XTensorVariable, cond: Any, other: Any = np.nan) -> Any:
    """xarray's ``DataArray.where``: the result's dims start with this array's."""
    out = xm.where(cond, self, other)
    order = union_dims(self.type.dims, *(getattr(v, "dims", ()) for v in (cond, other)))
    return shape.transpose(out, *order) if out.type.dims != order else out


def _reshape(self: XTensorVariable, *args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError("xtensors have no reshape: use stack/unstack (named dims), or "
                              "x.values.reshape(...) for the tensor")


def _broadcast_like(self: XTensorVariable, other: Any, exclude: Any = None) -> Any:
    return shape.broadcast(other, self, exclude=exclude)[1]


def _dot(self: XTensorVariable, other: Any, dim: Any = None) -> Any:
    return xm.dot(self, other, dim=dim)


def _round(self: XTensorVariable, decimals: int = 0) -> Any:
    if decimals:
        scale = 10.0 ** decimals
        return xm.round_half_to_even(self * scale) / scale
    return xm.round_half_to_even(self)


def _clip(self: XTensorVariable, min: Any = None, max: Any = None) -> Any:
    out = self
    if min is not None:
        out = xm.maximum(out, min)
    if max is not None:
        out = xm.minimum(out, max)
    return out


METHODS: dict[str, Any] = {
    "__getitem__": _getitem,
    "isel": indexing.isel,
    "head": indexing.head,
    "tail": indexing.tail,
    "thin": indexing.thin,
    "diff": indexing.diff,
    "set": indexing.set_,
    "inc": indexing.inc,
    "transpose": _transpose,
    "T": property(lambda self: shape.transpose(self)),
    "rename": _rename,
    "copy": _copy,
    "reshape": _reshape,
    "stack": shape.stack,
    "unstack": shape.unstack,
    "expand_dims": shape.expand_dims,
    "squeeze": shape.squeeze,
    "broadcast_like": _broadcast_like,
    "dot": _dot,
    "astype": xm.astype,
    "where": _where,
    "round": _round,
    "clip": _clip,
    "var": reduction.var,
    "std": reduction.std,
    "cumsum": reduction.cumsum,
    "cumprod": reduction.cumprod,
    "item": lambda self: self.values,
    "__neg__": _unary("neg"),
    "__pos__": lambda self: self,
    "__abs__": _unary("abs"),
    "__invert__": _unary("invert"),
    "conj": _unary("conj"),
    "__matmul__": _dot,
    "__rmatmul__": lambda self, other: xm.dot(other, self),
}
for _name in ("sum", "prod", "max", "min", "all", "any", "mean"):
    METHODS[_name] = getattr(reduction, _name)
for _dunder, _fname in (("add", "add"), ("sub", "sub"), ("mul", "mul"), ("truediv", "true_div"),
                        ("floordiv", "int_div"), ("mod", "mod"), ("pow", "pow"),
                        ("and", "and_"), ("or", "or_"), ("xor", "xor")):
    METHODS[f"__{_dunder}__"] = _binary(_fname)
    METHODS[f"__r{_dunder}__"] = _binary(_fname, reflected=True)
for _dunder, _fname in (("lt", "lt"), ("le", "le"), ("gt", "gt"), ("ge", "ge")):
    METHODS[f"__{_dunder}__"] = _binary(_fname)
for _name in ("isnan", "isinf"):
    METHODS[_name] = _unary(_name)
METHODS["isnull"] = _unary("isnan")
METHODS["notnull"] = lambda self: xm.invert(xm.isnan(self))
for _name in ("real", "imag"):
    METHODS[_name] = property(_unary(_name))

for _name, _method in METHODS.items():
    setattr(XTensorVariable, _name, _method)

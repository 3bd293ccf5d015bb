"""The tensor operators and methods, as one explicit table: name -> function.

``x + y`` calls ``add``, ``x[i]`` ``get_item``, ``x.sum()`` ``sum``,
``np.exp(x)`` ``exp``: :class:`~opgraph.tensor.variable.TensorVariable`
(low in the package) looks those names up in
:data:`~opgraph.tensor.function_table.TENSOR_FUNCTIONS`, and this module, at
the top of the package (as JAX's ``array_methods.py``), is the one place
that fills it.  A name missing here is an AttributeError naming the table;
only names a plugin serves (``erf`` for ``scipy.special.erf(x)``) resolve
past it, through the plugin faces.  :data:`TENSOR_METHODS` are the plain
forwarding methods (``x.sort()`` is ``sort(x)``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from opgraph.tensor import (
    arrays,
    basic,
    creation,
    elemwise,
    extra_ops,
    join,
    math_names,
    products,
    reduction,
    shape,
    sort,
    subtensor,
    ufuncs,
    variable,
)
from opgraph.tensor.function_table import TENSOR_FUNCTIONS
from opgraph.tensor.variable import register_tensor_methods

__all__ = ["NUMPY_UFUNCS", "OPERATORS", "SUPPORT", "TENSOR_METHODS"]


def _names(module: Any, names: str) -> dict[str, Callable[..., Any]]:
    return {name: getattr(module, name) for name in names.split()}


OPERATORS: dict[str, Callable[..., Any]] = {
    **_names(ufuncs, "add sub mul true_div int_div mod pow neg abs invert and_ or_ xor "
                     "lt le gt ge round trunc floor ceil cast clip conj second tensor_copy"),
    **_names(products, "dot matmul"),
    **_names(reduction, "sum prod mean var std max min argmax argmin any all"),
    **_names(shape, "shape reshape flatten squeeze shape_padleft specify_shape"),
    **_names(subtensor, "get_item set_subtensor inc_subtensor"),
    **_names(elemwise, "DimShuffle transpose"),
    **_names(basic, "tensor_from_scalar"),  # x.diagonal(): a plugin's (opgraph-linalg)
    **_names(creation, "zeros_like ones_like"),
    **_names(join, "stack"),
}
"""What TensorVariable's operators and methods call (``x + y``, ``x.reshape``, ``x.T``)."""

SUPPORT: dict[str, Callable[..., Any]] = {
    "as_tensor_variable": variable.as_tensor_variable,
}
"""What ``TensorType`` calls when it converts or narrows (``filter_variable``)."""

NUMPY_UFUNCS: dict[str, Callable[..., Any]] = {
    **_names(ufuncs, "arccos arccosh arcsin arcsinh arctan arctan2 arctanh cos cosh exp exp2 "
                     "expm1 isinf isnan log log10 log1p log2 maximum minimum reciprocal sign "
                     "sin sinh sqrt square tan tanh"),
    **_names(math_names, "conjugate deg2rad divmod equal isfinite logaddexp matvec "
                         "not_equal rad2deg vecdot vecmat"),
}
"""NumPy ufuncs by name, beyond :data:`OPERATORS` (``np.exp(x)``; ``np.add`` is ``add``)."""

TENSOR_METHODS: dict[str, Callable[..., Any]] = {
    **_names(sort, "sort argsort"),
    **_names(arrays, "nonzero nonzero_values ptp swapaxes take"),
    **_names(extra_ops, "cumsum cumprod"),
    "repeat": lambda x, repeats, axis=None: extra_ops.repeat(x, repeats, axis),
    "searchsorted": lambda a, v, side="left", sorter=None: extra_ops.searchsorted(
        a, v, side, sorter),
    "compress": lambda x, condition, axis=None: extra_ops.compress(condition, x, axis),
    **_names(math_names, "deg2rad rad2deg"),
    **_names(ufuncs, "arccos arccosh arcsin arcsinh arctan arctanh cos cosh exp exp2 expm1 "
                     "log log10 log1p log2 sin sinh sqrt tan tanh"),
}
"""``x.name(...)`` is ``TENSOR_METHODS[name](x, ...)``."""

TENSOR_FUNCTIONS.register(**OPERATORS, **SUPPORT, **NUMPY_UFUNCS)
register_tensor_methods(**TENSOR_METHODS)

"""PyTensor's ``pytensor.tensor.utils`` helpers: array hashing and numeric shape inference."""

from __future__ import annotations

import hashlib
import importlib
import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from opgraph.autodiff.evaluate import perform_callable
from opgraph.graph.basic import Variable
from opgraph.tensor.blockwise import parse_gufunc_signature as _parse_gufunc_signature
from opgraph.tensor.blockwise import safe_signature
from opgraph.tensor.constant_value import get_scalar_constant_value
from opgraph.tensor.exceptions import NotScalarConstantError
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import constant

__all__ = [
    "_parse_gufunc_signature",
    "broadcast_static_dim_lengths",
    "faster_broadcast_to",
    "faster_ndindex",
    "get_static_shape_from_size_variables",
    "hash_from_ndarray",
    "import_func_from_string",
    "normalize_reduce_axis",
    "safe_signature",
    "shape_of_variables",
]


def hash_from_ndarray(data: Any) -> str:
    """A hex digest of an array's values, shape, strides and dtype.

    Two arrays with the same values but different layouts (a transposed view
    and a C-contiguous copy) hash differently only when their shapes or dtypes
    differ: the strides hashed are those of the C-contiguous copy, so a view and
    its ``copy()`` give the same digest.
    """
    arr = np.ascontiguousarray(data)
    h = hashlib.sha256()
    h.update(arr.tobytes())
    h.update(str(arr.shape).encode())
    h.update(str(arr.strides).encode())
    h.update(arr.dtype.str.encode())
    return h.hexdigest()


def shape_of_variables(
    fgraph: Any, input_shapes: Mapping[Variable, Sequence[int]]
) -> dict[Variable, tuple[int, ...]]:
    """The numeric shape of every tensor in ``fgraph`` given the shapes of its inputs.

    Each node's ``infer_shape`` is applied to the known shapes (as constants) and
    the resulting shape graphs are evaluated, so nothing is computed on data.
    Inputs missing from ``input_shapes`` (or variables not in ``fgraph``) raise
    ValueError.
    """
    missing = [v for v in input_shapes if v not in fgraph.variables]
    if missing:
        raise ValueError(
            f"shape_of_variables: {missing[0]} is not a variable of this FunctionGraph "
            "(was the graph cloned? use FunctionGraph(..., clone=False))"
        )
    symbolic: dict[Variable, tuple[Any, ...]] = {}
    for var, shp in input_shapes.items():
        if len(shp) != var.type.ndim:
            raise ValueError(
                f"shape_of_variables: {var} has {var.type.ndim} dimension(s), "
                f"got the shape {tuple(shp)}"
            )
        symbolic[var] = tuple(constant(np.int64(s)) for s in shp)
    for node in fgraph.toposort():
        in_shapes = []
        for inp in node.inputs:
            if inp not in symbolic:
                if not isinstance(inp.type, TensorType):
                    in_shapes.append(None)
                    continue
                if inp.owner is None and all(s is not None for s in inp.type.shape):
                    symbolic[inp] = tuple(constant(np.int64(s)) for s in inp.type.shape)
                elif inp.owner is None and hasattr(inp, "data"):
                    symbolic[inp] = tuple(constant(np.int64(s)) for s in np.shape(inp.data))
                else:
                    raise ValueError(
                        f"shape_of_variables: no shape given for the input {inp} of {node.op}"
                    )
            in_shapes.append(symbolic[inp])
        out_shapes = node.op.infer_shape(fgraph, node, in_shapes)
        for out, shp in zip(node.outputs, out_shapes):
            if shp is not None:
                symbolic[out] = tuple(
                    s if isinstance(s, Variable) else constant(np.int64(s)) for s in shp
                )
    order = list(symbolic)
    flat = [s for v in order for s in symbolic[v]]
    values = perform_callable([], flat)() if flat else []
    result: dict[Variable, tuple[int, ...]] = {}
    at = 0
    for var in order:
        n = len(symbolic[var])
        result[var] = tuple(int(x) for x in values[at : at + n])
        at += n
    return result


def broadcast_static_dim_lengths(dim_lengths: Sequence[int | None]) -> int | None:
    """The static length of a dim after broadcasting inputs of these static lengths (None:
    unknown); ValueError when two known lengths other than 1 differ."""
    lengths = set(dim_lengths)
    if len(lengths) == 1:
        return next(iter(lengths))
    if lengths == {None, 1}:
        return None
    lengths -= {1, None}
    if len(lengths) > 1:
        raise ValueError(f"incompatible static dim lengths {sorted(lengths)}")
    return next(iter(lengths))


def faster_broadcast_to(x: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    """``np.broadcast_to(x, shape)`` without its argument checks (a read-only view)."""
    return np.nditer((x,), flags=["multi_index", "zerosize_ok"], op_flags=[["readonly"]],
                     itershape=tuple(shape), order="C").itviews[0]


def faster_ndindex(shape: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """``np.ndindex(*shape)``: every index tuple of an array of ``shape``, in C order."""
    return itertools.product(*(range(s) for s in shape))


def get_static_shape_from_size_variables(size_vars: Sequence[Variable]) -> tuple[int | None, ...]:
    """Each size variable's value when it is a known constant, else None."""
    out: list[int | None] = []
    for size in size_vars:
        try:
            out.append(int(get_scalar_constant_value(size)))
        except NotScalarConstantError:
            out.append(None)
    return tuple(out)


def import_func_from_string(func_string: str) -> Any:
    """The NumPy function of that name, or the object a dotted path names (``scipy.special.
    gammaln``); None when it cannot be found."""
    func = getattr(np, func_string, None)
    if func is not None:
        return func
    parts = func_string.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr, None)
            if obj is None:
                return None
        return obj
    return None


def normalize_reduce_axis(axis: Any, ndim: int) -> tuple[int, ...] | None:
    """A reduction's ``axis`` as a tuple of non-negative axes (None stays None; a scalar
    counts as one axis); AxisError names the bad axis."""
    if axis is None:
        return None
    try:
        return tuple(np.lib.array_utils.normalize_axis_tuple(axis, max(1, ndim)))
    except np.exceptions.AxisError:
        raise np.exceptions.AxisError(axis, ndim=ndim) from None

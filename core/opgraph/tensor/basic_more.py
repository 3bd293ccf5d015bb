"""More of PyTensor's ``tensor.basic`` names: triangles, grids, stacking helpers,
``choose``, permutations, uninitialised allocation and static shape inference.

Most are compositions of existing Ops (so they differentiate and batch like
them); ``Choose``, ``AllocEmpty`` and ``PermuteRowElements`` are Ops.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.tensor import math as ptm
from opgraph.tensor.arrays import nonzero, swapaxes
from opgraph.tensor.constant_value import get_scalar_constant_value
from opgraph.tensor.creation import arange, zeros_like
from opgraph.tensor.exceptions import NotScalarConstantError
from opgraph.tensor.join import concatenate, stack
from opgraph.tensor.sort import argsort
from opgraph.tensor.type import TensorType, get_floatX, normalize_dtype
from opgraph.tensor.variable import as_tensor_variable

__all__ = [
    "AllocEmpty",
    "Choose",
    "PermuteRowElements",
    "choose",
    "empty",
    "empty_like",
    "extract_diag",
    "horizontal_stack",
    "infer_static_shape",
    "inverse_permutation",
    "is_flat",
    "matrix_transpose",
    "mgrid",
    "ogrid",
    "permute_row_elements",
    "stacklists",
    "transfer",
    "tri",
    "tril_indices",
    "tril_indices_from",
    "triu_indices",
    "triu_indices_from",
    "vertical_stack",
]


def tri(N: Any, M: Any = None, k: Any = 0, dtype: Any = None) -> Variable:
    """An ``N x M`` array with ones at and below the ``k``-th diagonal (``np.tri``)."""
    dtype = normalize_dtype(dtype or get_floatX())
    M = N if M is None else M
    rows = arange(N)
    cols = arange(M)
    mask = ptm.ge(rows.dimshuffle(0, "x") + k, cols.dimshuffle("x", 0))
    return ptm.cast(mask, dtype)


def tril_indices(n: Any, k: Any = 0, m: Any = None) -> tuple[Variable, Variable]:
    """Row and column indices of the lower triangle of an ``n x m`` array (``np.tril_indices``)."""
    return tuple(nonzero(tri(n, m, k, dtype="bool")))


def triu_indices(n: Any, k: Any = 0, m: Any = None) -> tuple[Variable, Variable]:
    """Row and column indices of the upper triangle of an ``n x m`` array (``np.triu_indices``)."""
    return tuple(nonzero(ptm.eq(tri(n, m, k - 1, dtype="bool"), 0)))


def _matrix(a: Any, who: str) -> Variable:
    a = as_tensor_variable(a)
    if a.type.ndim != 2:
        raise ValueError(
            f"{who}: 'arr' must be two dimensional (2-d), got a {a.type.ndim}-d {a.type}"
        )
    return a


def tril_indices_from(a: Any, k: Any = 0) -> tuple[Variable, Variable]:
    """``tril_indices`` for the shape of the 2-d array ``a``."""
    a = _matrix(a, "tril_indices_from")
    return tril_indices(a.shape[0], k, a.shape[1])


def triu_indices_from(a: Any, k: Any = 0) -> tuple[Variable, Variable]:
    """``triu_indices`` for the shape of the 2-d array ``a``."""
    a = _matrix(a, "triu_indices_from")
    return triu_indices(a.shape[0], k, a.shape[1])


class _Grid:
    """``mgrid[0:5, 1:3:0.5]``: dense (mgrid) or open (ogrid) coordinate arrays."""

    def __init__(self, sparse: bool) -> None:
        self.sparse = sparse

    def __getitem__(self, key: Any) -> list[Variable] | Variable:
        if isinstance(key, slice):  # one slice: one vector, as numpy.mgrid[0:5]
            return self[(key,)][0]
        slices = key if isinstance(key, tuple) else (key,)
        for s in slices:
            if not isinstance(s, slice):
                raise TypeError(f"{self!r}: expected slices, got {type(s).__name__} {s!r}")
        ranges = [arange(0 if s.start is None else s.start, s.stop,
                         1 if s.step is None else s.step) for s in slices]
        nd = len(ranges)
        out = []
        for i, r in enumerate(ranges):
            pattern = ["x"] * nd
            pattern[i] = 0
            v = r.dimshuffle(*pattern)
            if not self.sparse:
                for j, other in enumerate(ranges):
                    if j != i:
                        v = ptm.add(v, zeros_like(other, dtype=v.dtype).dimshuffle(
                            *[0 if d == j else "x" for d in range(nd)]))
            out.append(v)
        return out

    def __repr__(self) -> str:
        return "ogrid" if self.sparse else "mgrid"


mgrid = _Grid(sparse=False)
"""``mgrid[0:3, 0:4]``: dense coordinate tensors of the slices' ranges (np.mgrid)."""
ogrid = _Grid(sparse=True)
"""``ogrid[0:3, 0:4]``: open (broadcastable) coordinate tensors (np.ogrid)."""


def horizontal_stack(*args: Any) -> Variable:
    """Join 2-d arrays side by side (along axis 1), like ``np.hstack`` for matrices."""
    if len(args) < 2:
        raise ValueError("horizontal_stack: give at least two arrays")
    for i, a in enumerate(args):
        if as_tensor_variable(a).type.ndim != 2:
            raise ValueError(f"horizontal_stack: argument {i} must be 2-d, got {a}")
    return concatenate(args, axis=1)


def vertical_stack(*args: Any) -> Variable:
    """Join arrays one above the other (along axis 0), like ``np.vstack`` for matrices."""
    if len(args) < 2:
        raise ValueError("vertical_stack: give at least two arrays")
    return concatenate(args, axis=0)


def stacklists(arg: Any) -> Variable:
    """Nested lists of scalars (or tensors) as one tensor, the nesting giving the leading axes."""
    if isinstance(arg, list | tuple):
        return stack([stacklists(a) for a in arg])
    return as_tensor_variable(arg)


class Choose(Op):
    """``np.choose(a, choices, mode)``: pick, per element, from one of the ``choices``."""

    __props__ = ("mode",)

    def __init__(self, mode: str = "raise") -> None:
        if mode not in ("raise", "wrap", "clip"):
            raise ValueError(f"Choose: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
        self.mode = mode

    def make_node(self, a: Any, choices: Any) -> Apply:
        a = as_tensor_variable(a)
        if a.type.dtype not in ("int8", "int16", "int32", "int64", "uint8", "uint16",
                                "uint32", "uint64", "bool"):
            raise TypeError(f"choose: 'a' must hold integers, got {a.type}")
        if isinstance(choices, list | tuple):
            choices = stack([as_tensor_variable(c) for c in choices])
        choices = as_tensor_variable(choices)
        ndim = max(a.type.ndim, choices.type.ndim - 1)
        out = TensorType(choices.type.dtype, shape=(None,) * ndim)()
        return Apply(self, [a, choices], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        a, choices = inputs
        output_storage[0][0] = np.asarray(
            np.choose(a, choices, mode=self.mode), dtype=node.outputs[0].type.dtype
        )


def choose(a: Any, choices: Any, mode: str = "raise") -> Variable:
    """Construct an array from an index array and a set of arrays to choose from."""
    return Choose(mode)(a, choices)


def inverse_permutation(perm: Any) -> Variable:
    """The inverse of permutation(s) of ``0..n-1`` along the last axis: ``argsort(perm)``."""
    perm = as_tensor_variable(perm)
    if not perm.type.dtype.startswith(("int", "uint")):
        raise TypeError(f"inverse_permutation: 'perm' must hold integers, got {perm.type}")
    return ptm.cast(argsort(perm, axis=-1), perm.type.dtype)


class PermuteRowElements(Op):
    """``x`` permuted along its last axis by ``y`` (broadcast over the leading axes).

    With ``inverse`` the permutation is undone instead.
    """

    __props__ = ("inverse",)

    def __init__(self, inverse: bool | None = None) -> None:
        # PyTensor 3 spells ``PermuteRowElements(inverse=True)(x, y)``; the older form
        # passes ``inverse`` as a third input (which wins when given).
        self.inverse = None if inverse is None else bool(inverse)

    def make_node(self, x: Any, y: Any, inverse: Any = None) -> Apply:
        x, y = as_tensor_variable(x), as_tensor_variable(y)
        if inverse is None:
            if self.inverse is None:
                raise TypeError(
                    "PermuteRowElements: give inverse, as PermuteRowElements(inverse=...) or "
                    "as the third input"
                )
            inverse = np.int8(self.inverse)
        inverse = as_tensor_variable(inverse)
        if not y.type.dtype.startswith(("int", "uint")):
            raise TypeError(f"permute_row_elements: 'y' must hold integers, got {y.type}")
        if y.type.ndim < 1:
            raise TypeError("permute_row_elements: 'y' must have at least one dimension")
        ndim = max(x.type.ndim, y.type.ndim)
        out = TensorType(x.type.dtype, shape=(None,) * ndim)()
        return Apply(self, [x, y, inverse], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, y, inverse = inputs
        nd = max(x.ndim, y.ndim)
        x = x.reshape((1,) * (nd - x.ndim) + x.shape)
        y = y.reshape((1,) * (nd - y.ndim) + y.shape)
        lead = np.broadcast_shapes(x.shape[:-1], y.shape[:-1])
        x = np.broadcast_to(x, lead + x.shape[-1:])
        y = np.broadcast_to(y, lead + y.shape[-1:])
        if x.shape[-1] != y.shape[-1]:
            raise ValueError(
                f"permute_row_elements: last axes differ: x has {x.shape[-1]}, y {y.shape[-1]}"
            )
        if inverse:
            out = np.empty_like(x)
            np.put_along_axis(out, y, x, axis=-1)
        else:
            out = np.take_along_axis(x, y, axis=-1)
        output_storage[0][0] = np.ascontiguousarray(out)

    def pullback(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 cotangents: Sequence[Variable]) -> list:
        x, y, inverse = inputs
        (gz,) = cotangents
        gx = permute_row_elements(gz, y, ptm.eq(inverse, 0))
        extra = gx.type.ndim - x.type.ndim
        axes = list(range(extra)) + [
            extra + i for i, s in enumerate(x.type.shape) if s == 1
        ]
        if axes:
            gx = ptm.sum(gx, axis=axes, keepdims=True)
            if extra:
                gx = gx.dimshuffle(*range(extra, gx.type.ndim))
        return [gx, zeros_like(y, dtype=get_floatX()), zeros_like(inverse)]


_permute_row_elements = PermuteRowElements()


def permute_row_elements(x: Any, y: Any, inverse: Any = 0) -> Variable:
    """Permute the elements of each row (last axis) of ``x`` by ``y`` (undo it with ``inverse``)."""
    return _permute_row_elements(x, y, inverse)


class AllocEmpty(Op):
    """An uninitialised array of ``dtype`` with the given shape (``np.empty``)."""

    #: Static output shapes come from input values: remade by non-strict clones.
    _output_type_depends_on_input_value = True

    __props__ = ("dtype",)

    def __init__(self, dtype: Any) -> None:
        self.dtype = normalize_dtype(dtype)

    def make_node(self, *shape: Any) -> Apply:
        sh, static = infer_static_shape(shape)
        return Apply(self, sh, [TensorType(self.dtype, shape=static)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        shape = tuple(int(s) for s in inputs)
        out = output_storage[0][0]
        if out is None or out.shape != shape:
            output_storage[0][0] = np.empty(shape, dtype=self.dtype)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [tuple(node.inputs)]

    def do_constant_folding(self, fgraph: Any, node: Apply) -> bool:
        return False


def infer_static_shape(shape: Any) -> tuple[list[Variable], tuple[int | None, ...]]:
    """The shape entries as scalar integer variables, and the static length of each
    (``None`` when not known before run time)."""
    if isinstance(shape, Variable):
        if shape.type.ndim != 1:
            raise TypeError(f"infer_static_shape: a shape variable must be a vector, got {shape}")
        n = shape.type.shape[0]
        if n is None:
            raise ValueError(f"infer_static_shape: the length of {shape} is not known")
        shape = [shape[i] for i in range(n)]
    entries = []
    for s in shape:
        v = as_tensor_variable(s)
        if v.type.ndim != 0:
            raise ValueError(
                f"infer_static_shape: shape entry {v} could not be cast to have 0 dimensions "
                f"(it has {v.type.ndim})"
            )
        if not v.type.dtype.startswith(("int", "uint")):
            raise TypeError(
                f"Shapes must be scalar integers; got {v} of type {v.type} (dtype {v.type.dtype})"
            )
        entries.append(v)
    static: list[int | None] = []
    for v in entries:
        try:
            value = int(get_scalar_constant_value(v))
        except NotScalarConstantError:
            value = None
        static.append(value if value is None or value >= 0 else None)
    return entries, tuple(static)


def empty(shape: Any, dtype: Any = None) -> Variable:
    """An uninitialised array of ``shape`` (``np.empty``); floatX by default."""
    if not isinstance(shape, list | tuple):
        vec = as_tensor_variable(shape)
        if vec.type.ndim == 0:
            shape = [vec]
        elif vec.type.ndim == 1 and vec.type.shape[0] is not None:
            shape = [vec[i] for i in range(vec.type.shape[0])]
        else:
            raise ValueError(f"empty: 'shape' must be a sequence or a vector of known length, "
                             f"got {vec.type}")
    return AllocEmpty(dtype or get_floatX())(*shape)


def empty_like(prototype: Any, dtype: Any = None) -> Variable:
    """An uninitialised array shaped like ``prototype`` (its dtype unless ``dtype`` is given)."""
    prototype = as_tensor_variable(prototype)
    return empty(
        [prototype.shape[i] for i in range(prototype.type.ndim)], dtype or prototype.type.dtype
    )


def is_flat(var: Any, ndim: int = 1) -> bool:
    """Whether ``var`` has exactly ``ndim`` dimensions."""
    return as_tensor_variable(var).type.ndim == ndim


def matrix_transpose(x: Any) -> Variable:
    """Swap the last two axes (a batch of matrices transposed)."""
    x = as_tensor_variable(x)
    if x.type.ndim < 2:
        raise ValueError(
            "matrix_transpose: Input array must be at least 2-dimensional, got "
            f"{x.type.ndim}-d {x.type}"
        )
    return swapaxes(x, -1, -2)


def extract_diag(x: Any) -> Variable:
    """The old name of ``diagonal`` (warns FutureWarning, then calls it)."""
    warnings.warn("opgraph.tensor.extract_diag is deprecated. Use opgraph.tensor.diagonal "
                  "instead.", FutureWarning, stacklevel=2)
    return as_tensor_variable(x).diagonal()


def transfer(var: Any, target: str) -> Variable:
    """``var`` moved to ``target``: ``"cpu"`` (a tensor) or a target a function in
    ``transfer._others`` handles (each returns None for targets it does not know)."""
    if target == "cpu":
        return as_tensor_variable(var)
    for other in transfer._others:  # type: ignore[attr-defined]
        out = other(var, target)
        if out is not None:
            return out
    raise ValueError(f"Can't transfer to target {target}")


transfer._others = []  # type: ignore[attr-defined]

"""Indexing by position and by name (``x[...]``, ``isel``, ``head``/``tail``/``thin``),
and updates of indexed parts (``x[idx].set(y)``, ``.inc(y)``), with xarray's rules.

An indexer is a slice, an integer, or an array whose dims say where its
values go: an unlabeled array takes the name of the dim it indexes, a
``(name, array)`` pair or an xtensor brings its own.  Arrays sharing a name
index pointwise together (vectorized indexing); the output dims follow the
order of the key.  The lowering moves the array-indexed axes first, so the
tensor indexing never meets NumPy's rule for non-adjacent advanced indices.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.graph.basic import Constant, Variable
from opgraph.tensor.variable import TensorVariable, as_tensor_variable
from opgraph_xtensor.xtensor.basic import XOp, as_xtensor, expand_to, xtensor_from_tensor
from opgraph_xtensor.xtensor.shape import expand_dims
from opgraph_xtensor.xtensor.type import XTensorVariable, dims_of

__all__ = ["Index", "IndexUpdate", "diff", "get_static_slice_length", "head", "index",
           "index_assignment", "index_increment", "isel", "tail", "thin"]

_SLICE, _ARRAY = "slice", "array"


def _slice_part(v: Any, extra: list[Variable]) -> Any:
    if v is None or isinstance(v, int | np.integer):
        return None if v is None else int(v)
    var = v.values if isinstance(v, XTensorVariable) else as_tensor_variable(v, ndim=0)
    extra.append(var)
    return ("in", len(extra) - 1)


def _array_indexer(k: Any, dim: str, pos: int) -> XTensorVariable:
    """An array indexer as an xtensor with its dims (unlabeled: the indexed dim)."""
    if isinstance(k, tuple):
        names, arr = k
        if isinstance(arr, XTensorVariable):
            raise IndexError(
                f"Giving a dimension name to an XTensorVariable indexer is not supported: "
                f"{_repr_pair(names, arr)}. Use .rename() instead."
            )
        t = as_tensor_variable(arr)
        return xtensor_from_tensor(t, dims=dims_of(names))
    if isinstance(k, XTensorVariable):
        return k
    t = as_tensor_variable(k)
    if t.type.ndim == 0:
        return xtensor_from_tensor(t, dims=())
    if t.type.ndim != 1:
        if t.type.dtype == "bool":
            raise NotImplementedError("Only 1d boolean indexing arrays are supported")
        raise IndexError(f"an unlabeled indexer of dim {dim!r} must be 1-d, got {t.type.ndim}-d "
                         "(label it: (dims, array))")
    return xtensor_from_tensor(t, dims=(dim,))


def _repr_pair(names: Any, arr: Any) -> str:
    return f"({names!r}, {arr})"


def _normalize_key(x: XTensorVariable, key: Any) -> list[Any]:
    """``key`` as one entry per dim of ``x`` (None: untouched)."""
    if isinstance(key, Mapping):
        return [key.get(d) for d in x.type.dims]
    if not isinstance(key, tuple):
        key = (key,)
    if any(k is Ellipsis for k in key):
        if sum(k is Ellipsis for k in key) > 1:
            raise IndexError("an index can only have a single ellipsis ('...')")
        i = next(i for i, k in enumerate(key) if k is Ellipsis)
        fill = x.type.ndim - (len(key) - 1)
        key = (*key[:i], *([slice(None)] * fill), *key[i + 1:])
    if len(key) > x.type.ndim:
        raise IndexError(f"too many indices for {x} with dims {x.type.dims}: {len(key)}")
    return list(key) + [None] * (x.type.ndim - len(key))


def _build(x: XTensorVariable, key: list[Any]) -> tuple[tuple[Any, ...], list[Variable]]:
    """The Op's static spec and its index inputs (xtensor arrays, then slice scalars)."""
    spec, arrays, scalars = [], [], []
    for dim, k in zip(x.type.dims, key):
        if k is None or (isinstance(k, slice) and k == slice(None)):
            spec.append(None)
        elif isinstance(k, slice):
            spec.append((_SLICE, _slice_part(k.start, scalars), _slice_part(k.stop, scalars),
                         _slice_part(k.step, scalars)))
        else:
            if isinstance(k, list):
                k = np.asarray(k)
            arr = _array_indexer(k, dim, len(spec))
            if arr.type.dtype == "bool":
                if arr.type.ndim != 1:
                    raise NotImplementedError("Only 1d boolean indexing arrays are supported")
                if arr.type.dims != (dim,):
                    raise IndexError(
                        "Boolean indexer should be unlabeled or on the same dimension to the "
                        f"indexed array. Indexer is on {arr.type.dims} but the target dimension "
                        f"is {dim}."
                    )
            elif not arr.type.dtype.startswith(("int", "uint")):
                raise IndexError(f"indexer of dim {dim!r} must be integer or boolean, got "
                                 f"{arr.type.dtype}")
            arrays.append(arr)
            spec.append((_ARRAY,))
    return tuple(spec), [*arrays, *scalars]


def _layout(xdims: Sequence[str], spec: Sequence[Any], arrays: Sequence[Any]
            ) -> tuple[tuple[str, ...], tuple[str, ...], list[int], list[int]]:
    """(output dims, broadcast array dims, array-like axes, plain slice axes)."""
    it = iter(arrays)
    arr_dims_of = {k: next(it).type.dims for k, s in enumerate(spec) if s and s[0] == _ARRAY}
    var_dims = {d for ds in arr_dims_of.values() for d in ds}
    out: list[str] = []
    adv, plain = [], []
    for k, d in enumerate(xdims):
        if k in arr_dims_of:
            out.extend(e for e in arr_dims_of[k] if e not in out)
            adv.append(k)
        else:
            if d not in out:
                out.append(d)
            (adv if d in var_dims else plain).append(k)
    arr_dims = tuple(d for d in out if d in var_dims)
    return tuple(out), arr_dims, adv, plain


def _check_array_sizes(arrays: Sequence[Any]) -> None:
    sizes: dict[str, int] = {}
    for a in arrays:
        if a.type.dtype == "bool":
            continue  # its length is the number of True entries
        for d, s in zip(a.type.dims, a.type.shape):
            if s is None:
                continue
            if d in sizes and sizes[d] != s:
                raise IndexError(f"Dimension of indexers mismatch for dim {d}: lengths "
                                 f"{sizes[d]} and {s}")
            sizes[d] = s


class _IndexBase(XOp):
    """Shared by Index and IndexUpdate: the tensor key of the lowering."""

    def rebatch(self, node: Any, inputs: Sequence[Variable]) -> _IndexBase:
        old = dict(zip(node.inputs[0].type.dims, self.spec))
        spec = tuple(old.get(d) for d in inputs[0].type.dims)
        return type(self)(spec, *[getattr(self, p) for p in type(self).__props__[1:]])

    def _n_arrays(self) -> int:
        return sum(1 for s in self.spec if s and s[0] == _ARRAY)

    def convert_input(self, x: Any, index: int) -> Variable:
        return x

    def _tensor_key(self, x: XTensorVariable, t: Variable, arrays: Sequence[Any],
                    tarrays: Sequence[Variable], scalars: Sequence[Variable]) -> Any:
        """(permuted tensor, key, dims of the indexed result before the final transpose)."""
        dims = x.type.dims
        out, arr_dims, adv, plain = _layout(dims, self.spec, arrays)
        perm = [*adv, *plain]
        tperm = t.dimshuffle(perm) if perm != list(range(len(dims))) else t
        key: list[Any] = []
        it = iter(zip(arrays, tarrays))

        def part(v: Any) -> Any:
            return scalars[v[1]] if isinstance(v, tuple) else v

        for k in range(len(dims)):
            s = self.spec[k]
            if s is not None and s[0] == _ARRAY:
                a, ta = next(it)
                if a.type.dtype == "bool":
                    ta = ta.nonzero()[0]
                entry: Any = expand_to(ta, a.type.dims, arr_dims) if arr_dims else ta
            elif s is None:
                entry = slice(None)
            else:
                entry = slice(part(s[1]), part(s[2]), part(s[3]))
            if k in adv and not (s is not None and s[0] == _ARRAY):
                entry = expand_to(pt.arange(t.shape[k])[entry], (dims[k],), arr_dims)
            key.append(entry)
        tkey = tuple(key[k] for k in perm)
        pre = (*arr_dims, *(dims[k] for k in plain))
        return tperm, tkey, pre, out, perm


class Index(_IndexBase):
    """``x[key]`` by xarray's rules; ``spec`` says what indexes each dim of ``x``."""

    __props__ = ("spec",)

    def __init__(self, spec: Sequence[Any]) -> None:
        self.spec = tuple(spec)

    def output_dims(self, inputs: Sequence[Variable]) -> list[tuple[str, ...]]:
        x, arrays = inputs[0], inputs[1:1 + self._n_arrays()]
        return [_layout(x.type.dims, self.spec, arrays)[0]]

    def lower(self, inputs: Sequence[Variable], tins: Sequence[Variable]) -> list[Variable]:
        n = self._n_arrays()
        x, arrays, t, tarrays, scalars = (inputs[0], inputs[1:1 + n], tins[0], tins[1:1 + n],
                                          tins[1 + n:])
        tperm, tkey, pre, out, _ = self._tensor_key(x, t, arrays, tarrays, scalars)
        res = tperm[tkey] if tkey else tperm
        return [expand_to(res, pre, out) if pre != out else res]


class IndexUpdate(_IndexBase):
    """``x`` with ``x[key]`` set to (``mode="set"``) or incremented by ``y``."""

    __props__ = ("spec", "mode")

    def __init__(self, spec: Sequence[Any], mode: str) -> None:
        self.spec, self.mode = tuple(spec), mode

    def output_dims(self, inputs: Sequence[Variable]) -> list[tuple[str, ...]]:
        return [inputs[0].type.dims]

    def batch_apply(self, node: Any, inputs: Sequence[Variable]) -> list[Variable]:
        """Batch dims of the value or the indexers that ``x`` lacks are added to ``x`` first,
        so each batch entry updates its own copy."""
        x, *rest = inputs
        old = {d for i in node.inputs if isinstance(i, XTensorVariable) for d in i.type.dims}
        sizes = {}
        for i in rest:
            if isinstance(i, XTensorVariable):
                for d in i.type.dims:
                    if d not in old and d not in x.type.dims and d not in sizes:
                        sizes[d] = i.sizes[d]
        if sizes:
            x = expand_dims(x, sizes)
        return super().batch_apply(node, [x, *rest])

    def lower(self, inputs: Sequence[Variable], tins: Sequence[Variable]) -> list[Variable]:
        n = self._n_arrays()
        x, y = inputs[0], inputs[1]
        arrays, t, ty, tarrays, scalars = (inputs[2:2 + n], tins[0], tins[1], tins[2:2 + n],
                                           tins[2 + n:])
        tperm, tkey, pre, _, perm = self._tensor_key(x, t, arrays, tarrays, scalars)
        yt = expand_to(ty, y.type.dims, pre)
        fn = pt.set_subtensor if self.mode == "set" else pt.inc_subtensor
        if tkey:
            new = fn(tperm[tkey], yt)
        elif self.mode == "set":
            new = pt.cast(pt.broadcast_to(yt, tperm.shape), t.type.dtype)
        else:
            new = pt.cast(tperm + yt, t.type.dtype)
        inverse = [perm.index(k) for k in range(len(perm))]
        return [new.dimshuffle(inverse) if perm != list(range(len(perm))) else new]


def index(x: Any, key: Any) -> XTensorVariable:
    """``x[key]`` (positional entries, a dict by name, ``...``, labeled arrays)."""
    x = as_xtensor(x)
    spec, extra = _build(x, _normalize_key(x, key))
    _check_array_sizes([e for e in extra if isinstance(e, XTensorVariable)])
    return Index(spec)(x, *extra)


def _update(indexed: XTensorVariable, y: Any, mode: str) -> XTensorVariable:
    node = indexed.owner
    if node is None or not isinstance(node.op, Index):
        raise ValueError(f"{mode}() works on the result of indexing (x[idx].{mode}(y)), got "
                         f"{indexed}")
    y = as_xtensor(y)
    missing = [d for d in y.type.dims if d not in indexed.type.dims]
    if missing:
        raise ValueError(f"{mode}: the value has dims {missing} that the indexed part "
                         f"{indexed.type.dims} lacks")
    x, *rest = node.inputs
    return IndexUpdate(node.op.spec, mode)(x, y, *rest)


def set_(indexed: XTensorVariable, y: Any) -> XTensorVariable:
    """The array ``indexed`` came from, with that part set to ``y``."""
    return _update(indexed, y, "set")


def inc(indexed: XTensorVariable, y: Any) -> XTensorVariable:
    """The array ``indexed`` came from, with ``y`` added to that part."""
    return _update(indexed, y, "inc")


def index_assignment(x: Any, y: Any, *idxs: Any) -> XTensorVariable:
    """``x`` with ``x[idxs]`` set to ``y`` (PyTensor's ``IndexUpdate("set")`` call)."""
    return set_(index(x, idxs), y)


def index_increment(x: Any, y: Any, *idxs: Any) -> XTensorVariable:
    """``x`` with ``y`` added to ``x[idxs]`` (PyTensor's ``IndexUpdate("inc")`` call)."""
    return inc(index(x, idxs), y)


def get_static_slice_length(slc: Variable, dim_length: int | None) -> int | None:
    """How many entries the slice variable ``slc`` takes from a dim of ``dim_length``, when
    both are known at graph-build time (a constant slice, or one made of constants)."""
    if dim_length is None:
        return None
    if isinstance(slc, Constant):
        parts = (slc.data.start, slc.data.stop, slc.data.step)
    elif slc.owner is None:
        return None
    else:
        if not all(isinstance(p, Constant) for p in slc.owner.inputs):
            return None
        parts = tuple(None if p.data is None else p.data for p in slc.owner.inputs)
    return len(range(*slice(*parts).indices(dim_length)))


def isel(x: Any, indexers: Mapping[str, Any] | None = None, drop: bool = False,
         missing_dims: str = "raise", **indexers_kwargs: Any) -> XTensorVariable:
    """Index by dim name: ``isel(x, a=0, b=slice(1, None))``."""
    x = as_xtensor(x)
    spec = {**(indexers or {}), **indexers_kwargs}
    for d in list(spec):
        if d in x.type.dims:
            continue
        msg = f"Dimension {d} does not exist. Expected one of {x.type.dims}"
        if missing_dims == "raise":
            raise ValueError(msg)
        if missing_dims == "warn":
            warnings.warn(msg, UserWarning, stacklevel=2)
        del spec[d]
    return index(x, spec)


def _per_dim(x: XTensorVariable, indexers: Any, kwargs: Mapping[str, Any], default: int
             ) -> dict[str, Any]:
    if isinstance(indexers, int | TensorVariable):
        return dict.fromkeys(x.type.dims, indexers)
    spec = {**(indexers or {}), **kwargs}
    return spec if spec else dict.fromkeys(x.type.dims, default)


def head(x: Any, indexers: Any = None, **kwargs: Any) -> XTensorVariable:
    """The first ``n`` entries along each dim (5 by default)."""
    x = as_xtensor(x)
    return isel(x, {d: slice(None, n) for d, n in _per_dim(x, indexers, kwargs, 5).items()})


def tail(x: Any, indexers: Any = None, **kwargs: Any) -> XTensorVariable:
    """The last ``n`` entries along each dim (5 by default)."""
    x = as_xtensor(x)
    spec = {}
    for d, n in _per_dim(x, indexers, kwargs, 5).items():
        if isinstance(n, int):
            spec[d] = slice(-n, None) if n else slice(0, 0)
        else:
            spec[d] = slice(pt.switch(pt.eq(n, 0), x.sizes[d], -n), None)
    return isel(x, spec)


def thin(x: Any, indexers: Any = None, **kwargs: Any) -> XTensorVariable:
    """Every ``n``-th entry along each dim."""
    x = as_xtensor(x)
    spec = _per_dim(x, indexers, kwargs, 5)
    if not (indexers or kwargs):
        raise TypeError("thin() needs indexers: an int or {dim: step}")
    return isel(x, {d: slice(None, None, n) for d, n in spec.items()})


def diff(x: Any, dim: str, n: int = 1, label: str = "upper") -> XTensorVariable:
    """The ``n``-th difference along ``dim`` (xarray's ``diff``)."""
    x = as_xtensor(x)
    for _ in range(n):
        x = isel(x, {dim: slice(1, None)}) - isel(x, {dim: slice(None, -1)})
    return x

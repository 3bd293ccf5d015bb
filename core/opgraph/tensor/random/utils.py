"""Helpers shared by the random variables: size normalisation, parameter
broadcasting, support shapes, and ``RandomStream``.

Parameters of a RandomVariable have *batch* dimensions (broadcast like NumPy)
followed by *core* dimensions (``ndims_params``) the distribution consumes.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Constant, Variable
from opgraph.graph.table import NameTable
from opgraph.scalar import Cast
from opgraph.tensor.basic import cast
from opgraph.tensor.creation import alloc
from opgraph.tensor.elemwise import Elemwise
from opgraph.tensor.math import maximum
from opgraph.tensor.shape import (
    MakeVector,
    Shape,
    SpecifyShape,
    make_vector,
    shape_padleft,
    shape_tuple,
    static_int,
)
from opgraph.tensor.sharedvar import shared
from opgraph.tensor.type_other import NoneConst, NoneTypeT
from opgraph.tensor.variable import as_tensor_variable, constant

__all__ = [
    "DISTRIBUTIONS",
    "RandomStream",
    "broadcast_params",
    "broadcast_shape_entries",
    "compute_batch_shape",
    "custom_rng_deepcopy",
    "explicit_expand_dims",
    "normalize_size_param",
    "params_broadcast_shapes",
    "static_size_entries",
    "supp_shape_from_ref_param_shape",
]

# Name -> distribution (RandomVariable or helper function); filled by ``basic``
# so RandomStream can find them without importing it.
DISTRIBUTIONS: NameTable[Callable[..., Any]] = NameTable(
    "random_distributions", "distributions by name (RandomStream.<name>)")


def _is_none(size: Any) -> bool:
    return size is None or (isinstance(size, Variable) and isinstance(size.type, NoneTypeT))


def normalize_size_param(size: Any) -> Variable:
    """``size`` as NoneConst (no size) or an int64 vector of static length."""
    if size is None:
        return NoneConst
    if isinstance(size, Variable) and isinstance(size.type, NoneTypeT):
        return size
    if isinstance(size, set | frozenset | dict | str | float):
        raise TypeError(
            "Parameter size must be None, an integer, or a sequence with integers, "
            f"got {type(size).__name__} {size!r}"
        )
    if isinstance(size, int | np.integer) and not isinstance(size, bool):
        return constant(np.array([size], dtype="int64"))
    if isinstance(size, Sequence) and not isinstance(size, Variable):
        if len(size) == 0:
            return constant(np.array([], dtype="int64"))
        if all(isinstance(s, int | np.integer) and not isinstance(s, bool) for s in size):
            return constant(np.array(size, dtype="int64"))
        entries = [as_tensor_variable(s) for s in size]
        for k, e in enumerate(entries):
            if e.type.ndim != 0 or e.type.dtype[:3] not in ("int", "uin"):
                raise TypeError(f"Parameter size[{k}] must be an integer scalar, got {e.type}")
        return make_vector(*[cast(e, "int64") for e in entries], dtype="int64")
    var = as_tensor_variable(size)
    if var.type.dtype[:3] not in ("int", "uin"):
        raise TypeError(f"Parameter size must be an integer vector, got {var.type}")
    if var.type.ndim == 0:
        if isinstance(var, Constant):
            return constant(np.asarray(var.data, dtype="int64").reshape(1))
        var = shape_padleft(var)
    elif var.type.ndim != 1:
        raise ValueError(f"Parameter size must be a vector (ndim 1), got {var.type}")
    if var.type.shape[0] is None:
        raise ValueError(f"Parameter size must have a static length, got {var.type}")
    if var.type.dtype != "int64":
        var = cast(var, "int64")
    return var


def static_size_entries(size: Variable) -> list[int | None]:
    """What is known at graph construction about each entry of a size vector."""
    if isinstance(size, Constant):
        return [int(v) for v in np.asarray(size.data).ravel()]
    owner = size.owner
    length = size.type.shape[0] or 0
    if owner is None:
        return [None] * length
    if isinstance(owner.op, MakeVector):
        return [static_int(v) for v in owner.inputs]
    if isinstance(owner.op, Shape):
        return list(owner.inputs[0].type.shape)
    if isinstance(owner.op, SpecifyShape):
        return static_size_entries(owner.inputs[0])
    if isinstance(owner.op, Elemwise) and isinstance(owner.op.scalar_op, Cast):
        return static_size_entries(owner.inputs[0])
    return [None] * length


def _shape_entries(param: Any, shape: Any = None) -> list[Any]:
    """Per-dimension lengths: ints where known statically, else symbolic scalars."""
    if shape is None:
        if isinstance(param, Variable):
            static = param.type.shape
            symbolic = shape_tuple(param)
            return [s if s is not None else d for s, d in zip(static, symbolic, strict=True)]
        return list(np.shape(param))
    if isinstance(shape, Variable):
        n = shape.type.shape[0]
        return [shape[i] for i in range(n)]
    return [static_int(s) if static_int(s) is not None else s for s in shape]


def _broadcast_dims(dims: Sequence[Any]) -> Any:
    """The broadcast length of aligned dimensions (1s drop out; max of the rest)."""
    known = [d for d in dims if isinstance(d, int | np.integer)]
    rest = [d for d in dims if not isinstance(d, int | np.integer)]
    known_big = {int(d) for d in known if d != 1}
    if len(known_big) > 1:
        raise ValueError(f"shapes could not be broadcast together: dimension lengths {dims}")
    if known_big:
        return known_big.pop()
    if not rest:
        return 1
    out = rest[0]
    for d in rest[1:]:
        out = maximum(out, d)
    return out


def broadcast_shape_entries(shapes: Sequence[Sequence[Any]]) -> list[Any]:
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(ndim):
        dims = [s[len(s) - ndim + i] for s in shapes if len(s) - ndim + i >= 0]
        out.append(_broadcast_dims(dims))
    return out


def compute_batch_shape(params: Sequence[Any], ndims_params: Sequence[int]) -> tuple[Any, ...]:
    """The broadcast batch shape of ``params`` (core dims excluded)."""
    batch = []
    for p, nd in zip(params, ndims_params, strict=True):
        entries = _shape_entries(p)
        batch.append(entries[: len(entries) - nd])
    return tuple(broadcast_shape_entries(batch))


def params_broadcast_shapes(
    param_shapes: Sequence[Sequence[Any]], ndims_params: Sequence[int], use_pytensor: bool = True
) -> list[tuple[Any, ...]]:
    """Each parameter's shape after broadcasting the batch dimensions of all of them."""
    shapes = [list(s) for s in param_shapes]
    batch = broadcast_shape_entries([s[: len(s) - nd] for s, nd in zip(shapes, ndims_params,
                                                                  strict=True)])
    return [tuple(batch) + tuple(s[len(s) - nd:]) for s, nd in zip(shapes, ndims_params,
                                                                     strict=True)]


def broadcast_params(params: Sequence[Any], ndims_params: Sequence[int]) -> list[Any]:
    """The parameters with their batch dimensions broadcast against each other.

    NumPy arrays give (read-only) broadcast views; symbolic ones an ``alloc``.
    """
    if not any(isinstance(p, Variable) for p in params):
        arrays = [np.asarray(p) for p in params]
        shapes = params_broadcast_shapes([a.shape for a in arrays], ndims_params)
        return [np.broadcast_to(a, s) for a, s in zip(arrays, shapes, strict=True)]
    from_tensor = [as_tensor_variable(p) for p in params]
    shapes = params_broadcast_shapes([_shape_entries(p) for p in from_tensor], ndims_params)
    out = []
    for p, s in zip(from_tensor, shapes, strict=True):
        if tuple(p.type.shape) == tuple(s):
            out.append(p)
        else:
            out.append(alloc(p, *s))
    return out


def explicit_expand_dims(
    params: Sequence[Variable], ndim_params: Sequence[int], size_length: int = 0
) -> list[Variable]:
    """Left-pad each parameter so all have the same number of batch dimensions."""
    batch_dims = [p.type.ndim - nd for p, nd in zip(params, ndim_params, strict=True)]
    target = max([size_length, *batch_dims], default=0)
    return [
        p if b == target else shape_padleft(p, target - b)
        for p, b in zip(params, batch_dims, strict=True)
    ]


def supp_shape_from_ref_param_shape(
    *,
    ndim_supp: int,
    dist_params: Sequence[Any],
    param_shapes: Sequence[Sequence[Any]] | None = None,
    ref_param_idx: int,
) -> tuple[Any, ...]:
    """The support shape: the last ``ndim_supp`` lengths of a reference parameter."""
    if ndim_supp <= 0:
        raise ValueError(f"ndim_supp must be greater than 0, got {ndim_supp}")
    if param_shapes is not None:
        ref = list(param_shapes[ref_param_idx])
    else:
        ref = _shape_entries(dist_params[ref_param_idx])
    if len(ref) < ndim_supp:
        raise ValueError(
            "Reference parameter does not match the expected dimensions; "
            f"{ref_param_idx} has {len(ref)} dimension(s), the support needs {ndim_supp}"
        )
    return tuple(ref[len(ref) - ndim_supp:])


def custom_rng_deepcopy(rng: np.random.Generator) -> np.random.Generator:
    """An independent copy of a Generator (same bit generator class, state and seed)."""
    bit_gen = rng.bit_generator
    new_bit_gen = type(bit_gen)(copy.deepcopy(bit_gen.seed_seq))
    new_bit_gen.state = bit_gen.state
    return np.random.Generator(new_bit_gen)


class RandomStream:
    """Hands out draws, each with its own shared generator seeded from one seed.

    Every draw gets a child of ``SeedSequence(seed)``, and its generator's
    ``default_update`` advances it, so successive calls give new draws;
    ``seed(n)`` reseeds every generator made so far.
    """

    def __init__(
        self,
        seed: int | None = None,
        namespace: Any = None,
        rng_ctor: Callable[..., np.random.Generator] = np.random.default_rng,
    ) -> None:
        if not callable(rng_ctor):
            raise TypeError(f"RandomStream: rng_ctor must be callable, got {rng_ctor!r}")
        self.default_instance_seed = seed
        self.gen_seedgen = np.random.SeedSequence(seed)
        self.state_updates: list[tuple[Variable, Variable]] = []
        self.namespaces = [namespace] if namespace is not None else []
        self.rng_ctor = rng_ctor

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        for ns in self.namespaces:
            op = getattr(ns, name, None)
            if op is not None and callable(op) and not isinstance(op, type):
                break
        else:
            op = DISTRIBUTIONS.get(name)
        if op is None:
            raise AttributeError(f"No attribute {name!r} in RandomStream (no such distribution)")

        def draw(*args: Any, **kwargs: Any) -> Variable:
            return self.gen(op, *args, **kwargs)

        return draw

    def updates(self) -> list[tuple[Variable, Variable]]:
        """``(shared generator, its advanced state)`` pairs, for ``function(updates=...)``."""
        return list(self.state_updates)

    def seed(self, seed: int | None = None) -> None:
        """Reseed every generator this stream made (``None``: the seed it was built with)."""
        if seed is None:
            seed = self.default_instance_seed
        self.gen_seedgen = np.random.SeedSequence(seed)
        for old_rng, _ in self.state_updates:
            (child,) = self.gen_seedgen.spawn(1)
            old_rng.set_value(self.rng_ctor(child), borrow=True)

    def gen(self, op: Callable[..., Variable], *args: Any, **kwargs: Any) -> Variable:
        """Draw from ``op`` with a fresh shared generator tracked by this stream."""
        if "rng" in kwargs:
            raise ValueError("The `rng` option cannot be used with a `RandomStream`")
        (child,) = self.gen_seedgen.spawn(1)
        rng = shared(self.rng_ctor(child), borrow=True)
        out = op(*args, rng=rng, **kwargs)
        next_rng = out.owner.outputs[0]
        rng.default_update = next_rng
        self.state_updates.append((rng, next_rng))
        return out

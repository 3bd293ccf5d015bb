"""``RandomVariable``: an Op that draws from a NumPy Generator.

Inputs are ``(rng, size, *dist_params)``, outputs ``(next_rng, draw)``; the
draw is the default output.  The generator is copied before drawing unless
the Op is ``inplace`` (then ``destroy_map`` says so), so every mode and
linker gives the same draws for the same seed.
"""

from __future__ import annotations

import re
from abc import ABCMeta
from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.autodiff.undefined import grad_undefined
from opgraph.config import config
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.graph.replace import _vectorize_node
from opgraph.tensor.random.type import RandomType, random_generator_type
from opgraph.tensor.random.utils import (
    broadcast_shape_entries,
    custom_rng_deepcopy,
    normalize_size_param,
    static_size_entries,
    supp_shape_from_ref_param_shape,
)
from opgraph.tensor.shape import static_int
from opgraph.tensor.sharedvar import shared
from opgraph.tensor.type import TensorType
from opgraph.tensor.type_other import NoneConst, NoneTypeT
from opgraph.tensor.variable import as_tensor_variable

__all__ = [
    "DefaultGeneratorMakerOp",
    "RNGConsumerOp",
    "RandomVariable",
    "RandomVariableWithCoreShape",
    "default_rng",
    "vectorize_random_variable",
]

_CORE = re.compile(r"\(([^()]*)\)")


def parse_signature(signature: str) -> tuple[list[list[str]], list[str]]:
    """``"(n),(n,n)->(n)"`` -> ``([["n"], ["n", "n"]], ["n"])``."""
    if not isinstance(signature, str) or signature.count("->") != 1:
        raise ValueError(f"RandomVariable signature must look like '(),()->()', got {signature!r}")
    left, right = signature.split("->")
    inputs = [[d.strip() for d in g.split(",") if d.strip()] for g in _CORE.findall(left)]
    outputs = [[d.strip() for d in g.split(",") if d.strip()] for g in _CORE.findall(right)]
    if len(outputs) != 1:
        raise ValueError(f"RandomVariable signature must have one output, got {signature!r}")
    return inputs, outputs[0]


def _make_signature(ndim_supp: int, ndims_params: Sequence[int]) -> str:
    ins = ",".join("(" + ",".join(f"i{k}{j}" for j in range(nd)) + ")"
                   for k, nd in enumerate(ndims_params))
    out = "(" + ",".join(f"o{j}" for j in range(ndim_supp)) + ")"
    return f"{ins}->{out}"


def _resolve_dtype(dtype: Any) -> str | None:
    if dtype == "floatX":
        return config.floatX
    return None if dtype is None else str(np.dtype(dtype))


class RNGConsumerOp(Op, metaclass=ABCMeta):
    """An Op that takes random generators as inputs and says how each advances.

    ``update(node)`` maps each generator input of ``node`` to the output
    holding its next state; compiled functions and PyMC's
    ``collect_default_updates`` use it to write the state back.  An ABC, as in
    PyTensor: a class registered with a subclass (``SymbolicRandomVariable.register``)
    counts as one.
    """

    def update(self, node: Apply) -> dict[Variable, Variable]:
        raise NotImplementedError(
            f"{type(self).__name__} consumes random generators but does not define update(node)"
        )


class RandomVariable(RNGConsumerOp):
    """Draws from ``rng_fn(rng, *dist_params, size)``; subclasses name a distribution.

    ``signature`` (NumPy gufunc style) gives the core dimensions of each
    parameter and of one draw; ``ndim_supp``/``ndims_params`` are derived
    from it (or given instead of it).  ``dtype`` may be ``"floatX"``.
    """

    __props__ = ("name", "signature", "dtype", "inplace")
    default_output = 1
    _output_type_depends_on_input_value = True

    name: str | None = None
    signature: str | None = None
    ndim_supp: int | None = None
    ndims_params: Sequence[int] | None = None
    dtype: str | None = None
    inplace: bool = False

    def __init__(
        self,
        name: str | None = None,
        ndim_supp: int | None = None,
        ndims_params: Sequence[int] | None = None,
        dtype: str | None = None,
        inplace: bool | None = None,
        signature: str | None = None,
    ) -> None:
        self.name = name if name is not None else getattr(type(self), "name", None)
        signature = signature if signature is not None else type(self).signature
        if signature is None:
            ndim_supp = ndim_supp if ndim_supp is not None else type(self).ndim_supp
            ndims_params = ndims_params if ndims_params is not None else type(self).ndims_params
            if not isinstance(ndims_params, Sequence) or isinstance(ndims_params, str):
                raise TypeError(
                    f"Parameter ndims_params must be a sequence of ints, got {ndims_params!r}"
                )
            if not isinstance(ndim_supp, int | np.integer):
                raise TypeError(f"Parameter ndim_supp must be an int, got {ndim_supp!r}")
            signature = _make_signature(int(ndim_supp), ndims_params)
        ins, out = parse_signature(signature)
        self.signature = signature
        self.ndim_supp = len(out)
        self.ndims_params = tuple(len(i) for i in ins)
        if dtype is not None:
            self.dtype = dtype
        elif "dtype" not in type(self).__dict__:
            self.dtype = type(self).dtype
        if self.dtype not in (None, "floatX"):
            self.dtype = str(np.dtype(self.dtype))
        self.inplace = bool(inplace if inplace is not None else type(self).inplace)
        self.destroy_map = {0: [0]} if self.inplace else {}

    def __str__(self) -> str:
        return f'{self.name}_rv{{"{self.signature}"}}'

    # -- parameters of a node ---------------------------------------------------------
    def rng_param(self, node: Apply) -> Variable:
        return node.inputs[0]

    def update(self, node: Apply) -> dict[Variable, Variable]:
        """The generator input advances to the first output (the next generator state)."""
        return {node.inputs[0]: node.outputs[0]}

    def size_param(self, node: Apply) -> Variable:
        return node.inputs[1]

    def dist_params(self, node: Apply) -> Sequence[Variable]:
        return node.inputs[2:]

    # -- shapes -----------------------------------------------------------------------
    def _supp_shape_from_params(
        self, dist_params: Sequence[Any], param_shapes: Sequence[Any] | None = None
    ) -> Sequence[Any]:
        """Shape of one draw, from the parameter whose core dims the signature matches."""
        ins, out = parse_signature(self.signature)
        dims: list[Any] = []
        for name in out:
            for k, core in enumerate(ins):
                if name in core:
                    supp = supp_shape_from_ref_param_shape(
                        ndim_supp=len(core), dist_params=dist_params,
                        param_shapes=param_shapes, ref_param_idx=k,
                    )
                    dims.append(supp[core.index(name)])
                    break
            else:
                raise NotImplementedError(
                    f"{self}: cannot tell the support shape from the parameters; "
                    "override _supp_shape_from_params"
                )
        return dims

    def _batch_shape(
        self, dist_params: Sequence[Any], param_shapes: Sequence[Any] | None
    ) -> list[Any]:
        batch = []
        for k, (p, nd) in enumerate(zip(dist_params, self.ndims_params, strict=True)):
            if param_shapes is not None:
                entries = list(param_shapes[k])
            else:
                entries = [s if s is not None else p.shape[i]
                           for i, s in enumerate(p.type.shape)]
            batch.append(entries[: len(entries) - nd])
        return list(broadcast_shape_entries(batch))

    def _infer_shape(
        self, size: Any, dist_params: Sequence[Any], param_shapes: Sequence[Any] | None = None
    ) -> tuple[Any, ...]:
        """Shape of the draw: ``size`` (or the broadcast batch shape) + support shape."""
        supp: Sequence[Any] = ()
        if self.ndim_supp:
            supp = tuple(self._supp_shape_from_params(dist_params, param_shapes=param_shapes))
        if size is None or (isinstance(size, Variable) and isinstance(size.type, NoneTypeT)):
            batch = self._batch_shape(dist_params, param_shapes)
        else:
            size = as_tensor_variable(size)
            n = size.type.shape[0] if size.type.ndim == 1 else None
            if n is None:
                raise ValueError(f"{self}: size must be a vector of static length, got {size}")
            entries = static_size_entries(size) if size.dtype[:3] in ("int", "uin") else [None] * n
            batch = [e if e is not None else size[i] for i, e in enumerate(entries)]
        return (*batch, *supp)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list[Any]:
        _, size, *params = node.inputs
        param_shapes = input_shapes[2:]
        shape = self._infer_shape(size, params, param_shapes)
        return [None, list(shape)]

    # -- building ---------------------------------------------------------------------
    def __call__(
        self,
        *args: Any,
        size: Any = None,
        name: str | None = None,
        rng: Any = None,
        dtype: Any = None,
        return_next_rng: bool = False,
        **kwargs: Any,
    ) -> Variable | tuple[Variable, Variable]:
        """The draw; ``(next_rng, draw)`` with ``return_next_rng=True``."""
        op = self
        if dtype is not None:
            new = _resolve_dtype(dtype)
            old = _resolve_dtype(self.dtype)
            if old is not None and new != old:
                if np.dtype(old).kind != np.dtype(new).kind:
                    raise ValueError(
                        f"Cannot change the dtype of a {self.name} RV from {old} to {new}"
                    )
                props = self._props_dict()
                props["dtype"] = new
                op = type(self)(**props)
        implicit_rng = rng is None
        node = op.make_node(rng, size, *args, **kwargs)
        out = node.outputs[1]
        if implicit_rng:
            node.inputs[0].default_update = node.outputs[0]
        if name is not None:
            out.name = name
        if return_next_rng:
            return node.outputs[0], out
        return out

    def _output_dtype(self, dist_params: Sequence[Variable]) -> str:
        """The draw's dtype: ``self.dtype``, else the upcast of the parameters' dtypes."""
        dtype = _resolve_dtype(self.dtype)
        if dtype is None:
            if not dist_params:
                return config.floatX
            return str(np.result_type(*[p.type.numpy_dtype for p in dist_params]))
        return dtype

    def make_node(self, rng: Any, size: Any, *dist_params: Any) -> Apply:
        """``(rng, size, *dist_params) -> (next_rng, draw)``, checking every input."""
        if rng is None:
            rng = shared(np.random.default_rng())
        elif not isinstance(rng, Variable) or not isinstance(rng.type, RandomType):
            raise TypeError(
                f"{self}: rng must be a shared or symbolic numpy.random.Generator "
                f"(RandomGeneratorType), got {type(rng).__name__} {rng!r:.60}"
            )
        size = normalize_size_param(size)
        # a Variable stays as given (PyTensor's rule): a sparse matrix parameter (PyMC's CAR W)
        # keeps its type; the rest needs ``type.ndim`` and ``type.shape`` only
        params = [p if isinstance(p, Variable) else as_tensor_variable(p) for p in dist_params]
        self._check_size_length(size, params)
        if len(dist_params) != len(self.ndims_params):
            raise TypeError(
                f"{self} expects {len(self.ndims_params)} distribution parameter(s), "
                f"got {len(dist_params)}"
            )
        for k, (p, nd) in enumerate(zip(params, self.ndims_params, strict=True)):
            if p.type.ndim < nd:
                raise ValueError(
                    f"{self}: parameter {k} ({p}) needs at least {nd} dimension(s), "
                    f"got {p.type.ndim}"
                )
        shape = self._static_shape(size, params)
        out = TensorType(dtype=self._output_dtype(params), shape=shape)()
        return Apply(self, [rng, size, *params], [rng.type(), out])

    def _check_size_length(self, size: Variable, params: Sequence[Variable]) -> None:
        if isinstance(size.type, NoneTypeT):
            return
        n = size.type.shape[0]
        for k, (p, nd) in enumerate(zip(params, self.ndims_params, strict=False)):
            if p.type.ndim - nd > n:
                raise ValueError(
                    "Size length is incompatible with batched dimensions of parameter "
                    f"{k} {p}: len(size) = {n}, len(batched dims {p}) = {p.type.ndim - nd}. "
                    "Size must be None or have length >= the batch dimensions"
                )

    def _static_shape(self, size: Variable, params: Sequence[Variable]) -> tuple[int | None, ...]:
        batch_static = _bcast_static(
            [p.type.shape[: p.type.ndim - nd] for p, nd in zip(params, self.ndims_params,
                                                              strict=True)]
        )
        if isinstance(size.type, NoneTypeT):
            batch = batch_static
        else:
            n = size.type.shape[0]
            batch = static_size_entries(size)
            offset = n - len(batch_static)
            batch = [b if b is not None or i < offset or batch_static[i - offset] in (None, 1)
                     else batch_static[i - offset] for i, b in enumerate(batch)]
        supp: list[int | None] = [None] * self.ndim_supp
        if self.ndim_supp:
            try:
                supp = [static_int(s) for s in self._supp_shape_from_params(params)]
            except (NotImplementedError, ValueError, TypeError, IndexError):
                pass
        return (*batch, *supp)

    # -- computing --------------------------------------------------------------------
    def rng_fn(self, rng: np.random.Generator, *args: Any, **kwargs: Any) -> Any:
        """Draw with the Generator method named like the distribution."""
        return getattr(rng, self.name)(*args, **kwargs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        rng, size, *args = inputs
        if not self.inplace:
            rng = custom_rng_deepcopy(rng)
        output_storage[0][0] = rng
        if size is not None:
            size = tuple(int(s) for s in size)
        draw = self.rng_fn(rng, *args, size)
        dtype = node.outputs[1].type.numpy_dtype
        if not isinstance(draw, np.ndarray) or draw.dtype != dtype:
            draw = np.asarray(draw, dtype=dtype)
        if not draw.flags.writeable:
            draw = draw.copy()
        output_storage[1][0] = draw

    # -- gradients --------------------------------------------------------------------
    def pullback(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 cotangents: Sequence[Variable]) -> list[Variable]:
        return [
            grad_undefined(self, k, inp, "No gradient defined for random variables")
            for k, inp in enumerate(inputs)
        ]

    def pushforward(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                    tangents: Sequence[Variable]) -> list[Variable]:
        return [
            grad_undefined(self, k, out, "No tangent defined for random variables")
            for k, out in enumerate(outputs)
        ]


def _bcast_static(shapes: Sequence[Sequence[int | None]]) -> list[int | None]:
    ndim = max((len(s) for s in shapes), default=0)
    out: list[int | None] = []
    for i in range(ndim):
        dims = [s[len(s) - ndim + i] for s in shapes if len(s) - ndim + i >= 0]
        big = {d for d in dims if d is not None and d != 1}
        if len(big) > 1:
            raise ValueError(f"parameter shapes could not be broadcast together: {shapes}")
        if big:
            out.append(big.pop())
        elif dims and all(d == 1 for d in dims):
            out.append(1)
        else:
            out.append(None)
    return out


def vectorize_random_variable(op: RandomVariable, node: Apply, *batched_inputs: Any) -> Apply:
    """``node`` rebuilt on parameters that gained leading (batch) dimensions.

    A new ``size`` is used as given; an unchanged ``size`` is extended in front
    with the new batch dimensions of the parameters, so each batch entry still
    draws ``size`` values.  (For ``opgraph.graph.replace._vectorize_node``.)
    """
    rng, size, *params = batched_inputs
    old_size, old_params = node.inputs[1], node.inputs[2:]
    extras = [p.type.ndim - o.type.ndim for p, o in zip(params, old_params, strict=True)]
    old_batch = [o.type.ndim - nd for o, nd in zip(old_params, op.ndims_params, strict=True)]
    n_old = max(old_batch, default=0)
    if not isinstance(old_size.type, NoneTypeT):
        n_old = max(n_old, old_size.type.shape[0])
    # new leading dims first, then the old batch dims right-aligned, then core dims
    params = [
        p.dimshuffle([*range(e), *["x"] * (n_old - b), *range(e, p.type.ndim)])
        if e > 0 and n_old > b else p
        for p, e, b in zip(params, extras, old_batch, strict=True)
    ]
    if not isinstance(size.type, NoneTypeT) and size is old_size:
        n_new = max(extras, default=0)
        if n_new > 0:
            lead = [[1] * (n_new - e) + [p.shape[i] if p.type.shape[i] is None
                                         else p.type.shape[i] for i in range(e)]
                    for p, e in zip(params, extras, strict=True)]
            entries = [size[i] for i in range(size.type.shape[0])]
            size = normalize_size_param([*broadcast_shape_entries(lead), *entries])
    return op.make_node(rng, size, *params)


class DefaultGeneratorMakerOp(Op):
    """``default_rng(seed)``: a new Generator from a (symbolic) seed or None."""

    __props__ = ()
    random_type = random_generator_type

    def make_node(self, seed: Any = None) -> Apply:
        if seed is None:
            seed = NoneConst
        elif not (isinstance(seed, Variable) and isinstance(seed.type, NoneTypeT)):
            seed = as_tensor_variable(seed)
        return Apply(self, [seed], [self.random_type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        (seed,) = inputs
        if seed is not None and np.ndim(seed) == 0:
            seed = int(seed)
        output_storage[0][0] = np.random.default_rng(seed)

    def pullback(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 cotangents: Sequence[Variable]) -> list[Variable]:
        return [grad_undefined(self, 0, inputs[0], "a generator has no gradient")]


default_rng = DefaultGeneratorMakerOp()
"""``default_rng(seed)``: a symbolic NumPy Generator made from a (symbolic) seed."""


@_vectorize_node.register(RandomVariable)
def _vectorize_rv(op: RandomVariable, node: Apply, *batched_inputs: Any) -> Apply:
    """``vectorize_graph`` of a draw: the parameters' new leading axes become batch axes."""
    return vectorize_random_variable(op, node, *batched_inputs)


class RandomVariableWithCoreShape(Op):
    """PyTensor's wrapper bundling a RandomVariable with the core shape of its draws.

    PyTensor's JIT backends (Numba) need the core shape as an explicit input
    and wrap RandomVariable nodes in this Op.  opgraph's backends draw with
    NumPy's Generator, which needs no such wrapper, so no rewrite of opgraph
    builds one; the class exists so that ``isinstance`` checks of ported code
    hold (no node of opgraph's graphs is one).
    """

"""The ``"jax"`` linker: the rewritten graph becomes one ``jax.jit`` function.

The function is traced and compiled on the first call (again only for new
input shapes or dtypes, as ``jax.jit`` does).  Outputs are ``jax.Array``
values, as with PyTensor's JAX backend (they implement the NumPy array
protocol: ``np.asarray(out)`` is a view on CPU); with ``numpy_outputs=True``
they are converted to NumPy arrays.  Shared variables updated by the
function keep their new values on the device between calls: the update
values go to the shared containers as ``jax.Array`` values, unconverted.
NumPy ``Generator`` values of random inputs become JAX PRNG keys at the call
(see :mod:`opgraph_jax.link.dispatch.random`).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from opgraph.compile.sharedvalue import SharedVariable
from opgraph.graph.basic import Variable
from opgraph.link.basic import JITLinker, LinkerResult, StorageCell
from opgraph.scalar.type import ScalarType
from opgraph.tensor.random.type import RandomType
from opgraph.tensor.type import TensorType
from opgraph.utils import lazy_module
from opgraph_jax.link.static import static_input_positions

# JAX and the translations load when a function is first compiled: importing the linker
# (PyMC does at start-up, as PyTensor's JAX linker module allows) costs no JAX import
jax = lazy_module("jax")
_dispatch = lazy_module("opgraph_jax.link.dispatch")
_random = lazy_module("opgraph_jax.link.dispatch.random")

__all__ = ["JAXLinker", "jitted_function"]


class JAXLinker(JITLinker):
    """Compile the whole graph with ``jax.jit`` (options: ``jit``, ``numpy_outputs``)."""

    name = "jax"

    @property
    def native_input_types(self) -> tuple[type, ...]:  # type: ignore[override]
        """Device arrays and PRNG keys are used as they are."""
        return (jax.Array,)

    def __init__(self, *, allow_gc: bool = True, jit: bool = True, numpy_outputs: bool = False,
                 **options: Any) -> None:
        for key, value in (("jit", jit), ("numpy_outputs", numpy_outputs)):
            if not isinstance(value, bool):
                raise TypeError(f"JAXLinker: {key} must be a bool, got {type(value).__name__}")
        super().__init__(allow_gc=allow_gc, jit=jit, numpy_outputs=numpy_outputs, **options)
        self.jit_fn: Callable[..., Any] | None = None  # PyTensor's fn.vm.jit_fn
        self.graph_function: Callable[..., Any] | None = None

    def make_thunk(
        self,
        input_storage: Sequence[StorageCell] | None = None,
        output_storage: Sequence[StorageCell] | None = None,
        storage_map: dict[Variable, StorageCell] | None = None,
    ) -> LinkerResult:
        fgraph, order, input_storage, output_storage, storage_map = self.schedule(
            input_storage, output_storage, storage_map
        )
        rngs = _shared_rng_updates(fgraph, input_storage)  # warns before any translation
        graph_fn = _with_static_arrays(_dispatch.jax_funcify(fgraph, storage_map=storage_map))
        static = static_input_positions(fgraph)
        jitted = jax.jit(graph_fn, static_argnums=static) if self.options["jit"] else graph_fn
        self.graph_function, self.jit_fn = graph_fn, jitted
        converters = [_static_int if k in static else _input_converter(var)
                      for k, var in enumerate(fgraph.inputs)]
        to_numpy = self.options["numpy_outputs"]

        def run() -> None:
            args = [conv(cell[0]) for conv, cell in zip(converters, input_storage)]
            for k, (_, state) in rngs.items():
                if state.get("seen") is input_storage[k][0]:
                    args[k] = state["key"]  # this function's own stream continues
            outs = jitted(*args)
            for cell, value in zip(output_storage, outs):
                # outside jit (jax.disable_jit) a value may still be NumPy or a Python scalar
                cell[0] = np.asarray(value) if to_numpy else value if isinstance(
                    value, jax.Array) else _as_jax(value)
            for k, (out_index, state) in rngs.items():
                # the shared generator keeps its value; the next key stays with this function
                state["key"], state["seen"] = outs[out_index], input_storage[k][0]
                output_storage[out_index][0] = input_storage[k][0]

        return LinkerResult(run, input_storage, output_storage, [], order)


def _static_int(value: Any) -> Any:
    """A static (shape-setting) input as the hashable value jax.jit keys on (int, tuple)."""
    arr = np.asarray(value)
    return int(arr) if arr.ndim == 0 else tuple(int(v) for v in arr)


def _with_static_arrays(graph_fn: Callable[..., Any]) -> Callable[..., Any]:
    """Static vector inputs arrive as tuples (hashable): the graph sees them as arrays again."""

    @functools.wraps(graph_fn)
    def entry(*args: Any) -> Any:
        return graph_fn(*[np.asarray(a) if isinstance(a, tuple) else a for a in args])

    return entry


def _as_jax(value: Any) -> Any:
    try:
        return jax.numpy.asarray(value)
    except TypeError:  # not an array (a slice, None): kept as it is
        return value


def _input_converter(var: Variable) -> Callable[[Any], Any]:
    """How the call turns a stored value into a JAX argument (dtype kept exactly)."""
    vtype = var.type
    if isinstance(vtype, RandomType):
        return _random.generator_to_key
    if isinstance(vtype, TensorType | ScalarType):
        dtype = np.dtype(vtype.dtype)

        def as_array(value: Any) -> Any:
            if isinstance(value, jax.Array) or (isinstance(value, np.ndarray)
                                                and value.dtype == dtype):
                return value
            return np.asarray(value, dtype=dtype)

        return as_array
    return lambda value: value


def _shared_rng_updates(fgraph: Any, input_storage: Sequence[StorageCell]
                        ) -> dict[int, tuple[int, dict[str, Any]]]:
    """Shared NumPy generators the function updates: ``{input: (update output, state)}``.

    As in PyTensor, the shared variable keeps its NumPy Generator: the function
    draws from a JAX key seeded from it and keeps the next key itself (reseeding
    when the shared variable is given a new generator).
    """
    found: dict[int, tuple[int, dict[str, Any]]] = {}
    updates = {i: o for o, i in (fgraph.update_mapping or {}).items()}
    names = []
    for k, (var, cell) in enumerate(zip(fgraph.inputs, input_storage)):
        if isinstance(var.type, RandomType) and isinstance(var, SharedVariable) \
                and isinstance(cell[0], np.random.Generator):
            names.append(str(var))
            if k in updates:
                found[k] = (updates[k], {})
    if names:
        warnings.warn(
            f"The RandomType SharedVariables [{', '.join(names)}] will not be used in the "
            "compiled JAX graph. Instead a copy is used: JAX draws from a PRNG key seeded "
            "from each generator, and the generator itself is left unchanged",
            UserWarning, stacklevel=4,
        )
    return found


def jitted_function(fn: Any) -> Callable[..., Any]:
    """The raw ``jax.jit`` callable behind a JAX-mode ``Function`` (numpyro/blackjax use).

    It takes every input of ``fn.maker.fgraph`` positionally (shared variables
    included, in graph order) and returns a tuple of all outputs (update values last).
    The same object is ``fn.vm.jit_fn``, as in PyTensor.
    """
    linker = getattr(getattr(fn, "maker", None), "linker", None)
    vm = getattr(fn, "vm", None)
    for candidate in (getattr(vm, "linker", None), linker):
        jitted = getattr(candidate, "jit_fn", None)
        if jitted is not None:
            return jitted
    raise TypeError(f"jitted_function: {fn!r} was not compiled with the JAX linker "
                    "(mode='JAX')")

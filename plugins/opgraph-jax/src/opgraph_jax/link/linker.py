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

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np

from opgraph.graph.basic import Variable
from opgraph.link.basic import JITLinker, LinkerResult, StorageCell
from opgraph.scalar.type import ScalarType
from opgraph.tensor.random.type import RandomType
from opgraph.tensor.type import TensorType
from opgraph_jax.link.dispatch import jax_funcify
from opgraph_jax.link.dispatch.random import generator_to_key

__all__ = ["JAXLinker", "jitted_function"]


class JAXLinker(JITLinker):
    """Compile the whole graph with ``jax.jit`` (options: ``jit``, ``numpy_outputs``)."""

    name = "jax"
    native_input_types = (jax.Array,)  # device arrays and PRNG keys are used as they are

    def __init__(self, *, allow_gc: bool = True, jit: bool = True, numpy_outputs: bool = False,
                 **options: Any) -> None:
        for key, value in (("jit", jit), ("numpy_outputs", numpy_outputs)):
            if not isinstance(value, bool):
                raise TypeError(f"JAXLinker: {key} must be a bool, got {type(value).__name__}")
        super().__init__(allow_gc=allow_gc, jit=jit, numpy_outputs=numpy_outputs, **options)
        self.jitted: Callable[..., Any] | None = None
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
        graph_fn = jax_funcify(fgraph, storage_map=storage_map)
        jitted = jax.jit(graph_fn) if self.options["jit"] else graph_fn
        self.graph_function, self.jitted = graph_fn, jitted
        converters = [_input_converter(var) for var in fgraph.inputs]
        _warn_shared_rngs(fgraph, input_storage)
        to_numpy = self.options["numpy_outputs"]

        def run() -> None:
            args = [conv(cell[0]) for conv, cell in zip(converters, input_storage)]
            outs = jitted(*args)
            for cell, value in zip(output_storage, outs):
                # outside jit (jax.disable_jit) a value may still be NumPy or a Python scalar
                cell[0] = np.asarray(value) if to_numpy else value if isinstance(
                    value, jax.Array) else _as_jax(value)

        run.jitted = jitted  # type: ignore[attr-defined]
        return LinkerResult(run, input_storage, output_storage, [], order)


def _as_jax(value: Any) -> Any:
    try:
        return jax.numpy.asarray(value)
    except TypeError:  # not an array (a slice, None): kept as it is
        return value


def _input_converter(var: Variable) -> Callable[[Any], Any]:
    """How the call turns a stored value into a JAX argument (dtype kept exactly)."""
    vtype = var.type
    if isinstance(vtype, RandomType):
        return generator_to_key
    if isinstance(vtype, TensorType | ScalarType):
        dtype = np.dtype(vtype.dtype)

        def as_array(value: Any) -> Any:
            if isinstance(value, jax.Array) or (isinstance(value, np.ndarray)
                                                and value.dtype == dtype):
                return value
            return np.asarray(value, dtype=dtype)

        return as_array
    return lambda value: value


def _warn_shared_rngs(fgraph: Any, input_storage: Sequence[StorageCell]) -> None:
    """Shared NumPy generators are replaced by JAX keys in their containers at the first call."""
    for var, cell in zip(fgraph.inputs, input_storage):
        if isinstance(var.type, RandomType) and isinstance(cell[0], np.random.Generator) \
                and getattr(var, "get_value", None) is not None:
            warnings.warn(
                f"The RandomType SharedVariable {var} holds a NumPy Generator: the JAX "
                "function draws from a JAX PRNG key seeded from it, and its updates are "
                "JAX keys",
                UserWarning, stacklevel=4,
            )


def jitted_function(fn: Any) -> Callable[..., Any]:
    """The raw ``jax.jit`` callable behind a JAX-mode ``Function`` (numpyro/blackjax use).

    It takes every input of ``fn.maker.fgraph`` positionally (shared variables
    included, in graph order) and returns a tuple of all outputs (update values last).
    """
    linker = getattr(getattr(fn, "maker", None), "linker", None)
    vm = getattr(fn, "vm", None)
    for candidate in (getattr(vm, "linker", None), linker):
        jitted = getattr(candidate, "jitted", None)
        if jitted is not None:
            return jitted
    raise TypeError(f"jitted_function: {fn!r} was not compiled with the JAX linker "
                    "(mode='JAX')")

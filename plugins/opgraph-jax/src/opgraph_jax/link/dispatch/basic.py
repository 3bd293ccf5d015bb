"""``jax_funcify`` / ``jax_typify``: the two single-dispatch functions of the JAX backend.

``jax_funcify(op, node=...)`` returns a JAX-traceable Python function computing
``op``'s outputs from its inputs; ``jax_typify(value)`` turns a runtime value
into what those functions take.  Third parties register their own Ops with
``@jax_funcify.register(MyOp)`` (PyMC does), exactly as with PyTensor.

A graph becomes one function that runs the nodes' functions in order.  A node
whose inputs are all concrete (constants, shapes: JAX knows them while it
traces) runs eagerly under ``jax.ensure_compile_time_eval``, so shape
arithmetic stays static: ``jnp.reshape`` and friends need Python integers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import singledispatch
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from opgraph_ofg import OpFromGraph

from opgraph.compile.ops import DeepCopyOp, TypeCastingOp
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.fg import FunctionGraph
from opgraph.ifelse import IfElse
from opgraph.link.basic import raise_with_op
from opgraph.plugins import find_op_impl
from opgraph.raise_op import CheckAndRaise

__all__ = [
    "JAXUnsupportedOpError",
    "funcify_graph",
    "is_concrete",
    "jax_funcify",
    "jax_typify",
    "static_int",
    "static_ints",
]

BACKEND = "jax"  # the name this linker gives the opgraph_op_impl hook

jax.config.update("jax_enable_x64", True)  # opgraph's float64/int64 must stay 64-bit


class JAXUnsupportedOpError(NotImplementedError):
    """An Op that has no JAX translation (raised when the function is compiled)."""


@singledispatch
def jax_funcify(op: Any, node: Apply | None = None, storage_map: Any = None,
                **kwargs: Any) -> Callable[..., Any]:
    """A JAX-traceable function computing ``op`` (register translations per Op class).

    An Op without a registration may get one from another plugin through the
    ``opgraph_op_impl`` hook: ``OpImpl("jax", f)`` where ``f(op, node=None, **kwargs)``
    returns the function, as a registration does.
    """
    provided = find_op_impl(op, BACKEND)
    if provided is not None:
        return provided(op, node=node, storage_map=storage_map, **kwargs)
    raise JAXUnsupportedOpError(
        f"No JAX conversion for the given Op: {op} ({type(op).__module__}."
        f"{type(op).__qualname__}). Register one with "
        "@opgraph.link.jax.dispatch.jax_funcify.register, or compile with another mode"
    )


@singledispatch
def jax_typify(data: Any, dtype: Any = None, **kwargs: Any) -> Any:
    """``data`` as a value JAX functions take (unknown types pass as they are)."""
    return data


@jax_typify.register(np.ndarray)
def jax_typify_ndarray(data: np.ndarray, dtype: Any = None, **kwargs: Any) -> Any:
    return jnp.asarray(data, dtype=dtype)


@jax_typify.register(np.generic)
@jax_typify.register(int)
@jax_typify.register(float)
@jax_typify.register(bool)
def _typify_scalar(data: Any, dtype: Any = None, **kwargs: Any) -> Any:
    return jnp.asarray(data, dtype=dtype if dtype is not None else np.asarray(data).dtype)


def is_concrete(value: Any) -> bool:
    """True when ``value`` is known while tracing (not a tracer)."""
    return not isinstance(value, jax.core.Tracer)


def static_ints(value: Any, what: str, op: Any) -> tuple[int, ...]:
    """``value`` (a shape, sizes) as Python ints; JAX needs them when it traces."""
    if not is_concrete(value):
        raise JAXUnsupportedOpError(
            f"{op}: JAX needs the {what} as a constant when it compiles, but it depends on "
            "an input's value. Use values known from shapes or constants (or another mode)"
        )
    return tuple(int(v) for v in np.asarray(value).reshape(-1))


def static_int(value: Any, what: str, op: Any) -> int:
    (out,) = static_ints(value, what, op)
    return out


def _fix_dtypes(node: Apply, results: Sequence[Any]) -> list[Any]:
    """Results cast to the node's output dtypes where JAX's promotion differs from NumPy's."""
    fixed = []
    for var, value in zip(node.outputs, results):
        dtype = getattr(var.type, "dtype", None)
        if (dtype is not None and hasattr(value, "dtype") and dtype not in ("object",)
                and getattr(var.type, "ndim", 0) is not None
                and str(value.dtype) != dtype and _is_array_like(value)):
            value = value.astype(dtype)
        fixed.append(value)
    return fixed


def _is_array_like(value: Any) -> bool:
    return isinstance(value, jax.Array | np.ndarray | np.generic)


def node_function(node: Apply, **kwargs: Any) -> Callable[[Sequence[Any]], list[Any]]:
    """``node``'s translation as ``values -> list of output values`` (dtypes as declared)."""
    try:
        fn = jax_funcify(node.op, node=node, **kwargs)
    except Exception as exc:
        raise raise_with_op(exc, node) from None
    n_out = len(node.outputs)
    fixes_dtype = all(hasattr(v.type, "dtype") for v in node.outputs)

    def run(values: Sequence[Any]) -> list[Any]:
        if values and all(is_concrete(v) for v in values) and not _stateful(node):
            with jax.ensure_compile_time_eval():
                out = fn(*values)
        else:
            out = fn(*values)
        if n_out == 1 and not (isinstance(out, list | tuple) and len(out) == 1):
            out = [out]
        out = list(out)
        if len(out) != n_out:
            raise ValueError(f"JAX translation of {node.op} returned {len(out)} values for "
                             f"{n_out} outputs")
        return _fix_dtypes(node, out) if fixes_dtype else out

    return run


def _stateful(node: Apply) -> bool:
    """Nodes never run eagerly: their function has side effects or calls back."""
    return bool(getattr(node.op, "jax_not_eager", False))


def funcify_graph(fgraph: FunctionGraph, **kwargs: Any) -> Callable[..., tuple[Any, ...]]:
    """``fgraph`` as one function ``(*inputs) -> tuple of outputs``: each node computed once."""
    order = fgraph.toposort()
    steps = [(node, node_function(node, **kwargs)) for node in order]
    inputs = list(fgraph.inputs)
    outputs = list(fgraph.outputs)
    constants: dict[Variable, Any] = {}
    for node in order:
        for var in node.inputs:
            if isinstance(var, Constant) and var not in constants:
                constants[var] = typify_constant(var)
    for var in outputs:
        if isinstance(var, Constant) and var not in constants:
            constants[var] = typify_constant(var)

    def graph_function(*args: Any) -> tuple[Any, ...]:
        if len(args) != len(inputs):
            raise TypeError(f"expected {len(inputs)} inputs, got {len(args)}")
        env: dict[Variable, Any] = dict(constants)
        env.update(zip(inputs, args))
        for node, run in steps:
            try:
                results = run([env[v] for v in node.inputs])
            except Exception as exc:
                raise raise_with_op(exc, node) from None
            env.update(zip(node.outputs, results))
        return tuple(env[v] for v in outputs)

    graph_function.__name__ = f"jax_funcified_{getattr(fgraph, 'name', None) or 'fgraph'}"
    return graph_function


def typify_constant(var: Constant) -> Any:
    """A constant's data for JAX: arrays stay NumPy (concrete while tracing)."""
    data = var.data
    dtype = getattr(var.type, "dtype", None)
    if isinstance(data, np.ndarray | np.generic | int | float | bool) and dtype:
        return np.asarray(data, dtype=dtype)
    return data


@jax_funcify.register(FunctionGraph)
def jax_funcify_FunctionGraph(fgraph: FunctionGraph, node: Any = None,
                              **kwargs: Any) -> Callable:
    """A whole graph as one JAX function (PyTensor's name for this translation)."""
    return funcify_graph(fgraph, **kwargs)


def jnp_safe_copy(x: Any) -> Any:
    """A copy of ``x``: ``jnp.copy`` for what JAX takes, the value's own ``copy`` else."""
    try:
        return jnp.copy(x)
    except TypeError:
        return x.copy() if hasattr(x, "copy") else x


@jax_funcify.register(DeepCopyOp)
def jax_funcify_DeepCopyOp(op: Any, **kwargs: Any) -> Callable:
    """JAX arrays are immutable: the output may be the input itself."""

    def deep_copy(x: Any) -> Any:
        return x

    return deep_copy


@jax_funcify.register(TypeCastingOp)
def jax_funcify_TypeCastingOp(op: Any, **kwargs: Any) -> Callable:
    """A view or a type cast (``ViewOp``, output guards) is the value unchanged."""

    def type_cast(x: Any) -> Any:
        return x

    return type_cast


def registered_translation(op_class: type) -> Callable[..., Any]:
    """The translation ``jax_funcify`` uses for ``op_class``.

    PyTensor names each translation ``jax_funcify_<Op>`` in the dispatch module
    of its area; opgraph registers many Ops through one table per area, and the
    modules at PyTensor's paths bind those names with this.
    """
    return jax_funcify.dispatch(op_class)


# Translations registered by the area modules this one is imported before
# (PyTensor defines them here): resolved when asked for.
_REGISTERED_LATER = {"jax_funcify_IfElse": IfElse, "jax_funcify_CheckAndRaise": CheckAndRaise,
                     "jax_funcify_OpFromGraph": OpFromGraph}


def __getattr__(name: str) -> Any:
    if name in _REGISTERED_LATER:
        return registered_translation(_REGISTERED_LATER[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""Scalar and elementwise Ops through ONE table: scalar Op class -> JAX function.

A scalar Op's JAX function is found, in order, in :data:`SCALAR_TABLE` (Ops
whose NumPy name has no ``jax.numpy`` twin, or that need their parameters),
then ``jax.scipy.special.<scipy_name>`` (opgraph-special's Ops), then
``jax.numpy.<name>`` from the Op's ``nfunc_spec`` (the NumPy ufunc it
mirrors).  ``Elemwise`` applies the same function to whole arrays (JAX
broadcasts), so each scalar Op is translated once for both.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import operator
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np

import opgraph.scalar
from opgraph.graph.basic import Apply
from opgraph.scalar.arith import Add, IntDiv, Mod, Mul, Sub
from opgraph.scalar.basic import ScalarOp
from opgraph.scalar.complex import Angle, Complex, ComplexFromPolar, Conj, Imag, Real
from opgraph.scalar.composite import Composite
from opgraph.scalar.loop import ScalarLoop
from opgraph.scalar.math import Log1mexp, RoundHalfAwayFromZero, Sigmoid, Softplus
from opgraph.scalar.structural import Cast, Identity, Second, Switch
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph_jax.link.dispatch.basic import JAXUnsupportedOpError, funcify_graph, jax_funcify
from opgraph_jax.link.dispatch.special_inverse import betaincinv, gammainccinv, gammaincinv

__all__ = ["SCALAR_TABLE", "all_inputs_are_scalar", "jax_funcify_scalar_op_via_py_operators",
           "scalar_function", "try_import_tfp_jax_op"]


def _log1mexp(x: Any) -> Any:
    return jnp.where(x < -0.6931471805599453, jnp.log1p(-jnp.exp(x)), jnp.log(-jnp.expm1(x)))


def _round_half_away(x: Any) -> Any:
    return jnp.sign(x) * jnp.floor(jnp.abs(x) + 0.5)


def _second(x: Any, y: Any) -> Any:
    return jnp.broadcast_to(y, jnp.broadcast_shapes(jnp.shape(x), jnp.shape(y)))


def _identity(x: Any) -> Any:
    return x


SCALAR_TABLE: dict[type, Callable[..., Any]] = {
    Sigmoid: jax.nn.sigmoid,
    Softplus: jax.nn.softplus,
    Log1mexp: _log1mexp,
    RoundHalfAwayFromZero: _round_half_away,
    Switch: jnp.where,
    Second: _second,
    Identity: _identity,
    Real: jnp.real,
    Imag: jnp.imag,
    Angle: jnp.angle,
    Conj: jnp.conj,
    Complex: lambda re, im: re + 1j * im,
    ComplexFromPolar: lambda r, theta: r * jnp.exp(1j * theta),
}
"""Scalar Ops whose JAX function is not ``jnp.<nfunc name>`` (extend it for new Ops)."""

_SPECIAL_ALIASES = {"psi": "digamma"}
_SPECIAL_EXTRA: dict[str, Callable[..., Any]] = {
    "erfcinv": lambda x: jsp.erfinv(1 - x),
    "erfcx": lambda x: _erfcx(x),
    "gammaincinv": gammaincinv,
    "gammainccinv": gammainccinv,
    "betaincinv": betaincinv,
}


def _erfcx(x: Any) -> Any:
    """exp(x**2) erfc(x) without overflow: the asymptotic series (terms to x**-12) from 25."""
    large = x >= 25.0
    small_x = jnp.where(large, 0.0, x)
    big_x = jnp.where(large, x, 25.0)
    inv = 1.0 / (2.0 * big_x * big_x)
    series, term = 1.0, 1.0
    for k in range(1, 7):
        term = term * -(2 * k - 1) * inv
        series = series + term
    asymptotic = series / (big_x * 1.7724538509055159)
    return jnp.where(large, asymptotic, jnp.exp(small_x * small_x) * jsp.erfc(small_x))


def _register_special_faces() -> None:
    """opgraph-special's TriGamma / Polygamma (its scipy_name is only their dtype rule)."""
    table = {"TriGamma": lambda x: jsp.polygamma(1, x),
             "PolyGamma": lambda n, x: jsp.polygamma(jnp.asarray(n).astype(int), x)}
    for name, fn in table.items():
        cls = getattr(opgraph.scalar, name, None)
        if isinstance(cls, type):
            SCALAR_TABLE[cls] = fn


_register_special_faces()


def _folded(binary: Callable[..., Any]) -> Callable[..., Any]:
    """A binary function applied left to right over any number of inputs (add, mul...)."""

    def folded(*xs: Any) -> Any:
        return functools.reduce(binary, xs[1:], xs[0]) if len(xs) != 2 else binary(*xs)

    return folded


def scalar_function(op: ScalarOp, node: Apply | None = None) -> Callable[..., Any]:
    """The JAX function computing scalar Op ``op`` (elementwise over arrays)."""
    for cls in type(op).__mro__:
        if cls in SCALAR_TABLE:
            return SCALAR_TABLE[cls]
    if isinstance(op, Cast):
        dtype = op.o_type.dtype
        return lambda x: jnp.asarray(x).astype(dtype)
    if isinstance(op, Composite):
        inner = funcify_graph(op.fgraph)
        single = len(op.fgraph.outputs) == 1

        def composite(*args: Any) -> Any:
            out = inner(*args)
            return out[0] if single else out

        return composite
    scipy_name = getattr(op, "scipy_name", "")
    if scipy_name:
        fn = _SPECIAL_EXTRA.get(scipy_name) or getattr(
            jsp, _SPECIAL_ALIASES.get(scipy_name, scipy_name), None)
        if fn is not None:
            return fn
    spec = getattr(op, "nfunc_spec", None)
    if spec is not None:
        fn = getattr(jnp, spec[0], None)
        if fn is not None:
            return _folded(fn) if spec[1] == 2 else fn
    raise JAXUnsupportedOpError(
        f"No JAX conversion for the scalar Op {op} ({type(op).__name__}): add it to "
        "opgraph.link.jax.dispatch.scalar.SCALAR_TABLE or register it with jax_funcify"
    )


@jax_funcify.register(ScalarOp)
def _funcify_scalar_op(op: ScalarOp, node: Apply | None = None, **kwargs: Any) -> Callable:
    return scalar_function(op, node)


@jax_funcify.register(ScalarLoop)
def _funcify_scalar_loop(op: ScalarLoop, node: Apply | None = None, **kwargs: Any) -> Callable:
    update = funcify_graph(op.inner.fgraph)
    n_state = op.n_init
    has_until = op.has_until

    def loop(n_steps: Any, *values: Any) -> Any:
        state, consts = list(values[:n_state]), list(values[n_state:])

        def cond(carry: Any) -> Any:
            i, _, done = carry
            return (i < n_steps) & ~done

        def body(carry: Any) -> Any:
            i, st, done = carry
            out = update(*st, *consts)
            new = [jnp.asarray(v).astype(jnp.asarray(s).dtype) for v, s in zip(out, st)]
            stop = jnp.asarray(out[n_state]).astype(bool) if has_until else done
            return i + 1, new, stop

        _, final, done = jax.lax.while_loop(
            cond, body, (jnp.asarray(0, dtype=jnp.int64), state, jnp.asarray(False)))
        return (*final, done) if has_until else tuple(final)

    vectorized = jnp.vectorize(loop)  # over arrays (inside Elemwise) element by element

    def scalar_loop(*args: Any) -> Any:
        out = vectorized(*args)
        return list(out) if len(out) > 1 else out[0]

    return scalar_loop


def _check_runtime_broadcast(node: Apply, values: tuple) -> None:
    """opgraph broadcasts only dimensions of static length 1 (as PyTensor): check the rest."""
    shapes = [np.shape(v) for v in values]
    ndim = max((len(s) for s in shapes), default=0)
    for d in range(ndim):
        sizes = {s[d - ndim + len(s)] for s in shapes if d - ndim + len(s) >= 0}
        if len(sizes - {1}) > 1:
            continue  # a real shape mismatch: jnp reports it
        if len(sizes) > 1:
            for var, s in zip(node.inputs, shapes):
                k = d - ndim + len(s)
                if k >= 0 and s[k] == 1 and var.type.shape[k] != 1:
                    raise ValueError(
                        f"Runtime broadcasting not allowed. {node.op}: input {var} has length "
                        f"1 in dimension {k} at runtime, but its type {var.type} does not "
                        "declare it broadcastable"
                    )


@jax_funcify.register(Elemwise)
def _funcify_elemwise(op: Elemwise, node: Apply | None = None, **kwargs: Any) -> Callable:
    fn = jax_funcify(op.scalar_op, node=node, **kwargs)

    def elemwise(*values: Any) -> Any:
        if node is not None and len(values) > 1:
            _check_runtime_broadcast(node, values)
        return fn(*values)

    return elemwise


@jax_funcify.register(DimShuffle)
def _funcify_dimshuffle(op: DimShuffle, node: Apply | None = None, **kwargs: Any) -> Callable:
    kept = [d for d in op.new_order if d != "x"]
    drop = list(op.drop)
    augment = [i for i, d in enumerate(op.new_order) if d == "x"]

    def dimshuffle(x: Any) -> Any:
        y = jnp.transpose(x, kept + drop) if kept + drop else x
        if drop:
            y = jnp.reshape(y, jnp.shape(y)[: len(kept)])
        if augment:
            y = jnp.expand_dims(y, augment)
        return y

    return dimshuffle


def all_inputs_are_scalar(node: Apply) -> bool:
    """True when every input of ``node`` is a 0-d value (Python operators then suffice)."""
    return all(getattr(var.type, "ndim", 0) == 0 for var in node.inputs)


@functools.singledispatch
def jax_funcify_scalar_op_via_py_operators(op: Any) -> Callable[..., Any]:
    """A function computing ``op`` with Python's operators (``+``, ``*``, ``//``...), which
    keep Python scalars as they are; registered for the arithmetic Ops that have one."""
    raise NotImplementedError(f"{op} has no Python-operator form; use jax_funcify")


def _via(binary: Callable[[Any, Any], Any]) -> Callable[[Any], Callable[..., Any]]:
    def for_op(op: Any) -> Callable[..., Any]:
        return lambda *xs: functools.reduce(binary, xs[1:], xs[0])

    return for_op


jax_funcify_scalar_Add = jax_funcify_scalar_op_via_py_operators.register(Add)(_via(operator.add))
jax_funcify_scalar_Mul = jax_funcify_scalar_op_via_py_operators.register(Mul)(_via(operator.mul))
jax_funcify_scalar_Sub = jax_funcify_scalar_op_via_py_operators.register(Sub)(_via(operator.sub))
jax_funcify_scalar_IntDiv = jax_funcify_scalar_op_via_py_operators.register(IntDiv)(
    _via(operator.floordiv))
jax_funcify_scalar_Mod = jax_funcify_scalar_op_via_py_operators.register(Mod)(_via(operator.mod))

_TFP = "tensorflow_probability.substrates.jax.math"


def try_import_tfp_jax_op(op: ScalarOp, jax_op_name: str | None = None) -> Callable[..., Any]:
    """TensorFlow Probability's JAX function for ``op`` (named ``jax_op_name`` or the Op's
    NumPy name); ImportError naming the package when it is not installed."""
    if importlib.util.find_spec("tensorflow_probability") is None:
        raise ImportError(f"The JAX translation of {op} through TensorFlow Probability needs "
                          "the package tensorflow-probability (pip install tensorflow-probability)")
    name = jax_op_name or op.nfunc_spec[0]
    return getattr(importlib.import_module(_TFP), name)


def jax_funcify_from_tfp(op: ScalarOp, **kwargs: Any) -> Callable[..., Any]:
    """PyTensor's translation through TensorFlow Probability (opgraph translates those Ops
    itself; this stays for code that asks for TFP's version)."""
    return try_import_tfp_jax_op(op)


# PyTensor names one translation per scalar Op; opgraph's is one table (scalar_function).
jax_funcify_ScalarOp = _funcify_scalar_op
jax_funcify_Cast = _funcify_scalar_op
jax_funcify_Clip = _funcify_scalar_op
jax_funcify_Composite = _funcify_scalar_op
jax_funcify_Erf = _funcify_scalar_op
jax_funcify_Erfc = _funcify_scalar_op
jax_funcify_Erfinv = _funcify_scalar_op
jax_funcify_GammaIncCInv = _funcify_scalar_op
jax_funcify_GammaIncInv = _funcify_scalar_op
jax_funcify_Identity = _funcify_scalar_op
jax_funcify_Ive = _funcify_scalar_op
jax_funcify_Kve = _funcify_scalar_op
jax_funcify_Log1mexp = _funcify_scalar_op
jax_funcify_Psi = _funcify_scalar_op
jax_funcify_Second = _funcify_scalar_op
jax_funcify_Softplus = _funcify_scalar_op
jax_funcify_TriGamma = _funcify_scalar_op

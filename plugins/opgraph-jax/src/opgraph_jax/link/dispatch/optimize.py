"""The optimize Ops (``opgraph.tensor.optimize``) where JAX has a solver.

``minimize`` / ``minimize_scalar`` run ``jax.scipy.optimize.minimize`` (BFGS,
JAX's one method) on the inner objective; ``root`` / ``root_scalar`` run
Newton's method in a ``lax.while_loop`` with the Jacobian from ``jax.jacfwd``.
The solvers differ from SciPy's, so where a problem has several solutions
they may find another one; the success flag says whether they converged.
Other SciPy methods are not translated (a clear error at compile time).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.optimize as jso
from opgraph.tensor.optimize import MinimizeOp, MinimizeScalarOp, RootOp, RootScalarOp

from opgraph.graph.basic import Apply
from opgraph.graph.fg import FunctionGraph
from opgraph_jax.link.dispatch.basic import JAXUnsupportedOpError, funcify_graph, jax_funcify

__all__: list[str] = []

_NEWTON_STEPS = 100
_TOL = 1e-10


def _first_output(op: Any) -> Callable[..., Any]:
    inner = funcify_graph(FunctionGraph(op.inner_inputs, op.inner_outputs, clone=True))
    return lambda x, *args: inner(x, *args)[0]


def _minimize(op: Any) -> Callable:
    method = getattr(op, "method", "BFGS")
    if str(method).upper() not in ("BFGS", "BRENT"):
        raise JAXUnsupportedOpError(f"{op}: JAX minimizes with BFGS only, not {method!r}")
    objective = _first_output(op)
    options = {k: v for k, v in getattr(op, "optimizer_kwargs", {}).get("options", {}).items()
               if k in ("maxiter", "gtol", "norm")}

    def minimize(x0: Any, *args: Any) -> list[Any]:
        shape = jnp.shape(x0)
        res = jso.minimize(lambda v: objective(v.reshape(shape), *args),
                           jnp.ravel(jnp.asarray(x0, dtype=float)), method="BFGS",
                           options=options or None)
        return [res.x.reshape(shape), res.success]

    return minimize


def _root(op: Any) -> Callable:
    equations = _first_output(op)

    def root(x0: Any, *args: Any) -> list[Any]:
        shape = jnp.shape(x0)

        def f(v: Any) -> Any:
            return jnp.ravel(equations(v.reshape(shape), *args))

        def body(carry: Any) -> Any:
            i, v = carry
            jac = jnp.atleast_2d(jax.jacfwd(f)(v))
            return i + 1, v - jnp.linalg.solve(jac, f(v))

        def cond(carry: Any) -> Any:
            i, v = carry
            return (i < _NEWTON_STEPS) & (jnp.max(jnp.abs(f(v))) > _TOL)

        _, x = jax.lax.while_loop(cond, body, (0, jnp.ravel(jnp.asarray(x0, dtype=float))))
        return [x.reshape(shape), jnp.max(jnp.abs(f(x))) <= _TOL * 1e3]

    return root


@jax_funcify.register(MinimizeOp)
@jax_funcify.register(MinimizeScalarOp)
def _funcify_minimize(op: Any, node: Apply | None = None, **kwargs: Any) -> Callable:
    return _minimize(op)


@jax_funcify.register(RootOp)
@jax_funcify.register(RootScalarOp)
def _funcify_root(op: Any, node: Apply | None = None, **kwargs: Any) -> Callable:
    return _root(op)

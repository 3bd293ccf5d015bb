"""``minimize``, ``minimize_scalar``, ``root`` and ``root_scalar``: the user functions.

They find the parameters the objective closes over (``args``: the nearest
variables that do not depend on ``x``, leaving constant sub-graphs inside),
pack a list of unknowns into one vector when given several, and build the Op.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.graph.basic import Constant, Variable, graph_inputs
from opgraph.graph.replace import graph_replace
from opgraph.graph.traversal import truncated_graph_inputs
from opgraph_linalg.optimize.ops import MinimizeOp, MinimizeScalarOp, RootOp, RootScalarOp
from opgraph_linalg.optimize.wrapper import as_vector as _as_vector

__all__ = ["minimize", "minimize_scalar", "root", "root_scalar"]


def _is_constant_expression(var: Variable) -> bool:
    return all(isinstance(v, Constant) for v in graph_inputs([var]))


def find_args(who: str, objective: Variable, x: Variable) -> list[Variable]:
    """The variables ``objective`` needs besides ``x``: the Op's args, in graph order."""
    if not isinstance(x, Variable):
        raise TypeError(f"{who}: x must be a symbolic Variable; got {type(x).__name__} "
                        f"{x!r:.60}")
    return [v for v in truncated_graph_inputs([objective], [x])
            if v is not x and not isinstance(v, Constant) and not _is_constant_expression(v)]


def _pack(who: str, objective: Variable, xs: Sequence[Any]
          ) -> tuple[Variable, Variable, Variable, Any]:
    """One vector for several unknowns: (objective on it, start, the vector, unpack)."""
    xs = list(xs)
    for k, v in enumerate(xs):
        if not isinstance(v, Variable):
            raise TypeError(f"{who}: x[{k}] must be a symbolic Variable; got "
                            f"{type(v).__name__} {v!r:.60}")
    if not xs:
        raise ValueError(f"{who}: x is an empty list; give at least one variable")
    dtype = str(np.result_type(*[v.type.dtype for v in xs]))
    start = pt.concatenate([_as_vector(pt.cast(v, dtype)) for v in xs])
    packed = start.type()
    packed.name = "packed_" + "_".join(str(v.name or "x") for v in xs)

    def pieces(flat: Variable) -> list[Variable]:
        out, offset = [], 0
        for v in xs:
            if v.type.ndim == 0:
                out.append(pt.cast(flat[offset], v.type.dtype))
                offset = offset + 1
            else:
                size = v.size if v.type.shape[0] is None or v.type.ndim > 1 else v.type.shape[0]
                piece = flat[offset:offset + size]
                if v.type.ndim > 1:
                    piece = piece.reshape(v.shape, ndim=v.type.ndim)
                out.append(pt.cast(piece, v.type.dtype))
                offset = offset + size
        return out

    new_objective = graph_replace(objective, dict(zip(xs, pieces(packed))), strict=False)
    return new_objective, start, packed, pieces


def _solve(who: str, build: Any, objective: Any, x: Any) -> tuple[Any, Variable]:
    if isinstance(x, list | tuple):
        objective, start, packed, pieces = _pack(who, objective, x)
        args = find_args(who, objective, packed)
        x_star, success = build(packed, args, objective)(start, *args)
        return pieces(x_star), success
    if not isinstance(objective, Variable):
        objective = pt.as_tensor_variable(objective)
    args = find_args(who, objective, x)
    op = build(x, args, objective)
    return op(x, *args)


def minimize(objective: Variable, x: Variable | Sequence[Variable], method: str = "BFGS",
             jac: bool = True, hess: bool = False, use_vectorized_jac: bool = False,
             optimizer_kwargs: Mapping[str, Any] | None = None) -> tuple[Any, Variable]:
    """``x*`` minimising ``objective`` (by ``scipy.optimize.minimize``), and a success flag.

    ``x`` is the starting point; a list of variables is solved jointly and the
    solution comes back as a list.  Gradients of ``x*`` with respect to the
    other variables of ``objective`` follow from the implicit function theorem.
    """
    def build(xv: Variable, args: list[Variable], obj: Variable) -> MinimizeOp:
        return MinimizeOp(xv, *args, objective=obj, method=method, jac=jac, hess=hess,
                          use_vectorized_jac=use_vectorized_jac,
                          optimizer_kwargs=optimizer_kwargs)

    return _solve("minimize", build, objective, x)


def minimize_scalar(objective: Variable, x: Variable, method: str = "brent",
                    optimizer_kwargs: Mapping[str, Any] | None = None
                    ) -> tuple[Variable, Variable]:
    """``x*`` minimising a scalar function of one scalar (``scipy.optimize.minimize_scalar``)."""
    def build(xv: Variable, args: list[Variable], obj: Variable) -> MinimizeScalarOp:
        return MinimizeScalarOp(xv, *args, objective=obj, method=method,
                                optimizer_kwargs=optimizer_kwargs)

    return _solve("minimize_scalar", build, objective, x)


def root(equations: Variable, variables: Variable | Sequence[Variable], method: str = "hybr",
         jac: bool = True, use_vectorized_jac: bool = False,
         optimizer_kwargs: Mapping[str, Any] | None = None) -> tuple[Any, Variable]:
    """``x*`` with ``equations(x*) = 0`` (``scipy.optimize.root``), and a success flag."""
    def build(xv: Variable, args: list[Variable], eqs: Variable) -> RootOp:
        return RootOp(xv, *args, equations=eqs, method=method, jac=jac,
                      use_vectorized_jac=use_vectorized_jac, optimizer_kwargs=optimizer_kwargs)

    return _solve("root", build, equations, variables)


def root_scalar(equation: Variable, variable: Variable, method: str = "secant",
                jac: bool = False, hess: bool = False,
                optimizer_kwargs: Mapping[str, Any] | None = None
                ) -> tuple[Variable, Variable]:
    """The root of one scalar equation in one scalar unknown (``scipy.optimize.root_scalar``)."""
    def build(xv: Variable, args: list[Variable], eq: Variable) -> RootScalarOp:
        return RootScalarOp(xv, *args, equation=eq, method=method, jac=jac, hess=hess,
                            optimizer_kwargs=optimizer_kwargs)

    return _solve("root_scalar", build, equation, variable)

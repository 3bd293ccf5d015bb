"""The four optimizer Ops: minimize, minimize_scalar, root and root_scalar of scipy.optimize.

Each builds its inner graph (the objective or equations, and the derivatives
SciPy is asked to use) on fresh ``[x, *args]`` and calls SciPy in perform.
SciPy's vector solvers work on 1-d arrays: ``x`` of any shape is flattened on
the way in and reshaped before the inner graph sees it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from opgraph.gradient import grad, hessian, jacobian
from opgraph.graph.basic import Variable
from opgraph.tensor import as_tensor_variable
from opgraph.utils import lazy_scipy_module
from opgraph_linalg.optimize.wrapper import (
    ScipyScalarWrapperOp,
    ScipyWrapperOp,
    check_method,
    inner_graph,
)

so = lazy_scipy_module("optimize")  # imported on first use, not at plugin load

__all__ = ["MinimizeOp", "MinimizeScalarOp", "RootOp", "RootScalarOp"]

MINIMIZE_METHODS = ("nelder-mead", "powell", "cg", "bfgs", "newton-cg", "l-bfgs-b", "tnc",
                    "cobyla", "cobyqa", "slsqp", "trust-constr", "dogleg", "trust-ncg",
                    "trust-exact", "trust-krylov")
MINIMIZE_SCALAR_METHODS = ("brent", "bounded", "golden")
ROOT_METHODS = ("hybr", "lm", "broyden1", "broyden2", "anderson", "linearmixing",
                "diagbroyden", "excitingmixing", "krylov", "df-sane")
ROOT_SCALAR_METHODS = ("bisect", "brentq", "brenth", "ridder", "toms748", "newton", "secant",
                       "halley")


def _kwargs(who: str, optimizer_kwargs: Mapping[str, Any] | None) -> dict[str, Any]:
    if optimizer_kwargs is None:
        return {}
    if not isinstance(optimizer_kwargs, Mapping):
        raise TypeError(f"{who}: optimizer_kwargs must be a dict of SciPy options; got "
                        f"{type(optimizer_kwargs).__name__}")
    return dict(optimizer_kwargs)


def _as_var(who: str, name: str, value: Any) -> Variable:
    if isinstance(value, Variable):
        return value
    try:
        return as_tensor_variable(value)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{who}: {name} must be a symbolic tensor; got "
                        f"{type(value).__name__} {value!r:.60}") from err


class _Evaluator:
    """The compiled inner graph as SciPy's callback: reshapes x, remembers the last call."""

    def __init__(self, fn: Any, args: list[Any], shape: tuple[int, ...], dtype: str) -> None:
        self.fn, self.args, self.shape, self.dtype = fn, args, shape, dtype
        self._key: bytes | None = None
        self._values: list[Any] = []

    def __call__(self, x: Any) -> list[Any]:
        x = np.asarray(x, dtype=self.dtype).reshape(self.shape)
        key = x.tobytes()
        if key != self._key:
            self._values = list(self.fn(x, *self.args))
            self._key = key
        return self._values


class MinimizeOp(ScipyWrapperOp):
    """``scipy.optimize.minimize`` of a scalar objective over ``x`` (any shape)."""

    def __init__(self, x: Variable, *args: Variable, objective: Variable, method: str = "BFGS",
                 jac: bool = True, hess: bool = False, hessp: bool = False,
                 use_vectorized_jac: bool = False,
                 optimizer_kwargs: Mapping[str, Any] | None = None) -> None:
        who = "scipy.optimize.minimize"
        objective = _as_var(who, "objective", objective)
        if objective.type.ndim != 0:
            raise ValueError(f"minimize: the objective must be a scalar; got {objective.type} "
                             f"with {objective.type.ndim} dimensions")
        self.method = check_method(who, method, MINIMIZE_METHODS)
        self.jac, self.hess, self.hessp = bool(jac), bool(hess), bool(hessp)
        self.use_vectorized_jac = bool(use_vectorized_jac)
        self.optimizer_kwargs = _kwargs("minimize", optimizer_kwargs)
        self._inputs, (obj,) = inner_graph("MinimizeOp", [x, *args], [objective])
        x_in = self._inputs[0]
        gx = grad(obj, x_in, disconnected_inputs="ignore")
        outs = [obj]
        if self.jac:
            outs.append(gx)
        if self.hess:
            outs.append(hessian(obj, x_in, vectorize=self.use_vectorized_jac)
                        if x_in.type.ndim == 1 else
                        jacobian(gx.flatten(), x_in, vectorize=self.use_vectorized_jac))
        self._outputs, self._residual, self._fn = outs, gx, None

    def solve_numeric(self, x0: np.ndarray, args: list[Any], dtype: str) -> tuple[Any, bool]:
        ev = _Evaluator(self.fn, args, x0.shape, dtype)
        size = x0.size

        def fun(x: Any) -> Any:
            values = ev(x)
            f = float(values[0])
            return (f, np.asarray(values[1], dtype="float64").ravel()) if self.jac else f

        kw = dict(self.optimizer_kwargs)
        if self.hess:
            kw["hess"] = lambda x: np.asarray(ev(x)[-1], dtype="float64").reshape(size, size)
        res = so.minimize(fun, np.asarray(x0, dtype="float64").ravel(), method=self.method,
                          jac=self.jac, **kw)
        return res.x, res.success


class MinimizeScalarOp(ScipyScalarWrapperOp):
    """``scipy.optimize.minimize_scalar`` of a scalar objective over a scalar ``x``."""

    def __init__(self, x: Variable, *args: Variable, objective: Variable, method: str = "brent",
                 optimizer_kwargs: Mapping[str, Any] | None = None) -> None:
        who = "scipy.optimize.minimize_scalar"
        objective = _as_var(who, "objective", objective)
        if objective.type.ndim != 0 or x.type.ndim != 0:
            raise ValueError("minimize_scalar: the objective and x must be scalars; got "
                             f"objective {objective.type}, x {x.type}")
        self.method = check_method(who, method, MINIMIZE_SCALAR_METHODS)
        self.optimizer_kwargs = _kwargs("minimize_scalar", optimizer_kwargs)
        self._inputs, (obj,) = inner_graph("MinimizeScalarOp", [x, *args], [objective])
        self._outputs = [obj]
        self._residual = grad(obj, self._inputs[0], disconnected_inputs="ignore")
        self._fn = None

    def solve_numeric(self, x0: np.ndarray, args: list[Any], dtype: str) -> tuple[Any, bool]:
        ev = _Evaluator(self.fn, args, (), dtype)
        res = so.minimize_scalar(lambda x: float(ev(x)[0]), method=self.method,
                                 **self.optimizer_kwargs)
        return res.x, getattr(res, "success", True)


class RootOp(ScipyWrapperOp):
    """``scipy.optimize.root`` of equations ``F(x, args) = 0`` (as many as x has elements)."""

    def __init__(self, variables: Variable, *args: Variable, equations: Variable,
                 method: str = "hybr", jac: bool = True, use_vectorized_jac: bool = False,
                 optimizer_kwargs: Mapping[str, Any] | None = None) -> None:
        who = "scipy.optimize.root"
        equations = _as_var(who, "equations", equations)
        self.method = check_method(who, method, ROOT_METHODS)
        self.jac = bool(jac)
        self.use_vectorized_jac = bool(use_vectorized_jac)
        self.optimizer_kwargs = _kwargs("root", optimizer_kwargs)
        self._inputs, (eqs,) = inner_graph("RootOp", [variables, *args], [equations])
        x_in = self._inputs[0]
        outs = [eqs]
        if self.jac:
            J = jacobian(eqs.flatten(), x_in, vectorize=self.use_vectorized_jac,
                         disconnected_inputs="ignore")
            outs.append(J)
        self._outputs, self._residual, self._fn = outs, eqs, None

    def solve_numeric(self, x0: np.ndarray, args: list[Any], dtype: str) -> tuple[Any, bool]:
        ev = _Evaluator(self.fn, args, x0.shape, dtype)
        size = x0.size

        def fun(x: Any) -> Any:
            values = ev(x)
            F = np.asarray(values[0], dtype="float64").ravel()
            if not self.jac:
                return F
            return F, np.asarray(values[1], dtype="float64").reshape(F.size, size)

        res = so.root(fun, np.asarray(x0, dtype="float64").ravel(), method=self.method,
                      jac=self.jac, **self.optimizer_kwargs)
        return res.x, res.success


class RootScalarOp(ScipyScalarWrapperOp):
    """``scipy.optimize.root_scalar`` of one equation in one scalar unknown."""

    def __init__(self, variables: Variable, *args: Variable, equation: Variable,
                 method: str = "secant", jac: bool = False, hess: bool = False,
                 optimizer_kwargs: Mapping[str, Any] | None = None) -> None:
        who = "scipy.optimize.root_scalar"
        equation = _as_var(who, "equation", equation)
        if equation.type.ndim != 0 or variables.type.ndim != 0:
            raise ValueError("root_scalar: the equation and the variable must be scalars; got "
                             f"equation {equation.type}, variable {variables.type}")
        if hess and not jac:
            raise ValueError("root_scalar: hess=True needs jac=True (SciPy's fprime2 comes "
                             "with fprime)")
        self.method = check_method(who, method, ROOT_SCALAR_METHODS)
        self.jac, self.hess = bool(jac), bool(hess)
        self.optimizer_kwargs = _kwargs("root_scalar", optimizer_kwargs)
        self._inputs, (eq,) = inner_graph("RootScalarOp", [variables, *args], [equation])
        x_in = self._inputs[0]
        outs = [eq]
        if self.jac:
            d1 = grad(eq, x_in, disconnected_inputs="ignore")
            outs.append(d1)
            if self.hess:
                outs.append(grad(d1, x_in, disconnected_inputs="ignore"))
        self._outputs, self._residual, self._fn = outs, eq, None

    def solve_numeric(self, x0: np.ndarray, args: list[Any], dtype: str) -> tuple[Any, bool]:
        ev = _Evaluator(self.fn, args, (), dtype)

        def f(x: Any) -> Any:
            values = ev(x)
            floats = tuple(float(v) for v in values)
            return floats if len(floats) > 1 else floats[0]

        kw = dict(self.optimizer_kwargs)
        kw.setdefault("x0", float(x0))
        if self.jac:
            kw["fprime"] = True
        if self.hess:
            kw["fprime2"] = True
        res = so.root_scalar(f, method=self.method, **kw)
        return res.root, res.converged

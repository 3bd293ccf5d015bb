"""The common part of the optimizer Ops: an inner graph run by a SciPy solver in perform.

An optimizer Op holds the user's objective (or equations) as a graph of its
own, on fresh inputs ``[x, *args]``: ``x`` is the starting point, ``args`` the
parameters the objective closes over.  perform compiles that graph once and
hands it to SciPy.  The solution ``x*`` satisfies ``F(x*, args) = 0`` (``F``
the gradient of the objective, or the equations), so by the implicit function
theorem ``dx*/dargs = -J^{-1} dF/dargs`` with ``J = dF/dx``; the pullback builds
that as a graph on the outer variables (one linear solve and one
vector-Jacobian product of ``F``), never differentiating through SciPy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.compile.function import function
from opgraph.gradient import DisconnectedType, disconnected_type, grad, jacobian, pushforward
from opgraph.graph.basic import Apply, Constant, Variable, clone_get_equiv, graph_inputs
from opgraph.graph.op import HasInnerGraph, Op
from opgraph.graph.replace import graph_replace
from opgraph.tensor import as_tensor_variable, stack
from opgraph.tensor.type import TensorType
from opgraph_linalg.solvers import solve

__all__ = ["ScipyScalarWrapperOp", "ScipyWrapperOp", "as_vector", "check_method", "inner_graph"]


def check_method(who: str, method: Any, known: Sequence[str]) -> str:
    """``method`` if SciPy's ``who`` has it (case-insensitive), else a ValueError naming it."""
    if not isinstance(method, str):
        raise TypeError(f"{who}: method must be a string naming a SciPy method; got "
                        f"{type(method).__name__} {method!r:.60}")
    if method.lower() not in known:
        raise ValueError(f"{who}: method {method!r} is not a method of scipy.optimize."
                         f"{who.split('.')[-1]}; expected one of {', '.join(known)}")
    return method


def inner_graph(who: str, inputs: Sequence[Variable], outputs: Sequence[Variable]
                ) -> tuple[list[Variable], list[Variable]]:
    """``outputs`` cloned onto fresh copies of ``inputs``; any other free variable is an error.

    Constants and sub-graphs of constants stay inside (they need no input).
    """
    for k, v in enumerate(inputs):
        if not isinstance(v, Variable):
            raise TypeError(f"{who}: input {k} must be a symbolic Variable; got "
                            f"{type(v).__name__} {v!r:.60}")
    memo: dict[Variable, Variable] = {}
    fresh: list[Variable] = []
    for v in inputs:
        new = v.type()
        new.name = v.name
        fresh.append(new)
        memo.setdefault(v, new)
    for v in graph_inputs(list(outputs), blockers=list(memo)):
        if v not in memo and not isinstance(v, Constant):
            raise ValueError(f"{who}: the objective depends on {v} (type {v.type}), which is "
                             "neither the optimization variable nor one of the args")
    equiv = clone_get_equiv(list(memo), list(outputs), copy_inputs=False, copy_orphans=True,
                            memo=memo)
    return fresh, [equiv[o] for o in outputs]


def as_vector(var: Variable) -> Variable:
    """``var`` flattened (no Reshape for a vector or a scalar, so the graph stays batchable)."""
    if var.type.ndim == 1:
        return var
    if var.type.ndim == 0:
        return var.dimshuffle("x")
    return var.flatten()


def _jacobian_matrix(F: Variable, x: Variable, vectorize: bool) -> Variable:
    """dF/dx as an (F.size, x.size) matrix, for a vector F.

    With F's length known, one gradient per element of F indexed directly (no
    Reshape of F, whose gradient would read F's shape: that keeps the result
    batchable by vectorize_graph); otherwise ``jacobian``.
    """
    size = F.type.shape[0]
    if size is not None and not vectorize and x.type.ndim <= 1:
        rows = [as_vector(grad(F[k], x, disconnected_inputs="ignore")) for k in range(size)]
        return stack(rows)
    J = jacobian(F, x, vectorize=vectorize, disconnected_inputs="ignore")
    return J if x.type.ndim == 1 else J.reshape((F.shape[0], -1), ndim=2)


def _is_float(var: Variable) -> bool:
    """Tensors and scalars of a real or complex dtype (the ones a gradient reaches)."""
    return str(getattr(var.type, "dtype", "")).startswith(("float", "complex"))


class ScipyWrapperOp(Op, HasInnerGraph):
    """An Op whose perform runs a SciPy solver on a compiled inner graph.

    Subclasses set ``self._inputs`` (fresh ``[x, *args]``), ``self._outputs`` (what
    the solver evaluates) and ``self._residual`` (the ``F`` with ``F(x*) = 0``), and
    implement :meth:`solve_numeric`.  Ops compare by identity: each holds its own graph.
    """

    __props__ = ()
    use_vectorized_jac = False
    _fn: Any = None
    _vjp: Any = None

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)

    def __getstate__(self) -> dict[str, Any]:
        """The graph and options; the compiled function and gradient parts are rebuilt."""
        state = dict(self.__dict__)
        state["_fn"] = state["_vjp"] = None
        return state

    # -- the inner graph ------------------------------------------------------------
    @property
    def inner_inputs(self) -> list[Variable]:
        return list(self._inputs)

    @property
    def inner_outputs(self) -> list[Variable]:
        return list(self._outputs)

    def clone(self) -> ScipyWrapperOp:
        return self.substituted({})

    def substituted(self, subs: dict[int, Variable]) -> ScipyWrapperOp:
        """A copy whose inner inputs ``subs`` names are replaced (by constants, or by another
        inner input for a repeated outer one) and dropped from the inputs."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        replace = {self._inputs[i]: v for i, v in subs.items()}
        outs = [*self._outputs, self._residual]
        if replace:
            outs = graph_replace(outs, replace, strict=False)
        keep = [v for i, v in enumerate(self._inputs) if i not in subs]
        ins, outs = inner_graph(type(self).__name__, keep, outs)
        new._inputs, new._outputs, new._residual = ins, outs[:-1], outs[-1]
        new._fn = new._vjp = None
        return new

    @property
    def fn(self) -> Any:
        """The compiled inner graph (compiled on first use)."""
        if self._fn is None:
            fn = function(list(self._inputs), list(self._outputs), on_unused_input="ignore")
            fn.trust_input = True
            self._fn = fn
        return self._fn

    def prepare_node(self, node: Apply, storage_map: Any, compute_map: Any,
                     impl: str | None) -> None:
        self.fn  # noqa: B018 - compile at link time

    # -- building nodes --------------------------------------------------------------
    def make_node(self, *inputs: Any) -> Apply:
        who = type(self).__name__
        if len(inputs) != len(self._inputs):
            raise TypeError(f"{who}: expected {len(self._inputs)} inputs (x and "
                            f"{len(self._inputs) - 1} args); got {len(inputs)}")
        outer = []
        for k, (given, inner) in enumerate(zip(inputs, self._inputs)):
            if not isinstance(given, Variable):
                given = as_tensor_variable(given)
            if not inner.type.is_super(given.type):
                converted = inner.type.convert_variable(given)
                if converted is None:
                    raise TypeError(f"{who}: input {k} ({inner.name or 'arg'}) must have type "
                                    f"{inner.type}; got {given.type}")
                given = converted
            outer.append(given)
        x = outer[0]
        return Apply(self, outer, [x.type(), TensorType("bool", shape=())()])

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [input_shapes[0], ()]

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]
                ) -> None:
        x0, *args = inputs
        dtype = node.outputs[0].type.dtype
        # Blockwise hands 0-d slices over as NumPy scalars; the inner function takes arrays
        args = [np.asarray(v) if isinstance(inner.type, TensorType) else v
                for v, inner in zip(args, self._inputs[1:])]
        x_star, success = self.solve_numeric(np.asarray(x0), args, dtype)
        output_storage[0][0] = np.asarray(x_star, dtype=dtype).reshape(np.shape(x0))
        output_storage[1][0] = np.asarray(bool(success))

    def solve_numeric(self, x0: np.ndarray, args: list[Any], dtype: str
                      ) -> tuple[Any, bool]:
        raise NotImplementedError

    # -- gradients -------------------------------------------------------------------
    def _vjp_parts(self) -> tuple[Variable, Variable, list[Variable]]:
        """(F flattened, a stand-in v for the cotangent of F, d(F.v)/d arg per arg)."""
        if self._vjp is None:
            F = as_vector(self._residual)
            v = F.type()
            terms = grad((F * v).sum(), list(self._inputs[1:]), disconnected_inputs="ignore",
                         return_disconnected="disconnected") if len(self._inputs) > 1 else []
            self._vjp = (F, v, list(terms))
        return self._vjp

    def connection_pattern(self, node: Any = None) -> list[list[bool]]:
        """x* depends on an arg when F does (and the arg is real-valued); success on nothing."""
        _, _, terms = self._vjp_parts()
        rows = [[True, False]]
        for inner, term in zip(self._inputs[1:], terms):
            rows.append([_is_float(inner) and not isinstance(term.type, DisconnectedType),
                         False])
        return rows

    def pullback(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 cotangents: Sequence[Variable]) -> list[Any]:
        x_in, *args_in = self._inputs
        x0, *args = inputs
        x_star = outputs[0]
        g = cotangents[0]
        pattern = [row[0] for row in self.connection_pattern()]
        if g is None or isinstance(g.type, DisconnectedType):
            return [disconnected_type() for _ in inputs]
        # the solution does not depend on the starting point
        result: list[Any] = [x0.zeros_like() if _is_float(x0) else disconnected_type()]
        wanted = [k for k, ok in enumerate(pattern[1:]) if ok]
        if not wanted:
            return result + [disconnected_type() for _ in args]
        F, v, all_terms = self._vjp_parts()
        J = _jacobian_matrix(F, x_in, self.use_vectorized_jac)
        to_outer = {x_in: x_star, **dict(zip(args_in, args))}
        # w = -J^{-T} g, then (dx*/dargs)^T g = w^T dF/dargs: one VJP of F
        w = graph_replace(-solve(J.T, as_vector(g).astype(F.dtype), b_ndim=1), to_outer,
                          strict=False)
        terms = graph_replace([all_terms[k] for k in wanted], {**to_outer, v: w}, strict=False)
        grads = [disconnected_type() for _ in args]
        for k, term in zip(wanted, terms):
            grads[k] = term if term.type == args[k].type else args[k].type.filter_variable(
                term.astype(args[k].type.dtype), allow_convert=True)
        return result + grads

    def pushforward(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                    tangents: Sequence[Variable]) -> list[Any]:
        """dx* = -J^{-1} (dF/dargs . dargs); the starting point's tangent does not matter."""
        x_in, *args_in = self._inputs
        args = inputs[1:]
        x_star = outputs[0]
        pattern = [row[0] for row in self.connection_pattern()][1:]
        live = [k for k, t in enumerate(tangents[1:])
                if pattern[k] and t is not None and not isinstance(t.type, DisconnectedType)]
        if not live:
            return [disconnected_type(), disconnected_type()]
        F = self._vjp_parts()[0]
        stand_ins = [args_in[k].type() for k in live]
        dF = pushforward(F, [args_in[k] for k in live], stand_ins,
                         disconnected_outputs="ignore")
        J = _jacobian_matrix(F, x_in, self.use_vectorized_jac)
        dx = -solve(J, dF, b_ndim=1)
        mapping = {x_in: x_star, **dict(zip(args_in, args)),
                   **{s: tangents[1 + k] for s, k in zip(stand_ins, live)}}
        dx = graph_replace(dx, mapping, strict=False)
        dx = dx.reshape(x_star.shape, ndim=x_star.type.ndim) if x_star.type.ndim != 1 else dx
        return [dx.astype(x_star.type.dtype), disconnected_type()]

    def __str__(self) -> str:
        return f"{type(self).__name__}(method={self.method})"


class ScipyScalarWrapperOp(ScipyWrapperOp):
    """The scalar solvers: x is a 0-d tensor (minimize_scalar, root_scalar)."""

    def make_node(self, *inputs: Any) -> Apply:
        node = super().make_node(*inputs)
        if node.inputs[0].type.ndim != 0:
            raise ValueError(f"{type(self).__name__}: x must be a scalar; got "
                             f"{node.inputs[0].type}")
        return node

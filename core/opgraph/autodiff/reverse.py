"""Reverse accumulation: ``grad`` and ``Lop``/``pullback``.

Walks the Apply nodes between the seeds (cost and known gradients) and
``wrt`` once in reverse topological order, iteratively (deep graphs do not
recurse), asking each node for its pullback (a plugin's first, then the Op's).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from opgraph.autodiff import arith
from opgraph.autodiff.hooks import hook_caller
from opgraph.autodiff.undefined import (
    DisconnectedInputError,
    NullTypeGradError,
    disconnected_type,
    is_disconnected,
    is_null,
)
from opgraph.graph.basic import Apply, Variable

__all__ = ["Lop", "grad", "pullback"]

_DISCONNECTED_INPUTS = ("raise", "warn", "ignore")
_RETURN_DISCONNECTED = ("zero", "none", "disconnected")
_NULL_GRADIENTS = ("raise", "return")


def _check_choice(name: str, value: Any, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}; got {value!r}")


def _as_var_list(name: str, value: Any) -> tuple[list[Variable], bool]:
    """(list of Variables, whether the caller passed a list)."""
    is_list = isinstance(value, (list, tuple))
    items = list(value) if is_list else [value]
    for i, v in enumerate(items):
        if not isinstance(v, Variable):
            raise TypeError(
                f"{name}[{i}] must be a symbolic Variable; got {type(v).__name__} {v!r}"
                if is_list
                else f"{name} must be a symbolic Variable; got {type(v).__name__} {v!r}"
            )
    return items, is_list


def apply_nodes_above(seeds: Iterable[Variable], blockers: set[Variable]) -> list[Apply]:
    """Apply nodes the seeds depend on, each after its inputs' owners (no recursion)."""
    order: list[Apply] = []
    seen: set[Apply] = set()
    for seed in seeds:
        node = seed.owner
        if node is None or seed in blockers or node in seen:
            continue
        seen.add(node)
        stack = [(node, iter(node.inputs))]
        while stack:
            current, inputs = stack[-1]
            for inp in inputs:
                owner = inp.owner
                if owner is not None and owner not in seen and inp not in blockers:
                    seen.add(owner)
                    stack.append((owner, iter(owner.inputs)))
                    break
            else:
                stack.pop()
                order.append(current)
    return order


def connection_pattern(node: Apply, cache: dict[Apply, list[list[bool]]]) -> list[list[bool]]:
    """``node.op.connection_pattern(node)``, checked and cached per node."""
    pattern = cache.get(node)
    if pattern is None:
        pattern = [list(row) for row in node.op.connection_pattern(node)]
        if len(pattern) != len(node.inputs) or any(
            len(row) != len(node.outputs) for row in pattern
        ):
            raise ValueError(
                f"{node.op}.connection_pattern must be a list of {len(node.inputs)} rows of "
                f"{len(node.outputs)} booleans (inputs x outputs); got {pattern}"
            )
        cache[node] = pattern
    return pattern


def connected_to(
    wrt: Iterable[Variable], order: Sequence[Apply], blockers: set[Variable],
    patterns: dict[Apply, list[list[bool]]],
) -> set[Variable]:
    """Variables of ``order`` that depend on some ``wrt`` through connected inputs."""
    connected = set(wrt)
    for node in order:
        live = [i for i, inp in enumerate(node.inputs) if inp in connected]
        if not live:
            continue
        pattern = connection_pattern(node, patterns)
        for j, out in enumerate(node.outputs):
            if out not in blockers and any(pattern[i][j] for i in live):
                connected.add(out)
    return connected


class _Accumulator:
    """Gradient terms per variable; totals are formed once, when first read."""

    def __init__(self, fixed: Mapping[Variable, Variable], cost_name: str | None) -> None:
        self.terms: dict[Variable, list[Variable]] = {}
        self.nulls: dict[Variable, Variable] = {}
        self.totals: dict[Variable, Variable | None] = dict(fixed)
        self.cost_name = cost_name

    def add(self, var: Variable, term: Variable) -> None:
        if var in self.totals:
            return  # known gradient (fixed) or already final
        if is_null(term):
            self.nulls.setdefault(var, term)
        else:
            self.terms.setdefault(var, []).append(term)

    def total(self, var: Variable) -> Variable | None:
        """The summed gradient of ``var`` (None when disconnected, a NullType if undefined)."""
        if var in self.totals:
            return self.totals[var]
        null = self.nulls.get(var)
        if null is not None:
            result: Variable | None = null
        else:
            terms = self.terms.get(var)
            if not terms:
                result = None
            else:
                if arith.is_tensor(var):
                    terms = [arith.cast_like(t, var) for t in terms]
                result = arith.add_terms(terms)
                if self.cost_name is not None and var.name is not None:
                    result.name = f"(d{self.cost_name}/d{var.name})"
        self.totals[var] = result
        return result


def _prepare_cotangent(out: Variable, g: Variable | None) -> Variable:
    """What a pullback receives for ``out``: zeros for absent or undefined cotangents."""
    if g is None or is_null(g):
        if arith.is_tensor(out):
            return arith.zeros_like(out, dtype=out.type.dtype)
        return disconnected_type()
    if arith.is_tensor(out) and not arith.is_discrete(out):
        return arith.cast_like(g, out)
    return g


def node_pullback(node: Apply, cotangents: list[Variable], hook: Any) -> list[Variable]:
    """The node's input cotangents from a plugin (first answer wins) or from its Op."""
    result = None
    if hook is not None:
        result = hook(op=node.op, inputs=node.inputs, outputs=node.outputs, cotangents=cotangents)
    if result is None:
        try:
            result = node.op.pullback(node.inputs, node.outputs, cotangents)
        except NotImplementedError as exc:
            raise NotImplementedError(
                f"{node.op} has no pullback (gradient), needed to differentiate through "
                f"{node}: {exc}"
            ) from exc
    result = list(result)
    if len(result) != len(node.inputs):
        raise ValueError(
            f"{node.op}.pullback returned {len(result)} gradients for {len(node.inputs)} inputs"
        )
    for i, term in enumerate(result):
        if not isinstance(term, Variable):
            raise TypeError(
                f"{node.op}.pullback returned {term!r} for input {i} ({node.inputs[i]}); "
                "return a Variable: DisconnectedType (disconnected_type()) when the output "
                "does not depend on it, NullType (grad_undefined / grad_not_implemented) when "
                "the gradient is undefined, never None"
            )
    return result


def _check_term(node: Apply, i: int, term: Variable) -> None:
    inp = node.inputs[i]
    if arith.is_tensor(inp) and arith.is_tensor(term) and term.type.ndim != inp.type.ndim:
        raise ValueError(
            f"{node.op}.pullback returned a gradient with {term.type.ndim} dimensions for "
            f"input {i} ({inp}) which has {inp.type.ndim}"
        )


def backpropagate(
    seeds: Mapping[Variable, Variable],
    wrt: Sequence[Variable],
    consider_constant: Iterable[Variable] = (),
    cost_name: str | None = None,
) -> list[Variable | None]:
    """Gradients of ``wrt`` given seed cotangents (None: disconnected; NullType: undefined)."""
    blockers = set(consider_constant)
    order = apply_nodes_above(seeds, blockers)
    patterns: dict[Apply, list[list[bool]]] = {}
    connected = connected_to(wrt, order, blockers, patterns)
    acc = _Accumulator(seeds, cost_name)
    hook = hook_caller("opgraph_pullback")

    for node in reversed(order):
        if not any(inp in connected for inp in node.inputs):
            continue
        ograds = [acc.total(out) for out in node.outputs]
        if all(g is None for g in ograds):
            continue
        pattern = connection_pattern(node, patterns)
        live = [g is not None for g in ograds]
        real = [
            live[j] and not is_null(g) and not arith.is_discrete(node.outputs[j])
            for j, g in enumerate(ograds)
        ]
        wanted = [
            inp in connected and any(pattern[i][j] and live[j] for j in range(len(live)))
            for i, inp in enumerate(node.inputs)
        ]
        if not any(wanted):
            continue
        needs_call = any(
            wanted[i] and any(pattern[i][j] and real[j] for j in range(len(real)))
            for i in range(len(wanted))
        )
        if needs_call:
            cotangents = [_prepare_cotangent(o, g) for o, g in zip(node.outputs, ograds)]
            terms = node_pullback(node, cotangents, hook)
        else:
            terms = [disconnected_type() for _ in node.inputs]
        for i, inp in enumerate(node.inputs):
            if not wanted[i]:
                continue
            term = terms[i]
            null_out = next(
                (ograds[j] for j in range(len(ograds)) if pattern[i][j] and is_null(ograds[j])),
                None,
            )
            if null_out is not None:
                # An undefined cotangent makes every connected input's gradient undefined.
                if not (needs_call and is_disconnected(term)):
                    acc.add(inp, null_out)
                continue
            if not any(pattern[i][j] and real[j] for j in range(len(real))):
                # Reached only through integer outputs: piecewise constant, zero.
                if arith.is_tensor(inp):
                    acc.add(inp, arith.filled_like(inp, 0))
                continue
            if is_disconnected(term):
                continue
            if not is_null(term):
                _check_term(node, i, term)
            # An integer input keeps the Op's term, as in PyTensor: the gradient with
            # respect to an integer wrt is the one of the same graph over floats.
            acc.add(inp, term)
    return [acc.total(v) for v in wrt]


def disconnected_result(
    var: Variable,
    message: str,
    option: str,
    policy: str,
    return_disconnected: str,
    stacklevel: int,
) -> Any:
    """Raise or warn about a disconnected ``var`` as ``policy`` says, then what stands for it.

    Shared by grad (disconnected inputs) and Rop (disconnected outputs); ``option``
    names the caller's keyword in the error, ``stacklevel`` counts from here.
    """
    if policy == "raise":
        raise DisconnectedInputError(message + f". Pass {option}='ignore' or 'warn' to allow it.")
    if policy == "warn":
        warnings.warn(message, stacklevel=stacklevel)
    if return_disconnected == "zero":
        return arith.filled_like(var, 0) if arith.is_tensor(var) else disconnected_type()
    if return_disconnected == "none":
        return None
    return disconnected_type()


def _finish(
    wrt: Sequence[Variable],
    grads: Sequence[Variable | None],
    disconnected_inputs: str,
    return_disconnected: str,
    null_gradients: str,
    caller: str,
) -> list[Any]:
    out: list[Any] = []
    for i, (var, g) in enumerate(zip(wrt, grads)):
        if g is None or is_disconnected(g):
            message = (
                f"{caller} was asked to compute the gradient with respect to {var} (wrt[{i}]), "
                "which is not part of the computational graph of the cost, or is used only "
                "by a non-differentiable operator"
            )
            out.append(
                disconnected_result(
                    var, message, "disconnected_inputs", disconnected_inputs,
                    return_disconnected, stacklevel=4,
                )
            )
        elif is_null(g):
            if null_gradients == "raise":
                raise NullTypeGradError(
                    f"{caller}: the gradient with respect to {var} (wrt[{i}]) is undefined. "
                    f"{g.type.why_null}"
                )
            out.append(g)
        else:
            out.append(g)
    return out


def grad(
    cost: Variable | None,
    wrt: Variable | Sequence[Variable],
    consider_constant: Sequence[Variable] | None = None,
    disconnected_inputs: str = "raise",
    add_names: bool = True,
    known_grads: Mapping[Variable, Any] | None = None,
    return_disconnected: str = "zero",
    null_gradients: str = "raise",
) -> Any:
    """Symbolic gradient of the scalar ``cost`` with respect to ``wrt``.

    ``known_grads`` seeds gradients of intermediate variables (``cost`` may then
    be None); ``consider_constant`` variables are not differentiated through.
    Returns one gradient per ``wrt`` item, in the same structure (list or single).
    """
    _check_choice("disconnected_inputs", disconnected_inputs, _DISCONNECTED_INPUTS)
    _check_choice("return_disconnected", return_disconnected, _RETURN_DISCONNECTED)
    _check_choice("null_gradients", null_gradients, _NULL_GRADIENTS)
    if cost is None and not known_grads:
        raise ValueError("grad needs a cost, or known_grads when cost is None")
    wrt_list, wrt_is_list = _as_var_list("wrt", wrt)

    seeds: dict[Variable, Variable] = {}
    if cost is not None:
        if not isinstance(cost, Variable):
            raise TypeError(f"cost must be a symbolic Variable; got {type(cost).__name__}")
        if is_null(cost):
            raise NullTypeGradError(f"cost is a NullType: {cost.type.why_null}")
        if getattr(cost.type, "ndim", 0) != 0:
            raise TypeError(
                f"cost must be a scalar (0 dimensions); got {cost} with {cost.type.ndim}. "
                "Use Lop/pullback for non-scalar outputs."
            )
        seeds[cost] = arith.filled_like(cost, 1)
    for var, g in (known_grads or {}).items():
        if not isinstance(var, Variable):
            raise TypeError(f"known_grads keys must be Variables; got {type(var).__name__}")
        g = g if isinstance(g, Variable) else arith.as_tensor(g)
        if arith.is_tensor(var) and arith.is_tensor(g) and g.type.ndim != var.type.ndim:
            if g.type.ndim > var.type.ndim:
                raise ValueError(
                    f"known_grads[{var}] has {g.type.ndim} dimensions; {var} has only "
                    f"{var.type.ndim}"
                )
            g = arith.filled_like(var, g)  # a lower-rank gradient broadcasts
        seeds[var] = None if is_disconnected(g) else g

    cost_name = cost.name if (add_names and cost is not None) else None
    grads = backpropagate(seeds, wrt_list, consider_constant or (), cost_name)
    result = _finish(
        wrt_list, grads, disconnected_inputs, return_disconnected, null_gradients, "grad"
    )
    return result if wrt_is_list else result[0]


def Lop(
    f: Variable | Sequence[Variable],
    wrt: Variable | Sequence[Variable],
    eval_points: Variable | Sequence[Variable],
    consider_constant: Sequence[Variable] | None = None,
    disconnected_inputs: str = "raise",
    return_disconnected: str = "zero",
) -> Any:
    """Vector-Jacobian product ``eval_points^T d f / d wrt`` (reverse mode)."""
    f_list, _ = _as_var_list("f", f)
    points = list(eval_points) if isinstance(eval_points, (list, tuple)) else [eval_points]
    if len(points) != len(f_list):
        raise ValueError(
            f"Lop needs one eval_point per output of f: {len(f_list)} outputs, "
            f"{len(points)} eval_points"
        )
    known = dict(zip(f_list, (arith.as_tensor(p) for p in points)))
    return grad(
        None, wrt, consider_constant=consider_constant, disconnected_inputs=disconnected_inputs,
        known_grads=known, return_disconnected=return_disconnected, add_names=False,
    )


def pullback(
    f: Variable | Sequence[Variable],
    wrt: Variable | Sequence[Variable],
    cotangents: Variable | Sequence[Variable],
    consider_constant: Sequence[Variable] | None = None,
    disconnected_inputs: str = "raise",
    return_disconnected: str = "zero",
) -> Any:
    """Vector-Jacobian product ``cotangents^T d f / d wrt``; ``Lop`` under its current name."""
    result = Lop(f, wrt, cotangents, consider_constant=consider_constant,
                 disconnected_inputs=disconnected_inputs, return_disconnected=return_disconnected)
    return tuple(result) if isinstance(wrt, tuple) else result

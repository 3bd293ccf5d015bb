"""IfElse: choose between two lists of values by a scalar condition, lazily.

``ifelse(c, then, else)`` computes only the branch it takes when run by a
linker that understands lazy thunks. The contract (implemented by
``IfElse.make_thunk``): the thunk has ``thunk.lazy = True``; calling it
returns the list of input indices it still needs (their
``compute_map[var][0]`` is False), the VM computes those and calls it again;
it returns ``[]`` once it has written its outputs and set their
``compute_map`` cells to True. ``perform`` is the eager fallback.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.config import config
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.null_type import DisconnectedType, disconnected_type
from opgraph.graph.op import Op
from opgraph.tensor import ufuncs as _ufuncs
from opgraph.tensor.creation import zeros_like
from opgraph.tensor.type import TensorType, discrete_dtypes
from opgraph.tensor.variable import as_tensor_variable, constant

__all__ = ["IfElse", "ifelse"]


def _name(var: Any) -> str:
    return var.name if getattr(var, "name", None) else str(var)


def _missing(g: Any) -> bool:
    return g is None or isinstance(getattr(g, "type", None), DisconnectedType)


def _copy(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.copy()
    return copy.copy(value)


def _as_branch_value(value: Any) -> Variable:
    if isinstance(value, Variable):
        return value
    return as_tensor_variable(value)


def _match_constant(value: Variable, other: Variable) -> Variable:
    """A constant branch value converted to the other branch's dtype when exact."""
    if not (isinstance(value, Constant) and isinstance(value.type, TensorType)):
        return value
    if not isinstance(other.type, TensorType) or other.type.dtype == value.type.dtype:
        return value
    data = np.asarray(value.data)
    converted = data.astype(other.type.dtype)
    if np.array_equal(converted, data):
        return constant(converted)
    return value


def _output_type(i: int, then_v: Variable, else_v: Variable) -> Any:
    tt, et = then_v.type, else_v.type
    if tt == et:
        return tt
    if isinstance(tt, TensorType) and isinstance(et, TensorType):
        if tt.dtype == et.dtype and tt.ndim == et.ndim:
            shape = tuple(a if a == b else None for a, b in zip(tt.shape, et.shape))
            return TensorType(tt.dtype, shape)
    raise TypeError(
        f"ifelse: output {i}: the branch types do not match: the then branch "
        f"{_name(then_v)} has type {tt} but the else branch {_name(else_v)} has type {et}; "
        "both branches must have the same kind of type, dtype and number of dimensions "
        "(cast one of them)"
    )


class IfElse(Op):
    """``n_outs`` outputs equal to the then-inputs if the condition holds, else the others.

    Inputs are ``[condition, *then_values, *else_values]``. With ``as_view`` the outputs
    are the chosen inputs themselves (views); otherwise copies.  ``name`` only
    labels the Op when printed.
    """

    __props__ = ("as_view", "n_outs")

    def __init__(self, n_outs: int, as_view: bool = False, name: str | None = None) -> None:
        if isinstance(n_outs, bool) or not isinstance(n_outs, int | np.integer) or n_outs < 1:
            raise ValueError(f"IfElse: n_outs must be a positive int, got {n_outs!r}")
        self.n_outs = int(n_outs)
        self.as_view = bool(as_view)
        self.name = name

    @property
    def view_map(self) -> dict[int, list[int]]:  # type: ignore[override]
        # Output i is the then-value *or* the else-value itself: it may view either.
        n = self.n_outs
        return {i: [1 + i, 1 + n + i] for i in range(n)} if self.as_view else {}

    def make_node(self, condition: Any, *branches: Any) -> Apply:
        n = self.n_outs
        if len(branches) != 2 * n:
            raise TypeError(
                f"IfElse(n_outs={n}) takes the condition and {2 * n} branch values "
                f"({n} then, {n} else), got {len(branches)}"
            )
        cond = as_tensor_variable(condition)
        if cond.type.ndim != 0 or cond.type.dtype.startswith("complex"):
            raise TypeError(
                f"IfElse: The condition argument ({_name(cond)}) must be a real scalar "
                f"(0 dimensions), got {cond.type}"
            )
        thens = [_as_branch_value(v) for v in branches[:n]]
        elses = [_as_branch_value(v) for v in branches[n:]]
        out_types = []
        for i, (t, e) in enumerate(zip(thens, elses)):
            t2, e2 = _match_constant(t, e), _match_constant(e, t)
            thens[i], elses[i] = t2, e2
            out_types.append(_output_type(i, t2, e2))
        outputs = [ot() for ot in out_types]
        return Apply(self, [cond, *thens, *elses], outputs)

    # -- computing -----------------------------------------------------------------------
    def _chosen(self, cond_value: Any) -> range:
        n = self.n_outs
        return range(1, 1 + n) if bool(np.asarray(cond_value)) else range(1 + n, 1 + 2 * n)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        for k, i in enumerate(self._chosen(inputs[0])):
            value = inputs[i]
            output_storage[k][0] = value if self.as_view else _copy(value)

    def make_thunk(
        self,
        node: Apply,
        storage_map: dict,
        compute_map: dict | None,
        no_recycling: Sequence[Variable],
        impl: str | None = None,
    ) -> Any:
        """A lazy thunk: it asks for the condition, then only for the chosen branch."""
        if compute_map is None:
            return super().make_thunk(node, storage_map, compute_map, no_recycling, impl)
        in_cells = [storage_map[v] for v in node.inputs]
        in_done = [compute_map[v] for v in node.inputs]
        out_cells = [storage_map[v] for v in node.outputs]
        out_done = [compute_map[v] for v in node.outputs]
        chosen = self._chosen
        as_view = self.as_view

        def thunk() -> list[int]:
            if not in_done[0][0]:
                return [0]
            branch = chosen(in_cells[0][0])
            needed = [i for i in branch if not in_done[i][0]]
            if needed:
                return needed
            for k, i in enumerate(branch):
                value = in_cells[i][0]
                out_cells[k][0] = value if as_view else _copy(value)
                out_done[k][0] = True
            return []

        thunk.lazy = True  # type: ignore[attr-defined]
        thunk.inputs = in_cells  # type: ignore[attr-defined]
        thunk.outputs = out_cells  # type: ignore[attr-defined]
        thunk.perform = self.perform  # type: ignore[attr-defined]
        return thunk

    # -- static analysis -------------------------------------------------------------------
    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        n = self.n_outs
        cond = node.inputs[0]
        out = []
        for k in range(n):
            static = getattr(node.outputs[k].type, "shape", None)
            then_shape, else_shape = input_shapes[1 + k], input_shapes[1 + n + k]
            dims = []
            for d, (ts, es) in enumerate(zip(then_shape, else_shape)):
                if static is not None and static[d] is not None:
                    dims.append(constant(np.int64(static[d])))
                elif ts is es:
                    dims.append(ts)
                else:
                    dims.append(IfElse(1)(cond, ts, es))
            out.append(tuple(dims))
        return out

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        n = self.n_outs
        pattern = [[True] * n]  # the condition gets a zero gradient, not "disconnected"
        pattern += [[j == i for j in range(n)] for _side in range(2) for i in range(n)]
        return pattern

    # -- differentiation -----------------------------------------------------------------
    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        n = self.n_outs
        cond = inputs[0]
        grads = [
            zeros_like(o) if _missing(g) else g for o, g in zip(outputs, cotangents)
        ]
        thens, elses = inputs[1 : 1 + n], inputs[1 + n :]
        # Each branch input gets the cotangent when its branch is taken, else zeros of
        # its own shape (the branches may have different shapes).
        then_g = [IfElse(1)(cond, g, zeros_like(t)) for g, t in zip(grads, thens)]
        else_g = [IfElse(1)(cond, zeros_like(e), g) for g, e in zip(grads, elses)]
        result: list[Any] = [zeros_like(cond).astype(config.floatX)]
        result += [_grad_for(inp, g) for inp, g in zip(thens, then_g)]
        result += [_grad_for(inp, g) for inp, g in zip(elses, else_g)]
        return result

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        n = self.n_outs
        tans = list(tangents[1:])
        if all(_missing(t) for t in tans):
            return [None] * n
        filled = [zeros_like(v) if _missing(t) else t for v, t in zip(inputs[1:], tans)]
        return IfElse(n)(inputs[0], *filled, return_list=True)

    def __str__(self) -> str:
        parts = [p for p in (self.name, "inplace" if self.as_view else None) if p]
        return f"if{{{','.join(parts)}}}"


def _grad_for(inp: Variable, g: Variable) -> Variable:
    if getattr(inp.type, "dtype", None) in discrete_dtypes:
        return disconnected_type()
    if g.type.dtype != inp.type.dtype:
        return _ufuncs.cast(g, inp.type.dtype)
    return g


def ifelse(
    condition: Any,
    then_branch: Any,
    else_branch: Any,
    name: str | None = None,
) -> Any:
    """``then_branch`` if ``condition`` is true, else ``else_branch``; lazily evaluated.

    Branches are single values or equally long lists; the result has the same form.
    """
    single = not isinstance(then_branch, list | tuple)
    thens = [then_branch] if single else list(then_branch)
    elses = [else_branch] if not isinstance(else_branch, list | tuple) else list(else_branch)
    if len(thens) != len(elses):
        raise ValueError(
            f"ifelse: the then branch has {len(thens)} value(s) but the else branch has "
            f"{len(elses)}; they must have the same number"
        )
    if not thens:
        raise ValueError("ifelse: the branches must hold at least one value")
    outs = IfElse(len(thens), name=name)(condition, *thens, *elses, return_list=True)
    return outs[0] if single else outs

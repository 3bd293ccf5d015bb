"""Evaluate a graph without a linker: call each node's ``perform`` in topological order.

``evaluate(outputs, {var: value})`` returns one value (or a list for a list of
outputs).  Input values go through ``Type.filter`` (non-strict, like
``function``), constants use their data, and every output value is checked
against its Variable's Type, so a perform returning the wrong dtype or shape
fails loudly here.  Lazy ops (IfElse) are run eagerly: perform sees all inputs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from opgraph.graph.basic import Constant, Variable, io_toposort


def evaluate(
    outputs: Variable | Sequence[Variable],
    givens: Mapping[Variable, Any] | None = None,
    check_types: bool = True,
) -> Any:
    """Values of ``outputs`` given values for the graph's free inputs."""
    single = isinstance(outputs, Variable)
    outs = [outputs] if single else list(outputs)
    givens = dict(givens or {})
    storage: dict[Variable, Any] = {}
    for var, value in givens.items():
        if not isinstance(var, Variable):
            raise TypeError(f"evaluate: keys must be Variables, got {type(var).__name__} {var!r}")
        storage[var] = var.type.filter(value, strict=False, allow_downcast=None)

    for node in io_toposort(list(givens), outs):
        args = []
        for inp in node.inputs:
            if inp in storage:
                args.append(storage[inp])
            elif isinstance(inp, Constant):
                args.append(inp.data)
            else:
                raise ValueError(
                    f"evaluate: no value given for the input {inp} (type {inp.type}) "
                    f"needed by {node.op}"
                )
        cells: list[list[Any]] = [[None] for _ in node.outputs]
        node.op.perform(node, args, cells)
        for var, cell in zip(node.outputs, cells):
            if check_types:
                try:
                    var.type.filter(cell[0], strict=True)
                except TypeError as exc:
                    raise AssertionError(
                        f"{node.op}.perform produced a value that does not match its output "
                        f"type {var.type}: {exc}"
                    ) from None
            storage[var] = cell[0]

    results = []
    for o in outs:
        if o in storage:
            results.append(storage[o])
        elif isinstance(o, Constant):
            results.append(o.data)
        else:
            raise ValueError(f"evaluate: no value given for the output {o} (a free input)")
    return results[0] if single else results


def input_type_for(value: Any, dtype: str | None = None) -> Any:
    """A TensorType for ``value``: its dtype, None lengths except 1 (broadcastable)."""
    import numpy as np

    from opgraph.tensor.type import TensorType

    value = np.asarray(value)
    return TensorType(dtype or value.dtype, tuple(1 if s == 1 else None for s in value.shape))


def check_derivatives(
    build: Any,
    values: Sequence[Any],
    rng: Any,
    eps: float = 1e-6,
    rtol: float = 1e-4,
    atol: float = 1e-6,
    forward: bool = True,
) -> None:
    """Compare the pullback (and pushforward) of ``build(*vars)`` to central differences."""
    import numpy as np

    from opgraph.gradient import pullback, pushforward

    values = [np.asarray(v, dtype="float64") for v in values]
    vars_ = [input_type_for(v)(f"in{i}") for i, v in enumerate(values)]
    out = build(*vars_)
    givens = dict(zip(vars_, values))

    def f(vals: Sequence[Any]) -> Any:
        return np.asarray(evaluate(out, dict(zip(vars_, vals))), dtype="float64")

    base = f(values)
    cot_val = rng.standard_normal(base.shape)
    cot = out.type("cot")
    grads = pullback(out, vars_, cot)
    got = evaluate(grads, {**givens, cot: cot_val})
    for i, v in enumerate(values):
        num = np.zeros_like(v)
        for j in np.ndindex(v.shape):
            plus = [w.copy() for w in values]
            minus = [w.copy() for w in values]
            plus[i][j] += eps
            minus[i][j] -= eps
            num[j] = np.sum((f(plus) - f(minus)) * cot_val) / (2 * eps)
        np.testing.assert_allclose(got[i], num, rtol=rtol, atol=atol, err_msg=f"pullback {i}")
    if not forward:
        return
    tan_vals = [rng.standard_normal(v.shape) for v in values]
    tans = [var.type(f"t{i}") for i, var in enumerate(vars_)]
    jvp = pushforward(out, vars_, tans)
    got_f = evaluate(jvp, {**givens, **dict(zip(tans, tan_vals))})
    plus = [v + eps * t for v, t in zip(values, tan_vals)]
    minus = [v - eps * t for v, t in zip(values, tan_vals)]
    num_f = (f(plus) - f(minus)) / (2 * eps)
    np.testing.assert_allclose(got_f, num_f, rtol=rtol, atol=atol, err_msg="pushforward")

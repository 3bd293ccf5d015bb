"""Turning symbolic outputs into a Python callable for numeric gradient checks.

Uses ``opgraph.compile.function`` when a linker plugin is installed, else a
small evaluator that calls each node's ``perform`` (so the core's own tests
need no plugin).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from opgraph.autodiff.reverse import apply_nodes_above
from opgraph.graph.basic import Constant, Variable

__all__ = ["compile_callable", "perform_callable"]


def perform_callable(
    inputs: Sequence[Variable], outputs: Sequence[Variable]
) -> Callable[..., list[Any]]:
    """A function evaluating ``outputs`` from ``inputs`` with each node's ``perform``."""
    order = apply_nodes_above(outputs, set(inputs))
    inputs = list(inputs)
    outputs = list(outputs)

    def run(*values: Any) -> list[Any]:
        if len(values) != len(inputs):
            raise TypeError(f"expected {len(inputs)} input values, got {len(values)}")
        store: dict[Variable, Any] = {}
        for var, value in zip(inputs, values):
            store[var] = var.type.filter(value, strict=False, allow_downcast=True)
        for node in order:
            args = []
            for inp in node.inputs:
                if inp in store:
                    args.append(store[inp])
                elif isinstance(inp, Constant):
                    args.append(inp.data)
                else:
                    raise ValueError(f"missing input value for {inp} (needed by {node.op})")
            cells: list[list[Any]] = [[None] for _ in node.outputs]
            node.op.perform(node, args, cells)
            for out, cell in zip(node.outputs, cells):
                store[out] = cell[0]
        result = []
        for out in outputs:
            if out in store:
                result.append(store[out])
            elif isinstance(out, Constant):
                result.append(out.data)
            else:
                raise ValueError(f"output {out} cannot be computed from the inputs")
        return result

    return run


def _have_linker() -> bool:
    try:
        from opgraph.plugins.manager import linker_records

        return bool(linker_records())
    except Exception:
        return False


def compile_callable(
    inputs: Sequence[Variable], outputs: Sequence[Variable], mode: Any = None
) -> Callable[..., list[Any]]:
    """``function(inputs, outputs, mode)`` when possible, else :func:`perform_callable`.

    ``mode="perform"`` forces the perform-based evaluator.
    """
    if mode != "perform" and (mode is not None or _have_linker()):
        try:
            from opgraph.compile.function import function
        except ImportError:
            function = None
        if function is not None:
            # accept_inplace: a graph with in-place Ops may be checked; verify_grad copies.
            fn = function(list(inputs), list(outputs), mode=mode, on_unused_input="ignore",
                          accept_inplace=True)
            return lambda *values: list(fn(*values))
    return perform_callable(inputs, outputs)

"""Value checks DebugMode runs around every node: copies, equality, aliasing, validity.

Each node is run on private copies of its inputs, so whatever an
implementation does to them can be seen by comparing with a snapshot, and
the values the rest of the graph uses are never touched.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from opgraph.compile.debug.errors import BadDestroyMap, BadViewMap, InvalidValueError
from opgraph.graph.basic import Apply, Variable

__all__ = [
    "check_aliasing",
    "check_destroyed",
    "check_output_values",
    "copy_value",
    "may_share",
    "run_on_copies",
    "same_value",
    "values_match",
]


def copy_value(value: Any) -> Any:
    """An independent copy of ``value`` (arrays keep their memory layout)."""
    if isinstance(value, np.ndarray):
        return value.copy(order="K")
    return copy.deepcopy(value)


def same_value(before: Any, after: Any) -> bool:
    """True when ``after`` is bit-for-bit the value ``before`` was (NaN equals NaN)."""
    if isinstance(before, np.ndarray) or isinstance(after, np.ndarray):
        a, b = np.asarray(before), np.asarray(after)
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.dtype.kind in "fc":
            return bool(np.array_equal(a, b, equal_nan=True))
        return bool(np.array_equal(a, b))
    try:
        return bool(before == after)
    except Exception:  # objects without a usable ==
        return before is after


def values_match(var: Variable, a: Any, b: Any) -> bool:
    """Whether two implementations' values for ``var`` agree (the type's tolerance)."""
    try:
        return bool(var.type.values_eq_approx(a, b))
    except Exception:
        return same_value(a, b)


def may_share(a: Any, b: Any) -> bool:
    """Whether two values may use the same memory (only arrays can)."""
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        if a.size == 0 or b.size == 0:
            return False
        return bool(np.may_share_memory(a, b))
    if isinstance(a, list | dict) and a is b:
        return True
    return False


def check_destroyed(node: Apply, before: Sequence[Any], after: Sequence[Any], label: str) -> None:
    """BadDestroyMap if an input changed that ``destroy_map`` does not list."""
    destroyed = {i for ins in getattr(node.op, "destroy_map", {}).values() for i in ins}
    for i, (old, new) in enumerate(zip(before, after)):
        if i not in destroyed and not same_value(old, new):
            raise BadDestroyMap(node, i, old, new, label)


def _declared(node: Apply, j: int) -> set[int]:
    op = node.op
    return set(getattr(op, "view_map", {}).get(j, ())) | set(
        getattr(op, "destroy_map", {}).get(j, ())
    )


def check_aliasing(node: Apply, inputs: Sequence[Any], outputs: Sequence[Any],
                   used_later: Callable[[Variable], bool]) -> None:
    """BadViewMap for undeclared output/input sharing, or outputs sharing memory
    where both are read by later nodes (destroying one would corrupt the other)."""
    for j, out in enumerate(outputs):
        allowed = _declared(node, j)
        for i, inp in enumerate(inputs):
            if i not in allowed and may_share(out, inp):
                raise BadViewMap(node, j, out, in_alias_idx=i)
    for j1 in range(len(outputs)):
        for j2 in range(j1 + 1, len(outputs)):
            if not may_share(outputs[j1], outputs[j2]):
                continue
            if _declared(node, j1) & _declared(node, j2):
                continue  # both views of one input: declared aliasing
            if used_later(node.outputs[j1]) and used_later(node.outputs[j2]):
                raise BadViewMap(node, j1, outputs[j1], out_alias_idx=j2)


def check_output_values(node: Apply, outputs: Sequence[Any], check_isfinite: bool) -> None:
    """InvalidValueError for a value the output type rejects, or NaN/Inf when checked."""
    for var, value in zip(node.outputs, outputs):
        try:
            valid = var.type.is_valid_value(value)
        except Exception:
            valid = True  # a type that cannot judge its values is not checked
        if not valid:
            raise InvalidValueError(var, value, node, hint="not a valid value of the output type",
                                    specific_hint=f"expected {var.type}, got "
                                                  f"{type(value).__name__}")
        if check_isfinite and isinstance(value, np.ndarray | np.generic):
            arr = np.asarray(value)
            if arr.dtype.kind in "fc" and not np.all(np.isfinite(arr)):
                kind = "NaN" if np.any(np.isnan(arr)) else "Inf"
                raise InvalidValueError(var, value, node, hint=f"contains {kind}",
                                        specific_hint="check_isfinite=True")


def run_on_copies(node: Apply, inputs: Sequence[Any], run: Callable[[list, list], None],
                  label: str, used_later: Callable[[Variable], bool],
                  prealloc: Sequence[Any] | None = None) -> list[Any]:
    """Run ``run(inputs, output_cells)`` on copies; check destroy and view maps; return outputs."""
    work = [copy_value(v) for v in inputs]
    snapshot = [copy_value(v) for v in work]
    cells = [[None] for _ in node.outputs] if prealloc is None else [[p] for p in prealloc]
    run(work, cells)
    outputs = [c[0] for c in cells]
    check_destroyed(node, snapshot, work, label)
    check_aliasing(node, work, outputs, used_later)
    return outputs

"""``rebuild_collect_shared``: clone a graph with replacements, collecting its shared variables.

PyTensor's helper behind ``function``: it returns the (possibly cloned)
inputs, the cloned outputs, and what ``function`` needs about shared
variables: the clone map, the update of each shared variable (given or its
``default_update``), and the shared variables the graph reads implicitly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from opgraph.compile.io import Out
from opgraph.compile.prepare import UnusedInputError  # noqa: F401  (PyTensor imports it here)
from opgraph.graph.basic import Constant, Variable
from opgraph.graph.traversal import io_toposort
from opgraph.link.sharedvalue import SharedVariable

__all__ = ["rebuild_collect_shared"]


def _pairs(mapping: Any, what: str) -> list[tuple[Variable, Variable]]:
    if mapping is None:
        return []
    items = list(mapping.items()) if isinstance(mapping, Mapping) else list(mapping)
    for item in items:
        if not (isinstance(item, tuple | list) and len(item) == 2):
            raise TypeError(f"rebuild_collect_shared: {what} must be a dict or (old, new) pairs, "
                            f"got the entry {item!r}")
    return [(a, b) for a, b in items]


def _clone(outputs: Sequence[Variable], memo: dict[Variable, Variable], strict: bool,
           clone_inner: bool, shared: list[SharedVariable]) -> None:
    """Fill ``memo`` with a clone of every node above ``outputs`` not already in it."""
    for node in io_toposort(list(memo), list(outputs)):
        if all(o in memo for o in node.outputs):
            continue
        for x in node.inputs:
            if x not in memo and x.owner is None:
                memo[x] = x
                if isinstance(x, SharedVariable) and x not in shared:
                    shared.append(x)
        new = node.clone_with_new_inputs([memo[x] for x in node.inputs], strict=strict,
                                         clone_inner_graph=clone_inner)
        for old, fresh in zip(node.outputs, new.outputs):
            memo[old] = fresh
    for o in outputs:
        if o not in memo and o.owner is None:
            memo[o] = o
            if isinstance(o, SharedVariable) and o not in shared:
                shared.append(o)


def rebuild_collect_shared(
    outputs: Any,
    inputs: Sequence[Variable] | None = None,
    replace: Any = None,
    updates: Any = None,
    rebuild_strict: bool = True,
    copy_inputs_over: bool = True,
    no_default_updates: bool | Sequence[Variable] = False,
    clone_inner_graphs: bool = False,
) -> tuple[list[Variable], Any, list[Any]]:
    """Clone ``outputs`` with ``replace`` applied; see the module docstring for the result.

    Returns ``(input_variables, cloned_outputs, [clone_d, update_d, update_expr,
    shared_inputs])``.  Inputs are kept as they are when ``copy_inputs_over``
    (the default), else replaced by fresh variables of the same type and name.
    """
    single = not isinstance(outputs, list | tuple)
    outs = [outputs] if single else list(outputs)
    out_vars = [o.variable if isinstance(o, Out) else o for o in outs]
    for o in out_vars:
        if not isinstance(o, Variable):
            raise TypeError(f"rebuild_collect_shared: outputs must be Variables, got {o!r}")
    memo: dict[Variable, Variable] = {}
    for i in inputs or ():
        if not isinstance(i, Variable):
            raise TypeError(f"rebuild_collect_shared: inputs must be Variables, got {i!r}")
        memo[i] = i if copy_inputs_over or isinstance(i, Constant) else i.type(i.name)
    shared: list[SharedVariable] = []
    for old, new in _pairs(replace, "replace"):
        _clone([new], memo, rebuild_strict, clone_inner_graphs, shared)
        memo[old] = memo.get(new, new)
    _clone(out_vars, memo, rebuild_strict, clone_inner_graphs, shared)

    update_d: dict[Variable, Variable] = {}
    update_expr: list[tuple[Variable, Variable]] = []
    for target, expr in _pairs(updates, "updates"):
        if not isinstance(target, SharedVariable):
            raise TypeError(f"rebuild_collect_shared: update target {target} is not shared")
        if target in update_d:
            raise ValueError(f"rebuild_collect_shared: {target} is updated twice")
        _clone([expr], memo, rebuild_strict, clone_inner_graphs, shared)
        update_d[target] = memo.get(expr, expr)
        update_expr.append((target, update_d[target]))
        if target not in shared:
            shared.append(target)
    if no_default_updates is not True:
        skip = set(no_default_updates or ())
        for s in list(shared):
            default = getattr(s, "default_update", None)
            if default is None or s in update_d or s in skip:
                continue
            _clone([default], memo, rebuild_strict, clone_inner_graphs, shared)
            update_d[s] = memo.get(default, default)
            update_expr.append((s, update_d[s]))

    input_variables = [memo.get(i, i) for i in inputs or ()]
    new_outs = [memo.get(o, o) for o in out_vars]
    cloned: Any = new_outs[0] if single else new_outs
    return input_variables, cloned, [memo, update_d, update_expr, shared]

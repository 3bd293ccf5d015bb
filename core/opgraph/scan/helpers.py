"""``until`` and the helpers of PyTensor's ``scan.utils``, ``scan.op`` and ``scan.basic``.

Rewrites and Ops written against PyTensor's Scan build their graphs with these:
new placeholder variables (``safe_new``, ``reconstruct_graph``), a buffer with
room for more rows (``expand_empty``), structural replacement
(``forced_replace``), the checks and messages ``scan`` gives for mismatched
initial states (``check_broadcast``, ``copy_var_format``, ``err_msg1..3``), and
the parsing of a step function's return value (``get_updates_and_outputs``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import opgraph.tensor as pt
from opgraph.graph.basic import Constant, Variable, clone_replace, equal_computations
from opgraph.link.sharedvalue import SharedVariable
from opgraph.scalar.type import ScalarVariable
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable

__all__ = [
    "InnerFunctionError",
    "TensorConstructorType",
    "check_broadcast",
    "copy_var_format",
    "default_filter_scanargs",
    "err_msg1",
    "err_msg2",
    "err_msg3",
    "expand_empty",
    "forced_replace",
    "get_updates_and_outputs",
    "reconstruct_graph",
    "safe_index",
    "safe_new",
    "until",
]

#: ``(shape, dtype) -> TensorType``: how code builds the types of Scan buffers
TensorConstructorType = Callable[[Sequence[int | None], Any], TensorType]

err_msg1 = ("When compiling the inner function of scan the following error has been "
            "encountered: the {what} {i} (counting from 0, {name}) has type {t1} in the "
            "outer graph but type {t2} in the inner graph")
err_msg2 = ("When compiling the inner function of scan the following error has been "
            "encountered: the initial state (outputs_info) of output {i} has {ndim1} "
            "dimensions but the step function returns one with {ndim2}")
err_msg3 = ("When compiling the inner function of scan the following error has been "
            "encountered: output {i} of the step function has type {t1}, its state "
            "(outputs_info) has type {t2}")


class until:
    """Stop a scan after the step where ``condition`` is true (a while loop).

    The step function returns it beside its outputs:
    ``return new_x, until(new_x > 10)``.  The condition must be a scalar (a
    boolean, or a number: nonzero stops); anything else is refused here, when
    the graph is built.
    """

    def __init__(self, condition: Any) -> None:
        try:
            cond = as_tensor_variable(condition)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"until: condition must be a boolean scalar; got {condition!r:.60}"
                            f" ({exc})") from None
        if cond.type.ndim != 0:
            raise TypeError(f"until: condition must be a boolean scalar; got a "
                            f"{cond.type.ndim}-d tensor {cond.type}")
        if cond.type.dtype.startswith(("float", "complex")):
            # as in PyTensor, any scalar: the loop stops where it is nonzero (the
            # backends read a boolean or integer condition)
            cond = pt.neq(cond, 0)
        elif not (cond.type.dtype == "bool" or cond.type.dtype.startswith(("int", "uint"))):
            raise TypeError(f"until: condition must be a boolean scalar; got dtype "
                            f"{cond.type.dtype} ({cond.type})")
        self.condition = cond


class InnerFunctionError(Exception):
    """An exception raised by the compiled step function of a Scan (its cause is kept)."""


def safe_new(x: Variable, tag: str = "", dtype: Any = None) -> Variable:
    """A fresh variable of ``x``'s type (cast to ``dtype``), named ``x.name + tag``.

    Constants are kept (cast when a dtype is asked): they need no placeholder.
    """
    if not isinstance(x, Variable):
        raise TypeError(f"safe_new: x must be a Variable, got {type(x).__name__}")
    if isinstance(x, Constant):
        if dtype is not None and getattr(x.type, "dtype", dtype) != dtype:
            return pt.constant(x.data, name=x.name, dtype=dtype)
        return x
    var = x
    if dtype is not None and getattr(x.type, "dtype", dtype) != dtype:
        var = pt.cast(x, dtype)
    new = var.type()
    new.name = None if x.name is None else x.name + tag
    return new


def reconstruct_graph(inputs: Sequence[Variable], outputs: Sequence[Variable],
                      tag: str | None = None) -> tuple[list[Variable], list[Variable]]:
    """``outputs`` rebuilt on fresh copies of ``inputs``: ``(new_inputs, new_outputs)``."""
    new_inputs = [safe_new(x, tag or "") for x in inputs]
    new_outputs = clone_replace(list(outputs), replace=dict(zip(inputs, new_inputs,
                                                                strict=True)))
    return new_inputs, list(new_outputs)


def expand_empty(tensor_var: Variable, size: Any) -> Variable:
    """``tensor_var`` followed by ``size`` uninitialised rows (a buffer to fill in)."""
    if isinstance(size, int) and size == 0:
        return tensor_var
    shape = pt.shape_tuple(tensor_var)
    empty = pt.empty((shape[0] + size, *shape[1:]), dtype=tensor_var.type.dtype)
    return pt.set_subtensor(empty[: shape[0]], tensor_var)


def safe_index(lst: Sequence[Any], x: Any) -> int | None:
    """The position of ``x`` in ``lst``, or None."""
    try:
        return list(lst).index(x)
    except ValueError:
        return None


def default_filter_scanargs(x: str) -> bool:
    """The ``ScanArgs`` field names that hold variables (``inner_*`` and ``outer_*``)."""
    return x.startswith(("inner_", "outer_"))


def forced_replace(out: Variable | None, x: Variable, y: Variable) -> Variable | None:
    """``out`` with every subgraph that computes the same as ``x`` replaced by ``y``.

    Matching is structural (``equal_computations``), so a recomputation of ``x`` is
    found even when it is another variable; a match is not searched further.
    """
    if out is None:
        return None
    seen: set[Variable] = set()
    todo = deque([out])
    found = []
    while todo:
        v = todo.popleft()
        if v in seen:
            continue
        seen.add(v)
        if equal_computations([v], [x]):
            found.append(v)
        elif v.owner is not None:
            todo.extendleft(v.owner.inputs)
    if not found:
        return out
    return clone_replace(out, replace={v: y for v in found})


def check_broadcast(v1: Variable, v2: Variable) -> None:
    """Raise ``TypeError`` when the trailing axes of ``v1`` and ``v2`` differ in which
    have length 1 (a state given as length 1 that the step makes variable, or back)."""
    if not isinstance(v1.type, TensorType) and not isinstance(v2.type, TensorType):
        return
    size = min(v1.type.ndim, v2.type.ndim)
    if size == 0:
        return
    for n, (b1, b2) in enumerate(zip(v1.type.broadcastable[-size:],
                                     v2.type.broadcastable[-size:], strict=True)):
        if b1 != b2:
            raise TypeError(
                f"The broadcast pattern of the output of scan ({v1.type}) is inconsistent "
                f"with the one of outputs_info ({v2.type}): axis {n + size - v1.type.ndim + 1}"
                f" is {b1} in the output and {b2} on axis {n + size - v2.type.ndim + 1} of "
                "outputs_info; make them consistent (specify_broadcastable / specify_shape)")


def copy_var_format(var: Any, as_var: Variable) -> Any:
    """``var`` with ``as_var``'s dtype and type (one leading axis more allowed)."""
    if not hasattr(var, "type") or not hasattr(var.type, "dtype"):
        return var
    out = var
    if out.type.dtype != as_var.type.dtype:
        out = pt.cast(out, as_var.type.dtype)
    if out.type.ndim == as_var.type.ndim:
        return as_var.type.filter_variable(out)
    stacked = TensorType(as_var.type.dtype, (var.type.shape[0], *as_var.type.shape))
    return stacked.filter_variable(out)


def _is_updates(x: Any) -> bool:
    return isinstance(x, Mapping) or (
        isinstance(x, list | tuple) and len(x) > 0
        and all(isinstance(p, list | tuple) and len(p) == 2 for p in x))


def _outputs(x: Any) -> bool:
    return isinstance(x, Variable) or (
        isinstance(x, list | tuple) and all(isinstance(v, Variable) for v in x))


def get_updates_and_outputs(ls: Any) -> tuple[Any, list[Variable], dict]:
    """``(condition, outputs, updates)`` from a step function's return value.

    The value is outputs, updates (a dict or ``(shared, new)`` pairs) and an
    ``until``, each optional, in that order.
    """
    def allowed(x: Any) -> bool:
        if isinstance(x, list | tuple):
            return all(allowed(v) for v in x)
        if isinstance(x, Mapping):
            return all(allowed(k) and allowed(v) for k, v in x.items())
        return isinstance(x, Variable | until | ScalarVariable | SharedVariable)

    if not allowed(ls):
        raise ValueError("scan: the step function may return only variables, lists, tuples "
                         f"or dicts of variables and an until(); got {ls!r:.80}")
    if _outputs(ls):
        return None, list(ls) if isinstance(ls, list | tuple) else [ls], {}
    if _is_updates(ls):
        return None, [], dict(ls)
    if not isinstance(ls, list | tuple):
        raise ValueError(f"scan: cannot read the step function's return value {ls!r:.80}")
    items = list(ls)
    cond = items.pop().condition if items and isinstance(items[-1], until) else None
    updates: dict = {}
    if items and _is_updates(items[-1]) and not _outputs(items[-1]):
        updates = dict(items.pop())
    if len(items) == 1 and isinstance(items[0], list | tuple):
        items = list(items[0])
    if not all(isinstance(v, Variable) for v in items):
        raise ValueError("scan: the step function must return its outputs first, then the "
                         f"updates, then the until(); got {ls!r:.80}")
    return cond, items, updates

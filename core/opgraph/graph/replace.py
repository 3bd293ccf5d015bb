"""Rebuilding graphs with some variables swapped: clone_replace, graph_replace, vectorize_graph.

Duck-typed on the node fields (``owner``, ``inputs``, ``outputs``,
``clone_with_new_inputs``) so that it sits below ``basic``, which re-exports
``clone_replace`` at its historical place.

``vectorize_graph`` gives graphs a leading batch axis through the one
batching table owned here (``BATCHING_RULES``, Op class -> one rule that adds
any number of leading axes, ``register_batching_rule``); the modules that define
the Ops fill it, ``jacobian`` and Blockwise use it too, and the entry of
``object`` is the one fallback. ``_vectorize_node`` is the
per-Op dispatch point, as in PyTensor: register an Op class on it to give
that Op its own vectorisation.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from opgraph.graph.table import TypeTable
from opgraph.graph.table import caller_module as _caller_module
from opgraph.graph.traversal import _postorder_nodes, ancestors

__all__ = [
    "BATCHING_RULES",
    "BATCH_BROADCAST",
    "BatchingRule",
    "NoBatchingRule",
    "apply_batching_rule",
    "batch_axes_of",
    "batching_rule_for",
    "clone_replace",
    "graph_replace",
    "one_batch_axis",
    "register_batching_rule",
    "vectorize_graph",
    "vectorize_node",
    "vectorize_node_dispatch",
]


def _is_variable(x: Any) -> bool:
    return hasattr(x, "owner") and hasattr(x, "type")


def _format_replace(replace: Any) -> dict:
    """A ``{old: new}`` dict from a dict, a sequence of pairs, or None."""
    if replace is None:
        return {}
    if isinstance(replace, Mapping):
        return dict(replace)
    if isinstance(replace, Iterable):
        return dict(replace)
    raise ValueError(
        f"replace must be a dict, a sequence of (old, new) pairs or None, got "
        f"{type(replace).__qualname__}"
    )


def _check_pairs(items: dict, who: str) -> None:
    for old, new in items.items():
        if not _is_variable(old) or not _is_variable(new):
            raise TypeError(
                f"{who}: replacement pairs must be Variables, got "
                f"{type(old).__qualname__} -> {type(new).__qualname__}"
            )


def _rebuild(outputs: list, memo: dict, copy_inputs: bool, strict: bool = False) -> list:
    """Copies of every node between the graph's roots (or ``memo`` keys) and ``outputs``.

    Ownerless variables are cloned when ``copy_inputs`` (constants clone to
    themselves); nodes whose input types change are remade by ``make_node``, unless
    ``strict`` and the input's old type converts the new value (``filter_variable``:
    a tensor constant given where an xtensor was), as PyTensor's ``rebuild_strict``.
    ``memo`` (old -> new) is extended in place.
    """
    for node in _postorder_nodes(set(memo), outputs):
        new_inputs = []
        for x in node.inputs:
            nx = memo.get(x)
            if nx is None:
                nx = memo[x] = x.clone() if copy_inputs and x.owner is None else x
            new_inputs.append(nx)
        new = _clone_node(node, new_inputs, strict)
        # an output being replaced keeps its replacement when a sibling output (a
        # RandomVariable's next rng) needs the node copied
        for old_out, new_out in zip(node.outputs, new.outputs):
            memo.setdefault(old_out, new_out)
    result = []
    for o in outputs:
        no = memo.get(o)
        if no is None:
            no = o.clone() if copy_inputs and o.owner is None else o
        result.append(no)
    return result


def _clone_node(node: Any, inputs: list, strict: bool) -> Any:
    if strict:
        try:
            return node.clone_with_new_inputs(inputs, strict=True)
        except TypeError:
            pass  # a type the old one cannot take: remade, as without ``strict``
    return node.clone_with_new_inputs(inputs, strict=False)


def clone_replace(
    output: Any,
    replace: Any = None,
    rebuild_strict: bool = True,
    copy_inputs_over: bool = True,
    **rebuild_kwds: Any,
) -> Any:
    """A copy of the graph of ``output`` (a Variable or a list) with ``replace`` applied.

    Every node is copied. With ``copy_inputs_over`` the graph's inputs (and
    the replacements' inputs) are kept, otherwise they are cloned as well.
    A replacement of another type makes the nodes using it be remade.
    """
    items = _format_replace(replace)
    _check_pairs(items, "clone_replace")
    single = _is_variable(output)
    outs = [output] if single else list(output)
    copy_inputs = not copy_inputs_over
    # Two passes, so a replacement that uses a replaced variable keeps it:
    # old -> placeholder, then placeholder -> new (whose graph is copied too).
    holders = {old: old.type() for old in items}
    outs = _rebuild(outs, dict(holders), copy_inputs)
    memo: dict = {}
    values = _rebuild(list(items.values()), memo, copy_inputs)
    memo.update({holders[old]: new for old, new in zip(items, values)})
    outs = _rebuild(outs, memo, copy_inputs, strict=rebuild_strict)
    return outs[0] if single else outs


def graph_replace(
    outputs: Any,
    replace: Any = None,
    *,
    strict: bool = True,
) -> Any:
    """``outputs`` with ``replace`` applied, rebuilding only the nodes that change.

    Everything that does not depend on a replaced variable is kept (the same
    objects). With ``strict``, a replacement the outputs do not depend on is
    a ValueError.
    """
    items = _format_replace(replace)
    _check_pairs(items, "graph_replace")
    single = _is_variable(outputs)
    outs = [outputs] if single else list(outputs)
    if strict and items:
        seen = set(ancestors(outs))
        unused = [old for old in items if old not in seen]
        if unused:
            raise ValueError(
                f"Some replacements were not used: {', '.join(map(str, unused))} are not "
                "in the graph of the outputs (pass strict=False to allow it)"
            )
    memo = dict(items)
    for node in _postorder_nodes(set(memo), outs):
        new_inputs = [memo.get(x, x) for x in node.inputs]
        if any(a is not b for a, b in zip(new_inputs, node.inputs)):
            new = node.clone_with_new_inputs(new_inputs, strict=False)
            memo.update(zip(node.outputs, new.outputs))
    result = [memo.get(o, o) for o in outs]
    return result[0] if single else result


# --------------------------------------------------------------------------- vectorize


def _outputs_of(result: Any) -> list:
    return list(result.outputs) if hasattr(result, "op") else list(result)


class NoBatchingRule(NotImplementedError):
    """An Op cannot be given a leading batch axis (no rule for it)."""


#: rule(node, inputs, extra) -> outputs (a list, or the Apply that makes them):
#: ``inputs[i]`` carries ``extra[i]`` (0 or more) new leading batch axes, different
#: counts broadcasting as in NumPy (left-padded).  Each output carries the batch
#: axes or none (its rank says which: an output equal for every batch entry, such
#: as a shape, may stay unbatched).  A rule raises :class:`NoBatchingRule` for a
#: case it does not cover (the table's fallback then takes the node), another
#: NotImplementedError or a ValueError for a node that cannot be batched at all.
BatchingRule = Callable[[Any, list, list[int]], Any]

BATCHING_RULES: TypeTable[BatchingRule] = TypeTable(
    "batching", "how each Op class gets batch axes (vectorize_graph, jacobian, Blockwise)")
"""The one batching table: Op class -> :data:`BatchingRule`, filled next to the Ops.

The entry of ``object`` is the one fallback, for Ops without a rule or whose rule
declines: the tensor layer wraps the node in a Blockwise, a node with non-tensor
inputs is looped over rows (``autodiff.batched``).
"""


BATCH_BROADCAST: TypeTable[Callable[[Any, Any], Any]] = TypeTable(
    "batch_broadcast", "Type class -> broadcast(value, reference): value repeated along "
    "the leading axis of reference (vectorize_graph's unbatched outputs)")
"""Filled by the layer that defines the Type (the tensor one for TensorType)."""


def register_batching_rule(op_class: type, rule: BatchingRule, *, stacklevel: int = 1) -> None:
    """Give ``op_class`` (and its subclasses without their own) the batching ``rule``.

    The one registration API of the batching table; ``op_class=object`` sets the
    fallback.
    """
    if not callable(rule):
        raise TypeError(
            f"register_batching_rule: the rule for {op_class!r} must be a callable "
            f"rule(node, inputs, extra) -> outputs, got {type(rule).__qualname__}")
    BATCHING_RULES.register(op_class, rule, origin=_caller_module(stacklevel))


def one_batch_axis(node: Any, inputs: Sequence[Any], extra: Sequence[int]) -> list[bool]:
    """Which ``inputs`` carry the batch axis, for a rule written for one leading axis.

    Raises :class:`NoBatchingRule` (the fallback takes the node) when an input has
    more than one new axis, or when a batch axis of static length 1 broadcasts
    against a longer one (such a rule assumes one common batch length).
    """
    if any(e > 1 for e in extra):
        raise NoBatchingRule(f"{node.op}: its batching rule adds one axis, got {max(extra)}")
    lengths = {getattr(v.type, "shape", (None,))[0] for v, e in zip(inputs, extra) if e}
    if 1 in lengths and len(lengths) > 1:
        raise NoBatchingRule(f"{node.op}: batch axes of length 1 broadcast against others")
    return [e == 1 for e in extra]


def batching_rule_for(op: Any, *, fallback: bool = False) -> BatchingRule:
    """The rule of ``type(op)`` (or its nearest base class), or NoBatchingRule.

    ``fallback=True`` also accepts the table's fallback (the entry of ``object``).
    """
    rule = BATCHING_RULES.lookup(op, skip=() if fallback else (object,))
    if rule is None:
        raise NoBatchingRule(f"no batching rule for {op} (Op class {type(op).__qualname__})")
    return rule


def apply_batching_rule(node: Any, inputs: Sequence[Any], extra: Sequence[int]) -> list:
    """``node``'s outputs over ``inputs`` carrying ``extra`` new leading axes each.

    The Op's rule, else (none, or it raises :class:`NoBatchingRule`) the table's
    fallback; NoBatchingRule when that does not apply either.
    """
    ins, ext = list(inputs), [int(e) for e in extra]
    try:
        return _outputs_of(batching_rule_for(node.op)(node, ins, ext))
    except NoBatchingRule as exc:
        declined = exc
    fallback = BATCHING_RULES.get(object)
    if fallback is None:
        raise declined
    try:
        return _outputs_of(fallback(node, ins, ext))
    except NotImplementedError as exc:  # the fallback does not apply either
        raise declined from exc


def batch_axes_of(old: Any, new: Any) -> int:
    """How many batch axes ``new`` (the batched ``old``) carries: the rank it gained."""
    return getattr(new.type, "ndim", 0) - getattr(old.type, "ndim", 0)


@functools.singledispatch
def _vectorize_node(op: Any, node: Any, *batched_inputs: Any) -> Any:
    """``node`` applied to inputs that may carry leading batch axes.

    Returns an Apply (when one new node makes every output, as PyTensor's rules
    return it) or a list of output Variables. The default uses the batching
    table; register an Op class to override it.
    """
    extra = [max(batch_axes_of(old, new), 0) for old, new in zip(node.inputs, batched_inputs)]
    if not any(extra):
        return node.clone_with_new_inputs(list(batched_inputs), strict=False)
    outs = apply_batching_rule(node, batched_inputs, extra)
    owner = getattr(outs[0], "owner", None) if outs else None
    if owner is not None and len(owner.outputs) == len(outs) and all(
        a is b for a, b in zip(owner.outputs, outs)
    ):
        return owner
    return outs


# The public name plugins register batching rules with (PyTensor spells it privately).
vectorize_node_dispatch = _vectorize_node


def vectorize_node(node: Any, *batched_inputs: Any) -> Any:
    """``_vectorize_node(node.op, node, *batched_inputs)``."""
    return _vectorize_node(node.op, node, *batched_inputs)


def vectorize_graph(outputs: Any, replace: Mapping[Any, Any]) -> Any:
    """``outputs`` rebuilt with each ``replace`` key swapped for a batched value.

    A batched value has one more leading axis than the variable it replaces;
    every node depending on one is vectorised (``_vectorize_node``), the rest
    is kept as is.
    """
    items = _format_replace(replace)
    if not all(_is_variable(k) and _is_variable(v) for k, v in items.items()):
        raise ValueError(
            "Some of the replaced items are not Variables: vectorize_graph needs "
            "{Variable: batched Variable}"
        )
    single = _is_variable(outputs)
    outs = [outputs] if single else list(outputs)
    extra = {k: getattr(v.type, "ndim", 0) - getattr(k.type, "ndim", 0) for k, v in items.items()}
    depth = max(extra.values(), default=0)
    if depth > 1 and len(items) == 1:
        # batching rules add one axis: merge the batch axes into one and split them after
        ((key, value),) = items.items()
        batch = [value.shape[i] for i in range(depth)]
        core = [value.shape[i] for i in range(depth, value.type.ndim)]
        flat = vectorize_graph(outs, {key: value.reshape((-1, *core), ndim=len(core) + 1)})
        result = [
            new if new is old else new.reshape(
                (*batch, *[new.shape[i] for i in range(1, new.type.ndim)]),
                ndim=new.type.ndim - 1 + depth)
            for old, new in zip(outs, flat)
        ]
        return result[0] if single else result
    if depth > 1:
        # one batch axis at a time: the outermost stays on a stand-in while the inner
        # ones are added, then the stand-in gets it (batching rules add one axis each)
        stand = {k: v.type.clone(shape=v.type.shape[1:])() for k, v in items.items()
                 if extra[k] == depth}
        inner = vectorize_graph(outs, {k: stand.get(k, v) for k, v in items.items()})
        result = vectorize_graph(inner, {stand[k]: items[k] for k in stand})
        return result[0] if single else result
    memo = dict(items)
    batched = {k for k in items if extra[k] > 0}  # variables that vary over the batch
    for node in _postorder_nodes(set(memo), outs):
        new_inputs = [memo.get(x, x) for x in node.inputs]
        if all(a is b for a, b in zip(new_inputs, node.inputs)):
            continue
        new_outs = _outputs_of(_vectorize_node(node.op, node, *new_inputs))
        for old, new in zip(node.outputs, new_outs):
            memo.setdefault(old, new)
        if any(x in batched for x in node.inputs):
            batched.update(node.outputs)
    reference = next((v for k, v in items.items() if extra[k] == 1), None)
    result = [_with_batch_axis(o, memo.get(o, o), reference) if o in batched
              else memo.get(o, o) for o in outs]
    return result[0] if single else result


def _with_batch_axis(old: Any, new: Any, reference: Any) -> Any:
    """``new`` given the leading axis of ``reference`` when its rule kept it unbatched
    (a shape: the same for every batch entry), as PyTensor's vectorize_graph returns it."""
    if reference is None or batch_axes_of(old, new) != 0:
        return new
    broadcast = BATCH_BROADCAST.lookup(new.type)
    return new if broadcast is None else broadcast(new, reference)


#: what ``replace``/``clone_replace`` take: pairs or a mapping
ReplaceTypes = Iterable[tuple[Any, Any]] | dict[Any, Any]


def vectorize(*args: Any, **kwargs: Any) -> Any:
    """The old name of :func:`vectorize_graph` (warns, then calls it)."""
    warnings.warn("vectorize was renamed to vectorize_graph", UserWarning, stacklevel=2)
    return vectorize_graph(*args, **kwargs)

"""Walking graphs: ancestors, inputs, the nodes between two cuts, topological orders.

Everything here is iterative (an explicit stack or queue), so a chain of 100k
nodes never meets the recursion limit, and duck-typed on the node fields
(``owner``, ``inputs``, ``outputs``): this module sits below ``basic`` so that
``basic`` can re-export these names at their historical place.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

__all__ = [
    "ancestors",
    "apply_ancestors",
    "apply_depends_on",
    "applys_between",
    "explicit_graph_inputs",
    "general_toposort",
    "get_var_by_name",
    "graph_inputs",
    "io_toposort",
    "is_in_ancestors",
    "orphans_between",
    "toposort",
    "toposort_with_orderings",
    "truncated_graph_inputs",
    "variable_ancestors",
    "variable_depends_on",
    "vars_between",
    "walk",
    "walk_toposort",
]


def _as_list(x: Any) -> list:
    """A single node (anything with an ``owner`` or ``op``) as a one-element list."""
    if hasattr(x, "owner") or hasattr(x, "op"):
        return [x]
    return list(x)


def walk(
    nodes: Iterable[Any],
    expand: Callable[[Any], Iterable[Any] | None],
    bfs: bool = True,
    return_children: bool = False,
    hash_fn: Callable[[Any], Hashable] | None = None,
) -> Iterator[Any]:
    """Visit every node reachable through ``expand`` once.

    Breadth-first visits children in the order ``expand`` gives them;
    depth-first takes the last child first (a stack). With
    ``return_children`` each node comes with what ``expand`` returned.
    """
    queue: deque = deque(nodes)
    seen: set = set()
    pop = queue.popleft if bfs else queue.pop
    key = hash_fn
    while queue:
        node = pop()
        k = node if key is None else key(node)
        if k in seen:
            continue
        seen.add(k)
        children = expand(node)
        if return_children:
            yield node, children
        else:
            yield node
        if children:
            queue.extend(children)


def ancestors(graphs: Iterable[Any], blockers: Iterable[Any] | None = None) -> Iterator[Any]:
    """Every variable ``graphs`` depend on, themselves included, depth-first.

    The walk does not go past a variable in ``blockers``.
    """
    blocked = frozenset(blockers) if blockers is not None else frozenset()

    def expand(v: Any) -> list | None:
        owner = v.owner
        if owner is not None and v not in blocked:
            return owner.inputs
        return None

    yield from walk(_as_list(graphs), expand, bfs=False)


variable_ancestors = ancestors


def apply_ancestors(graphs: Iterable[Any], blockers: Iterable[Any] | None = None) -> Iterator[Any]:
    """The Apply nodes among the ancestors of ``graphs`` (each once)."""
    seen: set = set()
    blocked = frozenset(blockers) if blockers is not None else frozenset()
    for v in ancestors(graphs, blocked):
        owner = v.owner
        if owner is not None and v not in blocked and owner not in seen:
            seen.add(owner)
            yield owner


def graph_inputs(graphs: Iterable[Any], blockers: Iterable[Any] | None = None) -> list[Any]:
    """The variables the graphs start from: ownerless ones, and blockers reached."""
    blocked = frozenset(blockers) if blockers is not None else frozenset()
    return [v for v in ancestors(graphs, blocked) if v.owner is None or v in blocked]


def explicit_graph_inputs(graph: Any) -> Iterator[Any]:
    """The root variables a caller must pass to compute ``graph``.

    Constants and shared variables are left out: they carry their value (the
    class says so with ``implicit_input = True``).
    """
    for v in ancestors(_as_list(graph)):
        if v.owner is None and not getattr(type(v), "implicit_input", False):
            yield v


def vars_between(ins: Iterable[Any], outs: Iterable[Any]) -> Iterator[Any]:
    """Variables on the paths from ``ins`` to ``outs`` (siblings outputs included)."""
    ins_set = frozenset(ins)

    def expand(v: Any) -> list | None:
        owner = v.owner
        if owner is not None and v not in ins_set:
            return owner.inputs + owner.outputs
        return None

    yield from walk(_as_list(outs), expand, bfs=False)


def orphans_between(ins: Iterable[Any], outs: Iterable[Any]) -> Iterator[Any]:
    """Ownerless variables needed by ``outs`` that are not among ``ins``."""
    ins_set = frozenset(ins)
    for v in vars_between(ins_set, outs):
        if v.owner is None and v not in ins_set:
            yield v


def applys_between(ins: Iterable[Any], outs: Iterable[Any]) -> Iterator[Any]:
    """Apply nodes on the paths from ``ins`` to ``outs`` (each once)."""
    ins_set = frozenset(ins)
    seen: set = set()
    for v in vars_between(ins_set, outs):
        owner = v.owner
        if owner is not None and v not in ins_set and owner not in seen:
            seen.add(owner)
            yield owner


def apply_depends_on(apply: Any, depends_on: Any) -> bool:
    """True when ``apply`` is, or consumes the result of, one of ``depends_on`` (Apply nodes)."""
    targets = {depends_on} if hasattr(depends_on, "op") else set(depends_on)
    if apply in targets:
        return True
    return any(node in targets for node in apply_ancestors(apply.inputs))


def variable_depends_on(
    variable: Any, depends_on: Any, stop_search_at: Iterable[Any] | None = None
) -> bool:
    """True when ``variable`` is, or is computed from, one of ``depends_on``."""
    targets = {depends_on} if hasattr(depends_on, "owner") else set(depends_on)
    return any(v in targets for v in ancestors([variable], blockers=stop_search_at))


def is_in_ancestors(l_apply: Any, f_node: Any) -> bool:
    """True if ``f_node`` is ``l_apply`` or one of its ancestors."""
    return apply_depends_on(l_apply, f_node)


def _depends_table(outputs: list[Any], targets: frozenset) -> dict[Any, bool]:
    """``{variable: depends on a target}`` for every ancestor of ``outputs``, one pass."""
    table: dict[Any, bool] = {}
    for node in _postorder_nodes(targets, outputs):
        hit = any(x in targets or table.get(x, False) for x in node.inputs)
        for o in node.outputs:
            table[o] = hit
    return table


def truncated_graph_inputs(
    outputs: Iterable[Any], ancestors_to_include: Iterable[Any] | None = None
) -> list[Any]:
    """The variables nearest to ``outputs`` that suffice to compute them.

    Those of ``ancestors_to_include`` that the outputs depend on are always
    in the answer; every other variable returned is independent of them, and
    the walk stops there.
    """
    outputs = list(outputs)
    include = frozenset(ancestors_to_include or ())
    depends = _depends_table(outputs, include)
    result: list[Any] = []
    returned: set = set()

    def take(v: Any) -> None:
        if v not in returned:
            returned.add(v)
            result.append(v)

    # (variable, searching): ``searching`` is set below an included variable,
    # where only further included variables are wanted.
    stack: list[tuple[Any, bool]] = [(o, False) for o in outputs]
    seen: set = set()
    while stack:
        v, searching = stack.pop()
        if (v, searching) in seen:
            continue
        seen.add((v, searching))
        if v in include:
            take(v)
            if v.owner is not None:
                stack.extend((x, True) for x in v.owner.inputs)
        elif depends.get(v, False):
            stack.extend((x, searching) for x in v.owner.inputs)
        elif not searching:
            take(v)
    return result


def get_var_by_name(graphs: Iterable[Any], target_var_id: str) -> tuple[Any, ...]:
    """Variables whose ``name`` or ``auto_name`` is ``target_var_id``, inner graphs included."""

    def expand(v: Any) -> list | None:
        owner = v.owner
        if owner is None:
            return None
        inner = getattr(owner.op, "inner_outputs", None)
        if inner is not None and not callable(inner):
            return [*owner.inputs, *inner]
        return owner.inputs

    return tuple(
        v
        for v in walk(_as_list(graphs), expand)
        if target_var_id == v.name or target_var_id == getattr(v, "auto_name", None)
    )


# --------------------------------------------------------------------------- orders


def walk_toposort(
    graphs: Iterable[Any], deps: Callable[[Any], Iterable[Any] | None]
) -> Iterator[Any]:
    """Every node reachable through ``deps``, each after its dependencies.

    Dependencies are explored last-first (a stack), so the result is
    determined by the order ``deps`` returns them in. A cycle raises
    ValueError.
    """
    done: set = set()
    active: set = set()
    for root in reversed(list(graphs)):
        if root in done:
            continue
        stack = [(root, iter(reversed(list(deps(root) or ()))))]
        active.add(root)
        while stack:
            node, it = stack[-1]
            for d in it:
                if d in done:
                    continue
                if d in active:
                    raise ValueError(f"graph contains cycles (through {d})")
                active.add(d)
                stack.append((d, iter(reversed(list(deps(d) or ())))))
                break
            else:
                stack.pop()
                active.discard(node)
                done.add(node)
                yield node


def general_toposort(
    outputs: Iterable[Any],
    deps: Callable[[Any], Iterable[Any] | None],
    compute_deps_cache: Any = None,
    deps_cache: Any = None,
    clients: Any = None,
) -> list[Any]:
    """``list(walk_toposort(outputs, deps))``; the cache arguments are no longer used."""
    for name, value in (
        ("compute_deps_cache", compute_deps_cache),
        ("deps_cache", deps_cache),
        ("clients", clients),
    ):
        if value is not None:
            raise ValueError(f"general_toposort: {name} is no longer supported")
    return list(walk_toposort(outputs, deps))


def _postorder_nodes(
    in_set: Any, outputs: Iterable[Any], orphans: list[Any] | None = None
) -> list[Any]:
    """Apply nodes feeding ``outputs`` (not crossing ``in_set``), producers first.

    The hot path of toposort, clone and FunctionGraph construction: one
    explicit-stack depth-first walk, each node and edge visited once. ``in_set``
    should be a set (any other container is copied into one: a membership test
    on a list would make the walk quadratic). When ``orphans`` is a list, it
    receives the ownerless inputs of the walked nodes that are not in ``in_set``
    (so FunctionGraph import finds missing inputs without a second pass).
    """
    if not isinstance(in_set, set | frozenset | dict):
        in_set = set(in_set)
    order: list[Any] = []
    seen: set = set()  # every node pushed so far
    active: set = set()  # the nodes on the stack: reaching one again is a cycle
    seen_add = seen.add
    active_add = active.add
    active_discard = active.discard
    append = order.append
    want_orphans = orphans is not None
    # PyTensor's order: the last output first, and a node's inputs last to first (its
    # toposort pops them off a stack). Independent nodes keep PyTensor's relative
    # order, which PyMC exposes (model_from_fgraph orders a rebuilt model's
    # variables, hence its value_vars and dlogp, by fgraph.toposort()).
    for out in reversed(outputs if isinstance(outputs, list | tuple) else list(outputs)):
        root = out.owner
        if root is None or root in seen or out in in_set:
            continue
        seen_add(root)
        active_add(root)
        stack = [(root, reversed(root.inputs))]
        push = stack.append
        pop = stack.pop
        while stack:
            node, it = stack[-1]
            for x in it:
                own = x.owner
                if own is None:
                    if want_orphans and x not in in_set:
                        orphans.append(x)
                    continue
                if own in seen:
                    if own in active and x not in in_set:
                        raise ValueError(f"graph contains a cycle through {own}")
                    continue
                if x in in_set:
                    continue
                seen_add(own)
                active_add(own)
                push((own, reversed(own.inputs)))
                break
            else:
                pop()
                active_discard(node)
                append(node)
    return order


def toposort(graphs: Iterable[Any], blockers: Iterable[Any] | None = None) -> Iterator[Any]:
    """Apply nodes between ``blockers`` (inputs) and ``graphs`` (outputs), producers first."""
    yield from _postorder_nodes(set(blockers or ()), _as_list(graphs))


def toposort_with_orderings(
    graphs: Iterable[Any],
    *,
    blockers: Iterable[Any] | None = None,
    orderings: Mapping[Any, Iterable[Any]] | None = None,
) -> Iterator[Any]:
    """``toposort`` where ``orderings[node]`` lists extra nodes that must come before it."""
    yield from io_toposort(list(blockers or ()), _as_list(graphs), orderings)


def io_toposort(
    inputs: Iterable[Any],
    outputs: Iterable[Any],
    orderings: Mapping[Any, Iterable[Any]] | None = None,
    clients: Any = None,
) -> list[Any]:
    """Apply nodes between inputs and outputs, each after everything it needs.

    ``orderings`` maps a node to extra nodes that must run before it.
    """
    in_set = set(inputs)
    outputs = list(outputs)
    if not orderings:
        return _postorder_nodes(in_set, outputs)

    def deps(node: Any) -> list[Any]:
        out = [i.owner for i in node.inputs if i.owner is not None and i not in in_set]
        extra = orderings.get(node)
        if extra:
            out.extend(extra)
        return out

    reachable = set(_postorder_nodes(in_set, outputs))
    roots = [o.owner for o in outputs if o.owner is not None and o not in in_set]
    roots.extend(n for n in orderings if n in reachable)
    order = general_toposort(roots, deps)
    return [n for n in order if n in reachable]


# PyTensor's annotation aliases
T = TypeVar("T")
NodeAndChildren = tuple[T, Iterable[T] | None]

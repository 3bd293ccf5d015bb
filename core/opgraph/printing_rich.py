"""``debugprint(..., file="rich")``: the debugprint tree as a ``rich.tree.Tree``.

The tree has a hidden root with one child per printed output, then, when
the graph holds inner graphs, a bold "Inner graphs:" child.  A node reached
a second time is not expanded again: it shows its label with one ``···``
child, and every occurrence of such a shared node (and its ``···``) has the
same colour, a different one per shared node.  Labels are the text
debugprint prints, escaped so names like ``"x[0]"`` are not read as markup.

``rich`` is optional: it is loaded only when a rich tree is asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from opgraph.graph.basic import Apply, Variable

__all__ = ["build_rich_tree"]

_COLORS = ("cyan", "magenta", "green", "yellow", "blue", "red", "bright_cyan", "bright_magenta")
_SENTINEL = "···"


class _Item:
    """One line of the tree before it becomes rich markup."""

    __slots__ = ("children", "key", "repeat", "text")

    def __init__(self, key: Any, text: str, repeat: bool = False) -> None:
        self.key = key
        self.text = text
        self.repeat = repeat
        self.children: list[_Item] = []


def _require_rich() -> tuple[Any, Any]:
    try:
        tree_mod = importlib.import_module("rich.tree")
        markup = importlib.import_module("rich.markup")
    except ImportError as err:
        raise ImportError(
            "debugprint(file='rich') needs the optional package 'rich' (pip install rich)"
        ) from err
    return tree_mod, markup


def build_rich_tree(
    printer: Any,
    roots: list[Variable],
    inner_graph_op: Callable[[Any], Any],
) -> Any:
    """Build the tree; ``printer`` is debugprint's state (labels, ids, depth, stop_on_name)."""
    tree_mod, markup = _require_rich()
    done: set[Apply] = set()
    inner_nodes: list[Apply] = []
    inner_seen: set[Any] = set()
    tops = [_walk(printer, root, done, inner_nodes, inner_seen, inner_graph_op) for root in roots]
    sections: list[_Item] = []
    k = 0
    while k < len(inner_nodes):  # walking an inner graph may find more inner graphs
        node = inner_nodes[k]
        k += 1
        head = _Item(node, f"{node.op}{printer.id_of(node)}")
        for out in inner_graph_op(node.op).inner_outputs:
            head.children.append(
                _walk(printer, out, done, inner_nodes, inner_seen, inner_graph_op)
            )
        sections.append(head)
    shared = _shared_keys([*tops, *sections])
    colors = {key: _COLORS[i % len(_COLORS)] for i, key in enumerate(shared)}
    root = tree_mod.Tree("", hide_root=True)
    for item in tops:
        _attach(root, item, colors, markup.escape)
    if sections:
        section = root.add("[bold]Inner graphs:[/bold]")
        for item in sections:
            _attach(section, item, colors, markup.escape)
    return root


def _walk(printer: Any, root: Variable, done: set[Apply], inner_nodes: list[Apply],
          inner_seen: set[Any], inner_graph_op: Callable[[Any], Any]) -> _Item:
    """Depth-first, like the text form: the first visit of a node expands it."""
    top = _Item(None, "")
    stack: list[tuple[Variable, _Item, int]] = [(root, top, 0)]
    while stack:
        var, parent, level = stack.pop()
        node = var.owner
        text = printer.label(var)
        if node is None:
            parent.children.append(_Item(var, text))
            continue
        inner = inner_graph_op(node.op)
        if inner is not None and node.op not in inner_seen:
            inner_seen.add(node.op)
            inner_nodes.append(node)
        if node in done:
            parent.children.append(_Item(node, text, repeat=True))
            continue
        done.add(node)
        item = _Item(node, text)
        parent.children.append(item)
        if 0 <= printer.depth <= level + 1:
            continue
        if printer.stop_on_name and var.name is not None and level > 0:
            continue
        for inp in reversed(node.inputs):
            stack.append((inp, item, level + 1))
    return top.children[0]


def _shared_keys(items: list[_Item]) -> list[Any]:
    """Nodes shown more than once, in order of first appearance."""
    repeated: set[Any] = set()
    order: list[Any] = []
    stack = list(reversed(items))
    while stack:
        item = stack.pop()
        if item.repeat:
            repeated.add(item.key)
        if isinstance(item.key, Apply) and not item.repeat:
            order.append(item.key)
        stack.extend(reversed(item.children))
    return [key for key in order if key in repeated]


def _attach(parent: Any, item: _Item, colors: dict[Any, str], escape: Callable[[str], str]
            ) -> None:
    stack: list[tuple[Any, _Item]] = [(parent, item)]
    while stack:
        tree, current = stack.pop()
        color = colors.get(current.key) if isinstance(current.key, Apply) else None
        text = escape(current.text)
        branch = tree.add(f"[{color}]{text}[/{color}]" if color else text)
        if current.repeat:
            branch.add(f"[{color}]{_SENTINEL}[/{color}]" if color else _SENTINEL)
            continue
        for child in reversed(current.children):
            stack.append((branch, child))

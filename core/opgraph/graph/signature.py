"""A hashable description of a computation, for Ops that hold an inner graph.

OpFromGraph and Scan compare by value (``equal_computations``); their hash
must agree with that equality, so equal inner graphs hash alike whatever the
variables' identities are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.graph.basic import Constant, Variable
from opgraph.graph.traversal import io_toposort

__all__ = ["structure_signature"]


def _constant_key(c: Constant) -> Any:
    try:
        sig = c.signature()
        hash(sig)
    except TypeError:
        return ("c", id(c))
    return ("c", c.type, sig)


def structure_signature(inputs: Sequence[Variable], outputs: Sequence[Variable]) -> tuple:
    """A hashable description of the computation, equal for equal_computations graphs."""
    ids: dict[Variable, Any] = {v: ("in", k) for k, v in enumerate(inputs)}
    rows: list[tuple] = []
    for node in io_toposort(list(inputs), list(outputs)):
        args = []
        for x in node.inputs:
            key = ids.get(x)
            if key is None:
                key = _constant_key(x) if isinstance(x, Constant) else ("free", id(x))
                ids[x] = key
            args.append(key)
        try:
            op_key = hash(node.op)
        except TypeError:
            op_key = id(node.op)
        n = len(rows)
        rows.append((op_key, tuple(args)))
        for j, o in enumerate(node.outputs):
            ids[o] = ("n", n, j)
    outs = []
    for o in outputs:
        key = ids.get(o)
        if key is None:
            key = _constant_key(o) if isinstance(o, Constant) else ("free", id(o))
        outs.append(key)
    return (tuple(v.type for v in inputs), tuple(rows), tuple(outs))

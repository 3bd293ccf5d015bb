"""Small helpers PyTensor keeps in ``graph.rewriting.basic``: stack traces and stats dicts.

A rewrite that replaces a variable can hand the replacement the creation trace
of the original (``var.tag.trace``, a list of traces), so errors raised later
still point at the user's line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.graph.basic import Variable

__all__ = ["copy_stack_trace", "merge_dict"]


def _as_list(v: Variable | Sequence[Variable]) -> list[Variable]:
    return list(v) if isinstance(v, list | tuple) else [v]


def copy_stack_trace(from_var: Variable | Sequence[Variable],
                     to_var: Variable | Sequence[Variable]) -> None:
    """Give ``to_var`` (one variable or several) the traces of ``from_var`` (the same).

    The traces of all sources are concatenated; a target's own traces are kept after them.
    """
    traces: list[Any] = []
    for var in _as_list(from_var):
        traces.extend(getattr(var.tag, "trace", None) or [])
    for var in _as_list(to_var):
        var.tag.trace = traces + list(getattr(var.tag, "trace", None) or [])


def merge_dict(d1: dict, d2: dict) -> dict:
    """A new dict with the keys of both; a key in both maps to the sum of its two values."""
    out = dict(d1)
    for key, value in d2.items():
        out[key] = out[key] + value if key in out else value
    return out

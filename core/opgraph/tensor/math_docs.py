"""The docstrings of the elementwise tensor functions (``pt.exp``, ``pt.add`` ...).

Those functions are ``Elemwise`` instances made one per line in
``opgraph.tensor.math``; their text is the scalar op's, from the table in
:mod:`opgraph.scalar.docs`, plus what Elemwise adds (broadcasting, fusion) and
the other names the same function has here (``pt.multiply is pt.mul``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opgraph.scalar.docs import FUNCTION_DOCS
from opgraph.scalar.docs import attach_docs as _attach

__all__ = ["ALIASES", "ELEMWISE_DOCS", "attach_docs"]

ALIASES: dict[str, tuple[str, ...]] = {
    "sub": ("subtract",),
    "mul": ("multiply",),
    "true_div": ("divide", "true_divide"),
    "int_div": ("floor_div",),
    "pow": ("power",),
    "neg": ("negative",),
    "sign": ("sgn",),
    "sqr": ("square",),
    "sigmoid": ("expit",),
    "softplus": ("log1pexp",),
    "eq": ("equal",),
    "neq": ("not_equal",),
    "lt": ("less",),
    "le": ("less_equal",),
    "gt": ("greater",),
    "ge": ("greater_equal",),
    "and_": ("bitwise_and",),
    "or_": ("bitwise_or",),
    "xor": ("bitwise_xor",),
    "invert": ("bitwise_not",),
    "switch": ("where",),
    "second": ("fill",),
    "identity": ("tensor_copy",),
}
"""Name in ``opgraph.tensor.math`` -> the other names of that same function."""

_ELEMWISE_NOTE = (
    "\n\nElementwise over tensors: the inputs broadcast as in NumPy (only axes of "
    "static length 1 broadcast), and the node fuses with its elementwise neighbours."
)


def _with_aliases(name: str) -> str:
    text = FUNCTION_DOCS[name]
    others = ALIASES.get(name, ())
    if others:
        label = "Alias" if len(others) == 1 else "Aliases"
        text += f" {label}: {', '.join(f'``{o}``' for o in others)}."
    return text


ELEMWISE_DOCS: dict[str, str] = {name: _with_aliases(name) for name in FUNCTION_DOCS}
"""Name -> the docstring of that tensor function, before the elementwise note."""


def attach_docs(namespace: Mapping[str, Any], docs: Mapping[str, str] | None = None) -> None:
    """Give every function of ``docs`` (default :data:`ELEMWISE_DOCS`) in ``namespace``
    its docstring plus the elementwise note.

    Every name of the table must be defined there (``KeyError`` otherwise).
    """
    docs = ELEMWISE_DOCS if docs is None else docs
    _attach(namespace, docs, _ELEMWISE_NOTE, names=docs)

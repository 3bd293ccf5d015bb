"""Logarithms of modified Bessel functions without overflow, under PyTensor's names:

- ``local_log_kv``: ``log(kv(v, x)) -> log(kve(v, x)) - x`` (``kv`` underflows to 0
  for large ``x``: ``log(kv(4.5, 1000))`` is -inf, the rewrite gives -1003.218...);
  at ``x = +inf`` the result stays -inf (``kve`` is NaN there);
- ``local_log_iv``: ``log(iv(v, x)) -> log(ive(v, x)) + |x|`` (``iv`` overflows).

``kv``/``iv`` come from opgraph-special; they are matched by their scalar op's name and
built through ``opgraph.tensor.math``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import opgraph.scalar as ps
import opgraph.tensor.math as tm
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.elemwise import Elemwise
from opgraph.tensor.variable import constant
from opgraph_rewrites.utils import ew, keep_type

__all__ = ["local_log_iv", "local_log_kv", "math_bessel_rewriters"]


def _bessel_args(var: Variable, name: str) -> list[Variable] | None:
    node = var.owner
    if node is None or not isinstance(node.op, Elemwise):
        return None
    if getattr(node.op.scalar_op, "name", None) != name:
        return None
    return list(node.inputs) if var.type.dtype.startswith("float") else None


def _fixed(node: Apply, new: Variable) -> Any:
    out = keep_type(node.outputs[0], new, refs=node.inputs)
    return [out] if out is not None else None


@node_rewriter([ew(ps.log)], name="local_log_kv")
def local_log_kv(fgraph: Any, node: Apply) -> Any:
    """log(kv(v, x)) -> log(kve(v, x)) - x (-inf at x = inf, as the original)."""
    args = _bessel_args(node.inputs[0], "kv")
    if args is None:
        return None
    v, x = args
    stable = tm.log(tm.kve(v, x)) - x
    at_inf = constant(np.asarray(-np.inf, dtype=node.outputs[0].type.dtype))
    return _fixed(node, tm.switch(tm.eq(x, np.inf), at_inf, stable))


@node_rewriter([ew(ps.log)], name="local_log_iv")
def local_log_iv(fgraph: Any, node: Apply) -> Any:
    """log(iv(v, x)) -> log(ive(v, x)) + |x|."""
    args = _bessel_args(node.inputs[0], "iv")
    if args is None:
        return None
    v, x = args
    return _fixed(node, tm.log(tm.ive(v, x)) + tm.abs(x))


def math_bessel_rewriters() -> dict[str, list[tuple[str, Any, tuple[str, ...]]]]:
    """phase -> (name, rewriter, extra tags): stabilize, as in PyTensor."""
    return {"stabilize": [("local_log_kv", local_log_kv, ()),
                          ("local_log_iv", local_log_iv, ())]}

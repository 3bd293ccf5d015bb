"""``log`` and ``sign`` of a quotient with a constant, under PyTensor's names.

- ``local_log_div``: ``log(c / x) -> log(c) - log(x)``, ``log(x / c) -> log(x) -
  log(c)`` for a constant ``c > 0``, and ``log(1 / x)``, ``log(reciprocal(x)) ->
  -log(x)``. The same values where the quotient is finite and nonzero, and the
  finite logarithm where it would overflow or underflow (``x`` tiny or huge).
- ``local_sign_div``: ``sign(x / c) -> sign(c) * sign(x)`` for a nonzero finite
  constant ``c`` (exact, and right where ``x / c`` underflows to 0). The numerator
  forms ``sign(c / x)`` and ``sign(reciprocal(x)) -> sign(c) * sign(x)`` differ at
  ``x = 0`` (NumPy: ``sign(inf) = 1``) and ``x = inf``, so they run only under
  ``config.fast_math``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import opgraph.scalar as ps
from opgraph.config import config
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.math import log, neg, sign, sub
from opgraph_rewrites.utils import const_value, elemwise_of, ew, keep_type

__all__ = ["local_log_div", "local_sign_div", "math_log_sign_rewriters"]


def _fixed(node: Apply, new: Variable) -> Any:
    out = keep_type(node.outputs[0], new, refs=node.inputs)
    return [out] if out is not None else None


def _quotient(var: Variable) -> tuple[Any, Any, Variable, bool] | None:
    """``(c, num, x, c_is_num)`` for ``var = c / x`` (``reciprocal(x)``: ``c = 1``) or
    ``x / c`` with a scalar float constant ``c``; ``num`` is the numerator variable."""
    node = elemwise_of(var, ps.TrueDiv, ps.Reciprocal)
    if node is None or not var.type.dtype.startswith("float"):
        return None
    if len(node.inputs) == 1:
        return 1.0, None, node.inputs[0], True
    num, den = node.inputs
    cn, cd = const_value(num), const_value(den)
    if cn is not None and cd is None:
        return float(cn), num, den, True
    if cd is not None and cn is None:
        return float(cd), den, num, False
    return None


@node_rewriter([ew(ps.log)], name="local_log_div")
def local_log_div(fgraph: Any, node: Apply) -> Any:
    """log(c / x) -> log(c) - log(x), log(x / c) -> log(x) - log(c) (c > 0)."""
    found = _quotient(node.inputs[0])
    if found is None:
        return None
    c, c_var, x, c_is_num = found
    if not np.isfinite(c) or c <= 0:
        return None
    if c == 1.0:
        return _fixed(node, neg(log(x)) if c_is_num else log(x))
    log_c = log(c_var)
    return _fixed(node, sub(log_c, log(x)) if c_is_num else sub(log(x), log_c))


@node_rewriter([ew(ps.sign)], name="local_sign_div")
def local_sign_div(fgraph: Any, node: Apply) -> Any:
    """sign(x / c) -> sign(x) (c > 0) or -sign(x) (c < 0); the numerator forms
    ``sign(c / x)`` only under ``config.fast_math``."""
    found = _quotient(node.inputs[0])
    if found is None:
        return None
    c, _, x, c_is_num = found
    if not np.isfinite(c) or c == 0 or (c_is_num and not config.fast_math):
        return None
    return _fixed(node, sign(x) if c > 0 else neg(sign(x)))


def math_log_sign_rewriters() -> dict[str, list[tuple[str, Any, tuple[str, ...]]]]:
    """phase -> (name, rewriter, extra tags): PyTensor registers both in canonicalize,
    stabilize and specialize."""
    entries = [("local_log_div", local_log_div), ("local_sign_div", local_sign_div)]
    return {
        "canonicalize": [(name, rw, ("fast_compile",)) for name, rw in entries],
        "stabilize": [(name, rw, ()) for name, rw in entries],
        "specialize": [(name, rw, ()) for name, rw in entries],
    }

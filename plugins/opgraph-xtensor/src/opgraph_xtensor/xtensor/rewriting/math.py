"""The lowering rewrites of ``xtensor.math``'s Ops, under PyTensor's names."""

from __future__ import annotations

from opgraph_xtensor.xtensor.math import XDot
from opgraph_xtensor.xtensor.rewriting.basic import lowering_rewrite

__all__ = ["lower_dot"]

lower_dot = lowering_rewrite(XDot, "lower_dot")

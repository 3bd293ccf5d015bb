"""The lowering rewrites of ``xtensor.reduction``'s Ops, under PyTensor's names."""

from __future__ import annotations

from opgraph_xtensor.xtensor.reduction import XCumReduce, XReduce
from opgraph_xtensor.xtensor.rewriting.basic import lowering_rewrite

__all__ = ["lower_cumreduce", "lower_reduce"]

lower_reduce = lowering_rewrite(XReduce, "lower_reduce")
lower_cumreduce = lowering_rewrite(XCumReduce, "lower_cumreduce")

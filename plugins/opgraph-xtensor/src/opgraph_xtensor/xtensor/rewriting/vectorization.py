"""The lowering rewrites of ``xtensor.vectorization``'s Ops, under PyTensor's names."""

from __future__ import annotations

from opgraph_xtensor.xtensor.math import XElemwise
from opgraph_xtensor.xtensor.rewriting.basic import lowering_rewrite
from opgraph_xtensor.xtensor.vectorization import XRV, XBlockwise

__all__ = ["lower_blockwise", "lower_elemwise", "lower_rv"]

lower_elemwise = lowering_rewrite(XElemwise, "lower_elemwise")
lower_blockwise = lowering_rewrite(XBlockwise, "lower_blockwise")
lower_rv = lowering_rewrite(XRV, "lower_rv")

"""The lowering rewrites of ``xtensor.shape``'s Ops, under PyTensor's names."""

from __future__ import annotations

from opgraph_xtensor.xtensor.rewriting.basic import lowering_rewrite
from opgraph_xtensor.xtensor.shape import (
    Concat,
    ExpandDims,
    Squeeze,
    Stack,
    Transpose,
    UnStack,
    XBroadcast,
)

__all__ = ["lower_broadcast", "lower_concat", "lower_expand_dims", "lower_squeeze", "lower_stack",
           "lower_transpose", "lower_unstack"]

lower_stack = lowering_rewrite(Stack, "lower_stack")
lower_unstack = lowering_rewrite(UnStack, "lower_unstack")
lower_concat = lowering_rewrite(Concat, "lower_concat")
lower_transpose = lowering_rewrite(Transpose, "lower_transpose")
lower_squeeze = lowering_rewrite(Squeeze, "lower_squeeze")
lower_expand_dims = lowering_rewrite(ExpandDims, "lower_expand_dims")
lower_broadcast = lowering_rewrite(XBroadcast, "lower_broadcast")

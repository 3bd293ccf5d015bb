"""Rewrites of random variables (PyTensor's ``tensor.random.rewriting``).

Also the names PyTensor's module happens to bind (Ops, helpers and the
registration functions), since code imports them from here.
"""

from opgraph.compile.database import optdb
from opgraph.graph.rewriting.basic import copy_stack_trace, node_rewriter
from opgraph.graph.traversal import ancestors
from opgraph.tensor.basic import constant
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.extra_ops import broadcast_to
from opgraph.tensor.random.op import RandomVariable, RNGConsumerOp
from opgraph.tensor.shape import Shape, Shape_i
from opgraph.tensor.subtensor import AdvancedSubtensor, AdvancedSubtensor1, Subtensor
from opgraph.tensor.type import integer_dtypes
from opgraph.tensor.type_other import NoneTypeT
from opgraph.tensor.variable import TensorVariable
from opgraph_rewrites.random.basic import (
    RandomMakeInplace,
    is_rv_used_in_graph,
    local_dimshuffle_rv_lift,
    local_rv_size_lift,
    local_subtensor_rv_lift,
    random_make_inplace,
    sidestep_unused_rng_consumer,
)
from opgraph_rewrites.registering import register_canonicalize, register_stabilize, register_useless

__all__ = [
    "AdvancedSubtensor",
    "AdvancedSubtensor1",
    "DimShuffle",
    "NoneTypeT",
    "RNGConsumerOp",
    "RandomMakeInplace",
    "RandomVariable",
    "Shape",
    "Shape_i",
    "Subtensor",
    "TensorVariable",
    "ancestors",
    "broadcast_to",
    "constant",
    "copy_stack_trace",
    "integer_dtypes",
    "is_rv_used_in_graph",
    "local_dimshuffle_rv_lift",
    "local_rv_size_lift",
    "local_subtensor_rv_lift",
    "node_rewriter",
    "optdb",
    "random_make_inplace",
    "register_canonicalize",
    "register_stabilize",
    "register_useless",
    "sidestep_unused_rng_consumer",
]

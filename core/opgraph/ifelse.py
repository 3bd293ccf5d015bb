"""``opgraph.ifelse`` (PyTensor's ``pytensor.ifelse``): the lazy IfElse op, ``ifelse``, and
PyTensor's IfElse rewrites (tensor/ifelse_rewrites.py)."""

from opgraph.tensor.ifelse import IfElse, ifelse
from opgraph.tensor.ifelse_rewrites import (
    CondMerge,
    acceptable_ops,
    cond_make_inplace,
    cond_merge_ifs_false,
    cond_merge_ifs_true,
    cond_merge_random_op,
    cond_remove_identical,
    ifelse_lift_single_if_through_acceptable_ops,
)

__all__ = ["CondMerge", "IfElse", "acceptable_ops", "cond_make_inplace", "cond_merge_ifs_false",
           "cond_merge_ifs_true", "cond_merge_random_op", "cond_remove_identical", "ifelse",
           "ifelse_lift_single_if_through_acceptable_ops"]

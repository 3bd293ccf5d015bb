"""``opgraph.ifelse`` (PyTensor's ``pytensor.ifelse``): the lazy IfElse op and ``ifelse``."""

from opgraph.tensor.ifelse import IfElse, ifelse

__all__ = ["IfElse", "ifelse"]

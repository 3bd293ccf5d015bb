"""PyTensor 3's ``compile.executor`` layout: the callable half, :class:`Function`."""

from opgraph.compile.function.types import Function

__all__ = ["Function"]

"""PyTensor 3's ``compile.maker`` layout: ``function`` and the graph-building half.

The implementation lives in :mod:`opgraph.compile.function.types`; this
module is the import path PyTensor 3 code uses.
"""

from opgraph.compile.function.types import (
    FunctionMaker,
    UnusedInputError,
    function,
    orig_function,
)

__all__ = ["FunctionMaker", "UnusedInputError", "function", "orig_function"]

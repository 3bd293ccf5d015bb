"""``function()`` and the classes behind it (PyTensor's ``compile/function`` package).

``types`` holds :class:`Function` and :class:`FunctionMaker`; ``pfunc`` the
lower-level ``pfunc`` entry point.  ``from opgraph.compile.function import
function, Function`` keeps working.
"""

from opgraph.compile.function.pfunc import pfunc
from opgraph.compile.function.types import (
    Function,
    FunctionMaker,
    UnusedInputError,
    function,
    orig_function,
)

__all__ = ["Function", "FunctionMaker", "UnusedInputError", "function", "orig_function",
           "pfunc"]

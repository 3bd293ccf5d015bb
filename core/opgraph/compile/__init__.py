"""Compiling graphs into callables: function(), shared variables, In/Out, modes.

Names are imported on first use, except ``function``: importing the submodule
``opgraph.compile.function`` binds that name on this package, so the function is
bound here eagerly (as PyTensor does) and ``opgraph.compile.function`` is always
the function, never the module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from opgraph.graph.utils import lazy_exports

if TYPE_CHECKING:
    from opgraph.compile.builders import OpFromGraph
    from opgraph.compile.io import In, Out
    from opgraph.compile.mode import (
        FAST_COMPILE,
        FAST_RUN,
        Mode,
        RewriteQuery,
        get_default_mode,
        get_mode,
        get_rewriter,
    )
    from opgraph.compile.prepare import UnusedInputError
    from opgraph.compile.profiling import ProfileStats
    from opgraph.compile.sharedvalue import SharedVariable, shared, shared_constructor

_LAZY = {
    "In": "opgraph.compile.io",
    "Out": "opgraph.compile.io",
    "Mode": "opgraph.compile.mode",
    "RewriteQuery": "opgraph.compile.mode",
    "FAST_RUN": "opgraph.compile.mode",
    "FAST_COMPILE": "opgraph.compile.mode",
    "get_mode": "opgraph.compile.mode",
    "get_default_mode": "opgraph.compile.mode",
    "get_rewriter": "opgraph.compile.mode",
    "UnusedInputError": "opgraph.compile.prepare",
    "ProfileStats": "opgraph.compile.profiling",
    "SharedVariable": "opgraph.compile.sharedvalue",
    "shared": "opgraph.compile.sharedvalue",
    "shared_constructor": "opgraph.compile.sharedvalue",
    "OpFromGraph": "opgraph.compile.builders",
}

__all__ = [
    "FAST_COMPILE",
    "FAST_RUN",
    "Function",
    "FunctionMaker",
    "In",
    "Mode",
    "OpFromGraph",
    "Out",
    "ProfileStats",
    "RewriteQuery",
    "SharedVariable",
    "UnusedInputError",
    "function",
    "get_default_mode",
    "get_mode",
    "get_rewriter",
    "shared",
    "shared_constructor",
]


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

from opgraph.compile.function import Function, FunctionMaker, function  # noqa: E402

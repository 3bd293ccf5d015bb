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
    from opgraph.compile.aliasing import add_supervisor_to_fgraph
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
    from opgraph.compile.ops import FromFunctionOp
    from opgraph.compile.prepare import UnusedInputError
    from opgraph.compile.profiling import ProfileStats
    from opgraph.compile.rebuild import rebuild_collect_shared
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
    "rebuild_collect_shared": "opgraph.compile.rebuild",
    "add_supervisor_to_fgraph": "opgraph.compile.aliasing",
    "FromFunctionOp": "opgraph.compile.ops",
    "ProfileStats": "opgraph.compile.profiling",
    "SharedVariable": "opgraph.compile.sharedvalue",
    "shared": "opgraph.compile.sharedvalue",
    "shared_constructor": "opgraph.compile.sharedvalue",
    "OpFromGraph": "opgraph.compile.builders",
    "DebugMode": "opgraph.compile.debug.debugmode",
    "NanGuardMode": "opgraph.compile.debug.nanguardmode",
    "MonitorMode": "opgraph.compile.debug.monitormode",
    "function_dump": "opgraph.compile.debug.dump",
    "AddFeatureOptimizer": "opgraph.compile.mode",
    "OPT_FAST_COMPILE": "opgraph.compile.mode",
    "OPT_FAST_RUN": "opgraph.compile.mode",
    "OPT_NONE": "opgraph.compile.mode",
    "C": "opgraph.compile.mode",
    "CVM": "opgraph.compile.mode",
    "JAX": "opgraph.compile.mode",
    "NUMBA": "opgraph.compile.mode",
    "PYTORCH": "opgraph.compile.mode",
    "MLX": "opgraph.compile.mode",
    "VM": "opgraph.compile.mode",
    "OPT_MINIMUM": "opgraph.compile.mode",
    "AddDestroyHandler": "opgraph.compile.mode",
    "PrintCurrentFunctionGraph": "opgraph.compile.mode",
    "fast_run_linkers_to_mode": "opgraph.compile.mode",
    "OPT_FAST_RUN_STABLE": "opgraph.compile.mode",
    "OPT_MERGE": "opgraph.compile.mode",
    "OPT_O2": "opgraph.compile.mode",
    "OPT_O3": "opgraph.compile.mode",
    "OPT_STABILIZE": "opgraph.compile.mode",
    "OPT_UNSAFE": "opgraph.compile.mode",
    "predefined_linkers": "opgraph.compile.mode",
    "predefined_modes": "opgraph.compile.mode",
    "predefined_optimizers": "opgraph.compile.mode",
    "register_linker": "opgraph.compile.mode",
    "register_mode": "opgraph.compile.mode",
    "register_optimizer": "opgraph.compile.mode",
    "SymbolicInput": "opgraph.compile.io",
    "SymbolicOutput": "opgraph.compile.io",
    "DeepCopyOp": "opgraph.compile.ops",
    "ViewOp": "opgraph.compile.ops",
    "as_op": "opgraph.compile.ops",
    "deep_copy_op": "opgraph.compile.ops",
    "view_op": "opgraph.compile.ops",
    "wrap_py": "opgraph.compile.ops",
    "pfunc": "opgraph.compile.function.pfunc",
    "orig_function": "opgraph.compile.function.types",
    "optdb": "opgraph.compile.database",
}

__all__ = [
    "CVM",
    "FAST_COMPILE",
    "FAST_RUN",
    "JAX",
    "MLX",
    "NUMBA",
    "OPT_FAST_COMPILE",
    "OPT_FAST_RUN",
    "OPT_FAST_RUN_STABLE",
    "OPT_MERGE",
    "OPT_MINIMUM",
    "OPT_NONE",
    "OPT_O2",
    "OPT_O3",
    "OPT_STABILIZE",
    "OPT_UNSAFE",
    "PYTORCH",
    "VM",
    "AddDestroyHandler",
    "AddFeatureOptimizer",
    "C",
    "DebugMode",
    "DeepCopyOp",
    "FromFunctionOp",
    "Function",
    "FunctionMaker",
    "In",
    "Mode",
    "MonitorMode",
    "NanGuardMode",
    "OpFromGraph",
    "Out",
    "PrintCurrentFunctionGraph",
    "ProfileStats",
    "RewriteQuery",
    "SharedVariable",
    "SymbolicInput",
    "SymbolicOutput",
    "UnusedInputError",
    "ViewOp",
    "add_supervisor_to_fgraph",
    "as_op",
    "deep_copy_op",
    "fast_run_linkers_to_mode",
    "function",
    "function_dump",
    "get_default_mode",
    "get_mode",
    "get_rewriter",
    "optdb",
    "orig_function",
    "pfunc",
    "predefined_linkers",
    "predefined_modes",
    "predefined_optimizers",
    "rebuild_collect_shared",
    "register_linker",
    "register_mode",
    "register_optimizer",
    "shared",
    "shared_constructor",
    "view_op",
    "wrap_py",
]


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

from opgraph.compile.function import Function, FunctionMaker, function  # noqa: E402

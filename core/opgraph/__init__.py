"""opgraph: define, rewrite, differentiate and compile symbolic tensor graphs.

The top-level names mirror PyTensor's (``opgraph.function``, ``opgraph.shared``,
``opgraph.grad``, ``opgraph.config``...).  They are imported on first access,
so ``import opgraph`` stays fast and loads no plugin.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from opgraph import faces
from opgraph._version import __version__

faces.install()  # PyTensor paths served by plugins (opgraph.graph.rewriting.db, ...)

if TYPE_CHECKING:
    from opgraph import tensor
    from opgraph.compile.function import function
    from opgraph.compile.io import In, Out
    from opgraph.compile.mode import Mode
    from opgraph.compile.sharedvalue import shared
    from opgraph.config import config
    from opgraph.gradient import grad
    from opgraph.printing import dprint, pprint

# public name -> (module, attribute or None for the module itself)
_LAZY: dict[str, tuple[str, str | None]] = {
    "config": ("opgraph.config", "config"),
    "function": ("opgraph.compile.function", "function"),
    "shared": ("opgraph.compile.sharedvalue", "shared"),
    "grad": ("opgraph.gradient", "grad"),
    "In": ("opgraph.compile.io", "In"),
    "Out": ("opgraph.compile.io", "Out"),
    "Mode": ("opgraph.compile.mode", "Mode"),
    "dprint": ("opgraph.printing", "dprint"),
    "pprint": ("opgraph.printing", "pprint"),
    "tensor": ("opgraph.tensor", None),
    "scan": ("opgraph.scan", None),
    "wrap_jax": ("opgraph.link.jax.ops", "wrap_jax"),  # served by opgraph-jax
    "basic": ("opgraph.basic", None),
    # Further names of PyTensor's top-level namespace (``pytensor.map``, ``pytensor.ifelse``).
    "map": ("opgraph.scan", "map"),
    "ifelse": ("opgraph.ifelse", "ifelse"),
    "wrap_py": ("opgraph.compile.ops", "wrap_py"),
    "Lop": ("opgraph.gradient", "Lop"),
    "pullback": ("opgraph.gradient", "pullback"),
    "pushforward": ("opgraph.gradient", "pushforward"),
    "get_mode": ("opgraph.compile.mode", "get_mode"),
    "Rop": ("opgraph.gradient", "Rop"),
    "OpFromGraph": ("opgraph.compile.builders", "OpFromGraph"),
    "gradient": ("opgraph.gradient", None),
    "printing": ("opgraph.printing", None),
    "compile": ("opgraph.compile", None),
    "graph": ("opgraph.graph", None),
    "scalar": ("opgraph.scalar", None),
    "sparse": ("opgraph.sparse", None),
}

__all__ = [
    "In",
    "Mode",
    "Out",
    "__version__",
    "config",
    "dprint",
    "function",
    "grad",
    "pprint",
    "shared",
    "tensor",
]


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'opgraph' has no attribute {name!r}")
    module_name, attr = target
    module = importlib.import_module(module_name)
    value = module if attr is None else getattr(module, attr)
    globals()[name] = value  # later accesses skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

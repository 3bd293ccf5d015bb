"""``OpFromGraph``, re-exported from the ``opgraph-ofg`` plugin when it is installed.

PyTensor code imports ``pytensor.compile.builders.OpFromGraph``; the same
import works here, and says which plugin to install when it is missing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from opgraph_ofg import OpFromGraph

__all__ = ["OpFromGraph"]

_TARGET = "opgraph_ofg"


def _load(name: str) -> Any:
    import importlib

    try:
        module = importlib.import_module(_TARGET)
    except ModuleNotFoundError as exc:
        if exc.name is not None and exc.name.split(".")[0] != _TARGET:
            raise
        raise ImportError(
            f"{name} is provided by the plugin opgraph-ofg, which is not installed; "
            "install it (from an opgraph checkout: pip install ./plugins/opgraph-ofg)",
            name=f"opgraph.compile.builders.{name}",
        ) from None
    try:
        return getattr(module, name)
    except AttributeError:
        raise ImportError(
            f"the installed opgraph-ofg plugin has no {name!r}; upgrade it",
            name=f"opgraph.compile.builders.{name}",
        ) from None


def __getattr__(name: str) -> Any:
    if name == "OpFromGraph":
        value = _load(name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'opgraph.compile.builders' has no attribute {name!r}")

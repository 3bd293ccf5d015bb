"""Entry point of opgraph-sparse: serves ``opgraph.sparse`` and lets ``shared()`` take
scipy sparse matrices (imports the core only; SciPy loads on first sparse use)."""

from __future__ import annotations

import importlib
from typing import Any

from opgraph.link.sharedvalue import shared_constructor
from opgraph.plugins import PublicModule, hookimpl


def sparse_shared(value: Any, *args: Any, **kwargs: Any) -> Any:
    """``shared()``'s constructor for scipy sparse matrices (TypeError for other values)."""
    if not type(value).__module__.startswith("scipy.sparse"):
        raise TypeError(f"not a scipy.sparse matrix: {type(value).__name__}")
    return importlib.import_module("opgraph_sparse.sharedvar").sparse_constructor(
        value, *args, **kwargs)


shared_constructor(sparse_shared)


@hookimpl
def opgraph_public_modules() -> list[PublicModule]:
    """PyTensor's ``pytensor.sparse`` path is this package."""
    return [PublicModule("opgraph.sparse", "opgraph_sparse")]


@hookimpl
def opgraph_register_rewrites(db: Any) -> None:
    """The sparse rewrites (CSM round trips, specialised sparse products)."""
    importlib.import_module("opgraph_sparse.rewriting").register_rewrites(db)

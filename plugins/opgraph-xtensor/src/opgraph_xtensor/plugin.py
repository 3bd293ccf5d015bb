"""Entry point of opgraph-xtensor: serves ``opgraph.xtensor`` and registers the lowering.

Imports the core only; the rewrites module (and with it the whole package) is
loaded by import string when the rewrite database is built.
"""

from __future__ import annotations

import importlib
from typing import Any

from opgraph.plugins import PublicModule, hookimpl

_REWRITES = "opgraph_xtensor.xtensor.rewriting"


@hookimpl
def opgraph_public_modules() -> list[PublicModule]:
    """PyTensor's ``pytensor.xtensor`` path (its submodules follow) is this package."""
    return [PublicModule("opgraph.xtensor", "opgraph_xtensor.xtensor")]


@hookimpl
def opgraph_register_rewrites(db: Any) -> None:
    """``lower_xtensor``: every xtensor Op becomes an ordinary tensor graph."""
    importlib.import_module(_REWRITES).register_rewrites(db)

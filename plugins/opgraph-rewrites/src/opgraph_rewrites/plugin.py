"""Entry point of opgraph-rewrites: cheap, imports the heavy rewrite modules on first use."""

from __future__ import annotations

from typing import Any

from opgraph.plugins import PublicModule, hookimpl


@hookimpl
def opgraph_register_rewrites(db: Any) -> None:
    """Register the standard rewrites into the standard phases of ``db``."""
    from opgraph_rewrites.standard import register_standard_rewrites

    register_standard_rewrites(db)


@hookimpl
def opgraph_public_modules() -> list[PublicModule]:
    """The PyTensor path whose code lives in this plugin."""
    return [PublicModule("opgraph.graph.rewriting.db", "opgraph_rewrites.db")]

"""Entry point of opgraph-ofg: cheap hook implementations, heavy modules load on first use."""

from __future__ import annotations

from typing import Any

from opgraph.plugins import PublicModule, hookimpl


@hookimpl
def opgraph_register_rewrites(db: Any) -> None:
    """Inlining (fast_compile, fast_run), unused inputs/outputs and inplace (fast_run)."""
    from opgraph_ofg.rewrites import register_rewrites

    register_rewrites(db)


@hookimpl
def opgraph_public_modules() -> list[PublicModule]:
    """The PyTensor paths whose code lives in this plugin."""
    return [PublicModule("opgraph.compile.builders", "opgraph_ofg.builders"),
            PublicModule("opgraph.tensor.rewriting.ofg", "opgraph_ofg.rewrites")]

"""Entry point of opgraph-sparse: serves ``opgraph.sparse`` (imports the core only)."""

from __future__ import annotations

from opgraph.plugins import PublicModule, hookimpl


@hookimpl
def opgraph_public_modules() -> list[PublicModule]:
    """PyTensor's ``pytensor.sparse`` path is this package."""
    return [PublicModule("opgraph.sparse", "opgraph_sparse")]

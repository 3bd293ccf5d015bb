"""Entry point of opgraph-rewrites: cheap, imports the heavy rewrite modules on first use."""

from __future__ import annotations

from opgraph.plugins import PublicModule, RewriteDatabaseProtocol, RewriteDatabaseRecord, hookimpl


@hookimpl
def opgraph_rewrite_database() -> list[RewriteDatabaseRecord]:
    """The standard database ``optdb`` (built per plugin manager on first use)."""
    return [RewriteDatabaseRecord(
        "optdb", database="opgraph_rewrites.registry:get_database",
        rewriter="opgraph_rewrites.registry:get_query_rewriter",
        description="the standard phases and rewrites",
    )]


@hookimpl
def opgraph_register_rewrites(db: RewriteDatabaseProtocol) -> None:
    """Register the standard rewrites into the standard phases of ``db``."""
    from opgraph_rewrites.standard import register_standard_rewrites

    register_standard_rewrites(db)


@hookimpl
def opgraph_public_modules() -> list[PublicModule]:
    """The PyTensor paths whose code lives in this plugin."""
    return [
        PublicModule("opgraph.graph.rewriting.db", "opgraph_rewrites.db"),
        PublicModule("opgraph.scan.rewriting", "opgraph_rewrites.scan"),
        PublicModule("opgraph.tensor.random.rewriting", "opgraph_rewrites.random"),
        PublicModule("opgraph.tensor.rewriting", "opgraph_rewrites"),
        PublicModule("opgraph.tensor.rewriting.shape", "opgraph_rewrites.shape"),
    ]

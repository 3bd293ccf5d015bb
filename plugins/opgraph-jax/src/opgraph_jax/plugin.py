"""Entry point module of opgraph-jax: declares records only (imports the core only)."""

from __future__ import annotations

from typing import Any

from opgraph.plugins import LinkerRecord, ModeRecord, PublicModule, hookimpl


@hookimpl
def opgraph_linkers() -> list[LinkerRecord]:
    return [
        LinkerRecord(
            "jax",
            "opgraph_jax.link.linker:JAXLinker",
            description="JAX: the whole graph as one jax.jit function (CPU, GPU or TPU via XLA)",
            backend="jax",
        ),
    ]


@hookimpl
def opgraph_modes() -> list[ModeRecord]:
    return [
        ModeRecord(
            "JAX",
            linkers=("jax",),
            include=("fast_run", "jax"),
            # the same tags as opgraph.compile.mode.JAX: XLA fuses, and jax arrays are immutable
            exclude=("cxx_only", "BlasOpt", "blas", "fusion", "inplace",
                     "scan_save_mem_prealloc"),
            description="FAST_RUN rewrites plus the JAX ones, compiled with jax.jit",
        ),
    ]


@hookimpl
def opgraph_public_modules() -> list[PublicModule]:
    """PyTensor's ``pytensor.link.jax`` and ``pytensor.tensor.rewriting.jax`` paths."""
    return [
        PublicModule("opgraph.link.jax", "opgraph_jax.link"),
        PublicModule("opgraph.tensor.rewriting.jax", "opgraph_jax.rewriting"),
        PublicModule("opgraph.tensor.random.rewriting.jax", "opgraph_jax.random_rewriting"),
    ]


@hookimpl
def opgraph_register_rewrites(db: Any) -> None:
    """The JAX-only rewrites (tag ``jax``) and PyTensor's opt-in JAX random rewrites,
    loaded with the database."""
    from opgraph_jax import random_rewriting, rewriting

    rewriting.register_rewrites(db)
    random_rewriting.register_rewrites(db)

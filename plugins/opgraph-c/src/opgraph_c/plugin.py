"""Entry point module of opgraph-c: records only (imports the core only).

Linker "c" (one generated module per graph) and "cvm" (per-node C thunks
driven by a VM loop).  Both probe for a working C compiler; FAST_RUN lists
"c" first, so it is used whenever the probe passes and the Python VM is used
otherwise (with one warning naming the reason and the compiler log).
"""

from __future__ import annotations

from opgraph.plugins import CommandRecord, LinkerRecord, ModeRecord, PublicModule, hookimpl


@hookimpl
def opgraph_linkers() -> list[LinkerRecord]:
    return [
        LinkerRecord(
            "c",
            "opgraph_c.linker:CLinker",
            description="C: the whole graph as one generated, cached C extension module",
            probe="opgraph_c.compiler:probe",
            backend="c",
        ),
        LinkerRecord(
            "cvm",
            "opgraph_c.cvm:CVMLinker",
            description="C thunks per node, driven by a VM loop (slower than 'c'; see docs)",
            probe="opgraph_c.compiler:probe",
            backend="c",
        ),
    ]


@hookimpl
def opgraph_modes() -> list[ModeRecord]:
    return [
        ModeRecord(
            "C",
            linkers=("c",),
            include=("fast_run",),
            description="FAST_RUN rewrites, C linker only (raises when no compiler works)",
        ),
        ModeRecord(
            "CVM",
            linkers=("cvm",),
            include=("fast_run",),
            description="FAST_RUN rewrites, per-node C thunks in a VM loop",
        ),
    ]


@hookimpl
def opgraph_cli_commands() -> list[CommandRecord]:
    return [
        CommandRecord(
            "cache",
            "list, size or clear the compiled C module cache",
            "opgraph_c.cache_args:setup",
            "opgraph_c.cache_cli:run",
        )
    ]


@hookimpl
def opgraph_public_modules() -> list[PublicModule]:
    """PyTensor's ``pytensor.link.c.basic`` (CLinker, OpWiseCLinker, DualLinker)."""
    return [PublicModule("opgraph.link.c.basic", "opgraph_c.pytensor_basic")]

"""Entry point module of opgraph-numpy: declares records only (imports the core only)."""

from __future__ import annotations

from opgraph.plugins import LinkerRecord, ModeRecord, PublicModule, hookimpl


@hookimpl
def opgraph_linkers() -> list[LinkerRecord]:
    return [
        LinkerRecord(
            "py",
            "opgraph_numpy.linker:PerformLinker",
            description="Python reference linker: every node's perform, in order",
        ),
        LinkerRecord(
            "vm",
            "opgraph_numpy.vm:VMLinker",
            description="Python VM: precomputed thunks, GC of intermediates, lazy evaluation",
        ),
    ]


@hookimpl
def opgraph_modes() -> list[ModeRecord]:
    return [
        ModeRecord(
            "FAST_COMPILE",
            linkers=("vm", "py"),
            include=("fast_compile",),
            description="Few rewrites, Python VM: quickest to compile",
        ),
    ]


@hookimpl
def opgraph_public_modules() -> list[PublicModule]:
    """PyTensor's ``pytensor.link.basic.PerformLinker`` is this plugin's "py" linker."""
    return [PublicModule("opgraph.link.basic", "opgraph_numpy.linker", names=("PerformLinker",))]

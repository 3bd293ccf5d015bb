"""Entry point module of opgraph-numpy: declares records only (imports the core only).

The linkers FAST_COMPILE prefers (``vm``, ``py``) are this plugin's; the mode record
itself is the core's, beside FAST_RUN (``opgraph.compile.resolver.STANDARD_MODES``).
"""

from __future__ import annotations

from opgraph.plugins import LinkerRecord, PublicModule, hookimpl


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
def opgraph_public_modules() -> list[PublicModule]:
    """PyTensor's ``pytensor.link.basic.PerformLinker`` is this plugin's "py" linker."""
    return [PublicModule("opgraph.link.basic", "opgraph_numpy.linker", names=("PerformLinker",))]

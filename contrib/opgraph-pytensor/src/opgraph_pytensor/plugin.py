"""The entry point: ``opgraph plugins`` lists the layer; ``opgraph pytensor`` shows its state."""

from __future__ import annotations

from opgraph.plugins import CommandRecord, ModeRecord, hookimpl


@hookimpl
def opgraph_cli_commands() -> list[CommandRecord]:
    """``opgraph pytensor``: whether ``import pytensor`` is opgraph here, and what it shadows."""
    return [
        CommandRecord(
            "pytensor",
            "show whether `import pytensor` is served by opgraph (opgraph-pytensor)",
            "opgraph_pytensor.cli:setup",
            "opgraph_pytensor.cli:run",
        )
    ]


@hookimpl
def opgraph_modes() -> list[ModeRecord]:
    """``"NUMBA"``: PyTensor's default backend, which PyMC code names (``backend="numba"``).

    opgraph has no Numba backend; under the compatibility layer the name means what
    PyTensor users ask for with it, the fast default: FAST_RUN's rewrites and linkers.
    Without this distribution ``get_mode("NUMBA")`` raises ``BackendNotInstalledError``.
    """
    return [
        ModeRecord(
            "NUMBA",
            linkers=("c", "vm", "py"),
            include=("fast_run",),
            description="PyTensor's Numba mode name, served as FAST_RUN (C linker, else the "
            "Python VM): opgraph has no Numba backend",
        )
    ]

"""The entry point: ``opgraph plugins`` lists the layer; ``opgraph pytensor`` shows its state."""

from __future__ import annotations

from opgraph.plugins import CommandRecord, hookimpl


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

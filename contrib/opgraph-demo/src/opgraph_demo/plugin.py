"""Entry point of opgraph-demo: declares the ``demo`` subcommand (imports the core only)."""

from __future__ import annotations

from opgraph.plugins import CommandRecord, hookimpl


@hookimpl
def opgraph_cli_commands() -> list[CommandRecord]:
    return [
        CommandRecord(
            "demo",
            "run the documented examples in every installed mode and compare them",
            "opgraph_demo.args:setup",
            "opgraph_demo.main:run",
        )
    ]

"""The ``opgraph`` command.

The core's own subcommands live in :data:`SUBCOMMANDS` (``plugins``); plugins
add theirs through the ``opgraph_cli_commands`` hook (``cache`` from
opgraph-c, ``demo`` from opgraph-demo), so the core names no plugin.  A
subcommand is a ``setup(parser)`` that adds its arguments (light: it runs
whenever the command line is parsed) and a ``run(args) -> int``, which may
be an import string ``"pkg.mod:func"`` loaded only when it runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from opgraph import __version__
from opgraph.graph.printer import pprint
from opgraph.graph.table import NameTable, table_rows
from opgraph.plugins.manager import (
    OpgraphPluginWarning,
    command_records,
    get_plugin_manager,
    plugin_report,
    provider_hint,
)
from opgraph.plugins.records import load_target

__all__ = ["SUBCOMMANDS", "Subcommand", "build_parser", "main", "register_subcommand"]

RunFunc = Callable[[argparse.Namespace], int | None]


@attrs.frozen
class Subcommand:
    """One ``opgraph <name>`` subcommand."""

    help: str
    setup: Callable[[argparse.ArgumentParser], None]
    run: RunFunc | str  # a callable, or an import string "pkg.mod:func" loaded on use


# --- opgraph plugins ----------------------------------------------------------------


def _setup_plugins(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--tables", action="store_true",
                        help="list the per-class tables (batching rules, ...) and which "
                        "module registered each entry")


_TABLE_FILLERS = ("opgraph.tensor:TensorType", "opgraph.raise_op:CheckAndRaise",
                  "opgraph.compile.modecompat:register_mode",
                  "opgraph.assumptions.display:assumption_tags")
"""What ``--tables`` imports first: the tensor library fills most tables at import."""


def _run_tables(args: argparse.Namespace) -> int:
    for target in _TABLE_FILLERS:
        load_target(target)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OpgraphPluginWarning)
        get_plugin_manager()  # plugins register their entries when they load
    _ = pprint.by_class  # the global pretty-printer fills its tables on first use
    rows = table_rows()
    if args.json:
        keys = ("table", "class", "value", "registered_by")
        print(json.dumps([dict(zip(keys, row)) for row in rows], indent=2))
        return 0
    header = ("TABLE", "CLASS", "VALUE", "REGISTERED BY")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(3)]
    for r in [header, *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1])
    return 0


def _join(items: Sequence[str]) -> str:
    return ", ".join(items) if items else "-"


def _rewrite_summary(counts: Sequence[str]) -> str:
    """``("total: 5", "canonicalize: 3", "stabilize: 2")`` -> ``"5 (canonicalize 3, stabilize 2)"``.
    """
    if not counts:
        return "-"
    total, *phases = (c.split(": ", 1) for c in counts)
    return f"{total[1]} ({', '.join(f'{k} {v}' for k, v in phases)})"


_OPS_SHOWN = 6


def _ops_summary(ops: Sequence[str]) -> str:
    """All the names when there are few, else the count and the first ones (``--json``: all)."""
    if len(ops) <= _OPS_SHOWN:
        return _join(ops)
    return f"{len(ops)} ({', '.join(ops[:_OPS_SHOWN])}, ...)"


def _run_plugins(args: argparse.Namespace) -> int:
    if args.tables:
        return _run_tables(args)
    with warnings.catch_warnings():
        # Load failures are shown in the report itself; no need to warn twice.
        warnings.simplefilter("ignore", OpgraphPluginWarning)
        rows = plugin_report(get_plugin_manager())
    if args.json:
        print(json.dumps([row.as_dict() for row in rows], indent=2))
        return 0
    if not rows:
        print("No opgraph plugins installed (entry point group 'opgraph.plugins').")
        print("From an opgraph checkout: pip install ./plugins/*")
        return 0
    table = [("PLUGIN", "DISTRIBUTION", "STATUS", "HOOKS", "PROVIDES")]
    for row in rows:
        dist = f"{row.distribution} {row.version}".strip() or "(in-process)"
        hooks = _join([h.removeprefix("opgraph_") for h in row.hooks])
        provides = "; ".join(
            f"{label}: {text}"
            for label, text in (
                ("linkers", _join(row.linkers)),
                ("modes", _join(row.modes)),
                ("backends", _join(row.backends)),
                ("rewrites", _rewrite_summary(row.rewrites)),
                ("ops", _ops_summary(row.ops)),
                ("backend impls", _join(row.op_impls)),
                ("modules", _join(row.modules)),
                ("commands", _join(row.commands)),
            )
            if text != "-"
        )
        table.append((row.name, dist, row.status, hooks, provides or "-"))
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]) - 1)]
    for r in table:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1])
    failed = [row for row in rows if row.error]
    if failed:
        print()
        for row in failed:
            print(f"{row.name} ({row.status}): {row.error}")
    return 0


SUBCOMMANDS: NameTable[Subcommand] = NameTable(
    "cli_subcommands", "opgraph <name> subcommands (register_subcommand)")
"""Subcommand name -> :class:`Subcommand`, in the order shown by ``--help``."""
SUBCOMMANDS.register("plugins", Subcommand(
    help="list installed plugins, what they provide and their load status",
    setup=_setup_plugins,
    run=_run_plugins,
))


def register_subcommand(
    name: str,
    help: str,
    setup: Callable[[argparse.ArgumentParser], None],
    run: RunFunc | str,
) -> None:
    """Add ``opgraph <name>``; a name is registered once."""
    if name in SUBCOMMANDS:
        raise ValueError(f"opgraph subcommand {name!r} is already registered")
    SUBCOMMANDS.register(name, Subcommand(help, setup, run), stacklevel=2)


def _plugin_subcommands() -> dict[str, Subcommand]:
    """Subcommands declared by plugins (``opgraph_cli_commands``); core names win."""
    found: dict[str, Subcommand] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OpgraphPluginWarning)  # `opgraph plugins` shows them
        records = command_records(get_plugin_manager())
    for name, rec in records.items():
        if name in SUBCOMMANDS:
            warnings.warn(
                f"a plugin declares the opgraph subcommand {name!r}, which the core owns; "
                "the plugin's is ignored",
                OpgraphPluginWarning,
                stacklevel=3,
            )
            continue
        try:
            setup = load_target(rec.setup)
        except ImportError as exc:
            warnings.warn(f"opgraph subcommand {name!r} is unavailable: {exc}",
                          OpgraphPluginWarning, stacklevel=3)
            continue
        found[name] = Subcommand(rec.help, setup, rec.run)
    return found


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, Subcommand]]:
    """The argument parser with every subcommand (core and plugins), and the subcommands."""
    parser = argparse.ArgumentParser(
        prog="opgraph",
        description="Symbolic tensor graphs with plugin backends (PyTensor-compatible API).",
    )
    parser.add_argument("--version", action="version", version=f"opgraph {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands = {**SUBCOMMANDS, **_plugin_subcommands()}
    for name, cmd in commands.items():
        cmd.setup(sub.add_parser(name, help=cmd.help, description=cmd.help))
    return parser, commands


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``opgraph`` console script; returns the exit code."""
    parser, commands = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] not in commands and not argv[0].startswith("-"):
        hint = provider_hint(argv[0])
        if hint is not None:
            print(f"opgraph: no subcommand {argv[0]!r} here: {hint}", file=sys.stderr)
            return 2
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    run: Any = load_target(commands[args.command].run)
    try:
        code = run(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # `opgraph cache list | head`: the reader left; say nothing more, as `ls | head` does.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return int(code or 0)


if __name__ == "__main__":
    sys.exit(main())

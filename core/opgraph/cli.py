"""The ``opgraph`` command.

Subcommands live in :data:`SUBCOMMANDS`.  To add one (``demo``, ``cache``...),
write a ``setup(parser)`` that adds its arguments and a ``run(args) -> int``
that does the work, and add ``"name": Subcommand(help, setup, run)`` to the
table, or call :func:`register_subcommand` from this module.  ``run`` may be
an import string ``"pkg.mod:func"`` so that heavy modules are imported only
when that subcommand runs; keep ``setup`` light (argparse only).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from opgraph import __version__

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


def _join(items: Sequence[str]) -> str:
    return ", ".join(items) if items else "-"


def _run_plugins(args: argparse.Namespace) -> int:
    import warnings

    from opgraph.plugins.manager import OpgraphPluginWarning, get_plugin_manager, plugin_report

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
            f"{label}: {_join(names)}"
            for label, names in (
                ("linkers", row.linkers),
                ("modes", row.modes),
                ("backends", row.backends),
                ("modules", row.modules),
            )
            if names
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


# --- opgraph cache (implemented by the opgraph-c plugin) ------------------------------


def _setup_cache(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", nargs="?", default="info", choices=("list", "info", "clear"),
                        help="list the cached modules, show totals (default), or remove all")
    parser.add_argument("--json", action="store_true", help="print JSON")


def _run_cache(args: argparse.Namespace) -> int:
    try:
        from opgraph.plugins.records import load_target

        run = load_target("opgraph_c.cache_cli:run")
    except ImportError:
        print("opgraph cache: the compile cache belongs to the C backend, plugin 'opgraph-c', "
              "which is not installed (pip install ./plugins/opgraph-c).", file=sys.stderr)
        return 1
    return int(run(args) or 0)


SUBCOMMANDS: dict[str, Subcommand] = {
    "plugins": Subcommand(
        help="list installed plugins, what they provide and their load status",
        setup=_setup_plugins,
        run=_run_plugins,
    ),
    "cache": Subcommand(
        help="list, size or clear the compiled C module cache (plugin opgraph-c)",
        setup=_setup_cache,
        run=_run_cache,
    ),
}
"""Subcommand name -> :class:`Subcommand`, in the order shown by ``--help``."""


def register_subcommand(
    name: str,
    help: str,
    setup: Callable[[argparse.ArgumentParser], None],
    run: RunFunc | str,
) -> None:
    """Add ``opgraph <name>``; a name is registered once."""
    if name in SUBCOMMANDS:
        raise ValueError(f"opgraph subcommand {name!r} is already registered")
    SUBCOMMANDS[name] = Subcommand(help, setup, run)


def _setup_demo(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--budget", type=float, default=0.05, metavar="SECONDS",
                        help="time spent calling each compiled function (default 0.05)")
    parser.add_argument("--no-graphs", action="store_true",
                        help="do not print the graphs before and after rewriting")


register_subcommand(
    "demo",
    "run the documented scenario (OpFromGraph, gradients, every installed mode) end to end",
    _setup_demo,
    "opgraph.demo:run",
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every registered subcommand."""
    parser = argparse.ArgumentParser(
        prog="opgraph",
        description="Symbolic tensor graphs with plugin backends (PyTensor-compatible API).",
    )
    parser.add_argument("--version", action="version", version=f"opgraph {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, cmd in SUBCOMMANDS.items():
        cmd.setup(sub.add_parser(name, help=cmd.help, description=cmd.help))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``opgraph`` console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    run: Any = SUBCOMMANDS[args.command].run
    if isinstance(run, str):
        from opgraph.plugins.records import load_target

        run = load_target(run)
    code = run(args)
    return int(code or 0)


if __name__ == "__main__":
    sys.exit(main())

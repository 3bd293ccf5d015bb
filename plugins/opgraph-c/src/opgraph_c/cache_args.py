"""Arguments of ``opgraph cache`` (light: read whenever the command line is parsed)."""

from __future__ import annotations

import argparse


def setup(parser: argparse.ArgumentParser) -> None:
    """``opgraph cache [list|info|clear] [--json]``."""
    parser.add_argument("action", nargs="?", default="info", choices=("list", "info", "clear"),
                        help="list the cached modules, show totals (default), or remove all")
    parser.add_argument("--json", action="store_true", help="print JSON")

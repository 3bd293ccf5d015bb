"""Arguments of ``opgraph demo`` (light: read whenever the command line is parsed)."""

from __future__ import annotations

import argparse


def setup(parser: argparse.ArgumentParser) -> None:
    """``opgraph demo [--verbose] [--budget SECONDS] [--no-cold]``."""
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="also print the plugins, the graphs before and after rewriting, "
                             "and per-example times")
    parser.add_argument("--budget", type=float, default=0.05, metavar="SECONDS",
                        help="time spent calling each compiled function (default 0.05)")
    parser.add_argument("--no-cold", action="store_true",
                        help="skip the cold compiles (one fresh process per mode)")

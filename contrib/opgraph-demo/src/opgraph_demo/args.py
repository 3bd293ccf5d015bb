"""Arguments of ``opgraph demo`` (light: read whenever the command line is parsed)."""

from __future__ import annotations

import argparse


def setup(parser: argparse.ArgumentParser) -> None:
    """``opgraph demo [--verbose] [--budget SECONDS] [--modes A,B] [--cold]``."""
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="also print the plugins, the graphs before and after rewriting, "
                             "and per-example times")
    parser.add_argument("--budget", type=float, default=0.02, metavar="SECONDS",
                        help="time spent calling each compiled function (default 0.02)")
    parser.add_argument("--modes", default="", metavar="A,B,...",
                        help="run only these modes (default: every mode the installed "
                             "plugins provide)")
    parser.add_argument("--cold", action="store_true",
                        help="also measure cold compiles (a fresh process with an empty "
                             "compile cache per mode: minutes) and record them for this "
                             "version; later runs show the recorded figures")
    # the default since --cold exists; still accepted by scripts written before
    parser.add_argument("--no-cold", action="store_true", help=argparse.SUPPRESS)

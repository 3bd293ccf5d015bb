"""``opgraph pytensor``: the compatibility layer's state in this interpreter."""

from __future__ import annotations

import argparse
import importlib
import json
import sys

import opgraph
from opgraph_pytensor._finder import (
    ENV_VAR,
    PYTENSOR_VERSION,
    enabled_by_environment,
    installed_finder,
    shadowed_pytensor,
)


def setup(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def state() -> dict[str, object]:
    """What ``import pytensor`` gives in this process, without importing a real PyTensor."""
    active = installed_finder() is not None
    info: dict[str, object] = {
        "active": active,
        "environment": f"{ENV_VAR}={'on' if enabled_by_environment() else 'off'}",
        "pytensor_api": PYTENSOR_VERSION,
        "shadowed_pytensor_distribution": shadowed_pytensor(),
    }
    if active:
        served = importlib.import_module("pytensor")  # opgraph itself while the finder is active
        info["pytensor_is_opgraph"] = served is opgraph
        info["pytensor_module"] = f"opgraph {served.__version__} ({served.__file__})"
    return info


def run(args: argparse.Namespace) -> int:
    info = state()
    if args.json:
        json.dump(info, sys.stdout, indent=1)
        print()
        return 0
    for key, value in info.items():
        print(f"{key:32} {value}")
    return 0

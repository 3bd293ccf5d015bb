"""``opgraph cache list|info|clear``: inspect and empty the C module cache."""

from __future__ import annotations

import argparse
import json
import time

from opgraph_c.cache import default_cache, describe

__all__ = ["run"]


def _size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"  # pragma: no cover


def run(args: argparse.Namespace) -> int:
    from opgraph.config import config

    cache = default_cache()
    action = getattr(args, "action", None) or "info"
    entries = cache.entries()
    if action == "list":
        if getattr(args, "json", False):
            print(json.dumps([describe(e) for e in entries], indent=2))
            return 0
        if not entries:
            print(f"The C module cache at {cache.root} is empty.")
            return 0
        print(f"{'KEY':<16}  {'SIZE':>9}  {'LAST USED':<19}  DESCRIPTION")
        for e in reversed(entries):
            used = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(e.last_used))
            flag = "" if e.valid else " [incomplete]"
            print(f"{e.key[:16]}  {_size(e.size):>9}  {used}  {e.description}{flag}")
        return 0
    if action == "info":
        total = cache.total_size()  # entries, headers, quarantine: every file it owns
        cap = config.compile_cache_max_mb
        info = {
            "directory": cache.root,
            "modules": len(entries),
            "size_bytes": total,
            "limit_mb": cap,
        }
        if getattr(args, "json", False):
            print(json.dumps(info, indent=2))
            return 0
        print(f"directory: {cache.root}")
        print(f"modules:   {len(entries)}")
        limit = f"{cap} MiB (least recently used evicted)" if cap else "none"
        print(f"size:      {_size(total)} (limit {limit})")
        return 0
    if action == "clear":
        n = cache.clear()
        print(f"removed {n} module(s) from {cache.root}")
        return 0
    print(f"unknown cache action {action!r}; use list, info or clear")
    return 2

"""Entry point discovery with a disk cache: the plugin list without reading every distribution.

``importlib.metadata.entry_points(group=...)`` opens the metadata of every
installed distribution (about 45 ms in a PyMC environment), and reading each
plugin's distribution name and version costs more: paid by every process at
its first hook call (``import pymc`` included).  The answer changes only when
something is installed, removed or edited, so it is kept in
``<base_compiledir>/plugin-entry-points.json`` under a key made of ``sys.path``
and, per path entry, the names of the ``*.dist-info``/``*.egg-info`` folders
with the modification time of their ``entry_points.txt`` (a directory listing
and a ``stat`` each: about 1 ms).  Any change to that key asks
``importlib.metadata`` again; a cache that cannot be read or written only
means asking every time.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import sys
import tempfile
from functools import reduce
from pathlib import Path
from typing import Any

import attrs

from opgraph.config import config

__all__ = ["CACHE_FILE", "DiscoveredEntryPoint", "discover_entry_points", "installed_key"]

CACHE_FILE = "plugin-entry-points.json"
_METADATA_SUFFIXES = (".dist-info", ".egg-info")
_KEEP = 8
"""Keys (group and installation) the cache file keeps, the most recently written."""


@attrs.frozen
class DiscoveredEntryPoint:
    """One entry point of a group: what loading and reporting a plugin need."""

    name: str
    value: str
    group: str
    dist_name: str = ""
    dist_version: str = ""

    def load(self) -> Any:
        """Import the module of ``module:attr.sub`` and return the attribute (EntryPoint.load)."""
        module_name, _, attr = self.value.partition(":")
        module = importlib.import_module(module_name.strip())
        attr = attr.split("[", 1)[0].strip()  # "[extras]" do not name an attribute
        return reduce(getattr, filter(None, attr.split(".")), module)


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


def installed_key(path: list[str] | None = None) -> str:
    """A digest of what decides the entry points: the path entries and their metadata folders."""
    parts: list[str] = []
    for entry in sys.path if path is None else path:
        parts.append(f"P{entry}")
        try:
            names = sorted(n for n in os.listdir(entry or ".") if n.endswith(_METADATA_SUFFIXES))
        except NotADirectoryError:  # a zip archive on the path: its own time stamp
            parts.append(f"Z{_mtime(entry)}")
            continue
        except OSError:
            continue
        for name in names:
            parts.append(f"D{name}|{_mtime(os.path.join(entry or '.', name, 'entry_points.txt'))}")
    return hashlib.sha256("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def _from_metadata(group: str) -> list[DiscoveredEntryPoint]:
    # Standard library, deferred: importlib.metadata costs tens of ms to import and
    # only a cache miss needs it.
    import importlib.metadata

    found = []
    for ep in importlib.metadata.entry_points(group=group):
        dist = getattr(ep, "dist", None)
        name = str(dist.metadata["Name"]) if dist is not None else ""
        version = str(dist.version) if dist is not None else ""
        found.append(DiscoveredEntryPoint(ep.name, ep.value, group, name, version))
    return found


def _read_cache(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_cache(path: Path, data: dict[str, Any]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".entry-points-", suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f)
        os.replace(tmp, path)
    except OSError:
        Path(tmp).unlink(missing_ok=True)


def discover_entry_points(
    group: str, cache_dir: str | os.PathLike[str] | None = None
) -> list[DiscoveredEntryPoint]:
    """The entry points of ``group`` in ``sys.path`` order, from the cache when it is current.

    ``cache_dir`` holds the cache file (default: ``config.base_compiledir``).
    """
    key = f"{group}|{installed_key()}"
    path = Path(config.base_compiledir if cache_dir is None else cache_dir) / CACHE_FILE
    cache = _read_cache(path)
    rows = cache.get(key)
    if isinstance(rows, list):
        try:
            return [DiscoveredEntryPoint(*row) for row in rows]
        except TypeError:  # a row of another layout: ask again
            pass
    found = _from_metadata(group)
    # the newest few keys are kept (a test's own sys.path must not evict the usual one)
    kept = dict(list(cache.items())[-(_KEEP - 1):])
    kept[key] = [list(attrs.astuple(ep)) for ep in found]
    _write_cache(path, kept)
    return found

"""The on-disk cache of compiled modules.

Each entry is ``<dir>/<key>.so`` plus ``<key>.json`` (its SHA-256, size and
what it is) and ``<key>.c`` (the source, for inspection).  The key hashes the
generated source, the compiler's identity and flags, the Python and NumPy
ABI and the CPU (``-march=native``).  Files are written under a temporary
name and renamed, so processes compiling the same graph at once never see a
half-written module and need no lock: the last rename wins and both files are
valid.  A module whose hash does not match its record (truncated, corrupt) or
that fails to load is rebuilt.  After each build, the least recently used
entries are removed while the cache is over ``compile_cache_max_mb``.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

import attrs

__all__ = ["CacheEntry", "ModuleCache", "abi_tag", "default_cache"]

MODNAME_PLACEHOLDER = "@MODNAME@"
CACHE_FORMAT = "1"


def abi_tag() -> str:
    """What a compiled module depends on besides its source: Python and NumPy ABI."""
    import numpy

    try:
        from numpy._core._multiarray_umath import _get_ndarray_c_version

        np_abi = str(_get_ndarray_c_version())
    except ImportError:  # pragma: no cover - NumPy 1.x layout
        np_abi = numpy.__version__
    soabi = sysconfig.get_config_var("SOABI") or sys.implementation.cache_tag
    return f"{soabi}|numpy-{numpy.__version__}-{np_abi}"


@attrs.frozen
class CacheEntry:
    """One cached module, as shown by ``opgraph cache list``."""

    key: str
    path: str
    size: int  # bytes of .so + .c + .json
    last_used: float
    created: float
    description: str
    valid: bool


class ModuleCache:
    """Compiled modules under ``root`` (normally ``<compiledir>/c``)."""

    def __init__(self, root: str, max_mb: int = 1024) -> None:
        self.root = root
        self.max_bytes = max_mb * 1024 * 1024
        self._loaded: dict[str, ModuleType] = {}
        self.stats = {"memory_hits": 0, "disk_hits": 0, "builds": 0, "rebuilds": 0}

    # -- keys -----------------------------------------------------------------------
    @staticmethod
    def make_key(source: str, *parts: str) -> str:
        """SHA-256 over the source and everything else the binary depends on."""
        h = hashlib.sha256()
        for text in (CACHE_FORMAT, abi_tag(), *parts, source):
            h.update(text.encode())
            h.update(b"\0")
        return h.hexdigest()

    @staticmethod
    def module_name(key: str) -> str:
        return f"opgraph_c_{key[:24]}"

    def paths(self, key: str) -> tuple[str, str, str]:
        base = os.path.join(self.root, key)
        return base + ".so", base + ".json", base + ".c"

    # -- lookup / build -----------------------------------------------------------------
    def get(
        self,
        key: str,
        source: str,
        build: Callable[[str, str], None],
        description: str = "",
    ) -> ModuleType:
        """The module for ``key``: from memory, from disk, or built by ``build``.

        ``source`` holds :data:`MODNAME_PLACEHOLDER` where the module name goes;
        ``build(final_source, out_path)`` compiles it into ``out_path``.
        """
        mod = self._loaded.get(key)
        if mod is not None:
            self.stats["memory_hits"] += 1
            return mod
        name = self.module_name(key)
        so_path, meta_path, _ = self.paths(key)
        mod = self._load_checked(name, so_path, meta_path)
        if mod is not None:
            self.stats["disk_hits"] += 1
        else:
            if os.path.exists(so_path):
                self.stats["rebuilds"] += 1
            mod = self._build(key, name, source.replace(MODNAME_PLACEHOLDER, name), build,
                              description)
        self._loaded[key] = mod
        return mod

    def _load_checked(self, name: str, so_path: str, meta_path: str) -> ModuleType | None:
        try:
            with open(meta_path, encoding="utf-8") as fh:
                meta = json.load(fh)
            with open(so_path, "rb") as fh:
                data = fh.read()
        except (OSError, ValueError):
            return None
        if len(data) != meta.get("size") or hashlib.sha256(data).hexdigest() != meta.get("sha256"):
            return None  # truncated or corrupt: rebuild
        try:
            mod = _load_extension(name, so_path)
        except ImportError:
            return None
        try:
            os.utime(meta_path)  # last use, for LRU eviction
        except OSError:
            pass
        return mod

    def _build(
        self, key: str, name: str, source: str, build: Callable[[str, str], None], desc: str
    ) -> ModuleType:
        os.makedirs(self.root, exist_ok=True)
        so_path, meta_path, c_path = self.paths(key)
        tmp_dir = tempfile.mkdtemp(prefix=f".build-{key[:12]}-", dir=self.root)
        try:
            tmp_so = os.path.join(tmp_dir, name + ".so")
            build(source, tmp_so)
            with open(tmp_so, "rb") as fh:
                data = fh.read()
            meta = {
                "key": key,
                "module": name,
                "size": len(data),
                "sha256": hashlib.sha256(data).hexdigest(),
                "created": time.time(),
                "description": desc,
            }
            _atomic_write(c_path, source.encode(), self.root)
            os.replace(tmp_so, so_path)
            _atomic_write(meta_path, json.dumps(meta).encode(), self.root)
        finally:
            _rmtree_quiet(tmp_dir)
        self.stats["builds"] += 1
        self.evict()
        return _load_extension(name, so_path)

    # -- maintenance ------------------------------------------------------------------------
    def entries(self) -> list[CacheEntry]:
        """Every entry, least recently used first."""
        out = []
        try:
            names = os.listdir(self.root)
        except OSError:
            return []
        for fname in names:
            if not fname.endswith(".so"):
                continue
            key = fname[:-3]
            so_path, meta_path, c_path = self.paths(key)
            size, meta, last = 0, {}, None
            for p in (so_path, meta_path, c_path):
                try:
                    st = os.stat(p)
                    size += st.st_size
                    if p == meta_path:
                        last = st.st_mtime
                except OSError:
                    pass
            try:
                with open(meta_path, encoding="utf-8") as fh:
                    meta = json.load(fh)
            except (OSError, ValueError):
                meta = {}
            valid = bool(meta) and os.path.getsize(so_path) == meta.get("size")
            out.append(
                CacheEntry(key, so_path, size,
                           last if last is not None else os.path.getmtime(so_path),
                           float(meta.get("created", 0.0)), str(meta.get("description", "")),
                           valid)
            )
        out.sort(key=lambda e: e.last_used)
        return out

    def total_size(self) -> int:
        return sum(e.size for e in self.entries())

    def evict(self, max_bytes: int | None = None) -> list[str]:
        """Remove least recently used entries until the cache fits; returns their keys."""
        limit = self.max_bytes if max_bytes is None else max_bytes
        if limit <= 0:
            return []
        entries = self.entries()
        total = sum(e.size for e in entries)
        removed = []
        for entry in entries:
            if total <= limit:
                break
            self.remove(entry.key)
            total -= entry.size
            removed.append(entry.key)
        return removed

    def remove(self, key: str) -> None:
        """Delete one entry's files (a process that loaded it keeps its mapping)."""
        for p in self.paths(key):
            try:
                os.unlink(p)
            except OSError:
                pass
        self._loaded.pop(key, None)

    def clear(self) -> int:
        """Remove every entry, stale build directory and precompiled header; returns the entries
        removed."""
        entries = self.entries()
        for e in entries:
            self.remove(e.key)
        try:
            for fname in os.listdir(self.root):
                if fname.startswith(".build-") or fname == "pch":
                    _rmtree_quiet(os.path.join(self.root, fname))
        except OSError:
            pass
        self._loaded.clear()
        return len(entries)

    def forget_loaded(self) -> None:
        """Drop the in-process module table (the next lookup goes to disk)."""
        self._loaded.clear()


def _atomic_write(path: str, data: bytes, directory: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _rmtree_quiet(path: str) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def _load_extension(name: str, path: str) -> ModuleType:
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    if spec is None:  # pragma: no cover
        raise ImportError(f"cannot load compiled module {path}")
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


_DEFAULT: dict[tuple[str, int], ModuleCache] = {}


def default_cache() -> ModuleCache:
    """The cache under the configured ``compiledir`` (one object per directory)."""
    from opgraph.config import config

    root = os.path.join(config.compiledir, "c")
    key = (root, config.compile_cache_max_mb)
    cache = _DEFAULT.get(key)
    if cache is None:
        cache = _DEFAULT[key] = ModuleCache(root, config.compile_cache_max_mb)
    return cache


def describe(entry: CacheEntry) -> dict[str, Any]:
    """A JSON-friendly view of an entry."""
    return attrs.asdict(entry)

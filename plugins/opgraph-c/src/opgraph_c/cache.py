"""The on-disk cache of compiled modules.

Each entry is ``<dir>/<key>.so`` plus ``<key>.json`` (its SHA-256, size and
what it is) and ``<key>.c`` (the source, for inspection).  The key hashes the
generated source, the compiler's identity and flags, the Python and NumPy
ABI and the CPU (``-march=native``).

The cache degrades, it never fails a compile: modules are built in a private
temporary directory, loaded from the bytes that were built or checked, and
stored in the cache afterwards (best effort: a cache another process is
clearing, or a full disk, only costs a rebuild next time).  Files are written
under temporary names and renamed, so processes compiling the same graph at
once never see a half-written module and need no lock.  Anything wrong found
in the cache (a module whose hash does not match its record, one that will not
load, a directory where a file should be) is quarantined and rebuilt, in the
same process too.  A cache directory that cannot be used at all gives one
warning and a per-process temporary cache, removed at exit.  After each build,
the least recently used entries are removed while the cache is over
``compile_cache_max_mb``.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import sys
import sysconfig
import tempfile
import time
import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any

import attrs
import numpy

from opgraph.config import config
from opgraph_c.cache_files import (
    QUARANTINE,
    atomic_write,
    is_regular_file,
    load_module_bytes,
    quarantine,
    rmtree_quiet,
    unusable_reason,
)

__all__ = ["CacheEntry", "CacheWarning", "ModuleCache", "abi_tag", "default_cache"]

MODNAME_PLACEHOLDER = "@MODNAME@"
CACHE_FORMAT = "1"
ENTRY_SUFFIXES = (".so", ".json", ".c")


class CacheWarning(UserWarning):
    """The C module cache found a problem it worked around (the message says which)."""


def abi_tag() -> str:
    """What a compiled module depends on besides its source: Python and NumPy ABI."""
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

    def __init__(self, root: str, max_mb: int = 1024, read_roots: tuple[str, ...] = ()) -> None:
        self.root = root
        #: caches only read from (a shared, pre-built cache this process cannot write):
        #: a module found there is loaded as it is; a missing one is built into ``root``
        self.read_roots = tuple(read_roots)
        self.max_bytes = max_mb * 1024 * 1024
        self._loaded: dict[str, ModuleType] = {}
        self._store_warned = False
        self.stats = {"memory_hits": 0, "disk_hits": 0, "builds": 0, "rebuilds": 0,
                      "quarantined": 0}

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

    def paths(self, key: str, root: str | None = None) -> tuple[str, str, str]:
        base = os.path.join(self.root if root is None else root, key)
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
        ``build(final_source, out_path)`` compiles it into ``out_path`` (in a
        private directory).  Raises what ``build`` raises, or ImportError when
        the freshly built module will not load.
        """
        mod = self._loaded.get(key)
        if mod is not None:
            self.stats["memory_hits"] += 1
            return mod
        name = self.module_name(key)
        mod, found_bad = self._load_checked(key, name)
        for root in self.read_roots:
            if mod is not None:
                break
            mod = self._load_read_only(key, name, root)
        if mod is not None:
            self.stats["disk_hits"] += 1
        else:
            if found_bad:
                self.stats["rebuilds"] += 1
            mod = self._build(key, name, source.replace(MODNAME_PLACEHOLDER, name), build,
                              description)
        self._loaded[key] = mod
        return mod

    def _load_checked(self, key: str, name: str) -> tuple[ModuleType | None, bool]:
        """(module, False) on a valid entry; (None, False) on a miss; (None, True) when
        a bad entry was found and quarantined."""
        so_path, meta_path, _ = self.paths(key)
        if not os.path.lexists(so_path) and not os.path.lexists(meta_path):
            return None, False
        try:
            with open(meta_path, encoding="utf-8") as fh:
                meta = json.load(fh)
            with open(so_path, "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            return None, False  # half an entry (being written, or removed): a miss
        except (OSError, ValueError) as exc:
            self._quarantine(key, f"unreadable: {type(exc).__name__}: {exc}")
            return None, True
        if not isinstance(meta, dict) or len(data) != meta.get("size") or (
            hashlib.sha256(data).hexdigest() != meta.get("sha256")
        ):
            self._quarantine(key, "the module does not match its record (truncated or corrupt)")
            return None, True
        try:
            mod = load_module_bytes(name, data, so_path)
        except ImportError as exc:
            self._quarantine(key, f"the module does not load: {exc}")
            return None, True
        try:
            os.utime(meta_path)  # last use, for LRU eviction
        except OSError:
            pass
        return mod, False

    def _load_read_only(self, key: str, name: str, root: str) -> ModuleType | None:
        """The module for ``key`` from a read-only cache, or None (missing or bad there:
        nothing is moved or touched, the module is built into this cache instead)."""
        so_path, meta_path, _ = self.paths(key, root)
        if not is_regular_file(meta_path) or not is_regular_file(so_path):
            return None
        try:
            with open(meta_path, encoding="utf-8") as fh:
                meta = json.load(fh)
            with open(so_path, "rb") as fh:
                data = fh.read()
        except (OSError, ValueError):
            return None
        if not isinstance(meta, dict) or len(data) != meta.get("size") or (
            hashlib.sha256(data).hexdigest() != meta.get("sha256")
        ):
            return None
        try:
            return load_module_bytes(name, data, so_path)
        except ImportError:
            return None

    def _quarantine(self, key: str, reason: str) -> None:
        folder = quarantine(self.root, list(self.paths(key)), reason)
        self.stats["quarantined"] += 1
        where = f"moved to {folder}" if folder else "removed"
        warnings.warn(
            f"opgraph C cache: entry {key[:16]} in {self.root} is bad ({reason}); {where} and "
            f"rebuilt", CacheWarning, stacklevel=4,
        )

    def _build(
        self, key: str, name: str, source: str, build: Callable[[str, str], None], desc: str
    ) -> ModuleType:
        build_dir = _private_build_dir(key, self.root)
        try:
            so_built = os.path.join(build_dir, name + ".so")
            build(source, so_built)
            with open(so_built, "rb") as fh:
                data = fh.read()
            so_path = self.paths(key)[0]
            mod = load_module_bytes(name, data, so_path)
        finally:
            rmtree_quiet(build_dir)
        self.stats["builds"] += 1
        self._store(key, name, data, source, desc)
        self.evict()
        return mod

    def _store(self, key: str, name: str, data: bytes, source: str, desc: str) -> None:
        """Put a built module in the cache; failures only cost a rebuild next time."""
        so_path, meta_path, c_path = self.paths(key)
        meta = {
            "key": key,
            "module": name,
            "size": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
            "created": time.time(),
            "description": desc,
        }
        for _attempt in range(2):
            try:
                os.makedirs(self.root, exist_ok=True)
                atomic_write(c_path, source.encode(), self.root)
                atomic_write(so_path, data, self.root)
                atomic_write(meta_path, json.dumps(meta).encode(), self.root)
                return
            except FileNotFoundError:
                continue  # the directory was cleared meanwhile: once more
            except OSError as exc:
                if not self._store_warned:
                    self._store_warned = True
                    warnings.warn(
                        f"opgraph C cache: cannot store compiled modules in {self.root} "
                        f"({type(exc).__name__}: {exc.strerror or exc}); they are rebuilt "
                        f"when needed", CacheWarning, stacklevel=4,
                    )
                return

    # -- maintenance ------------------------------------------------------------------------
    def entries(self) -> list[CacheEntry]:
        """Every entry (complete or not), least recently used first."""
        try:
            names = os.listdir(self.root)
        except OSError:
            return []
        keys = sorted({
            n[: -len(sfx)] for n in names for sfx in ENTRY_SUFFIXES
            if n.endswith(sfx) and not n.startswith(".")
        })
        out = [self._entry(key) for key in keys]
        out.sort(key=lambda e: e.last_used)
        return out

    def _entry(self, key: str) -> CacheEntry:
        so_path, meta_path, c_path = self.paths(key)
        size, last = 0, 0.0
        for p in (so_path, meta_path, c_path):
            try:
                st = os.stat(p)
            except OSError:
                continue
            size += st.st_size
            last = max(last, st.st_mtime) if p != meta_path else st.st_mtime
        meta: dict[str, Any] = {}
        if is_regular_file(meta_path):
            try:
                with open(meta_path, encoding="utf-8") as fh:
                    loaded = json.load(fh)
                meta = loaded if isinstance(loaded, dict) else {}
            except (OSError, ValueError):
                meta = {}
        try:  # another process may remove the entry while we look (eviction, clear)
            so_size: int | None = os.stat(so_path).st_size if is_regular_file(so_path) else None
        except OSError:
            so_size = None
        valid = bool(meta) and so_size is not None and so_size == meta.get("size")
        return CacheEntry(key, so_path, size, last, float(meta.get("created", 0.0)),
                          str(meta.get("description", "")), valid)

    def total_size(self) -> int:
        """Bytes of every file under the cache directory (entries, headers, quarantine)."""
        total = 0
        for folder, _dirs, files in os.walk(self.root):
            for fname in files:
                try:
                    total += os.lstat(os.path.join(folder, fname)).st_size
                except OSError:
                    pass
        return total

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
            rmtree_quiet(p)
        self._loaded.pop(key, None)

    def clear(self) -> int:
        """Remove everything the cache holds: entries (complete or not), temporary
        files, precompiled headers, quarantine; returns the entries removed.

        Safe while other processes compile: their builds are private and a store
        that finds its files gone is retried or skipped.
        """
        entries = self.entries()
        for e in entries:
            self.remove(e.key)
        try:
            names = os.listdir(self.root)
        except OSError:
            names = []
        for fname in names:
            if fname.startswith((".tmp-", ".build-", QUARANTINE)) or fname == "pch":
                rmtree_quiet(os.path.join(self.root, fname))
        self._loaded.clear()
        return len(entries)

    def forget_loaded(self) -> None:
        """Drop the in-process module table (the next lookup goes to disk)."""
        self._loaded.clear()


def _private_build_dir(key: str, root: str) -> str:
    """A directory only this build uses: the system's temporary directory, or the
    cache directory when that is not writable."""
    try:
        return tempfile.mkdtemp(prefix=f"opgraph-c-build-{key[:12]}-")
    except OSError:
        os.makedirs(root, exist_ok=True)
        return tempfile.mkdtemp(prefix=f".build-{key[:12]}-", dir=root)


_DEFAULT: dict[tuple[str, int], ModuleCache] = {}
_FALLBACK: dict[str, str] = {}


def default_cache() -> ModuleCache:
    """The cache under the configured ``compiledir`` (one object per directory).

    When that directory cannot be used (read-only, a file, not creatable), one
    warning names it and the reason, and a per-process temporary cache is used
    instead (removed at exit).
    """
    root = os.path.join(os.fspath(config.compiledir), "c")
    key = (root, config.compile_cache_max_mb)
    cache = _DEFAULT.get(key)
    if cache is None:
        usable_root = _usable_root(root)
        # a read-only but readable cache (shared, pre-built) is still read from
        read_roots = (root,) if usable_root != root and _readable_dir(root) else ()
        cache = _DEFAULT[key] = ModuleCache(usable_root, config.compile_cache_max_mb,
                                            read_roots)
    return cache


def _readable_dir(path: str) -> bool:
    return os.path.isdir(path) and os.access(path, os.R_OK | os.X_OK)


def _usable_root(root: str) -> str:
    if root in _FALLBACK:
        return _FALLBACK[root]
    reason = unusable_reason(root)
    if reason is None:
        return root
    fallback = tempfile.mkdtemp(prefix="opgraph-c-cache-")
    atexit.register(rmtree_quiet, fallback)
    _FALLBACK[root] = fallback
    readable = (" Modules already in it are still loaded from it; only missing ones are "
                "built." if _readable_dir(root) else "")
    warnings.warn(
        f"opgraph C cache: the cache directory {root} cannot be written ({reason}); compiled "
        f"modules go to a temporary cache for this process ({fallback}), removed at exit."
        f"{readable} Set OPGRAPH_FLAGS=compiledir=... to a writable directory to keep them.",
        CacheWarning, stacklevel=3,
    )
    return fallback


def describe(entry: CacheEntry) -> dict[str, Any]:
    """A JSON-friendly view of an entry."""
    return attrs.asdict(entry)

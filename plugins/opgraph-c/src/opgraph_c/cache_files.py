"""File operations of the module cache that must survive other processes and bad files.

Every write goes to a temporary name in the same directory and is renamed, so a
reader sees a whole file or none.  Anything found where a cache file should be
that is not what the cache wrote (truncated, corrupt, a directory, a module
that will not load) is moved to ``<root>/.quarantine/`` and rebuilt; the last
few quarantined items are kept there for inspection.  Compiled modules are
loaded from a private copy of the bytes whose hash was checked, so a file
replaced or removed by another process between the check and the load, or a
module rebuilt under a path this process already loaded, never matters.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import shutil
import tempfile
import time
from types import ModuleType

__all__ = [
    "QUARANTINE",
    "atomic_write",
    "is_regular_file",
    "load_module_bytes",
    "quarantine",
    "rmtree_quiet",
    "unusable_reason",
]

QUARANTINE = ".quarantine"
KEEP_QUARANTINED = 16


def is_regular_file(path: str) -> bool:
    """A plain file (not a directory, socket...); False when missing."""
    try:
        return os.path.isfile(path) and not os.path.islink(path)
    except OSError:
        return False


def atomic_write(path: str, data: bytes, directory: str) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename.

    Something that is not a regular file at ``path`` (say a directory) is
    quarantined first.  Raises OSError when the directory cannot be written.
    """
    if os.path.lexists(path) and not is_regular_file(path):
        quarantine(directory, [path], "not a regular file")
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


def quarantine(root: str, paths: list[str], reason: str) -> str | None:
    """Move ``paths`` (files or directories) into a fresh folder under
    ``<root>/.quarantine``, with a note of ``reason``; returns that folder.

    What cannot be moved is deleted; when neither works (a read-only cache), None.
    """
    present = [p for p in paths if os.path.lexists(p)]
    if not present:
        return None
    qroot = os.path.join(root, QUARANTINE)
    stamp = f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
    try:
        os.makedirs(qroot, exist_ok=True)
        folder = tempfile.mkdtemp(prefix=f"{stamp}-", dir=qroot)
        with open(os.path.join(folder, "REASON"), "w", encoding="utf-8") as fh:
            fh.write(reason + "\n")
    except OSError:
        folder = None
    for p in present:
        try:
            if folder is None:
                raise OSError("no quarantine folder")
            os.replace(p, os.path.join(folder, os.path.basename(p)))
        except OSError:
            try:
                if os.path.isdir(p) and not os.path.islink(p):
                    shutil.rmtree(p)
                else:
                    os.unlink(p)
            except OSError:
                pass
    _prune(qroot)
    return folder


def _prune(qroot: str) -> None:
    try:
        folders = sorted(os.listdir(qroot))
    except OSError:
        return
    for name in folders[:-KEEP_QUARANTINED]:
        rmtree_quiet(os.path.join(qroot, name))


def rmtree_quiet(path: str) -> None:
    """Remove a file or a directory tree, ignoring what is already gone."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            os.unlink(path)
        except OSError:
            pass


def unusable_reason(root: str) -> str | None:
    """None when ``root`` can hold cache files (created if missing), else why not.

    A directory that another process removes between its creation and the probe
    (``opgraph cache clear`` running beside a compile) is created again, a few times.
    """
    for attempt in range(5):
        try:
            os.makedirs(root, exist_ok=True)
            fd, probe = tempfile.mkstemp(prefix=".tmp-probe-", dir=root)
            os.close(fd)
            os.unlink(probe)
        except FileNotFoundError as exc:
            if attempt == 4:
                return f"{type(exc).__name__}: {exc.strerror or exc}"
        except OSError as exc:
            return f"{type(exc).__name__}: {exc.strerror or exc}"
        else:
            return None
    return None


def load_extension(name: str, path: str) -> ModuleType:
    """Import the extension module ``name`` from the shared library ``path``."""
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    if spec is None:  # pragma: no cover - only for paths importlib cannot name
        raise ImportError(f"cannot load compiled module {path}")
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def load_module_bytes(name: str, data: bytes, shown_path: str) -> ModuleType:
    """Import the extension module ``name`` from ``data`` (the checked bytes).

    The bytes go to a private file that is removed once loaded (the mapping
    stays valid), so each load has a path of its own; ``__file__`` is set to
    ``shown_path``, where the module lives in the cache.
    """
    folder = tempfile.mkdtemp(prefix="opgraph-c-load-")
    try:
        path = os.path.join(folder, name + ".so")
        with open(path, "wb") as fh:
            fh.write(data)
        mod = load_extension(name, path)
    finally:
        rmtree_quiet(folder)
    mod.__file__ = shown_path
    return mod

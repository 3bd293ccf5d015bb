"""Facts about this machine that cost a subprocess to learn, kept on disk between processes.

``platform.processor()`` runs ``uname -p``, a compiler's identity runs ``cc --version``
and ``ctypes.util.find_library`` runs ``ldconfig``: together tens of milliseconds in
every new process's first compile, for answers that change only when the machine
does.  Each fact is stored under a key that names what it depends on (the kernel's
``uname``, a compiler's path, size and modification time), so a changed machine asks
again.  A directory that cannot be read or written only means asking every time.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

__all__ = ["cached_machine_fact", "uname_key"]

FILE_NAME = "machine-facts.json"


def uname_key() -> str:
    """The kernel, release and machine: what ``uname``-derived facts depend on."""
    u = os.uname()
    return f"{u.sysname}|{u.release}|{u.version}|{u.machine}"


def _read(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def cached_machine_fact(directory: str | os.PathLike[str], key: str,
                        compute: Callable[[], str]) -> str:
    """``compute()``, or the value stored for ``key`` in ``directory`` by an earlier call
    (of this or another process); a new value is stored atomically, errors ignored."""
    path = Path(directory) / FILE_NAME
    facts = _read(path)
    value = facts.get(key)
    if isinstance(value, str):
        return value
    value = compute()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".facts-", suffix=".tmp")
    except OSError:
        return value
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({**_read(path), key: value}, f, sort_keys=True)
        os.replace(tmp, path)
    except OSError:
        Path(tmp).unlink(missing_ok=True)
    return value

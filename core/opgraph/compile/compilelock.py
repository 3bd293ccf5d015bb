"""A directory lock shared by threads and processes (PyTensor's ``compilelock``).

``with lock_ctx(directory):`` holds ``directory/.lock`` (a ``filelock``
lock); re-entering in the same thread nests, another thread or process waits
up to ``timeout`` seconds and then raises ``filelock.Timeout``.
``force_unlock(directory)`` drops a stale lock.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import filelock

from opgraph.config import config

__all__ = ["force_unlock", "local_mem", "lock_ctx"]

LOCK_NAME = ".lock"


class _LocalMem(threading.local):
    """Per-thread table of the locks this thread created, keyed ``"<dir>-<pid>"``."""

    def __init__(self) -> None:
        self._locks: dict[str, filelock.FileLock] = {}


local_mem = _LocalMem()


def _key(lock_dir: str | os.PathLike) -> str:
    return f"{os.fspath(lock_dir)}-{os.getpid()}"


def _default_dir() -> str:
    return os.fspath(config.compiledir)


@contextmanager
def lock_ctx(lock_dir: str | os.PathLike | None = None, *,
             timeout: float | None = None) -> Iterator[None]:
    """Hold the lock of ``lock_dir`` (default ``config.compiledir``) for the block.

    ``timeout`` in seconds (None: wait forever); on expiry ``filelock.Timeout``.
    """
    lock_dir = _default_dir() if lock_dir is None else lock_dir
    key = _key(lock_dir)
    lock = local_mem._locks.get(key)
    if lock is None:
        Path(lock_dir).mkdir(parents=True, exist_ok=True)
        lock = filelock.FileLock(os.path.join(os.fspath(lock_dir), LOCK_NAME))
        local_mem._locks[key] = lock
    lock.acquire(timeout=-1 if timeout is None else timeout)
    try:
        yield
    finally:
        if lock.is_locked:
            lock.release()


def force_unlock(lock_dir: str | os.PathLike | None = None) -> None:
    """Release this process's hold on ``lock_dir`` and remove its lock file."""
    lock_dir = _default_dir() if lock_dir is None else lock_dir
    lock = local_mem._locks.pop(_key(lock_dir), None)
    if lock is not None and lock.is_locked:
        lock.release(force=True)
    try:
        os.remove(os.path.join(os.fspath(lock_dir), LOCK_NAME))
    except FileNotFoundError:
        pass

"""What the long-profile drivers share: worker threads, one fuzzer each, and the stream.

Each thread makes its own fuzzer (a child process) on first use; every fuzzer is
closed when the work is done or fails.  Findings are appended to a JSON-lines file
as they come, so a stopped run keeps them.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

__all__ = ["append_jsonl", "run_per_thread"]


def run_per_thread(work: Iterable[Any], jobs: int, make_worker: Callable[[], Any],
                   handle: Callable[[Any, Any], None]) -> None:
    """``handle(worker, item)`` for every item on ``jobs`` threads, one worker per thread."""
    lock, local = threading.Lock(), threading.local()
    workers: list[Any] = []

    def task(item: Any) -> None:
        if not hasattr(local, "worker"):
            local.worker = make_worker()
            with lock:
                workers.append(local.worker)
        handle(local.worker, item)

    try:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            list(pool.map(task, work))
    finally:
        for w in workers:
            w.close()


def append_jsonl(path: str | None, records: Iterable[dict]) -> None:
    """Append ``records`` to the JSON-lines file ``path`` (nothing when ``path`` is None)."""
    if not path:
        return
    with open(path, "a", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r) + "\n")

"""Computing dask values, and saying so when the dask.distributed cluster goes away.

Every computation of the backend goes through :func:`compute`: dask's own
scheduler choice (the active ``distributed.Client``, else the threaded
scheduler).  When the client's cluster goes away during the call (closed,
scheduler killed, network lost), distributed raises whatever it was doing at
the time (a cancelled future, a closed comm, a timeout); :func:`compute`
turns that into a :class:`ClusterLostError` naming the scheduler's address.
Nothing about the client is kept between calls, so the function works again
as soon as a new client is active.
"""

from __future__ import annotations

from concurrent.futures import CancelledError
from typing import Any

import dask
from dask.base import get_scheduler

__all__ = ["ClusterLostError", "active_client", "compute"]


class ClusterLostError(ConnectionError):
    """The dask.distributed cluster running the call went away before it finished."""


def active_client() -> Any:
    """The distributed client dask would use now, or None (threads, processes, sync)."""
    scheduler = get_scheduler()
    client = getattr(scheduler, "__self__", None)
    if client is None or not hasattr(client, "status") or not hasattr(client, "scheduler"):
        return None
    return client


def _address(client: Any) -> str:
    address = getattr(client.scheduler, "address", None)
    return str(address) if address else "an unknown address"


def compute(*values: Any) -> tuple:
    """``dask.compute(*values)``; a lost cluster raises :class:`ClusterLostError`."""
    client = active_client()
    if client is None:
        return dask.compute(*values)
    address = _address(client)
    try:
        return dask.compute(*values)
    except Exception as exc:
        status = str(getattr(client, "status", "unknown"))
        if status == "running" and not isinstance(exc, CancelledError):
            raise  # a task's own error (a missing file, say): the cluster is fine
        raise ClusterLostError(
            f"dask backend: lost the dask.distributed cluster at {address} during the call "
            f"(client status {status!r}; {type(exc).__name__}: {exc}). The cluster went away "
            "or stopped the computation; the function stays usable: start a new Client "
            "(or none, for local threads) and call it again"
        ) from exc

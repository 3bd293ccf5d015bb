"""State buffers of the Python scan loop that keep only their last rows (``keep_last``).

Why: a state whose only use after the loop is its last value (a gradient
accumulator of a loop over blocks, as ``scan_checkpoints``' backward pass
carries for every weight) needs one row, not two: the step's result is
written after the body has run, when the row it read is no longer needed.
A ring holding its rows in order is returned as it is, not copied; at hidden
1024 each such row is an 8 MB matrix.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["detach_aliases", "release_each_step", "ring_result", "ring_rows"]

#: a ring row this large makes the loop drop the body's held results after each step
RELEASE_MIN_BYTES = 1 << 20


def ring_rows(k: int, n: int, keep: int) -> int:
    """Rows of a state buffer read at taps down to ``-k`` over ``n`` steps: every row
    when ``keep`` is 0, else a ring of ``max(keep, k)`` (at most ``k + n``)."""
    if not keep:
        return k + n
    return min(k + n, max(keep, k))


def detach_aliases(results: Sequence[Any], tight: Sequence[np.ndarray]) -> list[Any]:
    """``results`` with a copy of any array that may view a ``tight`` ring (as many rows
    as taps): the step writes those rings in place, so a result viewing one (a state
    returned unchanged as another state) must be read before."""
    out = list(results)
    for j, v in enumerate(out):
        if isinstance(v, np.ndarray) and any(np.may_share_memory(v, b) for b in tight):
            out[j] = np.array(v, copy=True)
    return out


def ring_result(buf: np.ndarray, k: int, done: int, rows: int, n: int) -> np.ndarray:
    """The rows a state's output holds after ``done`` steps: the buffer's first
    ``k + done`` rows, or a ring's last rows oldest first (the ring itself when they
    are already in order)."""
    total = k + done
    if rows >= k + n:
        return buf[:total]
    avail = min(rows, total)
    first = (total - avail) % rows
    if first == 0:
        return buf[:avail]
    return buf[np.arange(total - avail, total) % rows]


def release_each_step(fn: Any, tight: Sequence[np.ndarray]) -> bool:
    """Whether the loop should drop the body function's held values after each step
    (``fn.free()``): when a one-row ring holds large rows, the function's previous
    results (already copied into the rings) would otherwise stay alive while the next
    step allocates its own, two of each large value at once."""
    return hasattr(fn, "free") and any(
        b.ndim and b[0].nbytes >= RELEASE_MIN_BYTES for b in tight)

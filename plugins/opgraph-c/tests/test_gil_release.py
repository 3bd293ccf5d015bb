"""Long contiguous elementwise loops run without the GIL, so other threads (a dask
threaded scheduler's, say) run Python and kernels meanwhile."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt


def _progress_inside(fn, *args):
    """How many times another Python thread ran during the middle of ``fn(*args)``."""
    stamps: list[float] = []
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            stamps.append(time.perf_counter())

    fn(*args)  # compiled and warm
    thread = threading.Thread(target=spin)
    thread.start()
    time.sleep(0.05)
    start = time.perf_counter()
    fn(*args)
    end = time.perf_counter()
    stop.set()
    thread.join()
    margin = (end - start) * 0.2
    return sum(start + margin < t < end - margin for t in stamps)


@pytest.mark.timeout(120)
def test_another_thread_runs_while_a_long_elementwise_kernel_runs():
    x = pt.dvector("x")
    out = pt.exp(pt.sin(x) * pt.cos(x)) + pt.log1p(pt.abs(x)) * pt.tanh(x)
    fn = opgraph.function([x], out, mode="FAST_RUN")
    data = np.random.default_rng(0).normal(size=4_000_000)
    np.testing.assert_allclose(fn(data), np.exp(np.sin(data) * np.cos(data))
                               + np.log1p(np.abs(data)) * np.tanh(data), rtol=1e-10,
                               atol=1e-14)
    assert _progress_inside(fn, data) > 0


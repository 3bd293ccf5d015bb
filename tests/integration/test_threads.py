"""One compiled function called from many threads gives every caller its own result.

A function's input cells, intermediate buffers and shared-variable updates
belong to the function, so its calls are serialised by a per-function gate
(docs/modes.md, "Threads").  Without it, about 1 call in 300 returned another
thread's result or failed inside a thunk.
"""

from __future__ import annotations

import sys
import threading

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt

N_THREADS = 8
CALLS = 10_000  # in total, split over the threads

MODES = ["FAST_COMPILE", "FAST_RUN", "C"]


@pytest.fixture
def fast_switching():
    """Make the interpreter switch threads as often as it can, to expose races."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def _run_threads(work) -> list[BaseException]:
    errors: list[BaseException] = []

    def guarded(t: int) -> None:
        try:
            work(t)
        except BaseException as exc:  # collected and reported by the test
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(t,)) for t in range(N_THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return errors


@pytest.mark.parametrize("mode", MODES)
def test_every_threaded_call_gets_its_own_result(mode, fast_switching):
    x = pt.vector("x")
    y = pt.scalar("y")
    f = opgraph.function([x, y], [pt.tanh(x) * y + pt.sum(x), pt.exp(y)], mode=mode)
    wrong = []

    def work(t: int) -> None:
        rng = np.random.default_rng(t)
        for _ in range(CALLS // N_THREADS):
            xv = rng.normal(size=int(rng.integers(1, 9)))
            yv = float(rng.normal())
            a, b = f(xv, yv)
            if not (np.allclose(a, np.tanh(xv) * yv + xv.sum()) and np.isclose(b, np.exp(yv))):
                wrong.append((xv, yv, a, b))

    errors = _run_threads(work)
    assert errors == []
    assert wrong == []


@pytest.mark.parametrize("mode", MODES)
def test_shared_updates_from_threads_are_not_lost(mode, fast_switching):
    count = opgraph.shared(np.int64(0), name="count")
    total = opgraph.shared(np.zeros(3), name="total")
    v = pt.vector("v")
    step = opgraph.function([v], pt.sum(v), mode=mode,
                            updates=[(count, count + 1), (total, total + v)])

    def work(t: int) -> None:
        for _ in range(CALLS // N_THREADS):
            step(np.ones(3))

    errors = _run_threads(work)
    assert errors == []
    assert int(count.get_value()) == CALLS
    np.testing.assert_array_equal(total.get_value(), np.full(3, float(CALLS)))


def test_bad_input_in_one_thread_leaves_the_function_usable(fast_switching):
    x = pt.vector("x")
    f = opgraph.function([x], x * 2, mode="FAST_RUN")
    messages: list[str] = []

    def work(t: int) -> None:
        for i in range(200):
            if t == 0 and i % 10 == 0:
                try:
                    f("not an array")
                except TypeError as exc:
                    messages.append(str(exc))
                continue
            out = f(np.full(4, float(t)))
            assert np.array_equal(out, np.full(4, 2.0 * t))

    assert _run_threads(work) == []
    assert len(messages) == 20
    assert all("input 0 ('x')" in m for m in messages)

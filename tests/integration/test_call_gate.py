"""The call gate of a compiled function: re-entrant calls, sleeping callers, keyword calls.

A call takes the function's one token with an atomic ``list.pop`` and gives it
back in ``finally``; a call that finds no token either is re-entrant (a node's
callback calling the same function in the same thread: it runs on) or sleeps
until the token is given back (docs/modes.md, "Threads").  Every result is
compared with NumPy, and each mode with the Python linker on the same graph.
"""

from __future__ import annotations

import sys
import threading
import time

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.compile.mode import Mode
from opgraph.printing import Print

#: the Python linker on the FAST_RUN graph: the reference for every other mode
PY = Mode(linker="py", optimizer="fast_run")
MODES = ["FAST_COMPILE", "FAST_RUN", "C", PY]


@pytest.fixture
def fast_switching():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def _reentrant_function(mode: str, callback):
    """``f(x) = 2 * x + 1`` with a Print node whose callback runs in the middle of a call."""
    x = pt.vector("x")
    shown = Print("cb", global_fn=lambda op, value: callback(value))(x)
    return opgraph.function([x], 2 * shown + 1, mode=mode)


@pytest.mark.parametrize("mode", MODES)
def test_a_call_from_inside_the_function_runs_and_both_results_are_right(mode):
    inner_results = []
    depth = [0]

    def callback(value):
        if depth[0] < 2:  # two levels of re-entrant calls
            depth[0] += 1
            inner_results.append(f(value[:1] + 10.0))
            depth[0] -= 1

    f = _reentrant_function(mode, callback)
    out = f(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(out, [3.0, 5.0, 7.0])
    # innermost first: f([21]) inside f([11]) inside the outer call
    np.testing.assert_allclose(inner_results[0], [43.0])
    np.testing.assert_allclose(inner_results[1], [23.0])
    assert f._plan.gate.token == [True]  # given back exactly once


@pytest.mark.parametrize("mode", ["FAST_COMPILE", "C"])
def test_a_caller_sleeps_while_another_thread_holds_the_function(mode):
    inside = threading.Event()
    let_go = threading.Event()

    def callback(value):
        if value[0] == -1.0:  # only the first thread's call blocks, holding the token
            inside.set()
            assert let_go.wait(10)

    f = _reentrant_function(mode, callback)
    gate = f._plan.gate
    results: dict[str, np.ndarray] = {}
    first = threading.Thread(target=lambda: results.update(a=f(np.array([-1.0, 0.0]))))
    first.start()
    assert inside.wait(10)
    second = threading.Thread(target=lambda: results.update(b=f(np.array([5.0]))))
    second.start()
    deadline = time.monotonic() + 10
    while gate.waiting[0] == 0 and time.monotonic() < deadline:  # the second call sleeps
        time.sleep(0.001)
    assert gate.waiting[0] == 1
    assert "b" not in results
    let_go.set()
    first.join(10)
    second.join(10)
    np.testing.assert_allclose(results["a"], [-1.0, 1.0])
    np.testing.assert_allclose(results["b"], [11.0])
    assert gate.waiting[0] == 0 and gate.token == [True]


@pytest.mark.parametrize("mode", ["FAST_COMPILE", "C"])
def test_an_error_inside_a_call_gives_the_token_back(mode):
    def callback(value):
        if value[0] < 0:
            raise ValueError("negative first element")

    f = _reentrant_function(mode, callback)
    with pytest.raises(ValueError, match="negative first element"):
        f(np.array([-1.0]))
    assert f._plan.gate.token == [True]
    with pytest.raises(TypeError, match="input 0"):
        f("not an array")
    assert f._plan.gate.token == [True]
    np.testing.assert_allclose(f(np.array([2.0])), [5.0])


@pytest.mark.parametrize("mode", ["FAST_COMPILE", "FAST_RUN"])
def test_threads_calling_by_keyword_and_toggling_trust_input(mode, fast_switching):
    x = pt.vector("x")
    y = pt.scalar("y")
    f = opgraph.function([x, opgraph.In(y, value=2.0)], [x * y, pt.sum(x)], mode=mode)
    wrong: list[tuple] = []
    errors: list[BaseException] = []

    def work(t: int) -> None:
        rng = np.random.default_rng(t)
        try:
            for i in range(600):
                xv = rng.normal(size=int(rng.integers(1, 6)))
                if t == 0 and i % 50 == 0:
                    f.trust_input = not f.trust_input  # regenerates the call path
                if i % 3 == 0:
                    a, b = f(x=xv, y=np.array(3.0))  # valid also with trust_input
                    expected = xv * 3.0
                elif i % 3 == 1:
                    a, b = f(xv)  # the default of y
                    expected = xv * 2.0
                else:
                    a, b = f(xv, np.array(-1.5))
                    expected = xv * -1.5
                if not (np.allclose(a, expected) and np.isclose(b, xv.sum())):
                    wrong.append((t, i, xv, a, b))
        except BaseException as exc:  # reported by the test
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    assert wrong == []
    assert f._plan.gate.token == [True]


def test_threaded_model_gradient_matches_the_python_linker(fast_switching):
    """A sampler-style logp + dlogp, called from 8 threads: C and Python linker agree."""
    theta = pt.dvector("theta")
    mu, log_tau, eta = theta[0], theta[1], theta[2:]
    y = pt.as_tensor_variable(np.array([28.0, 8.0, -3.0, 7.0]))
    logp = (-0.5 * mu ** 2 + log_tau - 0.5 * pt.sum(eta ** 2)
            - 0.5 * pt.sum((y - mu - pt.exp(log_tau) * eta) ** 2))
    outs = [logp, opgraph.grad(logp, theta)]
    fast = opgraph.function([theta], outs, mode="FAST_RUN")
    ref = opgraph.function([theta], outs, mode=PY)
    bad: list[int] = []

    def work(t: int) -> None:
        rng = np.random.default_rng(t)
        for i in range(400):
            th = rng.normal(size=6)
            value, grad = fast(th)
            ref_value, ref_grad = ref(th)
            if not (np.isclose(value, ref_value) and np.allclose(grad, ref_grad)):
                bad.append(i)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert bad == []


def test_a_function_is_an_ordinary_callable():
    import inspect

    x = pt.dvector("x")
    f = opgraph.function([x], x * 2.0, mode="FAST_COMPILE")
    assert callable(f)
    assert str(inspect.signature(f)) == "(*args, **kwargs)"
    np.testing.assert_allclose(f.__call__(np.ones(2)), [2.0, 2.0])
    with pytest.raises(TypeError, match="unknown keyword argument 'y'"):
        f(y=np.ones(2))

"""Small intermediates keep their buffer from one call to the next (no allocation per
call); a kept buffer is written again only when nothing else holds it, so results a
caller holds, and views of them, never change.  Compared with the Python linker."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode

C_PLAIN = Mode(linker="c", optimizer=None)
PY_PLAIN = Mode(linker="py", optimizer=None)


def _both(inputs, outputs):
    return function(inputs, outputs, mode=C_PLAIN), function(inputs, outputs, mode=PY_PLAIN)


@pytest.mark.parametrize("n", [1, 7, 4096])  # 4096 doubles: above the kept-buffer size
def test_results_of_earlier_calls_stay_as_they_were(n):
    x = pt.dvector("x")
    y = pt.exp(x) * 2.0  # an intermediate kept between calls
    outs = [y[::2], pt.sum(y), (y + 1.0).dimshuffle("x", 0)]
    c, py = _both([x], outs)
    rng = np.random.default_rng(n)
    kept = []
    for _ in range(4):
        a = rng.normal(size=n)
        got, want = c(a), py(a)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-14)
        kept.append(([np.array(g, copy=True) for g in got], got))
    for copies, got in kept:  # nothing returned earlier was overwritten by later calls
        for g, copy in zip(got, copies):
            np.testing.assert_array_equal(g, copy)


def test_a_changing_shape_gets_a_fresh_buffer():
    x = pt.dvector("x")
    out = pt.sum(pt.tanh(x) * x) + pt.max(pt.exp(x))
    c, py = _both([x], out)
    rng = np.random.default_rng(0)
    for n in (5, 5, 9, 1, 9, 3):
        a = rng.normal(size=n)
        np.testing.assert_allclose(c(a), py(a), rtol=1e-14)


def test_an_intermediate_the_caller_can_reach_through_a_python_node_is_not_reused():
    """A Python-run node that keeps a reference to its input (here: stores it) must see
    that value unchanged after later calls."""
    from opgraph.printing import Print

    seen = []
    x = pt.dvector("x")
    y = pt.exp(x) + 1.0
    out = Print("keep", global_fn=lambda op, v: seen.append(v))(y) * 3.0
    c = function([x], out, mode=C_PLAIN)
    first = np.array([0.0, 1.0])
    c(first)
    c(np.array([5.0, 6.0]))
    np.testing.assert_allclose(seen[0], np.exp(first) + 1.0)

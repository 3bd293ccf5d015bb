"""Output and intermediate buffers: reuse across calls only when nobody can see it."""

from __future__ import annotations

import numpy as np

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.io import Out
from opgraph.compile.mode import Mode

N = 300_000  # above the pool threshold (128k elements)


def c_mode():
    return Mode(linker="c", optimizer=None)  # no fusion: real intermediates


def test_returned_outputs_are_never_overwritten_by_a_later_call():
    x = pt.dvector("x")
    f = function([x], [pt.exp(x) * 2 + 1, (x * 3).sum()], mode=c_mode())
    a, b = np.linspace(0, 1, N), np.linspace(1, 2, N)
    r1, _ = f(a)
    keep = r1.copy()
    r2, _ = f(b)
    np.testing.assert_array_equal(r1, keep)
    np.testing.assert_allclose(r2, np.exp(b) * 2 + 1)
    assert not np.shares_memory(r1, r2)
    for _ in range(4):  # buffers the caller dropped are recycled; results stay right
        np.testing.assert_allclose(f(a)[0], np.exp(a) * 2 + 1)


def test_borrowed_output_reuses_its_buffer():
    x = pt.dvector("x")
    f = function([x], Out(pt.exp(x) + 1, borrow=True), mode=c_mode())
    a = np.linspace(0, 1, 1000)
    r1 = f(a)
    ptr = r1.ctypes.data
    r2 = f(a[::-1].copy())
    assert r2.ctypes.data == ptr  # written in place, as borrow=True allows
    np.testing.assert_allclose(r2, np.exp(a[::-1]) + 1)
    r3 = f(np.zeros(7))  # another shape: a new buffer
    np.testing.assert_allclose(r3, 2.0)


def test_views_of_a_returned_output_keep_it_from_reuse():
    x = pt.dvector("x")
    f = function([x], Out(pt.exp(x) + 1, borrow=False), mode=c_mode())
    a = np.linspace(0, 1, N)
    view = f(a)[10:20]
    want = view.copy()
    f(a + 5)
    np.testing.assert_array_equal(view, want)


def test_update_values_are_never_recycled():
    from opgraph.compile.sharedvalue import shared

    s = shared(np.zeros(N), name="s")
    x = pt.dvector("x")
    f = function([x], [], updates={s: s + x}, mode=c_mode())
    held = s.get_value(borrow=True)
    f(np.ones(N))
    np.testing.assert_array_equal(held, 0.0)
    f(np.ones(N))
    np.testing.assert_allclose(s.get_value(), 2.0)


def test_pool_can_be_released():
    from opgraph_c.linker import release_pooled_memory

    x = pt.dvector("x")
    f = function([x], pt.exp(x) * pt.sin(x) + 1, mode=c_mode())
    for _ in range(3):
        f(np.ones(N))
    assert release_pooled_memory() >= 0
    np.testing.assert_allclose(f(np.zeros(N)), 1.0)

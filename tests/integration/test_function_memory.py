"""The memory rule of docs/modes.md ("Outputs, updates and memory") in every mode:
returned arrays never alias shared state, inputs or each other; a shared variable
returned gives its value before the call's updates; two shared variables never
end up sharing storage."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.compile.io import In, Out
from opgraph.compile.mode import Mode

MODES = ["FAST_RUN", "FAST_COMPILE", "C", "CVM", "DASK", "DebugMode", "py", "vm"]


def _mode(name: str):
    return Mode(linker=name, optimizer=None) if name in ("py", "vm") else name


def _state(s):
    return s.get_value(borrow=True)


@pytest.mark.parametrize("mode", MODES)
def test_shared_output_is_the_value_before_the_update_and_a_copy(mode):
    s = opgraph.shared(np.full((2, 2), 0.5), name="s")
    x = pt.dmatrix("x")
    f = opgraph.function([x], [x * x, s], updates={s: x * x}, mode=_mode(mode))
    sq1, s1 = f(np.full((2, 2), 2.0))
    sq2, s2 = f(np.full((2, 2), 3.0))
    np.testing.assert_array_equal(s1, 0.5)
    np.testing.assert_array_equal(s2, 4.0)  # before this call's update (9 after it)
    np.testing.assert_array_equal(_state(s), 9.0)
    for r in (sq1, s1, sq2, s2):
        assert not np.shares_memory(r, _state(s))
    assert not np.shares_memory(sq2, s2)
    f(np.full((2, 2), 5.0))
    # results the caller holds keep their values through later calls
    np.testing.assert_array_equal(sq1, 4.0)
    np.testing.assert_array_equal(sq2, 9.0)
    np.testing.assert_array_equal(s2, 4.0)


@pytest.mark.parametrize("mode", MODES)
def test_update_over_a_view_returns_the_old_state(mode):
    s = opgraph.shared(np.arange(4.0).reshape(2, 2), name="s")
    x = pt.dmatrix("x")
    f = opgraph.function([x], [s, s.T], updates={s: pt.sqr(x[:, ::-1]) + s[::-1]},
                         mode=_mode(mode))
    a = np.arange(4.0).reshape(2, 2)
    expect = np.arange(4.0).reshape(2, 2)
    for k in range(3):
        old, old_t = f(a + k)
        np.testing.assert_array_equal(old, expect)
        np.testing.assert_array_equal(old_t, expect.T)
        expect = np.square((a + k)[:, ::-1]) + expect[::-1]
        np.testing.assert_array_equal(_state(s), expect)
        assert not np.shares_memory(old, _state(s))
        assert not np.shares_memory(old_t, _state(s))
        assert not np.shares_memory(old, old_t)


@pytest.mark.parametrize("mode", MODES)
def test_two_shared_variables_never_share_storage(mode):
    vals = [np.full((2, 2), float(k)) for k in range(3)]
    s0, s1, s2 = (opgraph.shared(v, name=f"s{k}") for k, v in enumerate(vals))
    x = pt.dmatrix("x")
    # s0 takes s1's old value while s1 keeps it; s2's old value goes to nobody twice
    f = opgraph.function([x], [], updates={s0: s1, s1: s1, s2: x * 2}, mode=_mode(mode))
    g = opgraph.function([x], [], updates={s0: s2, s1: s2, s2: x * 2}, mode=_mode(mode))
    f(np.ones((2, 2)))
    np.testing.assert_array_equal(_state(s0), 1.0)
    assert not np.shares_memory(_state(s0), _state(s1))
    g(np.ones((2, 2)))
    np.testing.assert_array_equal(_state(s0), 2.0)
    np.testing.assert_array_equal(_state(s1), 2.0)
    assert not np.shares_memory(_state(s0), _state(s1))
    # a swap needs no copy and is still right
    h = opgraph.function([], [], updates={s0: s2, s2: s0}, mode=_mode(mode))
    h()
    np.testing.assert_array_equal(_state(s0), 2.0)
    np.testing.assert_array_equal(_state(s2), 2.0)
    assert not np.shares_memory(_state(s0), _state(s2))


@pytest.mark.parametrize("mode", MODES)
def test_outputs_inputs_and_state_do_not_alias_unless_borrowed(mode):
    s = opgraph.shared(np.zeros((2, 2)), name="s")
    x = pt.dmatrix("x")
    y = x * 2
    f = opgraph.function([x], [y, y, x, x.T, s], updates={s: x}, mode=_mode(mode))
    xv = np.ones((2, 2))
    outs = f(xv)
    for j, r in enumerate(outs):
        assert not np.shares_memory(r, xv), j
        assert not np.shares_memory(r, _state(s)), j
        for i in range(j):
            assert not np.shares_memory(r, outs[i]), (i, j)
    assert not np.shares_memory(_state(s), xv)
    np.testing.assert_array_equal(outs[4], 0.0)
    # both In and Out borrowing: the input itself may come back
    g = opgraph.function([In(x, borrow=True)], Out(x, borrow=True), mode=_mode(mode))
    np.testing.assert_array_equal(g(xv), xv)


@pytest.mark.parametrize("mode", MODES)
def test_copies_of_a_function_keep_the_rule(mode):
    s = opgraph.shared(np.full((2, 2), 1.0), name="s")
    x = pt.dmatrix("x")
    f = opgraph.function([x], [s, x + s], updates={s: s + x}, mode=_mode(mode))
    g = f.copy(share_memory=True)
    h = f.copy(share_memory=False)
    r = [fn(np.ones((2, 2))) for fn in (f, g, h)]
    np.testing.assert_array_equal([v[0][0, 0] for v in r], [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(_state(s), 4.0)
    for outs in r:
        for o in outs:
            assert not np.shares_memory(o, _state(s))

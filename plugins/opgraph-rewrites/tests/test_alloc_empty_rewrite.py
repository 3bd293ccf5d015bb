"""``local_set_whole_alloc_empty``: set_subtensor(AllocEmpty(k, ...)[:k], y) -> y."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import compile_pair, op_counts

import opgraph.tensor as pt
from opgraph.compile.mode import get_mode
from opgraph.tensor.basic import AllocEmpty


def _buffer(y, rows, *dims):
    return pt.set_subtensor(AllocEmpty("float64")(rows, *dims)[:rows], y)


def test_a_buffer_written_whole_is_its_value():
    m = pt.matrix("m")
    out = _buffer(m[:2], 2, m.shape[1]) * 3
    fast, ref = compile_pair([m], out)
    assert op_counts(fast)["AllocEmpty"] == 0 and op_counts(fast)["IncSubtensor"] == 0
    v = np.arange(8.0).reshape(4, 2)
    np.testing.assert_array_equal(fast(v), ref(v))
    np.testing.assert_array_equal(fast(v), 3 * v[:2])


@pytest.mark.parametrize("case", ["broadcast-rows", "broadcast-columns", "part-written"])
def test_kept_when_the_value_is_not_the_buffer(case):
    v = pt.vector("v")
    if case == "broadcast-rows":  # one row broadcast into two
        out, rows = _buffer(pt.shape_padleft(v), 2, v.shape[0]), 2
    elif case == "broadcast-columns":  # a (1, 1) value broadcast along the columns
        out, rows = _buffer(v[0].dimshuffle("x", "x"), 1, 3), 1
    else:  # only the first row of three is written: the result is not y
        out, rows = pt.set_subtensor(AllocEmpty("float64")(3, v.shape[0])[:1],
                                     pt.shape_padleft(v))[:1], 1
    # the read of the written rows alone is the value (local_read_of_write_same_indices);
    # without that rule the buffer must stay
    fast, ref = compile_pair([v], out, get_mode("FAST_RUN").excluding(
        "local_read_of_write_same_indices"))
    assert op_counts(fast)["AllocEmpty"] == 1
    x = np.array([1.5, -2.0, 4.0])
    np.testing.assert_array_equal(fast(x), ref(x))
    assert fast(x).shape[0] == rows

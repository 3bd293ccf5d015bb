"""set/inc_subtensor write in place only into buffers nothing else reads."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import compile_pair

import opgraph.tensor as pt


def _inplace(fn) -> list:
    return [n for n in fn.maker.fgraph.toposort() if getattr(n.op, "inplace", False)]


@pytest.mark.parametrize("write", [
    lambda t, v: pt.set_subtensor(t[1], v[0]),
    lambda t, v: pt.inc_subtensor(t[np.array([0, 0, 2])], v),
    lambda t, v: pt.set_subtensor(t[np.array([0, 2])], v[:2]),
])
def test_written_intermediate_in_place(write):
    x, v = pt.vector("x"), pt.vector("v")
    fast, ref = compile_pair([x, v], write(x * 2, v))
    assert len(_inplace(fast)) == 1
    xv, vv = np.arange(3.0), np.array([5.0, 6.0, 7.0])
    np.testing.assert_array_equal(fast(xv, vv), ref(xv, vv))
    np.testing.assert_array_equal(xv, np.arange(3.0))


def test_inputs_and_shared_reads_not_overwritten():
    x, v = pt.vector("x"), pt.scalar("v")
    fast, _ = compile_pair([x, v], pt.set_subtensor(x[1], v))
    assert not _inplace(fast)  # x is an input
    doubled = x * 2
    fast, ref = compile_pair([x, v], [pt.set_subtensor(doubled[1], v), doubled])
    assert not _inplace(fast)  # the doubled values are an output too
    xv = np.arange(3.0)
    for got, want in zip(fast(xv, 5.0), ref(xv, 5.0)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(xv, np.arange(3.0))

"""A one-valued constant goes inside a fused Composite: same values, the shape it
set is kept (asserted or broadcast), its length errors stay."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import compile_pair

import opgraph.tensor as pt
from opgraph.tensor.elemwise import Elemwise


@pytest.mark.parametrize("const_shape", [(), (1,), (5,), (1, 5), (2, 5)])
@pytest.mark.parametrize("op", [pt.pow, pt.add])
def test_inlined_constant(op, const_shape):
    const = np.full(const_shape, 2.5)
    x, y = pt.vector("x"), pt.vector("y")
    fast, ref = compile_pair([x, y], pt.exp(op(x, const)) + y)
    (comp,) = [n for n in fast.maker.fgraph.apply_nodes if isinstance(n.op, Elemwise)]
    assert len(comp.inputs) == 2
    xv, yv = np.arange(5.0), np.ones(5)
    got, want = fast(xv, yv), ref(xv, yv)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-15)
    if const_shape[-1:] == (5,):
        # the unfused loop's broadcast error, or the kept length assertion
        with pytest.raises((ValueError, AssertionError)):
            ref(np.arange(4.0), np.ones(4))
        with pytest.raises((ValueError, AssertionError)):
            fast(np.arange(4.0), np.ones(4))

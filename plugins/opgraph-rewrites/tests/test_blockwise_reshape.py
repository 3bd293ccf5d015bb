"""local_blockwise_reshape: a batched reshape with one core shape becomes one reshape."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import compile_pair

import opgraph
import opgraph.tensor as pt
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.shape import Reshape


def _blockwise_reshape(x, shape, ndim):
    core_in = ",".join(f"i0{k}" for k in range(x.type.ndim - 1))
    out = ",".join(f"o0{k}" for k in range(ndim))
    op = Blockwise(Reshape(ndim), signature=f"({core_in}),(i10)->({out})")
    return op(x, shape)


@pytest.mark.parametrize("shape", [[-1], [3, -1], [2, 3]])
def test_values_and_gradients_equal_the_batched_reshape(shape):
    x = pt.dtensor3("x")
    y = _blockwise_reshape(x, pt.constant(np.array(shape, dtype="int64")), len(shape))
    cost = (y * pt.arange(y.size).reshape(y.shape)).sum()
    fast, ref = compile_pair([x], [y, opgraph.grad(cost, x)])
    assert not [n for n in fast.maker.fgraph.apply_nodes if isinstance(n.op, Blockwise)]
    xv = np.random.default_rng(0).normal(size=(4, 2, 3))
    for got, want in zip(fast(xv), ref(xv)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_array_equal(fast(xv)[0], xv.reshape((4, *shape)))


def test_a_shape_per_batch_entry_is_left_alone():
    x, s = pt.dtensor3("x"), pt.lmatrix("s")
    y = _blockwise_reshape(x, s, 1)
    fast, ref = compile_pair([x, s], y)
    assert [n for n in fast.maker.fgraph.apply_nodes if isinstance(n.op, Blockwise)]
    xv, sv = np.ones((4, 2, 3)), np.full((4, 1), 6, dtype="int64")
    np.testing.assert_allclose(fast(xv, sv), ref(xv, sv))


def test_a_wrong_core_size_is_still_an_error():
    x = pt.dtensor3("x")
    y = _blockwise_reshape(x, pt.constant(np.array([5], dtype="int64")), 1)
    fast, ref = compile_pair([x], y)
    for f in (fast, ref):
        with pytest.raises(ValueError):
            f(np.ones((4, 2, 3)))

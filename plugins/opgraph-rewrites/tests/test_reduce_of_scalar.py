"""A reduction of a 0-d tensor is the tensor (cast to the reduction's dtype)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import compile_pair

import opgraph.tensor as pt
from opgraph.tensor.reduction import CAReduce


@pytest.mark.parametrize("dtype", ["float64", "float32", "int8", "bool"])
@pytest.mark.parametrize("reduce", [pt.sum, pt.prod, pt.max, pt.all])
def test_reduction_of_a_scalar_is_removed(dtype, reduce):
    x = pt.scalar("x", dtype=dtype)
    v = pt.vector("v", dtype=dtype)
    fast, ref = compile_pair([x, v], [reduce(x), reduce(v)])
    reductions = [n for n in fast.maker.fgraph.apply_nodes if isinstance(n.op, CAReduce)]
    assert [n.inputs[0].type.ndim for n in reductions] == [1]  # the vector's stays
    for value in (np.asarray(3, dtype=dtype), np.asarray(0, dtype=dtype)):
        vec = np.array([value, value], dtype=dtype)
        for got, want in zip(fast(value, vec), ref(value, vec)):
            assert got.dtype == want.dtype and got.shape == want.shape == ()
            np.testing.assert_array_equal(got, want)

"""Batched matrix-vector products with a shared matrix become one matrix product: the
rewritten graph has no matrix-vector MatMul left and computes what the original does."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import compile_pair

import opgraph.tensor as pt
from opgraph.compile.mode import get_mode
from opgraph.tensor.products import MatMul

CASES = [
    ((1, 3, 4), (6, 4)),
    ((1, 1, 3, 4), (2, 5, 4)),
    ((1, 5, 1, 3, 4), (2, 5, 2, 4)),
    ((5, 3, 4), (1, 4)),  # nothing shared: unchanged
    ((3, 4), (2, 6, 4)),  # fewer batch axes on the matrix side
]


def _vector_like_matmuls(fn) -> int:
    return sum(
        isinstance(n.op, MatMul)
        and (n.inputs[0].type.shape[-2] == 1 or n.inputs[1].type.shape[-1] == 1)
        for n in fn.maker.fgraph.apply_nodes
    )


@pytest.mark.parametrize("func", ["matvec", "vecmat"])
@pytest.mark.parametrize("mat_shape, vec_shape", CASES, ids=str)
@pytest.mark.parametrize("static", [True, False])
def test_shared_matrix_batches_become_one_product(func, mat_shape, vec_shape, static):
    mat = pt.tensor("mat", shape=mat_shape if static else
                    tuple(1 if d == 1 else None for d in mat_shape))
    vec = pt.tensor("vec", shape=vec_shape if static else
                    tuple(1 if d == 1 else None for d in vec_shape))
    out = pt.matvec(mat, vec) if func == "matvec" else pt.vecmat(vec, pt.swapaxes(mat, -1, -2))
    mode = get_mode("FAST_RUN").excluding("fusion", "inplace")
    fast, ref = compile_pair([mat, vec], out, mode)
    mb, vb = mat_shape[:-2], vec_shape[:-1]
    mb = (1,) * (len(vb) - len(mb)) + mb
    shared = any(m == 1 and v != 1 for m, v in zip(mb, vb))
    assert _vector_like_matmuls(fast) == (0 if shared else 1)
    rng = np.random.default_rng(sum(mat_shape) + 10 * sum(vec_shape))
    m_val, v_val = rng.normal(size=mat_shape), rng.normal(size=vec_shape)
    # transposed (non-contiguous) copies of the same values
    m_t = np.ascontiguousarray(np.swapaxes(m_val, -1, -2)).swapaxes(-1, -2)
    v_t = np.asfortranarray(v_val)
    for a, b in ((m_val, v_val), (m_t, v_t)):
        np.testing.assert_allclose(fast(a, b), ref(a, b), rtol=1e-12, atol=1e-12)


def test_mismatched_batch_lengths_still_raise():
    mat = pt.tensor("mat", shape=(1, None, 3, 4))
    vec = pt.tensor("vec", shape=(None, None, 4))
    fast, _ = compile_pair([mat, vec], pt.matvec(mat, vec))
    rng = np.random.default_rng(3)
    with pytest.raises(ValueError):
        fast(rng.normal(size=(1, 2, 3, 4)), rng.normal(size=(5, 3, 4)))

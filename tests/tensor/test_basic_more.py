"""PyTensor's tensor.basic helpers (triangles, grids, choose, permutations, empty...)
checked against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.tensor import basic as ptb
from opgraph.tensor.basic_more import PermuteRowElements
from opgraph.tensor.creation import Eye

from .helpers import evaluate


@pytest.mark.parametrize(("n", "m", "k"), [(3, None, 0), (3, 4, 1), (4, 2, -1), (0, 3, 0)])
def test_tri_and_triangle_indices(n, m, k):
    np.testing.assert_array_equal(evaluate(ptb.tri(n, m, k)), np.tri(n, m, k))
    for ours, theirs in (
        (ptb.tril_indices(n, k, m), np.tril_indices(n, k, m)),
        (ptb.triu_indices(n, k, m), np.triu_indices(n, k, m)),
    ):
        for a, b in zip(evaluate(list(ours)), theirs, strict=True):
            np.testing.assert_array_equal(a, b)


def test_triangle_indices_from_need_a_matrix():
    a = np.zeros((3, 5))
    got = evaluate(list(ptb.triu_indices_from(pt.constant(a), 1)))
    for x, y in zip(got, np.triu_indices_from(a, 1), strict=True):
        np.testing.assert_array_equal(x, y)
    with pytest.raises(ValueError, match="2-d"):
        ptb.tril_indices_from(pt.vector())


def test_mgrid_ogrid_match_numpy():
    dense = evaluate(ptb.mgrid[0:2:1, 1:10:3])
    for a, b in zip(dense, np.mgrid[0:2:1, 1:10:3], strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(evaluate(ptb.mgrid[0:1:0.25]), np.mgrid[0:1:0.25])  # a vector
    sparse = evaluate(ptb.ogrid[0:1:0.25, 1:4])
    for a, b in zip(sparse, np.ogrid[0:1:0.25, 1:4], strict=True):
        np.testing.assert_allclose(a, b)
    with pytest.raises(TypeError, match="slices"):
        ptb.mgrid[3]


def test_stacking_helpers():
    a, b = np.ones((2, 2)), np.zeros((2, 3))
    np.testing.assert_array_equal(evaluate(ptb.horizontal_stack(a, b)), np.hstack([a, b]))
    np.testing.assert_array_equal(evaluate(ptb.vertical_stack(a, a)), np.vstack([a, a]))
    np.testing.assert_array_equal(evaluate(ptb.stacklists([[1, 2], [3, 4]])), [[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="2-d"):
        ptb.horizontal_stack(np.ones(3), np.ones(3))


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_choose(mode):
    a = np.array([0, 3, 1, 2])
    choices = np.arange(12).reshape(3, 4)
    if mode == "raise":
        a = a % 3
    np.testing.assert_array_equal(
        evaluate(ptb.choose(a, choices, mode=mode)), np.choose(a, choices, mode=mode)
    )


def test_choose_rejects_float_index_and_bad_mode():
    with pytest.raises(TypeError, match="integers"):
        ptb.choose(pt.vector(), [[1.0]])
    with pytest.raises(ValueError, match="mode"):
        ptb.Choose("nearest")


def test_permutations():
    rng = np.random.default_rng(0)
    perm = np.stack([rng.permutation(5) for _ in range(3)])
    np.testing.assert_array_equal(evaluate(ptb.inverse_permutation(perm)), np.argsort(perm))
    x = rng.normal(size=(3, 5))
    out = evaluate(ptb.permute_row_elements(x, perm))
    np.testing.assert_array_equal(out, np.take_along_axis(x, perm, axis=-1))
    back = evaluate(ptb.permute_row_elements(out, perm, 1))
    np.testing.assert_array_equal(back, x)
    # a vector permutation broadcast over rows
    np.testing.assert_array_equal(
        evaluate(ptb.permute_row_elements(x, perm[0])), x[:, perm[0]]
    )


def test_empty_and_infer_static_shape():
    e = ptb.empty((2, 3), dtype="int32")
    assert e.type.shape == (2, 3) and e.dtype == "int32"
    assert evaluate(e).shape == (2, 3)
    like = ptb.empty_like(pt.constant(np.zeros((4, 1), dtype="float32")))
    assert evaluate(like).shape == (4, 1) and like.dtype == "float32"
    n = pt.iscalar()
    _sh, static = ptb.infer_static_shape([2, n])
    assert static == (2, None)
    with pytest.raises(TypeError, match="Shapes must be scalar integers"):
        ptb.infer_static_shape([pt.constant(1.0)])
    with pytest.raises(ValueError, match="0 dimensions"):
        ptb.infer_static_shape([pt.constant([[1, 2]])])


def test_small_helpers():
    assert ptb.is_flat(pt.vector()) and not ptb.is_flat(pt.matrix())
    assert ptb.matrix_transpose(pt.tensor3()).type.ndim == 3
    x = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(evaluate(ptb.matrix_transpose(x)), np.swapaxes(x, -1, -2))
    with pytest.raises(ValueError, match="at least 2-dimensional"):
        ptb.matrix_transpose(pt.vector())
    assert ptb._convert_to_int8(pt.vector()).dtype == "int8"
    assert ptb._convert_to_float32 is pt.math._convert_to_float32


def test_pytensor3_op_spellings():
    # PermuteRowElements(inverse=...) as an Op parameter, and Eye() defaulting to floatX.
    x, y = pt.dvector("x"), pt.ivector("y")
    xv, yv = np.array([1.0, 2.0, 3.0]), np.array([2, 0, 1], dtype="int32")
    np.testing.assert_array_equal(evaluate(PermuteRowElements(inverse=False)(x, y),
                                           {x: xv, y: yv}), xv[yv])
    undone = evaluate(PermuteRowElements(inverse=True)(x, y), {x: xv, y: yv})
    np.testing.assert_array_equal(undone[yv], xv)
    with pytest.raises(TypeError, match="give inverse"):
        PermuteRowElements()(x, y)
    assert Eye().dtype == opgraph.config.floatX
    np.testing.assert_array_equal(evaluate(Eye()(2, 3, 1)), np.eye(2, 3, 1))


def test_transpose_names_a_full_reversal():
    assert ptb.transpose(pt.dmatrix("x2")).name == "x2.T"
    assert ptb.transpose(pt.dmatrix()).name is None
    assert ptb.transpose(pt.tensor3("x3"), (0, 2, 1)).name is None


def test_where_with_one_or_three_arguments():
    c = pt.bvector("c")
    cv = np.array([0, 1, 1], dtype="int8")
    (idx,) = ptb.where(c)
    np.testing.assert_array_equal(evaluate(idx, {c: cv}), np.where(cv)[0])
    np.testing.assert_array_equal(evaluate(pt.where(c, 1.0, 2.0), {c: cv}), np.where(cv, 1.0, 2.0))
    with pytest.raises(ValueError, match="either both x and y, or neither"):
        pt.where(c, 1.0)


class _TwoWay(opgraph.graph.op.Op):
    """An Op whose default_output is set per instance (for the error types)."""

    def __init__(self, default_output):
        self.default_output = default_output

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return opgraph.graph.basic.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0]


def test_bad_default_output_errors():
    x = pt.dvector("x")
    assert pt.as_tensor_variable(_TwoWay(-1).make_node(x)).owner.op.default_output == -1
    with pytest.raises(IndexError, match="out of range"):
        pt.as_tensor_variable(_TwoWay(1).make_node(x))
    with pytest.raises(TypeError, match="must be an int"):
        pt.as_tensor_variable(_TwoWay([0, 1]).make_node(x))

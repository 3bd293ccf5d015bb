"""Shape, Shape_i, Reshape, SpecifyShape, MakeVector and the shape helpers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opgraph.tensor as pt
from opgraph.graph.null_type import DisconnectedType
from opgraph.graph.replace import clone_replace, vectorize_graph
from opgraph.tensor.exceptions import ShapeAssertionError, ShapeError
from opgraph.tensor.shape import (
    MakeVector,
    Reshape,
    Shape,
    Shape_i,
    SpecifyShape,
    expand_dims,
    flatten,
    make_vector,
    reshape,
    shape,
    shape_i,
    shape_padaxis,
    shape_padleft,
    shape_padright,
    shape_tuple,
    specify_shape,
    squeeze,
)
from opgraph.tensor.type import TensorType

from .helpers import check_derivatives, evaluate
from .shape_checks import assert_infer_shape

rng = np.random.default_rng(42)


def test_shape_op_value_type_and_gradient_disconnected():
    x = pt.tensor3("x")
    s = shape(x)
    assert isinstance(s.owner.op, Shape)
    assert s.type == TensorType("int64", (3,))
    v = rng.standard_normal((2, 3, 4))
    out = evaluate(s, {x: v})
    assert out.dtype == np.int64 and tuple(out) == (2, 3, 4)
    assert_infer_shape(s, {x: v})
    (g,) = s.owner.op.pullback([x], [s], [s.type()])
    assert isinstance(g.type, DisconnectedType)
    assert s.owner.op.connection_pattern(s.owner) == [[False]]


def test_shape_i_and_shape_tuple():
    x = pt.tensor(dtype="float64", shape=(None, 3))
    assert evaluate(Shape_i(0)(x), {x: np.zeros((5, 3))}) == 5
    dims = shape_tuple(x)
    assert isinstance(dims[0].owner.op, Shape_i)
    assert dims[1].data == 3  # static dimension: a constant
    assert int(evaluate(shape_i(x, -2), {x: np.zeros((7, 3))})) == 7
    with pytest.raises(TypeError, match="has 2 dimension"):
        Shape_i(2)(x)
    with pytest.raises(TypeError, match="expected a tensor variable"):
        Shape_i(0)([1, 2])
    assert Shape_i(1) == Shape_i(1) and hash(Shape_i(1)) == hash(Shape_i(1))
    assert Shape_i(0) != Shape_i(1)


def test_variable_shape_indexing_folds_to_static_value():
    x = pt.tensor(dtype="float64", shape=(4, None))
    assert pt.get_scalar_constant_value(x.shape[0]) == 4
    with pytest.raises(pt.NotScalarConstantError):
        pt.get_scalar_constant_value(x.shape[1])


@pytest.mark.parametrize(
    ("in_shape", "new_shape"),
    [
        ((2, 3), (3, 2)),
        ((2, 3), (-1,)),
        ((2, 3, 4), (4, -1)),
        ((6,), (1, 2, 1, 3)),
        ((0, 3), (3, 0)),
    ],
)
def test_reshape_matches_numpy(in_shape, new_shape):
    x = pt.tensor(dtype="float64", shape=(None,) * len(in_shape))
    v = rng.standard_normal(in_shape)
    y = reshape(x, new_shape)
    np.testing.assert_array_equal(evaluate(y, {x: v}), v.reshape(new_shape))
    assert_infer_shape(y, {x: v})
    assert y.type.shape == tuple(None if s == -1 else s for s in new_shape)


def test_reshape_static_shape_resolves_minus_one_when_size_known():
    x = pt.tensor(dtype="float32", shape=(2, 3, 4))
    y = x.reshape((4, -1))
    assert y.type == TensorType("float32", (4, 6))
    assert flatten(x, 2).type.shape == (2, 12)


def test_reshape_with_symbolic_shape_entries():
    x = pt.matrix("x")
    n = pt.lscalar("n")
    y = reshape(x, (n, -1))
    assert isinstance(y.owner.inputs[1].owner.op, MakeVector)
    v = rng.standard_normal((4, 6))
    np.testing.assert_array_equal(evaluate(y, {x: v, n: 3}), v.reshape(3, -1))
    assert_infer_shape(y, {x: v, n: 3})
    # a whole shape vector as the new shape
    z = pt.matrix("z")
    w = reshape(x, shape(z))
    assert w.type.ndim == 2
    np.testing.assert_array_equal(
        evaluate(w, {x: v, z: np.zeros((8, 3))}), v.reshape(8, 3)
    )
    assert_infer_shape(w, {x: v, z: np.zeros((8, 3))})


def test_reshape_symbolic_minus_one_in_infer_shape():
    x = pt.matrix("x")
    n = pt.lscalar("n")
    y = reshape(x, (n, 2))
    v = rng.standard_normal((3, 4))
    assert_infer_shape(y, {x: v, n: -1})
    assert_infer_shape(y, {x: v, n: 6})


def test_reshape_bad_input():
    x = pt.tensor(dtype="float64", shape=(2, 3), name="x")
    with pytest.raises(
        ValueError, match=r"Input shape \(2, 3\) is incompatible with new shape \(4, 2\): "
        r"cannot reshape x \(size 6\)",
    ):
        reshape(x, (4, 2))
    with pytest.raises(ValueError, match="at most one entry may be -1"):
        reshape(x, (-1, -1))
    with pytest.raises(ValueError, match="cannot reshape"):
        reshape(x, (4, -1))
    with pytest.raises(ValueError, match=">= -1"):
        reshape(x, (-2, 3))
    with pytest.raises(TypeError, match="integer"):
        reshape(x, pt.vector("f"))
    with pytest.raises(ValueError, match="ndim"):
        reshape(x, pt.lvector("s"))
    m = pt.matrix("m")
    y = reshape(m, (4, -1))
    with pytest.raises(ShapeError, match=r"reshape of m.*\(3, 3\)"):
        evaluate(y, {m: np.zeros((3, 3))})


def test_reshape_gradients():
    check_derivatives(lambda a: reshape(a, (3, -1)) * 2.0, [rng.standard_normal((2, 3))], rng)
    op = Reshape(2)
    assert op.connection_pattern(reshape(pt.matrix(), (2, 2)).owner) == [[True], [False]]


@settings(max_examples=40, deadline=None)
@given(
    dims=st.lists(st.integers(1, 4), min_size=1, max_size=4),
    data=st.data(),
)
def test_reshape_random_shapes_match_numpy(dims, data):
    size = int(np.prod(dims))
    target = list(data.draw(st.permutations(dims)))
    if len(target) > 1:
        target = [int(np.prod(target[:2])), *target[2:]]
    if data.draw(st.booleans()):
        target[data.draw(st.integers(0, len(target) - 1))] = -1
    x = pt.tensor(dtype="float64", shape=(None,) * len(dims))
    v = np.arange(size, dtype="float64").reshape(dims)
    y = reshape(x, target)
    np.testing.assert_array_equal(evaluate(y, {x: v}), v.reshape(target))
    assert_infer_shape(y, {x: v})
    # with a fully static input, the static output shape is complete
    xs = pt.tensor(dtype="float64", shape=tuple(dims))
    assert reshape(xs, target).type.shape == v.reshape(target).shape


def test_flatten():
    x = pt.tensor3("x")
    v = rng.standard_normal((2, 3, 4))
    np.testing.assert_array_equal(evaluate(flatten(x), {x: v}), v.ravel())
    np.testing.assert_array_equal(evaluate(flatten(x, 2), {x: v}), v.reshape(2, 12))
    np.testing.assert_array_equal(evaluate(x.flatten(3), {x: v}), v)
    with pytest.raises(ValueError, match="ndim must be in"):
        flatten(x, 4)


def test_specify_shape():
    x = pt.matrix("x")
    y = specify_shape(x, (2, None))
    assert isinstance(y.owner.op, SpecifyShape)
    assert y.type.shape == (2, None)
    v = rng.standard_normal((2, 5))
    np.testing.assert_array_equal(evaluate(y, {x: v}), v)
    assert y.owner.op.view_map == {0: [0]}
    assert_infer_shape(y, {x: v})
    with pytest.raises(ShapeError, match="dimension 0 of x should be 2"):
        evaluate(y, {x: np.zeros((3, 5))})
    # nothing new to say: the input itself
    assert specify_shape(x, (None, None)) is x
    assert specify_shape(y, (2, None)) is y
    # symbolic dimensions
    n = pt.lscalar("n")
    z = specify_shape(x, (n, 5))
    assert z.type.shape == (None, 5)
    np.testing.assert_array_equal(evaluate(z, {x: v, n: 2}), v)
    assert_infer_shape(z, {x: v, n: 2})
    check_derivatives(lambda a: specify_shape(a, (2, 3)) * 3.0, [rng.standard_normal((2, 3))], rng)


def test_specify_shape_bad_input():
    x = pt.tensor(dtype="float64", shape=(3, None), name="x")
    with pytest.raises(ValueError, match="dimension 0 of x is statically 3, but 2"):
        specify_shape(x, (2, None))
    with pytest.raises(ValueError, match="has 2 dimension"):
        specify_shape(x, (3, 4, 5))
    with pytest.raises(TypeError, match="integer"):
        specify_shape(x, (3, 2.5))


def test_convert_variable_uses_specify_shape():
    x = pt.matrix("x")
    narrowed = TensorType("float64", (2, 3)).convert_variable(x)
    assert isinstance(narrowed.owner.op, SpecifyShape)
    assert narrowed.type.shape == (2, 3)


def test_make_vector():
    a, b = pt.lscalar("a"), pt.lscalar("b")
    v = make_vector(a, b, 3)
    assert v.type == TensorType("int64", (3,))
    np.testing.assert_array_equal(evaluate(v, {a: 1, b: 2}), [1, 2, 3])
    assert_infer_shape(v, {a: 1, b: 2})
    with pytest.raises(TypeError, match="must be a scalar"):
        MakeVector("int64")(pt.lvector())
    with pytest.raises(TypeError, match="cannot be safely cast"):
        MakeVector("int32")(pt.dscalar())
    check_derivatives(lambda p, q: make_vector(p, q) * 2.0, [np.array(1.0), np.array(2.0)], rng)


def test_padding_squeeze_expand_dims():
    x = pt.vector("x")
    v = rng.standard_normal(3)
    assert shape_padleft(x, 2).type.shape == (1, 1, None)
    assert shape_padright(x).type.shape == (None, 1)
    assert shape_padaxis(x, 0).type.shape == (1, None)
    e = expand_dims(x, (0, 2))
    np.testing.assert_array_equal(evaluate(e, {x: v}), np.expand_dims(v, (0, 2)))
    r = pt.tensor(dtype="float64", shape=(1, None, 1))
    assert squeeze(r).type.shape == (None,)
    m = pt.matrix("m")
    sq = squeeze(m, axis=0)
    assert sq.type.ndim == 1
    np.testing.assert_array_equal(evaluate(sq, {m: np.ones((1, 4))}), np.ones(4))
    with pytest.raises(ShapeError):
        evaluate(sq, {m: np.ones((2, 4))})
    with pytest.raises(ValueError, match="static length 3"):
        squeeze(pt.tensor(dtype="float64", shape=(3, 1)), axis=0)
    with pytest.raises(ValueError, match="out of range"):
        expand_dims(x, 3)


def test_pytensor_spelling_of_specify_shape():
    from opgraph.tensor.shape import _specify_shape

    assert _specify_shape(pt.dmatrix("m"), 2, None).type.shape == (2, None)
    with pytest.raises(ValueError):
        _specify_shape(pt.dmatrix("m"), 4)


def test_specify_broadcastable_sets_length_one_axes():
    from opgraph.tensor.shape import specify_broadcastable

    m = pt.dmatrix("m")
    assert specify_broadcastable(m, 0).type.shape == (1, None)
    assert specify_broadcastable(m, -1).type.shape == (None, 1)
    assert specify_broadcastable(m) is m
    with pytest.raises(ValueError, match="out of range"):
        specify_broadcastable(m, 2)


def test_reshape_infers_the_one_unknown_entry_from_a_static_size():
    x = specify_shape(pt.tensor(shape=(2, 2, None)), (2, 2, 6))
    dim = pt.lscalar("dim")
    assert reshape(x, (6, -1)).type.shape == (6, 4)
    assert reshape(x, (6, dim)).type.shape == (6, 4)
    assert reshape(x, (6, dim, 2)).type.shape == (6, 2, 2)
    assert reshape(x, (dim, -1)).type.shape == (None, None)
    with pytest.raises(ValueError, match=r"Input shape \(2, 2, 6\) is incompatible"):
        reshape(x, (6, 3, 99))
    v = np.arange(24.0).reshape(2, 2, 6)
    np.testing.assert_array_equal(evaluate(reshape(x, (6, dim)), {x.owner.inputs[0]: v,
                                                                  dim: 4}), v.reshape(6, 4))


def test_non_strict_clone_recomputes_value_dependent_static_shapes():
    n = pt.as_tensor_variable(50)
    v, m = pt.vector("v"), pt.matrix("m")
    r = reshape(v, (100 // n, n))
    s = specify_shape(m, (None, n))
    assert r.type.shape == (2, 50) and s.type.shape == (None, 50)
    new_r, new_s = clone_replace([r, s], {n: pt.as_tensor_variable(25)}, rebuild_strict=False)
    assert new_r.type.shape == (4, 25)
    assert new_s.type.shape == (None, 25)
    assert evaluate(new_r, {v: np.zeros(100)}).shape == (4, 25)


def test_specify_shape_ellipsis_none_and_pytensor_op_spelling():
    x = pt.tensor("x", shape=(None,) * 4)
    assert specify_shape(x, ...) is x
    assert specify_shape(x, (5, ..., 3)).type.shape == (5, None, None, 3)
    assert specify_shape(x, (5, 1, ..., 3, None)).type.shape == (5, 1, 3, None)
    with pytest.raises(ValueError, match="Multiple Ellipsis"):
        specify_shape(x, (..., None, ...))
    with pytest.raises(ValueError, match="must have fixed dimensions"):
        specify_shape(pt.matrix(), pt.ivector())
    # PyTensor's SpecifyShape() takes one entry per dimension, None for "unknown".
    v = pt.vector("v")
    y = SpecifyShape()(v, 2)
    assert y.type.shape == (2,)
    np.testing.assert_array_equal(evaluate(y, {v: np.ones(2)}), np.ones(2))
    with pytest.raises(ShapeAssertionError, match="SpecifyShape: dimension 0"):
        evaluate(y, {v: np.ones(3)})
    # A shape vector given as a variable stays an input of the graph.
    s1 = pt.iscalar("s1")
    vec = pt.as_tensor_variable([s1])
    z = specify_shape(v, vec)
    assert evaluate(z, {v: np.ones(1), s1: 1}).shape == (1,)
    with pytest.raises(AssertionError):
        evaluate(z, {v: np.ones(1), s1: 2})


def test_vectorized_shape_has_one_row_per_batch_entry():
    vec, mat = pt.tensor(shape=(None,)), pt.tensor(shape=(None, None))
    out = vectorize_graph(shape(vec), {vec: mat})
    assert out.type.shape == (None, 1)
    np.testing.assert_array_equal(evaluate(out, {mat: np.ones((5, 3))}), np.full((5, 1), 3))

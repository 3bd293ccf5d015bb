"""Creation (Alloc, ARange, Eye and helpers), Join/Split/stack, casts, constant lookup."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opgraph.tensor as pt
from opgraph.config import change_flags
from opgraph.tensor import basic
from opgraph.tensor.basic import (
    Alloc,
    ARange,
    Eye,
    Join,
    NotScalarConstantError,
    ScalarFromTensor,
    Split,
    TensorFromScalar,
    get_scalar_constant_value,
    get_underlying_scalar_constant_value,
)
from opgraph.tensor.exceptions import ShapeError
from opgraph.tensor.type import TensorType

from .helpers import check_derivatives, evaluate
from .shape_checks import assert_infer_shape

rng = np.random.default_rng(7)


# --------------------------------------------------------------------------- Alloc & friends


def test_alloc_values_static_shape_and_infer_shape():
    v = pt.row("v")
    n = pt.lscalar("n")
    a = pt.alloc(v, n, 2, 3)
    assert isinstance(a.owner.op, Alloc)
    assert a.type.shape == (None, 2, 3)
    val = rng.standard_normal((1, 3))
    out = evaluate(a, {v: val, n: 4})
    np.testing.assert_array_equal(out, np.broadcast_to(val, (4, 2, 3)))
    assert out.flags.writeable
    assert_infer_shape(a, {v: val, n: 4})
    # the shape may be given as one tuple or a shape vector
    x = pt.matrix("x")
    b = pt.alloc(0.5, x.shape)
    np.testing.assert_array_equal(evaluate(b, {x: np.zeros((2, 5))}), np.full((2, 5), 0.5))


def test_alloc_fills_known_dims_from_value():
    v = pt.tensor(dtype="float64", shape=(3,))
    assert pt.alloc(v, pt.lscalar(), pt.lscalar()).type.shape == (None, 3)


def test_alloc_bad_input():
    v = pt.tensor(dtype="float64", shape=(3,), name="v")
    with pytest.raises(ValueError, match=r"dimension 0 of the value v has static length 3.*= 4"):
        pt.alloc(v, 2, 4)
    with pytest.raises(ValueError, match="more than"):
        pt.alloc(pt.matrix("m"), 3)
    with pytest.raises(ValueError, match=">= 0"):
        pt.alloc(1.0, -2)
    with pytest.raises(TypeError, match="integer"):
        pt.alloc(1.0, 2.5)
    w = pt.vector("w")
    a = pt.alloc(w, 2, 3)
    with pytest.raises(ShapeError, match="cannot be broadcast"):
        evaluate(a, {w: np.ones(4)})
    with pytest.raises(ShapeError, match="static shape is 1"):
        evaluate(a, {w: np.ones(1)})


def test_alloc_gradient_sums_broadcast_axes():
    check_derivatives(lambda r: pt.alloc(r, 2, 3, 4) * 1.5, [rng.standard_normal((1, 4))], rng)
    check_derivatives(lambda s: pt.alloc(s, 3), [np.array(0.7)], rng)


@pytest.mark.parametrize("fn", [pt.zeros, pt.ones])
def test_zeros_ones(fn):
    z = fn((2, 3), dtype="int32")
    assert z.type == TensorType("int32", (2, 3))
    expected = np.zeros if fn is pt.zeros else np.ones
    np.testing.assert_array_equal(evaluate(z, {}), expected((2, 3), dtype="int32"))
    with change_flags(floatX="float32"):
        assert fn(4).type == TensorType("float32", (4,))


def test_full_and_like_helpers():
    x = pt.tensor(dtype="float32", shape=(None, 3), name="x")
    xv = rng.standard_normal((2, 3)).astype("float32")
    f = pt.full((2, 2), 7, dtype="float64")
    np.testing.assert_array_equal(evaluate(f, {}), np.full((2, 2), 7.0))
    assert pt.full(3, 2).type.dtype == "int64"
    for fn, value in [(pt.zeros_like, 0), (pt.ones_like, 1)]:
        y = fn(x)
        assert y.type == TensorType("float32", (None, 3))
        np.testing.assert_array_equal(evaluate(y, {x: xv}), np.full((2, 3), value, "float32"))
    y = pt.full_like(x, 2.5, dtype="float64")
    np.testing.assert_array_equal(evaluate(y, {x: xv}), np.full((2, 3), 2.5))
    # an array fill value broadcasts, as in NumPy's full / full_like
    np.testing.assert_array_equal(evaluate(pt.full((3, 2), [1, 2]), {}), np.full((3, 2), [1, 2]))
    np.testing.assert_array_equal(evaluate(pt.full_like(x, [1.0, 2.0, 3.0]), {x: xv}),
                                  np.full_like(xv, [1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="fill_value must broadcast to the 1-d shape"):
        pt.full((2,), [[1, 2], [3, 4]])
    with pytest.raises(ValueError):
        evaluate(pt.full((3, 2), [1, 2, 3]), {})
    fl = basic.fill(x, 3.0)
    np.testing.assert_array_equal(evaluate(fl, {x: xv}), np.full((2, 3), 3.0))


# --------------------------------------------------------------------------- ARange / Eye


@pytest.mark.parametrize(
    ("args", "dtype"),
    [((5,), None), ((1, 10, 3), None), ((10, 1, -2), None), ((0.0, 1.0, 0.25), None),
     ((3, 3), None), ((0, 5), "float32")],
)
def test_arange_matches_numpy(args, dtype):
    a = pt.arange(*args, dtype=dtype)
    expected = np.arange(*args, dtype=dtype)
    out = evaluate(a, {})
    np.testing.assert_array_equal(out, expected)
    assert a.type.shape == expected.shape
    assert out.dtype == a.type.dtype


def test_arange_symbolic_bounds_and_errors():
    n = pt.lscalar("n")
    a = pt.arange(2, n, 3)
    assert isinstance(a.owner.op, ARange)
    assert a.type.shape == (None,)
    np.testing.assert_array_equal(evaluate(a, {n: 11}), np.arange(2, 11, 3))
    assert_infer_shape(a, {n: 11})
    assert_infer_shape(a, {n: 1})
    f = pt.dscalar("f")
    assert_infer_shape(pt.arange(0.0, f, 0.3), {f: 2.0})
    with pytest.raises(ValueError, match="step must not be 0"):
        pt.arange(0, 5, 0)
    with pytest.raises(TypeError, match="real scalar"):
        pt.arange(pt.vector())
    check_derivatives(lambda s, d: pt.arange(s, 4.0, d), [np.array(0.5), np.array(0.75)], rng)


def test_eye_and_identity_like():
    e = pt.eye(3, 4, 1, dtype="int8")
    assert isinstance(e.owner.op, Eye)
    assert e.type == TensorType("int8", (3, 4))
    np.testing.assert_array_equal(evaluate(e, {}), np.eye(3, 4, 1, dtype="int8"))
    n = pt.lscalar("n")
    e2 = pt.eye(n)
    assert e2.type.shape == (None, None)
    np.testing.assert_array_equal(evaluate(e2, {n: 2}), np.eye(2))
    assert_infer_shape(e2, {n: 2})
    x = pt.matrix("x")
    np.testing.assert_array_equal(
        evaluate(pt.identity_like(x), {x: np.zeros((2, 3))}), np.eye(2, 3)
    )
    with pytest.raises(ValueError, match="must be >= 0"):
        pt.eye(-1)
    with pytest.raises(ValueError, match="must be a matrix"):
        pt.identity_like(pt.vector())


# --------------------------------------------------------------------------- Join / Split


def test_join_values_dtype_and_static_shape():
    a = pt.tensor(dtype="float32", shape=(2, None), name="a")
    b = pt.tensor(dtype="float64", shape=(None, 3), name="b")
    j = pt.concatenate([a, b], axis=0)
    assert isinstance(j.owner.op, Join)
    assert j.type == TensorType("float64", (None, 3))
    av = rng.standard_normal((2, 3)).astype("float32")
    bv = rng.standard_normal((4, 3))
    out = evaluate(j, {a: av, b: bv})
    np.testing.assert_array_equal(out, np.concatenate([av, bv]))
    assert_infer_shape(j, {a: av, b: bv})
    k = pt.join(-1, a, b)
    np.testing.assert_array_equal(
        evaluate(k, {a: av, b: bv[:2]}), np.concatenate([av, bv[:2]], axis=1)
    )
    assert pt.join(0, a) is a
    c = pt.tensor(dtype="float64", shape=(2, 3))
    assert pt.join(1, c, c).type.shape == (2, 6)


def test_join_symbolic_axis():
    ax = pt.lscalar("ax")
    x, y = pt.matrix("x"), pt.matrix("y")
    j = pt.join(ax, x, y)
    xv, yv = np.ones((2, 3)), np.zeros((2, 3))
    for axis in (0, 1):
        np.testing.assert_array_equal(
            evaluate(j, {ax: axis, x: xv, y: yv}), np.concatenate([xv, yv], axis)
        )
        assert_infer_shape(j, {ax: axis, x: xv, y: yv})


def test_join_bad_input():
    a = pt.tensor(dtype="float64", shape=(2, 3), name="a")
    b = pt.tensor(dtype="float64", shape=(2, 4), name="b")
    with pytest.raises(ValueError, match=r"must match exactly.*along dimension 1.*\[3 4\] "
                       r"\(tensor 1 \(b\) has 4, tensor 0 \(a\) has 3\)"):
        pt.concatenate([a, b], axis=0)
    with pytest.raises(ValueError, match=r"tensor 1 .* has 1 dimension"):
        pt.concatenate([a, pt.vector("v")])
    with pytest.raises(ValueError, match="out of range"):
        pt.concatenate([a, a], axis=2)
    with pytest.raises(TypeError, match="list or tuple"):
        pt.concatenate(a, a)
    with pytest.raises(ValueError, match="0-d"):
        pt.join(0, pt.scalar(), pt.scalar())
    x, y = pt.matrix("x"), pt.matrix("y")
    with pytest.raises(ShapeError, match="cannot join"):
        evaluate(pt.join(0, x, y), {x: np.ones((2, 3)), y: np.ones((2, 4))})


def test_join_gradient():
    check_derivatives(
        lambda p, q: pt.concatenate([p, q], axis=1) * 2.0,
        [rng.standard_normal((2, 3)), rng.standard_normal((2, 1))],
        rng,
    )


def test_stack():
    x, y = pt.vector("x"), pt.vector("y")
    xv, yv = rng.standard_normal(3), rng.standard_normal(3)
    for axis in (0, 1, -1):
        s = pt.stack([x, y], axis=axis)
        np.testing.assert_array_equal(evaluate(s, {x: xv, y: yv}), np.stack([xv, yv], axis))
    a, b = pt.lscalar("a"), pt.lscalar("b")
    v = pt.stack([a, b])
    assert v.type == TensorType("int64", (2,))
    np.testing.assert_array_equal(evaluate(v, {a: 1, b: 4}), [1, 4])
    # as_tensor_variable of a list holding variables goes through stack
    w = pt.as_tensor_variable([a, 2])
    np.testing.assert_array_equal(evaluate(w, {a: 5}), [5, 2])
    with pytest.raises(ValueError, match="out of bounds"):
        pt.stack([x, y], axis=3)
    check_derivatives(
        lambda p, q: pt.stack([p, q], axis=1), [rng.standard_normal(2), rng.standard_normal(2)], rng
    )


def test_split():
    x = pt.matrix("x")
    sizes = pt.lvector("sizes")
    parts = pt.split(x, sizes, 3, axis=1)
    assert isinstance(parts[0].owner.op, Split)
    xv = rng.standard_normal((2, 6))
    out = evaluate(parts, {x: xv, sizes: [1, 2, 3]})
    for got, want in zip(out, np.split(xv, [1, 3], axis=1)):
        np.testing.assert_array_equal(got, want)
    assert_infer_shape(parts[0], {x: xv, sizes: [1, 2, 3]})
    static = pt.split(pt.tensor(dtype="float64", shape=(5, 2)), [2, 3], 2)
    assert [p.type.shape for p in static] == [(2, 2), (3, 2)]
    with pytest.raises(ValueError, match=r"add up to 4, but axis 0 has length 5"):
        pt.split(pt.tensor(dtype="float64", shape=(5, 2)), [2, 2], 2)
    with pytest.raises(ShapeError, match="do not add up"):
        evaluate(parts, {x: xv, sizes: [1, 1, 1]})
    check_derivatives(
        lambda a: pt.split(a, [1, 2], 2, axis=0)[1] * 3.0, [rng.standard_normal((3, 2))], rng
    )


@settings(max_examples=30, deadline=None)
@given(
    shapes=st.lists(st.integers(0, 3), min_size=1, max_size=4),
    other=st.integers(1, 3),
    axis=st.integers(0, 1),
)
def test_join_split_roundtrip(shapes, other, axis):
    arrays = [
        rng.standard_normal((n, other) if axis == 0 else (other, n)) for n in shapes
    ]
    vars_ = [pt.matrix(f"m{i}") for i in range(len(arrays))]
    j = pt.join(axis, *vars_) if len(vars_) > 1 else vars_[0]
    givens = dict(zip(vars_, arrays))
    joined = evaluate(j, givens)
    np.testing.assert_array_equal(joined, np.concatenate(arrays, axis))
    parts = pt.split(j, shapes, len(shapes), axis)
    for got, want in zip(evaluate(parts, givens), arrays):
        np.testing.assert_array_equal(got, want)


# --------------------------------------------------------------------------- conversions


def test_cast_and_lazy_reexports():
    x = pt.lvector("x")
    assert basic.cast(x, "int64") is x
    y = basic.cast(x, "float32")
    assert y.type.dtype == "float32"
    np.testing.assert_array_equal(evaluate(y, {x: [1, 2]}), np.array([1, 2], "float32"))
    assert basic.switch is pt.switch
    assert callable(basic.where) and callable(basic.transpose)


def test_tensor_scalar_conversions():
    from opgraph.scalar.type import ScalarType

    s = ScalarType("float64")("s")
    t = basic.tensor_from_scalar(s)
    assert isinstance(t.owner.op, TensorFromScalar)
    assert t.type == TensorType("float64", ())
    out = evaluate(t, {s: np.float64(2.5)})
    assert out.shape == () and out == 2.5
    back = basic.scalar_from_tensor(t)
    assert isinstance(back.owner.op, ScalarFromTensor)
    assert back.type == ScalarType("float64")
    assert evaluate(back, {s: np.float64(1.5)}) == 1.5
    with pytest.raises(TypeError, match="0-d"):
        basic.scalar_from_tensor(pt.vector())
    with pytest.raises(TypeError, match="ScalarType"):
        basic.tensor_from_scalar(pt.scalar())


def test_atleast_helpers():
    s = pt.scalar()
    assert basic.atleast_1d(s).type.shape == (1,)
    assert basic.atleast_2d(pt.vector()).type.shape == (1, None)
    assert basic.atleast_3d(pt.vector()).type.shape == (1, None, 1)
    assert basic.atleast_Nd(pt.vector(), n=3, left=False).type.shape == (None, 1, 1)
    assert basic.get_vector_length(pt.constant([1, 2, 3])) == 3
    with pytest.raises(ValueError, match="not known"):
        basic.get_vector_length(pt.vector())


# --------------------------------------------------------------------------- constant lookup


def test_get_scalar_constant_value_looks_through_structure():
    assert get_scalar_constant_value(pt.constant(3)) == 3
    filled = pt.alloc(np.float64(2.0), 3, 4)
    assert get_underlying_scalar_constant_value(filled) == 2.0
    assert get_scalar_constant_value(filled[1, 2]) == 2.0
    c = pt.cast(pt.constant(np.int32(5)), "float32")
    value = get_scalar_constant_value(c)
    assert value == 5.0 and value.dtype == np.float32
    d = pt.constant(2.0).dimshuffle("x", "x")
    assert get_underlying_scalar_constant_value(d) == 2.0
    assert get_scalar_constant_value(pt.constant(2) + pt.constant(3)) == 5
    with pytest.raises(NotScalarConstantError):
        get_scalar_constant_value(pt.constant(2) + pt.constant(3), elemwise=False)
    x = pt.tensor(dtype="float64", shape=(3, None))
    assert get_scalar_constant_value(pt.shape_i(x, 0)) == 3
    assert get_scalar_constant_value(x.shape[0]) == 3
    assert get_scalar_constant_value(pt.constant([4, 5, 6])[1]) == 5
    n = pt.lscalar("n")
    assert get_scalar_constant_value(pt.make_vector(n, 7)[1]) == 7


def test_get_scalar_constant_value_refuses_unknowns():
    with pytest.raises(NotScalarConstantError):
        get_scalar_constant_value(pt.scalar())
    with pytest.raises(NotScalarConstantError):
        get_scalar_constant_value(pt.vector())
    with pytest.raises(NotScalarConstantError):
        get_underlying_scalar_constant_value(pt.constant([1, 2]))
    with pytest.raises(NotScalarConstantError):
        get_scalar_constant_value(pt.exp(pt.scalar()))
    with pytest.raises(NotScalarConstantError):
        get_scalar_constant_value(pt.exp(pt.constant(1.0)), only_process_constants=True)

"""Reductions (CAReduce, mean/var/std, argmax/argmin) and products (dot, matmul, outer)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opgraph.tensor as pt
from opgraph.scalar import logic as sl
from opgraph.tensor.math import (
    All,
    Argmax,
    CAReduce,
    Dot,
    MatMul,
    Max,
    Prod,
    Sum,
)
from opgraph.tensor.type import TensorType

from .helpers import check_derivatives, evaluate

RNG = np.random.default_rng(3)


# ----------------------------------------------------------------------------- reductions


@pytest.mark.parametrize(
    "fn, ref",
    [(pt.sum, np.sum), (pt.prod, np.prod), (pt.max, np.max), (pt.min, np.min),
     (pt.mean, np.mean), (pt.all, np.all), (pt.any, np.any)],
)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), (2, 0, 1), ()])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_match_numpy(fn, ref, axis, keepdims):
    x = pt.tensor("float64", shape=(None, 3, None), name="x")
    a = RNG.standard_normal((2, 3, 4))
    if fn in (pt.all, pt.any):
        a = a > 0
        x = pt.tensor("bool", shape=(None, 3, None), name="x")
    z = fn(x, axis=axis, keepdims=keepdims)
    want = ref(a, axis=axis, keepdims=keepdims)
    got = evaluate(z, {x: a})
    assert z.type.ndim == np.ndim(want)
    assert got.dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=1e-12)
    for static, length in zip(z.type.shape, np.shape(want)):
        assert static is None or static == length


@pytest.mark.parametrize(
    "dtype", ["bool", "int8", "int16", "int32", "int64", "uint8", "uint32", "uint64",
              "float16", "float32", "float64", "complex64"],
)
def test_sum_and_prod_dtypes_follow_numpy(dtype):
    x = TensorType(dtype, (None,))("x")
    a = (np.arange(1, 5) % 3).astype(dtype)
    for fn, ref in [(pt.sum, np.sum), (pt.prod, np.prod)]:
        z = fn(x)
        want = ref(a)
        assert z.dtype == want.dtype.name, (fn, dtype)
        np.testing.assert_allclose(evaluate(z, {x: a}), want, rtol=1e-3)
    assert pt.max(x).dtype == dtype
    assert pt.any(x).dtype == "bool"


def test_sum_dtype_and_acc_dtype_options():
    x = pt.fvector("x")
    assert pt.sum(x, dtype="float64").dtype == "float64"
    assert Sum().accumulate_dtype("float32") == "float64"
    assert pt.sum(x, acc_dtype="float64").dtype == "float32"
    with pytest.raises(TypeError, match="acc_dtype"):
        pt.sum(pt.dvector(), acc_dtype="float32")
    a = np.full(10**5, 0.1, dtype="float32")
    np.testing.assert_allclose(evaluate(pt.sum(x), {x: a}), np.sum(a, dtype="float64"),
                               rtol=1e-6)


def test_mean_dtype():
    assert pt.mean(pt.ivector()).dtype == "float64"
    assert pt.mean(pt.fvector()).dtype == "float32"
    x = pt.ivector("x")
    np.testing.assert_allclose(evaluate(pt.mean(x), {x: np.int32([1, 2, 4])}), 7 / 3)


@pytest.mark.parametrize("ddof", [0, 1])
@pytest.mark.parametrize("axis", [None, 0, (1, 2)])
def test_var_std_match_numpy(ddof, axis):
    x = pt.tensor3("x")
    a = RNG.standard_normal((3, 4, 2))
    np.testing.assert_allclose(evaluate(pt.var(x, axis=axis, ddof=ddof), {x: a}),
                               np.var(a, axis=axis, ddof=ddof))
    np.testing.assert_allclose(evaluate(pt.std(x, axis=axis, ddof=ddof, keepdims=True),
                                        {x: a}), np.std(a, axis=axis, ddof=ddof, keepdims=True))


@pytest.mark.parametrize("fn, ref", [(pt.argmax, np.argmax), (pt.argmin, np.argmin)])
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)])
def test_argmax_argmin(fn, ref, axis):
    x = pt.tensor3("x")
    a = RNG.standard_normal((3, 4, 5))
    z = fn(x, axis=axis)
    assert z.dtype == "int64"
    if isinstance(axis, tuple):
        moved = np.moveaxis(a, axis, (-2, -1)).reshape(4, -1)
        want = ref(moved, axis=-1)
    else:
        want = ref(a, axis=axis)
    np.testing.assert_array_equal(evaluate(z, {x: a}), want)
    kd = fn(x, axis=1, keepdims=True)
    np.testing.assert_array_equal(evaluate(kd, {x: a}), ref(a, axis=1, keepdims=True))


def test_argmax_of_unsigned():
    x = TensorType("uint8", (None,))("x")
    np.testing.assert_array_equal(evaluate(pt.argmin(x), {x: np.uint8([3, 0, 200])}), 1)


@pytest.mark.parametrize("fn", [pt.sum, pt.max, pt.argmax, pt.mean, pt.var, pt.all])
@pytest.mark.parametrize("axis", [2, -3, (0, 5)])
def test_axis_out_of_range(fn, axis):
    x = pt.dmatrix("x")
    with pytest.raises(np.exceptions.AxisError, match=r"out of bounds for array of dimension 2"):
        fn(x, axis=axis)


def test_reduce_scalar_axis():
    # A scalar reduces over its one implicit axis (0 or -1) to itself, as in NumPy.
    s = pt.dscalar("s")
    assert evaluate(pt.sum(s, axis=-1), {s: 5.0}) == 5.0
    assert evaluate(pt.max(s, axis=(0,)), {s: 5.0}) == 5.0
    with pytest.raises(np.exceptions.AxisError, match=r"axis \(-2,\) is out of bounds"):
        pt.sum(s, axis=(-2,))


def test_bitwise_reductions_of_integers():
    # all/any of a bool tensor are logical; the and_/or_ CAReduce of integers is bitwise,
    # and its empty reduction is the all-ones identity (NumPy's bitwise_and.reduce).
    x = pt.tensor("x", dtype="int8", shape=(None, None))
    a = np.array([[6, 3, -1], [12, 5, 7]], dtype="int8")
    np.testing.assert_array_equal(
        evaluate(CAReduce(sl.and_, axis=1)(x), {x: a}), np.bitwise_and.reduce(a, axis=1)
    )
    np.testing.assert_array_equal(
        evaluate(CAReduce(sl.or_, axis=0)(x), {x: a}), np.bitwise_or.reduce(a, axis=0)
    )
    empty = np.zeros((3, 0), dtype="int8")
    np.testing.assert_array_equal(
        evaluate(CAReduce(sl.and_, axis=1)(x), {x: empty}), np.full(3, -1, dtype="int8")
    )


def test_multi_axis_sum_reduces_one_axis_at_a_time():
    # Each axis is reduced in turn, last first (PyTensor's order): the rounding matches
    # NumPy's sequential reductions exactly, NaNs included.
    x = pt.tensor("x", dtype="float64", shape=(None,) * 4)
    a = np.random.default_rng(3).random((2, 3, 4, 5))
    a[0, 0, 0, 0] = np.nan
    expected = np.add.reduce(np.add.reduce(a, axis=2), axis=1)
    got = evaluate(pt.sum(x, axis=(1, 2)), {x: a})
    assert TensorType.values_eq(got, expected)


def test_repeated_and_non_int_axis():
    x = pt.dmatrix("x")
    with pytest.raises(ValueError, match="repeated"):
        pt.sum(x, axis=(0, -2))
    with pytest.raises(TypeError, match="ints"):
        pt.sum(x, axis=1.0)


def test_reduction_of_empty_axis():
    x = pt.tensor("float64", shape=(0, 3))
    with pytest.raises(ValueError, match="static length 0"):
        pt.max(x, axis=0)
    assert evaluate(pt.sum(x, axis=0), {x: np.zeros((0, 3))}).tolist() == [0, 0, 0]
    y = pt.dmatrix("y")
    with pytest.raises(ValueError, match=r"shape \(0, 3\)"):
        evaluate(pt.max(y, axis=0), {y: np.zeros((0, 3))})


def test_careduce_ops_compare_by_value_and_normalize_axes():
    assert Sum(axis=(0,)) == Sum(axis=0)
    assert Sum(axis=0) != Sum(axis=1)
    assert Sum(axis=0) != Prod(axis=0)
    x = pt.dmatrix()
    node = Sum(axis=-1).make_node(x)
    assert node.op.axis == (1,)
    assert str(node.op) == "Sum{axis=1}"
    assert str(Sum()) == "Sum{axes=None}"
    assert pt.sum(x).owner.op == Sum()  # all axes: the canonical axis=None op


def test_generic_careduce_with_scalar_op():
    from opgraph.scalar import arith as sa

    x = pt.dmatrix("x")
    op = CAReduce(sa.maximum, axis=(1,))
    a = RNG.standard_normal((3, 4))
    np.testing.assert_allclose(evaluate(op(x), {x: a}), a.max(1))


def test_reduction_infer_shape():
    x = pt.tensor3()
    z = pt.sum(x, axis=(0, 2))
    assert z.owner.op.infer_shape(None, z.owner, [("a", "b", "c")]) == [("b",)]
    m = pt.argmax(x, axis=1)
    assert m.owner.op.infer_shape(None, m.owner, [("a", "b", "c")]) == [("a", "c")]
    assert isinstance(pt.all(x).owner.op, All) and isinstance(pt.max(x).owner.op, Max)
    assert isinstance(pt.argmax(x).owner.op, Argmax)


@pytest.mark.parametrize(
    "build, shape",
    [
        (lambda a: pt.sum(a, axis=1), (3, 4)),
        (lambda a: pt.sum(pt.sqr(a) * 2.0, axis=(0, 2), keepdims=True), (2, 3, 2)),
        (lambda a: pt.prod(a, axis=0), (3, 4)),
        (lambda a: pt.prod(a), (2, 3)),
        (lambda a: pt.max(a, axis=1), (3, 4)),
        (lambda a: pt.min(a, axis=0, keepdims=True), (3, 4)),
        (lambda a: pt.mean(a, axis=0) + pt.var(a, axis=1).sum() + pt.std(a, ddof=1), (3, 4)),
    ],
)
def test_reduction_derivatives(build, shape):
    check_derivatives(build, [RNG.standard_normal(shape)], RNG)


def test_prod_gradient_with_zeros():
    values = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0], [1.5, 2.0, 3.0]])
    check_derivatives(lambda a: pt.prod(a, axis=1), [values], RNG)
    check_derivatives(lambda a: pt.prod(a, axis=0), [values], RNG)


# ----------------------------------------------------------------------------- products


@pytest.mark.parametrize(
    "xs, ys",
    [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4))],
)
def test_dot_matches_numpy(xs, ys):
    x = TensorType("float64", (None,) * len(xs))("x")
    y = TensorType("float32", (None,) * len(ys))("y")
    a, b = RNG.standard_normal(xs), RNG.standard_normal(ys).astype("float32")
    z = pt.dot(x, y)
    node = z.owner
    while not isinstance(node.op, Dot):  # as PyTensor 3: vectors as row/column matrices
        assert type(node.op).__name__ == "DimShuffle"
        node = node.inputs[0].owner
    assert [v.type.ndim for v in node.inputs] == [2, 2]
    assert (node is z.owner) == (len(xs) == len(ys) == 2)
    want = np.dot(a, b)
    got = evaluate(z, {x: a, y: b})
    assert got.dtype == want.dtype and z.type.ndim == want.ndim
    np.testing.assert_allclose(got, want, rtol=1e-6)
    check_derivatives(pt.dot, [a, b.astype("float64")], RNG)


def test_dot_static_shape_and_mismatch():
    x = pt.tensor("float64", shape=(2, 3), name="x")
    y = pt.tensor("float64", shape=(3, None), name="y")
    assert pt.dot(x, y).type.shape == (2, None)
    bad = pt.tensor("float64", shape=(4, 5), name="bad")
    with pytest.raises(ValueError, match=r"x has shape \(2, 3\) and bad has shape \(4, 5\)"):
        pt.dot(x, bad)
    u, v = pt.dmatrices("u", "v")
    with pytest.raises(ValueError, match="not aligned"):
        evaluate(pt.dot(u, v), {u: np.ones((2, 3)), v: np.ones((2, 3))})


def test_dot_scalars_and_higher_rank():
    s, x = pt.dscalar("s"), pt.dvector("x")
    assert pt.dot(s, x).owner.op == pt.mul
    t = pt.tensor3("t")
    m = pt.dmatrix("m")
    a, b = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((4, 5))
    np.testing.assert_allclose(evaluate(pt.dot(t, m), {t: a, m: b}), np.dot(a, b))
    c = RNG.standard_normal((3, 4, 2))
    np.testing.assert_allclose(evaluate(pt.dot(m, t), {m: b.T, t: c}), np.dot(b.T, c))
    with pytest.raises(TypeError, match="1-D or 2-D"):
        Dot()(t, m)


@pytest.mark.parametrize(
    "xs, ys",
    [((3,), (3,)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)), ((3,), (5, 3, 4)),
     ((5, 2, 3), (3,)), ((1, 2, 3), (4, 3, 2)), ((4, 1, 2, 3), (5, 3, 2))],
)
def test_matmul_matches_numpy(xs, ys):
    x = TensorType("float64", tuple(1 if s == 1 else None for s in xs))("x")
    y = TensorType("float64", tuple(1 if s == 1 else None for s in ys))("y")
    a, b = RNG.standard_normal(xs), RNG.standard_normal(ys)
    z = pt.matmul(x, y)
    assert isinstance(z.owner.op, MatMul)
    want = np.matmul(a, b)
    assert z.type.ndim == want.ndim
    np.testing.assert_allclose(evaluate(z, {x: a, y: b}), want)
    np.testing.assert_allclose(evaluate(x @ y, {x: a, y: b}), want)
    check_derivatives(pt.matmul, [a, b], RNG)


def test_matmul_errors_and_static_shape():
    x = pt.tensor("float64", shape=(5, 2, 3), name="x")
    y = pt.tensor("float64", shape=(1, 3, 4), name="y")
    assert pt.matmul(x, y).type.shape == (5, 2, 4)
    with pytest.raises(ValueError, match="inner dimensions"):
        pt.matmul(x, pt.tensor("float64", shape=(2, 2)))
    with pytest.raises(ValueError, match="at least one dimension"):
        pt.matmul(pt.dscalar(), x)
    with pytest.raises(ValueError, match="dimension 0"):
        pt.matmul(x, pt.tensor("float64", shape=(4, 3, 4)))
    u, v = pt.tensor3("u"), pt.tensor3("v")
    with pytest.raises(ValueError, match="runtime broadcasting"):
        evaluate(pt.matmul(u, v), {u: np.ones((1, 2, 3)), v: np.ones((4, 3, 2))})
    assert pt.matmul(u, v, dtype="float32").dtype == "float32"


def test_outer():
    x, y = pt.dvector("x"), pt.dmatrix("y")
    a, b = RNG.standard_normal(3), RNG.standard_normal((2, 2))
    np.testing.assert_allclose(evaluate(pt.outer(x, y), {x: a, y: b}), np.outer(a, b))
    check_derivatives(pt.outer, [a, RNG.standard_normal(4)], RNG)


def test_dot_infer_shape():
    x, y = pt.dmatrices("x", "y")
    z = pt.dot(x, y)
    assert z.owner.op.infer_shape(None, z.owner, [("m", "k"), ("k", "n")]) == [("m", "n")]
    b = pt.matmul(pt.tensor3(), pt.dmatrix())
    assert b.owner.op.infer_shape(None, b.owner, [("b", "m", "k"), ("k", "n")]) == [
        ("b", "m", "n")
    ]


# ----------------------------------------------------------------------------- hypothesis


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(1, 4), min_size=0, max_size=4),
    st.data(),
    st.sampled_from(["sum", "prod", "max", "min", "mean", "argmax", "any"]),
    st.booleans(),
)
def test_reductions_over_random_axes(shape, data, name, keepdims):
    ndim = len(shape)
    if name == "argmax":
        axis = data.draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1))) if ndim else None
    else:
        axis = data.draw(
            st.one_of(st.none(), st.lists(st.integers(0, max(ndim - 1, 0)), unique=True,
                                          max_size=ndim).map(tuple))
        )
    x = TensorType("float64", (None,) * ndim)("x")
    a = RNG.standard_normal(shape)
    z = getattr(pt, name)(x, axis=axis, keepdims=keepdims)
    want = getattr(np, name)(a, axis=axis, keepdims=keepdims)
    np.testing.assert_allclose(evaluate(z, {x: a}), want, rtol=1e-12)
    assert z.type.ndim == np.ndim(want)


def test_private_allclose_uses_the_less_precise_dtype():
    from opgraph.tensor.math import _allclose

    assert _allclose(np.float32(1.0), np.float32(1.0 + 1e-6))
    assert not _allclose(np.float64(1.0), np.float64(1.0 + 1e-4))
    assert _allclose(np.float64(1.0), np.float64(1.0 + 1e-4), rtol=1e-3)


@pytest.mark.parametrize("dtype", ["float64", "int32", "uint8", "bool"])
def test_min_is_built_as_pytensor_builds_it(dtype: str) -> None:
    """``pt.min`` is ``-max(-x)`` (uint: ``top - max(top - x)``, bool: ``~max(~x)``), as in
    PyTensor: PyMC derives the logp of a minimum of iid variables from that graph."""
    rng = np.random.default_rng(0)
    values = (rng.normal(size=(3, 4)) * 50).astype(dtype)
    if dtype == "uint8":
        values = rng.integers(0, 256, size=(3, 4)).astype(dtype)
    x = pt.tensor(dtype=dtype, shape=(None, None))
    for axis, keepdims in ((None, False), (0, False), (1, True), ((0, 1), False)):
        out = pt.min(x, axis=axis, keepdims=keepdims)
        assert out.type.dtype == dtype
        np.testing.assert_array_equal(evaluate(out, {x: values}),
                                      np.min(values, axis=axis, keepdims=keepdims))
    out = pt.min(x, axis=0)
    assert type(out.owner.op).__name__ in {"Elemwise", "DimShuffle"}
    reduced = out.owner.inputs[-1]
    assert type(reduced.owner.op).__name__ == "Max"


def test_min_keeps_nan_and_gradient() -> None:
    x = pt.vector("x")
    v = np.array([2.0, np.nan, -1.0])
    assert np.isnan(evaluate(pt.min(x), {x: v}))
    g = pt.grad(pt.min(x), x)
    np.testing.assert_array_equal(evaluate(g, {x: np.array([2.0, -3.0, 1.0])}), [0, 1, 0])

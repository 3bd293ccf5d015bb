"""Elemwise and DimShuffle: construction, broadcasting, perform vs NumPy, shapes, derivatives."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opgraph.tensor as pt
from opgraph.scalar import arith as sa
from opgraph.tensor.elemwise import DimShuffle, Elemwise, broadcast_static_shape
from opgraph.tensor.type import TensorType

from .helpers import check_derivatives, evaluate

RNG = np.random.default_rng(7)


# ----------------------------------------------------------------------------- make_node


def test_lower_rank_inputs_are_padded_with_dimshuffle():
    x = pt.dmatrix("x")
    v = pt.dvector("v")
    z = x + v
    node = z.owner
    assert node.inputs[0] is x
    pad = node.inputs[1]
    assert isinstance(pad.owner.op, DimShuffle)
    assert pad.owner.op.new_order == ("x", 0)
    assert pad.owner.inputs[0] is v
    assert pad.type.shape == (1, None)


@pytest.mark.parametrize(
    "shapes, expected",
    [
        ([(None, 3), (1, 3)], (None, 3)),
        ([(2, 1), (1, 5)], (2, 5)),
        ([(None,), (4,)], (4,)),
        ([(1, 1), (1, 1)], (1, 1)),
        ([(None, 1), (1, None)], (None, None)),
        ([(1,), (None,)], (None,)),
        ([(None, 2, 1), (3,)], (None, 2, 3)),
    ],
)
def test_static_shape_inference(shapes, expected):
    ins = [TensorType("float64", s)() for s in shapes]
    assert (ins[0] + ins[1]).type.shape == expected


def test_incompatible_static_shapes_rejected_at_construction():
    x = pt.tensor("float64", shape=(2, 3), name="x")
    y = pt.tensor("float64", shape=(4, 3), name="y")
    with pytest.raises(ValueError, match=r"x \(2, 3\).*y \(4, 3\)"):
        x + y
    with pytest.raises(ValueError, match="dimension 0"):
        broadcast_static_shape([(2,), (4,)])


@pytest.mark.parametrize(
    "dtypes",
    [("int8", "int16"), ("int32", "float32"), ("uint8", "int8"), ("float32", "float64"),
     ("bool", "int8"), ("int64", "uint64"), ("complex64", "float64")],
)
def test_output_dtype_follows_numpy(dtypes):
    a, b = (TensorType(d, (None,))() for d in dtypes)
    want = np.result_type(*[np.dtype(d) for d in dtypes]).name
    assert (a + b).dtype == want
    assert (a * b).dtype == want


def test_elemwise_op_equality_and_str():
    assert Elemwise(sa.add) == pt.add.owner.op if hasattr(pt.add, "owner") else True
    assert Elemwise(sa.add) == Elemwise(sa.add)
    assert hash(Elemwise(sa.add)) == hash(Elemwise(sa.add))
    assert Elemwise(sa.add) != Elemwise(sa.mul)
    assert Elemwise(sa.add, {0: 0}) != Elemwise(sa.add)
    assert str(Elemwise(sa.add)) == "Add"
    assert str(Elemwise(sa.mul)) == "Mul"
    # As PyTensor: the in-place version prints by its scalar op too (dprint shows d={...}).
    assert str(Elemwise(sa.add, {0: 0})) == "Add"
    assert str(Elemwise(sa.add, name="my_op")) == "my_op"
    assert Elemwise(sa.add, {0: 1}).destroy_map == {0: [1]}


def test_wrong_number_of_inputs():
    with pytest.raises(TypeError, match="takes 1 input"):
        pt.exp(pt.dvector(), pt.dvector())


def test_non_numeric_input_names_input():
    with pytest.raises(TypeError, match="input 1"):
        pt.add(pt.dvector(), "abc")


# ----------------------------------------------------------------------------- perform

_UNARY = [
    (pt.neg, np.negative, "any"), (pt.abs, np.abs, "any"), (pt.sign, np.sign, "any"),
    (pt.exp, np.exp, "any"), (pt.exp2, np.exp2, "any"), (pt.expm1, np.expm1, "any"),
    (pt.log, np.log, "pos"), (pt.log2, np.log2, "pos"), (pt.log10, np.log10, "pos"),
    (pt.log1p, np.log1p, "pos"), (pt.sqrt, np.sqrt, "pos"), (pt.sqr, np.square, "any"),
    (pt.square, np.square, "any"), (pt.reciprocal, np.reciprocal, "pos"),
    (pt.sin, np.sin, "any"), (pt.cos, np.cos, "any"), (pt.tan, np.tan, "any"),
    (pt.arcsin, np.arcsin, "unit"), (pt.arccos, np.arccos, "unit"),
    (pt.arctan, np.arctan, "any"), (pt.sinh, np.sinh, "any"), (pt.cosh, np.cosh, "any"),
    (pt.tanh, np.tanh, "any"), (pt.arcsinh, np.arcsinh, "any"),
    (pt.arccosh, np.arccosh, "gt1"), (pt.arctanh, np.arctanh, "unit"),
    (pt.sigmoid, lambda a: 1 / (1 + np.exp(-a)), "any"),
    (pt.softplus, lambda a: np.log1p(np.exp(a)), "any"),
    (pt.floor, np.floor, "any"), (pt.ceil, np.ceil, "any"), (pt.trunc, np.trunc, "any"),
    (pt.round, np.round, "any"), (pt.isnan, np.isnan, "any"), (pt.isinf, np.isinf, "any"),
    (pt.identity, lambda a: a, "any"), (pt.tensor_copy, lambda a: a, "any"),
]


def _sample(domain, shape, dtype):
    a = {
        "any": RNG.standard_normal(shape) * 2,
        "pos": RNG.random(shape) + 0.1,
        "unit": RNG.uniform(-0.9, 0.9, shape),
        "gt1": RNG.random(shape) + 1.1,
    }[domain]
    return a.astype(dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("fn, ref, domain", _UNARY, ids=lambda v: getattr(v, "__name__", None))
def test_unary_perform_matches_numpy(fn, ref, domain, dtype):
    x = pt.tensor(dtype, shape=(None, None), name="x")
    a = _sample(domain, (3, 4), dtype)
    z = fn(x)
    got = evaluate(z, {x: a})
    want = np.asarray(ref(a))
    assert got.dtype == np.dtype(z.dtype)
    assert z.dtype == want.dtype.name, (z.dtype, want.dtype)
    rtol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)


_BINARY = [
    (pt.add, np.add, "any"), (pt.sub, np.subtract, "any"), (pt.mul, np.multiply, "any"),
    (pt.true_div, np.true_divide, "pos"), (pt.int_div, np.floor_divide, "pos"),
    (pt.mod, np.mod, "pos"), (pt.pow, np.power, "pos"), (pt.arctan2, np.arctan2, "any"),
    (pt.maximum, np.maximum, "any"), (pt.minimum, np.minimum, "any"),
    (pt.eq, np.equal, "any"), (pt.neq, np.not_equal, "any"), (pt.lt, np.less, "any"),
    (pt.le, np.less_equal, "any"), (pt.gt, np.greater, "any"),
    (pt.ge, np.greater_equal, "any"),
]


@pytest.mark.parametrize("fn, ref, domain", _BINARY, ids=lambda v: getattr(v, "__name__", None))
def test_binary_perform_matches_numpy_with_broadcasting(fn, ref, domain):
    x = pt.dmatrix("x")
    r = pt.drow("r")
    a = _sample(domain, (3, 4), "float64")
    b = _sample(domain, (1, 4), "float64")
    if fn in (pt.eq, pt.neq):
        b[0, :2] = a[0, :2]
    z = fn(x, r)
    got = evaluate(z, {x: a, r: b})
    want = ref(a, b)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize(
    "fn, ref",
    [(pt.and_, np.bitwise_and), (pt.or_, np.bitwise_or), (pt.xor, np.bitwise_xor),
     (pt.bitwise_and, np.bitwise_and), (pt.int_div, np.floor_divide), (pt.mod, np.mod)],
)
@pytest.mark.parametrize("dtype", ["int8", "int32", "uint16", "bool"])
def test_integer_and_bool_binary_ops(fn, ref, dtype):
    x, y = (TensorType(dtype, (None,))(n) for n in "xy")
    a = RNG.integers(1, 50, 6).astype(dtype)
    b = RNG.integers(1, 7, 6).astype(dtype)
    got = evaluate(fn(x, y), {x: a, y: b})
    want = ref(a, b)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_ternary_ops():
    c = pt.tensor("bool", shape=(None,), name="c")
    x, y = pt.dvectors("x", "y")
    a, b = RNG.standard_normal(5), RNG.standard_normal(5)
    m = a > 0
    np.testing.assert_array_equal(evaluate(pt.switch(c, x, y), {c: m, x: a, y: b}),
                                  np.where(m, a, b))
    np.testing.assert_array_equal(evaluate(pt.where(c, x, 0), {c: m, x: a}), np.where(m, a, 0))
    np.testing.assert_allclose(evaluate(pt.clip(x, -0.5, 0.5), {x: a}), np.clip(a, -0.5, 0.5))


def test_cast_and_round_modes():
    x = pt.dvector("x")
    a = np.array([-2.5, -1.5, 0.5, 1.5, 2.7])
    for dtype in ["int8", "int64", "float32", "uint8", "bool", "complex128"]:
        z = pt.cast(x, dtype)
        assert z.dtype == dtype
        np.testing.assert_array_equal(evaluate(z, {x: np.abs(a)}), np.abs(a).astype(dtype))
    np.testing.assert_array_equal(evaluate(pt.round(x), {x: a}), np.round(a))
    np.testing.assert_array_equal(
        evaluate(pt.round(x, mode="half_away_from_zero"), {x: a}), [-3, -2, 1, 2, 3]
    )
    with pytest.raises(ValueError, match="mode"):
        pt.round(x, mode="up")
    with pytest.raises(TypeError, match="complex"):
        pt.cast(pt.zvector(), "float64")


def test_variadic_add():
    x, y, z = pt.dvectors("x", "y", "z")
    s = pt.add(x, y, z)
    vals = [RNG.random(3) for _ in range(3)]
    np.testing.assert_allclose(evaluate(s, dict(zip((x, y, z), vals))), sum(vals))


def test_runtime_broadcasting_of_non_broadcastable_dim_refused():
    x, y = pt.dmatrices("x", "y")
    with pytest.raises(ValueError, match=r"(?i)runtime broadcasting"):
        evaluate(x + y, {x: np.ones((3, 4)), y: np.ones((1, 4))})
    with pytest.raises(ValueError, match="cannot be broadcast"):
        evaluate(x + y, {x: np.ones((3, 4)), y: np.ones((2, 4))})


def test_inplace_pattern_writes_into_input():
    x, y = pt.dvectors("x", "y")
    op = Elemwise(sa.add, {0: 0})
    node = op.make_node(x, y)
    a, b = np.ones(3), np.arange(3.0)
    out = [[None]]
    op.perform(node, [a, b], out)
    assert out[0][0] is a
    np.testing.assert_array_equal(a, [1, 2, 3])
    with pytest.raises(TypeError, match="cannot overwrite"):
        Elemwise(sa.add, {0: 0}).make_node(pt.fvector(), pt.dvector())


def test_inplace_non_ufunc_scalar_op():
    c = pt.tensor("bool", shape=(None,))
    x, y = pt.dvectors("x", "y")
    from opgraph.scalar import structural as ss

    op = Elemwise(ss.switch, {0: 1})
    node = op.make_node(c, x, y)
    a, b = np.ones(3), np.zeros(3)
    out = [[None]]
    op.perform(node, [np.array([True, False, True]), a, b], out)
    assert out[0][0] is a
    np.testing.assert_array_equal(a, [1, 0, 1])


def test_elemwise_infer_shape():
    x = pt.tensor("float64", shape=(None, 1, 4))
    y = pt.tensor("float64", shape=(1, None, 4))
    z = x * y
    a, b = pt.lscalars("a", "b")
    ((d0, d1, d2),) = z.owner.op.infer_shape(None, z.owner, [(a, 1, 4), (1, b, 4)])
    assert d0 is a and d1 is b
    assert isinstance(d2, pt.TensorConstant) and d2.data == 4 and d2.dtype == "int64"


# ----------------------------------------------------------------------------- DimShuffle


def test_dimshuffle_types_and_values():
    x = pt.tensor("float64", shape=(2, 1, 3))
    a = RNG.random((2, 1, 3))
    cases = {
        (2, 0): (3, 2),
        ("x", 0, 1, 2): (1, 2, 1, 3),
        (0, 2, "x"): (2, 3, 1),
        (2, "x", 1, 0): (3, 1, 1, 2),
    }
    for order, shape in cases.items():
        z = x.dimshuffle(*order)
        assert z.type.shape == shape
        got = evaluate(z, {x: a})
        assert got.shape == shape
        assert np.shares_memory(got, a) or got.size == 0
    assert DimShuffle(input_ndim=2, new_order=(1, 0)).view_map == {0: [0]}


def test_dimshuffle_bad_orders():
    x = pt.dmatrix("x")
    # A dimension of unknown length may be dropped (checked at run time); one of a
    # static length other than 1 never can.
    assert x.dimshuffle(0).type.shape == (None,)
    with pytest.raises(ValueError, match="dropped dimension must have length 1"):
        evaluate(x.dimshuffle(0), {x: np.ones((2, 3))})
    assert evaluate(x.dimshuffle(0), {x: np.arange(2.0).reshape(2, 1)}).tolist() == [0.0, 1.0]
    with pytest.raises(TypeError, match="cannot drop dimension 1"):
        pt.tensor("y", shape=(None, 3)).dimshuffle(0)
    with pytest.raises(ValueError, match="out of range"):
        DimShuffle(input_ndim=2, new_order=(0, 2))
    with pytest.raises(ValueError, match="twice"):
        DimShuffle(input_ndim=2, new_order=(0, 0))
    with pytest.raises(TypeError, match="'x'"):
        DimShuffle(input_ndim=2, new_order=(0, "y"))
    with pytest.raises(TypeError, match="2 dimension"):
        DimShuffle(input_ndim=2, new_order=(0, 1))(pt.dvector())


def test_dimshuffle_equality_infer_shape_and_str():
    a = DimShuffle(input_ndim=2, new_order=("x", 1, 0))
    assert a == DimShuffle(2, ["x", 1, 0]) and hash(a) == hash(DimShuffle(2, ("x", 1, 0)))
    assert str(a) == "DimShuffle{x,1,0}"
    assert a.shuffle == (1, 0) and a.augment == (0,) and a.drop == ()
    node = a.make_node(pt.dmatrix())
    assert a.infer_shape(None, node, [("m", "n")]) == [(1, "n", "m")]


def test_transpose_function():
    x = pt.tensor3("x")
    assert pt.transpose(x).owner.op.new_order == (2, 1, 0)
    assert pt.transpose(x, (0, -1, 1)).owner.op.new_order == (0, 2, 1)
    assert pt.transpose(x, (0, 1, 2)) is x
    with pytest.raises(ValueError, match="out of range"):
        pt.transpose(x, (0, 1, 3))


# ----------------------------------------------------------------------------- derivatives


@pytest.mark.parametrize(
    "build, shapes",
    [
        (lambda a, b: a * b + a / (b + 3.0), [(2, 3), (1, 3)]),
        (lambda a, b: pt.tanh(a) - pt.exp(b) * 2.0, [(3,), (2, 3)]),
        (lambda a, b: pt.maximum(a, b) + pt.sqr(pt.minimum(a, b)), [(2, 3), (2, 3)]),
        (lambda a: (pt.abs(a) + 1.0) ** 2.5, [(2, 3)]),
        (lambda a: pt.sigmoid(a) + pt.softplus(a) + pt.arctan(a) + pt.sqr(a), [(4,)]),
        (lambda a: pt.log(pt.abs(a) + 1.0) + pt.sqrt(pt.abs(a) + 1.0), [(2, 2)]),
        (lambda a, b: pt.arctan2(a, b + 3.0), [(3,), (1,)]),
        (lambda a: a.dimshuffle(1, "x", 0) * 3.0, [(2, 3)]),
        (lambda a: a.dimshuffle(1), [(1, 3)]),
    ],
)
def test_derivatives_match_finite_differences(build, shapes):
    check_derivatives(build, [RNG.standard_normal(s) for s in shapes], RNG)


def test_gradient_of_integer_input_is_the_float_gradient():
    from opgraph.gradient import grad

    i = pt.ivector("i")
    x = pt.dvector("x")
    g = grad((x * i).sum(), i)
    assert g.dtype == "float64"
    # as in PyTensor: the gradient the same graph has over floats
    np.testing.assert_array_equal(evaluate(g, {x: np.array([1.0, 3.0]), i: np.int32([1, 2])}),
                                  [1.0, 3.0])


# ----------------------------------------------------------------------------- hypothesis

_dim = st.one_of(st.just(1), st.integers(2, 4))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(_dim, min_size=0, max_size=4),
    st.data(),
)
def test_broadcasting_matches_numpy(shape, data):
    # Each operand keeps a random suffix of the dims, with some set to 1 (broadcastable).
    k = data.draw(st.integers(0, len(shape)))
    other = [data.draw(st.sampled_from([1, s])) for s in shape[len(shape) - k:]]
    x = TensorType("float64", tuple(1 if s == 1 else None for s in shape))("x")
    y = TensorType("float64", tuple(1 if s == 1 else None for s in other))("y")
    a, b = RNG.standard_normal(shape), RNG.standard_normal(other)
    z = x * y - y
    assert z.ndim == len(shape)
    got = evaluate(z, {x: a, y: b})
    np.testing.assert_allclose(got, a * b - b)
    expect_static = tuple(
        1 if s == 1 and (i < len(shape) - k or other[i - len(shape) + k] == 1) else None
        for i, s in enumerate(shape)
    )
    assert z.type.shape == expect_static


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=1, max_size=4), st.data())
def test_dimshuffle_permutation_matches_numpy_transpose(shape, data):
    perm = data.draw(st.permutations(range(len(shape))))
    x = TensorType("float64", (None,) * len(shape))("x")
    a = RNG.standard_normal(shape)
    np.testing.assert_array_equal(evaluate(x.transpose(perm), {x: a}), a.transpose(perm))

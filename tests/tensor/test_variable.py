"""TensorVariable operators and methods; as_tensor_variable / constant conversions."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.config import change_flags
from opgraph.graph.basic import Constant
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.type_other import NoneConst
from opgraph.tensor.variable import TensorConstant, TensorVariable, as_tensor_variable

from .helpers import evaluate

RNG = np.random.default_rng(42)


def _scalar_op_name(var):
    return type(var.owner.op.scalar_op).__name__


@pytest.mark.parametrize(
    "build, opname, ref",
    [
        (lambda x, y: x + y, "Add", np.add),
        (lambda x, y: x - y, "Sub", np.subtract),
        (lambda x, y: x * y, "Mul", np.multiply),
        (lambda x, y: x / y, "TrueDiv", np.true_divide),
        (lambda x, y: x // y, "IntDiv", np.floor_divide),
        (lambda x, y: x % y, "Mod", np.mod),
        (lambda x, y: x ** y, "Pow", np.power),
        (lambda x, y: x < y, "LT", np.less),
        (lambda x, y: x <= y, "LE", np.less_equal),
        (lambda x, y: x > y, "GT", np.greater),
        (lambda x, y: x >= y, "GE", np.greater_equal),
    ],
)
def test_binary_operators(build, opname, ref):
    x, y = pt.dmatrices("x", "y")
    z = build(x, y)
    assert isinstance(z, TensorVariable)
    assert isinstance(z.owner.op, Elemwise) and _scalar_op_name(z) == opname
    a, b = RNG.random((2, 3)) + 0.5, RNG.random((2, 3)) + 0.5
    np.testing.assert_allclose(evaluate(z, {x: a, y: b}), ref(a, b))


@pytest.mark.parametrize(
    "build, ref",
    [
        (lambda x: 2.0 + x, lambda a: 2 + a),
        (lambda x: 2.0 - x, lambda a: 2 - a),
        (lambda x: 2.0 * x, lambda a: 2 * a),
        (lambda x: 2.0 / x, lambda a: 2 / a),
        (lambda x: 7.0 // x, lambda a: 7 // a),
        (lambda x: 7.0 % x, lambda a: 7 % a),
        (lambda x: 2.0 ** x, lambda a: 2**a),
        (lambda x: -x, lambda a: -a),
        (lambda x: +x, lambda a: a),
        (lambda x: abs(x), np.abs),
        (lambda x: np.ones(3) * x, lambda a: a),
    ],
)
def test_reflected_and_unary_operators(build, ref):
    x = pt.dvector("x")
    a = RNG.random(3) + 0.5
    np.testing.assert_allclose(evaluate(build(x), {x: a}), ref(a))


def test_bitwise_operators_and_invert():
    x, y = pt.bvector("x"), pt.bvector("y")
    a, b = np.int8([1, 2, 3]), np.int8([3, 3, 1])
    for z, ref in [(x & y, a & b), (x | y, a | b), (x ^ y, a ^ b), (~x, ~a)]:
        assert z.dtype == "int8"
        np.testing.assert_array_equal(evaluate(z, {x: a, y: b}), ref)
    bx = pt.tensor("bool", shape=(None,))
    np.testing.assert_array_equal(evaluate(~bx, {bx: [True, False]}), [False, True])


def test_matmul_operator():
    x, y = pt.dmatrices("x", "y")
    a, b = RNG.random((2, 3)), RNG.random((3, 4))
    np.testing.assert_allclose(evaluate(x @ y, {x: a, y: b}), a @ b)
    np.testing.assert_allclose(evaluate(a @ y, {y: b}), a @ b)


def test_equality_is_identity_and_hashable():
    x = pt.dvector("x")
    y = pt.dvector("x")
    assert x == x and x != y
    assert len({x, y}) == 2
    assert isinstance(pt.eq(x, y), TensorVariable)


def test_bool_raises():
    x = pt.dscalar("x")
    with pytest.raises(TypeError, match="truth value"):
        bool(x < 2)


def test_setitem_raises():
    x = pt.dvector("x")
    with pytest.raises(TypeError, match="set_subtensor"):
        x[0] = 1


def test_static_attributes():
    x = pt.tensor("float32", shape=(2, None, 1))
    assert x.ndim == 3 and x.dtype == "float32" and x.broadcastable == (False, False, True)


def test_T_transpose_dimshuffle():
    x = pt.tensor("float64", shape=(2, 3, 4))
    a = RNG.random((2, 3, 4))
    assert x.T.type.shape == (4, 3, 2)
    np.testing.assert_array_equal(evaluate(x.T, {x: a}), a.T)
    np.testing.assert_array_equal(evaluate(x.transpose(1, 0, 2), {x: a}), a.transpose(1, 0, 2))
    np.testing.assert_array_equal(evaluate(x.transpose((2, 0, 1)), {x: a}), a.transpose(2, 0, 1))
    d = x.dimshuffle(2, "x", 0, 1)
    assert isinstance(d.owner.op, DimShuffle) and d.type.shape == (4, 1, 2, 3)
    np.testing.assert_array_equal(evaluate(d, {x: a}), a.transpose(2, 0, 1)[:, None])


def test_reduction_methods():
    x = pt.dmatrix("x")
    a = RNG.random((3, 4))
    cases = {
        x.sum(): a.sum(), x.sum(axis=1): a.sum(1), x.mean(0): a.mean(0), x.max(): a.max(),
        x.min(axis=0): a.min(0), x.prod(axis=-1): a.prod(-1), x.std(): a.std(),
        x.var(axis=1, ddof=1): a.var(1, ddof=1), x.argmax(axis=1): a.argmax(1),
        x.argmin(): a.argmin(), (x > 0.5).any(axis=0): (a > 0.5).any(0),
        (x > 0.5).all(): (a > 0.5).all(), x.sum(keepdims=True): a.sum(keepdims=True),
    }
    outs = evaluate(list(cases), {x: a})
    for got, want in zip(outs, cases.values()):
        np.testing.assert_allclose(got, want)


def test_other_methods():
    x = pt.dmatrix("x")
    a = RNG.standard_normal((3, 4))
    np.testing.assert_allclose(evaluate(x.dot(x.T), {x: a}), a @ a.T)
    np.testing.assert_allclose(evaluate(x.clip(-0.5, 0.5), {x: a}), np.clip(a, -0.5, 0.5))
    np.testing.assert_allclose(evaluate(x.round(), {x: a}), np.round(a))
    cast = x.astype("int32")
    assert cast.dtype == "int32"
    np.testing.assert_array_equal(evaluate(cast, {x: a}), a.astype("int32"))
    assert x.astype("float64") is x
    np.testing.assert_allclose(evaluate(x.reshape((4, 3)), {x: a}), a.reshape(4, 3))
    np.testing.assert_allclose(evaluate(x.flatten(), {x: a}), a.ravel())
    np.testing.assert_allclose(evaluate(x.shape, {x: a}), [3, 4])
    np.testing.assert_allclose(evaluate(x.size, {x: a}), 12)
    r = pt.drow("r")
    assert r.squeeze().ndim == 1


def test_getitem_delegates_to_subtensor():
    x = pt.dmatrix("x")
    a = RNG.random((3, 4))
    np.testing.assert_allclose(evaluate(x[1], {x: a}), a[1])
    np.testing.assert_allclose(evaluate(x[:, 1:3], {x: a}), a[:, 1:3])


def test_iteration_needs_static_length():
    with pytest.raises(TypeError, match="static length"):
        list(pt.dvector("x"))
    v = pt.tensor("float64", shape=(2,))
    assert len(list(v)) == 2


def test_incompatible_operand_returns_notimplemented():
    x = pt.dvector("x")
    assert x.__add__(object()) is NotImplemented
    with pytest.raises(TypeError):
        x + object()


# ----------------------------------------------------------------------------- conversions


def test_as_tensor_variable_passes_variables_through():
    x = pt.dmatrix("x")
    assert as_tensor_variable(x) is x
    assert as_tensor_variable((x + 1).owner) is not None


@pytest.mark.parametrize(
    "value, dtype, shape",
    [
        (np.bool_(True), "bool", ()),
        (3, "int64", ()),
        (2**63, "uint64", ()),
        (1.5, "float64", ()),
        (1j, "complex128", ()),
        ([1, 2], "int64", (2,)),
        ([[1.0, 2.0]], "float64", (1, 2)),
        (np.float32(2), "float32", ()),
        (np.arange(3, dtype="int16"), "int16", (3,)),
        (np.array(5, dtype="uint8"), "uint8", ()),
    ],
)
def test_as_tensor_variable_values(value, dtype, shape):
    c = as_tensor_variable(value)
    assert isinstance(c, TensorConstant) and isinstance(c, Constant)
    assert c.dtype == dtype and c.type.shape == shape
    np.testing.assert_array_equal(c.data, np.asarray(value))


def test_python_float_constant_uses_floatx():
    with change_flags(floatX="float32"):
        assert pt.constant(1.5).dtype == "float32"
        assert pt.constant([1.5, 2.0]).dtype == "float32"
        assert pt.constant(np.float64(1.5)).dtype == "float64"


def test_constant_ndim_and_dtype_options():
    assert pt.constant(2, ndim=2).type.shape == (1, 1)
    assert pt.constant([[1, 2]], ndim=1).type.shape == (2,)
    assert pt.constant(2, dtype="float32").dtype == "float32"
    with pytest.raises(ValueError, match="ndim=1"):
        pt.constant(np.ones((2, 2)), ndim=1)


def test_as_tensor_variable_ndim_on_variables():
    x = pt.dvector("x")
    assert as_tensor_variable(x, ndim=2).type.shape == (1, None)
    r = pt.drow("r")
    assert as_tensor_variable(r, ndim=1).type.shape == (None,)
    with pytest.raises(ValueError, match="could not be cast to have 1 dimensions"):
        as_tensor_variable(pt.dmatrix("m"), ndim=1)


def test_constant_data_is_read_only_and_signature_merges():
    a = np.arange(3.0)
    c1, c2 = pt.constant(a), pt.constant(a.copy())
    assert not c1.data.flags.writeable
    assert a.flags.writeable
    assert c1.signature() == c2.signature() and c1.equals(c2)
    with pytest.raises(AttributeError):
        c1.data = np.zeros(3)


def test_constant_str():
    assert str(pt.constant(2.0)) == "TensorConstant{2.0}"
    assert str(pt.constant(np.arange(1000))).startswith("TensorConstant{[")


@pytest.mark.parametrize("bad", ["abc", None, object(), [1, "a"], {"a": 1}])
def test_as_tensor_variable_bad_input(bad):
    with pytest.raises(TypeError, match="tensor"):
        as_tensor_variable(bad)


def test_as_tensor_variable_from_scalar_variable():
    from opgraph.scalar.type import get_scalar_type

    s = get_scalar_type("float32")("s")
    t = as_tensor_variable(s)
    assert isinstance(t, TensorVariable) and t.type == pt.fscalar
    np.testing.assert_allclose(evaluate(t, {s: np.float32(2.5)}), 2.5)


def test_list_of_variables_is_stacked():
    x, y = pt.dscalars("xy")
    v = as_tensor_variable([x, y])
    assert v.ndim == 1
    np.testing.assert_allclose(evaluate(v, {x: 1.0, y: 2.0}), [1.0, 2.0])


# ----------------------------------------------------------------------------- weak scalars


@pytest.mark.parametrize(
    "make, value, dtype",
    [
        (pt.fmatrix, 2.0, "float32"),
        (pt.fmatrix, 1.1, "float32"),
        (pt.fmatrix, 2, "float32"),
        (pt.ivector, 1, "int32"),
        (pt.bvector, 1000, "int16"),
        (pt.ivector, 1.5, "float64"),
        (pt.wvector, -1, "int16"),
        (pt.dvector, 2, "float64"),
    ],
)
def test_python_numbers_are_weak_in_arithmetic(make, value, dtype):
    x = make("x")
    assert (x * value).dtype == dtype
    assert (value + x).dtype == dtype
    assert np.result_type(np.dtype(x.dtype), value).kind == np.dtype(dtype).kind


def test_unsigned_with_negative_python_int_widens_to_signed():
    x = pt.tensor("uint8", shape=(None,))
    z = x * -1
    assert z.dtype == "int16"
    np.testing.assert_array_equal(evaluate(z, {x: np.uint8([1, 200])}), [-1, -200])


def test_transpose_takes_axes_as_array_and_setitem_names_set_and_inc():
    x = pt.dmatrix("x")
    xv = np.arange(6.0).reshape(2, 3)
    for axes in ((1, 0), [1, 0], np.array([1, 0])):
        np.testing.assert_array_equal(evaluate(x.transpose(axes), {x: xv}), xv.T)
    with pytest.raises(TypeError, match=r"Use the output of `x\[idx\]\.set` or `x\[idx\]\.inc`"):
        x[0] = 5


def test_named_tensor_constant_prints_name_and_value():
    assert str(pt.constant(1, name="const")) == "const{1}"
    assert str(pt.constant([1.5, 2.0], name="c")) == "c{[1.5 2. ]}"
    assert str(pt.constant(1)) == "TensorConstant{1}"


def test_empty_list_index_and_none_constant_index_as_numpy():
    x = pt.dmatrix("x")
    xv = np.arange(4.0).reshape(2, 2)
    assert evaluate(x[:, []], {x: xv}).shape == xv[:, []].shape
    assert evaluate(x[:, ()], {x: xv}).shape == xv[:, ()].shape
    out = x[NoneConst, :]
    assert isinstance(out.owner.op, DimShuffle) and out.owner.op.new_order == ("x", 0, 1)
    assert evaluate(out, {x: xv}).shape == (1, 2, 2)


def test_tensor_constant_is_a_tensor_variable_as_in_pytensor() -> None:
    """PyMC's CustomDist tests ``isinstance(size, TensorVariable)`` on a constant size
    (``size.type()`` makes its placeholder); PyTensor's TensorConstant subclasses it."""
    size = as_tensor_variable((5,))
    assert isinstance(size, TensorConstant) and isinstance(size, TensorVariable)
    assert isinstance(size, Constant)
    placeholder = size.type()
    assert type(placeholder) is TensorVariable and placeholder.type == size.type
    assert evaluate(size + 1).tolist() == [6]

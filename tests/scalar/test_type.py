"""ScalarType: filtering, equality, tolerances, constants and promotion."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import opgraph.scalar as ps
from opgraph.scalar import ScalarConstant, ScalarType, ScalarVariable, as_scalar, constant, upcast

PROMOTION_DTYPES = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex128",
]


@pytest.mark.parametrize("a, b", list(itertools.product(PROMOTION_DTYPES, repeat=2)))
def test_promotion_table_matches_numpy(a, b):
    expected = np.result_type(np.dtype(a), np.dtype(b)).name
    assert upcast(a, b) == expected
    assert ps.upcast_out(ScalarType(a), ScalarType(b))[0].dtype == expected
    # Ops that follow plain promotion give the same table.
    x, y = ScalarType(a)("x"), ScalarType(b)("y")
    assert ps.maximum(x, y).type.dtype == expected
    assert ps.switch(ps.bool("c"), x, y).type.dtype == expected
    if expected != "bool":
        assert ps.add(x, y).type.dtype == expected
        assert ps.mul(x, y).type.dtype == expected
    if "bool" not in (a, b):
        assert ps.sub(x, y).type.dtype == expected


@pytest.mark.parametrize("a, b", list(itertools.product(PROMOTION_DTYPES, repeat=2)))
def test_division_and_power_dtypes_follow_numpy(a, b):
    x, y = ScalarType(a)("x"), ScalarType(b)("y")
    one_a, one_b = np.ones(1, a), np.ones(1, b)
    assert ps.true_div(x, y).type.dtype == np.true_divide(one_a, one_b).dtype.name
    for op, uf in [(ps.int_div, np.floor_divide), (ps.mod, np.remainder), (ps.pow, np.power)]:
        try:
            expected = uf(one_a, one_b).dtype.name
        except TypeError:
            with pytest.raises(TypeError, match=op.name):
                op(x, y)
            continue
        assert op(x, y).type.dtype == expected, op


@pytest.mark.parametrize("dtype", [*PROMOTION_DTYPES, "float16"])
def test_float_functions_upcast_ints_like_numpy(dtype):
    x = ScalarType(dtype)("x")
    ref = np.exp(np.ones(1, dtype)).dtype.name
    assert ps.exp(x).type.dtype == ref
    if dtype != "complex128":
        assert ps.sigmoid(x).type.dtype == ref
        assert ps.softplus(x).type.dtype == ref
    assert ps.reciprocal(x).type.dtype == ref


def test_type_is_frozen_value():
    assert ScalarType("float64") == ScalarType(np.float64) == ps.float64
    assert hash(ScalarType("int8")) == hash(ps.int8)
    assert str(ps.float32) == "float32"
    assert ps.float64.ndim == 0 and ps.float64.broadcastable == ()
    with pytest.raises(TypeError, match="dtype must be one of"):
        ScalarType("float128x")
    with pytest.raises(TypeError, match="dtype must be one of"):
        ScalarType("object")


def test_constructors_make_variables():
    x = ps.float64("x")
    assert isinstance(x, ScalarVariable) and x.name == "x" and x.type == ps.float64
    assert x.dtype == "float64"
    assert ps.get_scalar_type("int32") is ps.get_scalar_type(np.int32)


class TestFilter:
    def test_exact_numpy_scalar_passes_unchanged(self):
        v = np.float32(1.5)
        assert ps.float32.filter(v, strict=True) is v

    def test_zero_d_array_becomes_scalar(self):
        out = ps.int16.filter(np.array(3, dtype="int16"), strict=True)
        assert isinstance(out, np.int16) and out == 3

    def test_strict_refuses_conversion(self):
        with pytest.raises(TypeError, match=r"strict filter expects a NumPy scalar of dtype"):
            ps.float32.filter(1.5, strict=True)
        with pytest.raises(TypeError, match="float64"):
            ps.float32.filter(np.float64(1.5), strict=True)

    def test_safe_upcast_accepted(self):
        out = ps.float64.filter(np.float32(1.5))
        assert isinstance(out, np.float64) and out == 1.5
        assert isinstance(ps.int64.filter(np.int8(-3)), np.int64)

    def test_downcast_refused_without_flag(self):
        with pytest.raises(TypeError, match="loss of precision"):
            ps.float32.filter(np.float64(0.1))
        with pytest.raises(TypeError, match="int8"):
            ps.int8.filter(np.int64(3))
        out = ps.float32.filter(np.float64(0.1), allow_downcast=True)
        assert isinstance(out, np.float32)

    def test_python_numbers_accepted_when_value_survives(self):
        assert ps.int8.filter(100) == 100
        assert isinstance(ps.int8.filter(100), np.int8)
        assert ps.float32.filter(3) == 3.0
        assert ps.float32.filter(0.5) == 0.5
        assert ps.bool.filter(1) == np.True_
        assert np.isnan(ps.float32.filter(float("nan")))

    def test_python_numbers_refused_when_value_changes(self):
        with pytest.raises(TypeError, match="300"):
            ps.int8.filter(300)
        with pytest.raises(TypeError, match=r"1\.5"):
            ps.int64.filter(1.5)
        with pytest.raises(TypeError, match=r"0\.1"):
            ps.float32.filter(0.1, allow_downcast=False)
        assert ps.int8.filter(300, allow_downcast=True) == np.int8(44)

    def test_python_float_to_floatx_with_default_downcast(self):
        from opgraph.config import change_flags

        with change_flags(floatX="float32"):
            assert isinstance(ps.float32.filter(0.1), np.float32)

    def test_non_numbers_rejected_with_clear_message(self):
        for bad in ["abc", [1, 2], None, object()]:
            with pytest.raises(TypeError, match="expected a number"):
                ps.float64.filter(bad)
        with pytest.raises(TypeError, match=r"shape \(2,\)"):
            ps.float64.filter(np.zeros(2))
        with pytest.raises(TypeError, match="dtype"):
            ps.float64.filter(np.array("x"))


def test_values_eq_approx_tolerance_per_dtype():
    assert ps.float32.values_eq_approx(np.float32(1), np.float32(1 + 1e-6))
    assert not ps.float64.values_eq_approx(1.0, 1.0 + 1e-3)
    assert ps.float16.values_eq_approx(np.float16(1), np.float16(1.001))
    assert ps.float64.values_eq_approx(np.nan, np.nan)
    assert not ps.int64.values_eq_approx(np.int64(1), np.int64(2))
    assert ps.float64.values_eq(np.nan, np.nan)


class TestConstants:
    def test_constant_dtypes_follow_pytensor_autocast(self):
        assert constant(3).type.dtype == "int8"
        assert constant(300).type.dtype == "int16"
        assert constant(2**40).type.dtype == "int64"
        assert constant(2**63).type.dtype == "uint64"
        assert constant(1.5).type.dtype == "float64"
        assert constant(True).type.dtype == "bool"
        assert constant(1j).type.dtype == "complex128"
        assert constant(np.float32(2)).type.dtype == "float32"
        assert constant(3, dtype="float32").type.dtype == "float32"

    def test_constant_data_is_numpy_scalar(self):
        c = constant(2.5, name="c")
        assert isinstance(c, ScalarConstant) and isinstance(c.data, np.float64)
        assert str(c) == "c" and str(constant(2.5)) == "2.5"

    def test_as_scalar(self):
        x = ps.float64("x")
        assert as_scalar(x) is x
        assert as_scalar(x.owner or ps.exp(x).owner).type == ps.float64
        assert isinstance(as_scalar(1), ScalarConstant)
        with pytest.raises(TypeError, match="expected a number or a scalar Variable"):
            as_scalar("x")
        with pytest.raises(TypeError, match="shape"):
            as_scalar(np.zeros(3))
        with pytest.raises(TypeError, match="64 bits"):
            as_scalar(2**70)

    def test_operators_build_graphs(self):
        x, y = ps.float64("x"), ps.float64("y")
        cases = {
            x + y: ps.add, x - y: ps.sub, x * y: ps.mul, x / y: ps.true_div,
            x // y: ps.int_div, x % y: ps.mod, x**y: ps.pow, -x: ps.neg, abs(x): ps.abs,
            x < y: ps.lt, x <= y: ps.le, x > y: ps.gt, x >= y: ps.ge, 2 + x: ps.add,
        }
        for var, op in cases.items():
            assert var.owner.op == op
        b = ps.bool("b")
        assert (b & b).owner.op == ps.and_ and (b | b).owner.op == ps.or_
        assert (b ^ b).owner.op == ps.xor and (~b).owner.op == ps.invert
        assert x.astype("int32").type.dtype == "int32"
        assert (2 - x).owner.inputs[0].data == 2

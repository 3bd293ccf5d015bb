"""PyTensor's remaining scalar names: deg2rad/rad2deg ops, the bit-op bases, output-type
rules, ``convert`` and the re-exports of the scalar package."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph
import opgraph.scalar as ps
import opgraph.scalar.basic as psb
from opgraph.graph.basic import Apply
from opgraph.scalar.basic import ComplexError

from .scalar_eval import evaluate


@pytest.mark.parametrize(("op", "ref"), [(ps.deg2rad, np.deg2rad), (ps.rad2deg, np.rad2deg)])
def test_angle_conversions_match_numpy(op, ref):
    x = ps.float64("x")
    for v in (-720.5, 0.0, 1.0, 33.3):
        np.testing.assert_allclose(evaluate(op(x), {x: v}), ref(v))
    assert op(ps.float32("y")).type == ps.float32
    assert isinstance(psb.deg2rad, psb.Deg2Rad) and psb.Rad2Deg is type(ps.rad2deg)


def test_bit_op_bases_and_aliases():
    assert isinstance(ps.and_, ps.BinaryBitOp) and isinstance(ps.xor, psb.BinaryBitOp)
    assert isinstance(ps.invert, ps.UnaryBitOp)
    assert isinstance(ps.isnan, ps.FixedLogicalComparison)
    assert ps.ScalarMaximum is ps.Maximum and psb.ScalarMinimum is ps.Minimum
    a = ps.float64("a")
    assert isinstance(ps.Composite([a], [ps.exp(a)]), ps.ScalarInnerGraphOp)


def test_output_type_rules():
    b, i8, f32, c64 = ps.bool, ps.int8, ps.float32, ps.complex64
    assert psb.upcast_out_min8(b, b) == (i8,)
    assert psb.upcast_out_min8(i8, f32) == (f32,)
    assert psb.same_out_min8(b) == (i8,) and psb.same_out_min8(f32) == (f32,)
    assert psb.same_out_float_only(f32) == (f32,)
    with pytest.raises(TypeError, match="only float"):
        psb.same_out_float_only(i8)
    assert psb.int_out_nocomplex(f32) == (ps.int64,)
    assert psb.float_out_nocomplex(i8) == (ps.float64,)
    for rule in (psb.int_out_nocomplex, psb.float_out_nocomplex):
        with pytest.raises(TypeError, match="complex"):
            rule(c64)
    assert psb.real_out(c64) == (f32,) and psb.real_out(ps.complex128) == (ps.float64,)
    assert psb.real_out(i8) == (i8,)
    lookup = psb.unary_out_lookup({i8: ps.int32})
    assert lookup(i8) == [ps.int32] and lookup == psb.unary_out_lookup({i8: ps.int32})
    with pytest.raises(TypeError):
        lookup(f32)


def test_an_op_built_with_a_pytensor_rule_has_its_dtypes():
    class Double(psb.UnaryScalarOp):
        nfunc_spec = None

        def impl(self, x):
            return x * 2

    op = Double(psb.same_out_min8, name="double")
    node = op.make_node(ps.bool("b"))
    assert isinstance(node, Apply) and node.outputs[0].type == ps.int8


@pytest.mark.parametrize(("value", "dtype"), [
    (3, "int8"), (300, "int16"), (70_000, "int32"), (2**40, "int64"), (2**63, "uint64"),
    (True, "int8"), (0.5, "float32"), (1.1, "float64"), (1e300, "float64"),
    ([1, 2], "int64"), ([], "float64"),
])
def test_convert_follows_the_autocast_rules(value, dtype):
    out = psb.convert(value)
    assert isinstance(out, np.ndarray) and out.dtype == dtype
    np.testing.assert_array_equal(out, np.asarray(value, dtype=dtype))


def test_convert_with_dtype_and_refusals():
    assert psb.convert(1, dtype="float32").dtype == "float32"
    assert psb.convert(1, dtype="floatX").dtype == opgraph.config.floatX
    with pytest.raises(NotImplementedError, match="masked"):
        psb.convert(np.ma.masked_array([1.0]))


def test_mod_check_and_common_dtype():
    x, y = ps.int32("x"), ps.int32("y")
    assert evaluate(psb.mod_check(x, y), {x: 7, y: -3}) == 7 % -3
    with pytest.raises(ComplexError, match="complex"):
        psb.mod_check(ps.complex64("z"), y)
    a, b = psb.as_common_dtype(ps.int8("a"), ps.float32("b"))
    assert a.type == b.type == ps.float32


def test_scalar_constant_signature_treats_nan_as_equal():
    sig = psb.ScalarConstantSignature
    assert sig((ps.float64, np.nan)) == sig((ps.float64, np.nan))
    assert hash(sig((ps.float64, np.nan))) == hash(sig((ps.float64, np.nan)))
    assert sig((ps.float64, 1.0)) != sig((ps.float32, 1.0))


def test_round_half_away_from_zero_references():
    vals = np.array([-2.5, -0.5, 0.5, 1.5, 2.4])
    np.testing.assert_array_equal(psb.round_half_away_from_zero_vec64(vals),
                                  [-3.0, -1.0, 1.0, 2.0, 2.0])
    assert psb.round_half_away_from_zero_vec32(vals.astype("float32")).dtype == "float32"
    assert psb.round_half_away_from_zero_(-0.5) == -1.0


def test_package_reexports_are_the_core_objects():
    from opgraph.graph.basic import Variable
    from opgraph.graph.op import Op
    from opgraph.utils import difference

    assert ps.Variable is Variable and ps.Op is Op and ps.difference is difference
    assert ps.scalar_abs is ps.abs
    assert ps.special.gamma(4.0) == pytest.approx(6.0)
    assert psb.autocast_int(300) == "int16"
    with pytest.raises(OverflowError):
        psb.autocast_int(2**70)

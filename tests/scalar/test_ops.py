"""Every scalar op against NumPy: values (scalar impl and array ufunc), dtypes, equality."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import opgraph.scalar as ps

from .scalar_eval import evaluate

RNG = np.random.default_rng(0)


def _sigmoid(x):
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x.astype(np.float64)))


def _round_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


# name -> (reference, domain): domain "real", "pos" (>0), "unit" (-1..1), "ge1", "int"
UNARY = {
    "neg": (np.negative, "real"),
    "abs": (np.absolute, "real"),
    "sign": (np.sign, "real"),
    "exp": (np.exp, "real"),
    "exp2": (np.exp2, "real"),
    "expm1": (np.expm1, "real"),
    "log": (np.log, "pos"),
    "log2": (np.log2, "pos"),
    "log10": (np.log10, "pos"),
    "log1p": (np.log1p, "pos"),
    "sqrt": (np.sqrt, "pos"),
    "sqr": (np.square, "real"),
    "reciprocal": (lambda x: 1.0 / x, "pos"),
    "sin": (np.sin, "real"),
    "cos": (np.cos, "real"),
    "tan": (np.tan, "real"),
    "arcsin": (np.arcsin, "unit"),
    "arccos": (np.arccos, "unit"),
    "arctan": (np.arctan, "real"),
    "sinh": (np.sinh, "real"),
    "cosh": (np.cosh, "real"),
    "tanh": (np.tanh, "real"),
    "arcsinh": (np.arcsinh, "real"),
    "arccosh": (np.arccosh, "ge1"),
    "arctanh": (np.arctanh, "unit"),
    "sigmoid": (_sigmoid, "real"),
    "softplus": (lambda x: np.logaddexp(0, x.astype(np.float64)), "real"),
    "floor": (np.floor, "real"),
    "ceil": (np.ceil, "real"),
    "trunc": (np.trunc, "real"),
    "round_half_to_even": (np.round, "real"),
    "round_half_away_from_zero": (_round_away, "real"),
    "isnan": (np.isnan, "real"),
    "isinf": (np.isinf, "real"),
    "identity": (lambda x: x, "real"),
}

BINARY = {
    "add": (np.add, "real"),
    "sub": (np.subtract, "real"),
    "mul": (np.multiply, "real"),
    "true_div": (np.true_divide, "nonzero"),
    "int_div": (np.floor_divide, "nonzero"),
    "mod": (np.remainder, "nonzero"),
    "pow": (np.power, "pow"),
    "maximum": (np.maximum, "real"),
    "minimum": (np.minimum, "real"),
    "arctan2": (np.arctan2, "real"),
    "eq": (np.equal, "real"),
    "neq": (np.not_equal, "real"),
    "lt": (np.less, "real"),
    "le": (np.less_equal, "real"),
    "gt": (np.greater, "real"),
    "ge": (np.greater_equal, "real"),
    "second": (lambda x, y: y, "real"),
}

BITWISE = {"and_": np.bitwise_and, "or_": np.bitwise_or, "xor": np.bitwise_xor}

FLOAT_EDGES = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1e-8, 30.0, -30.0])
SPECIAL = np.array([np.inf, -np.inf, np.nan])


def _values(domain: str, dtype: str, n: int = 40) -> np.ndarray:
    kind = np.dtype(dtype).kind
    if kind in "iu":
        lo = 0 if kind == "u" or domain in ("pos", "ge1") else -50
        vals = RNG.integers(max(lo, 1) if domain in ("pos", "nonzero", "ge1") else lo, 50, n)
        if domain == "unit":
            vals = RNG.integers(0 if kind == "u" else -1, 2, n)
        if domain == "nonzero" and kind == "i":
            vals = vals * RNG.choice([-1, 1], n)
        if domain == "pow":
            vals = RNG.integers(0, 4, n)
        return vals.astype(dtype)
    if domain == "pos":
        vals = np.concatenate([RNG.uniform(1e-3, 20, n), [1e-8, 1.0, 0.0, np.inf, np.nan]])
    elif domain == "unit":
        vals = np.concatenate([RNG.uniform(-0.999, 0.999, n), [0.0, -0.0, 1.0, -1.0, np.nan]])
    elif domain == "ge1":
        vals = np.concatenate([RNG.uniform(1.0, 20, n), [1.0, np.inf, np.nan]])
    elif domain == "nonzero":
        vals = np.concatenate([RNG.uniform(0.1, 20, n) * RNG.choice([-1, 1], n), [np.inf]])
    elif domain == "pow":
        vals = np.concatenate([RNG.uniform(0.1, 4, n), [0.0, 1.0, 2.0]])
    else:
        vals = np.concatenate([RNG.normal(0, 5, n), FLOAT_EDGES, SPECIAL])
    return vals.astype(dtype)


def _check(op_var, inputs, arrays, reference):
    """Scalar impl (via perform), array ufunc and reference agree, in the declared dtype."""
    dtype = op_var.type.dtype
    op = op_var.owner.op
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected = np.asarray(reference(*arrays))
        got_arr = np.asarray(op.ufunc(*arrays))
        assert got_arr.dtype == dtype, (op, got_arr.dtype, dtype)
        got_scalars = [
            evaluate(op_var, dict(zip(inputs, vals))) for vals in zip(*np.broadcast_arrays(*arrays))
        ]
    expected = np.broadcast_to(expected, got_arr.shape)
    kind = np.dtype(dtype).kind
    if kind in "fc":
        rtol = 2e-3 if dtype == "float16" else (2e-5 if dtype == "float32" else 1e-12)
        np.testing.assert_allclose(got_arr, expected.astype(dtype), rtol=rtol, atol=rtol)
        np.testing.assert_allclose(np.array(got_scalars, dtype), got_arr, rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(got_arr, expected)
        np.testing.assert_array_equal(np.array(got_scalars, dtype), got_arr)
    for v in got_scalars:
        assert isinstance(v, np.generic) and v.dtype == dtype


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "uint8"])
def test_unary_ops_match_numpy(name, dtype):
    reference, domain = UNARY[name]
    op = getattr(ps, name)
    x = ps.get_scalar_type(dtype)("x")
    out = op(x)
    _check(out, [x], [_values(domain, dtype)], reference)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize(
    "dtypes", [("float64", "float64"), ("float32", "float32"), ("int32", "float32"),
               ("int8", "int16"), ("uint8", "int8")],
)
def test_binary_ops_match_numpy(name, dtypes):
    reference, domain = BINARY[name]
    op = getattr(ps, name)
    x, y = (ps.get_scalar_type(d)(n) for d, n in zip(dtypes, "xy"))
    out = op(x, y)
    a = _values("real" if domain != "pow" else "pow", dtypes[0])
    b = _values(domain if domain != "pow" else "pow", dtypes[1])
    n = min(len(a), len(b))
    _check(out, [x, y], [a[:n], b[:n]], reference)


@pytest.mark.parametrize("name", sorted(BITWISE))
@pytest.mark.parametrize("dtypes", [("bool", "bool"), ("int8", "int8"), ("uint16", "int32")])
def test_bitwise_ops_match_numpy(name, dtypes):
    x, y = (ps.get_scalar_type(d)(n) for d, n in zip(dtypes, "xy"))
    a = RNG.integers(0, 2 if dtypes[0] == "bool" else 100, 30).astype(dtypes[0])
    b = RNG.integers(0, 2 if dtypes[1] == "bool" else 100, 30).astype(dtypes[1])
    _check(getattr(ps, name)(x, y), [x, y], [a, b], BITWISE[name])


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint32"])
def test_invert_matches_numpy(dtype):
    x = ps.get_scalar_type(dtype)("x")
    a = RNG.integers(0, 2 if dtype == "bool" else 100, 30).astype(dtype)
    _check(ps.invert(x), [x], [a], np.invert)


def test_variadic_add_and_mul():
    x, y, z = ps.int8("x"), ps.uint8("y"), ps.float16("z")
    for op, ref in [(ps.add, lambda a, b, c: a + b + c), (ps.mul, lambda a, b, c: a * b * c)]:
        out = op(x, y, z)
        ones = [np.ones(1, d) for d in ("int8", "uint8", "float16")]
        assert out.type.dtype == ((ones[0] + ones[1]) + ones[2]).dtype
        arrays = [np.array([1, -2, 3], "int8"), np.array([4, 5, 6], "uint8"),
                  np.array([0.5, 1.5, 2.5], "float16")]
        _check(out, [x, y, z], arrays, ref)


def test_clip_and_switch():
    x, lo, hi = ps.float64("x"), ps.float32("lo"), ps.int8("hi")
    out = ps.clip(x, lo, hi)
    assert out.type.dtype == "float64"
    xs = np.array([-5.0, 0.0, 0.5, 3.0, np.nan, np.inf])
    _check(out, [x, lo, hi], [xs, np.float32(0.25), np.int8(2)], np.clip)
    c, a, b = ps.bool("c"), ps.int32("a"), ps.float32("b")
    out = ps.switch(c, a, b)
    assert out.type.dtype == "float64"
    _check(out, [c, a, b], [np.array([True, False, True]), np.arange(3, dtype="int32"),
                            np.full(3, 0.5, "float32")], np.where)


@pytest.mark.parametrize("src", ["float64", "float32", "int64", "bool", "uint8"])
@pytest.mark.parametrize("dst", ["int8", "float32", "bool", "uint16", "complex128", "float64"])
def test_cast(src, dst):
    x = ps.get_scalar_type(src)("x")
    out = ps.cast(x, dst)
    if src == dst:
        assert out is x
        return
    assert out.type.dtype == dst
    assert out.owner.op == getattr(ps, f"convert_to_{dst}") == ps.Cast(ps.get_scalar_type(dst))
    vals = _values("real", src) if src != "bool" else np.array([True, False])
    vals = vals[np.isfinite(vals)] if vals.dtype.kind == "f" else vals
    _check(out, [x], [vals], lambda a: a.astype(dst))


def test_round_is_half_to_even():
    assert ps.round is ps.round_half_to_even
    x = ps.float64("x")
    vals = [evaluate(ps.round(x), {x: v}) for v in [0.5, 1.5, 2.5, -0.5, -1.5]]
    assert vals == [0.0, 2.0, 2.0, -0.0, -2.0]
    vals = [evaluate(ps.round_half_away_from_zero(x), {x: v}) for v in [0.5, 1.5, 2.5, -0.5]]
    assert vals == [1.0, 2.0, 3.0, -1.0]


def test_sigmoid_softplus_stable_at_extremes():
    x = ps.float64("x")
    assert evaluate(ps.sigmoid(x), {x: 800.0}) == 1.0
    assert evaluate(ps.sigmoid(x), {x: -745.0}) >= 0.0
    assert evaluate(ps.softplus(x), {x: 800.0}) == 800.0
    assert evaluate(ps.softplus(x), {x: -800.0}) == 0.0


class TestEquality:
    def test_instances_compare_by_value(self):
        assert ps.add == ps.Add() and hash(ps.add) == hash(ps.Add())
        assert ps.add != ps.mul and ps.exp != ps.log
        assert ps.Cast(ps.float32) == ps.convert_to_float32
        assert ps.Cast(ps.float32) != ps.Cast(ps.float64)
        assert ps.Add(ps.upcast_out) != ps.add  # different output rule
        assert ps.Add(ps.upcast_out) == ps.Add(ps.upcast_out)
        assert len({ps.add, ps.Add(), ps.mul, ps.Mul()}) == 2
        assert ps.maximum != ps.minimum and not isinstance(ps.minimum, ps.Maximum)

    def test_pickle_roundtrip_keeps_equality(self):
        for op in [ps.add, ps.exp, ps.convert_to_int8, ps.switch, ps.sigmoid]:
            assert pickle.loads(pickle.dumps(op)) == op

    def test_flags_and_specs(self):
        assert ps.add.commutative and ps.add.associative and ps.add.identity == 0
        assert ps.mul.identity == 1 and not ps.sub.commutative
        assert ps.add.nin == -1 and ps.sub.nin == 2 and ps.exp.nin == 1 and ps.exp.nout == 1
        assert ps.exp.nfunc_spec == ("exp", 1, 1) and ps.exp.ufunc is np.exp
        assert ps.true_div.nfunc_spec == ("true_divide", 2, 1)

    def test_output_types(self):
        assert ps.exp.output_types([ps.int8]) == [ps.float16]
        assert ps.lt.output_types([ps.float32, ps.int64]) == [ps.bool]


class TestBadInput:
    def test_wrong_number_of_inputs(self):
        with pytest.raises(TypeError, match=r"sub takes 2 inputs, got 1"):
            ps.sub(ps.float64())
        with pytest.raises(TypeError, match="at least one input"):
            ps.add()

    def test_unsupported_dtypes_name_the_op_and_dtypes(self):
        with pytest.raises(TypeError, match=r"floor: inputs of dtypes \(complex128\)"):
            ps.floor(ps.complex128())
        with pytest.raises(TypeError, match=r"and_.*float64"):
            ps.and_(ps.float64(), ps.float64())
        with pytest.raises(TypeError, match=r"neg.*bool"):
            ps.neg(ps.bool())

    def test_non_numeric_input(self):
        with pytest.raises(TypeError, match=r"add: input 1.*str"):
            ps.add(ps.float64(), "a")

    def test_cast_needs_scalar_type(self):
        with pytest.raises(TypeError, match="o_type must be a ScalarType"):
            ps.Cast("float64")


def test_op_defining_only_impl_gets_an_array_ufunc():
    """A PyTensor-style op (impl only) still runs over arrays, in its declared dtype."""

    class Cube(ps.UnaryScalarOp):
        def impl(self, x):
            return x * x * x

    cube = Cube(ps.same_out, name="cube")
    x = ps.int16("x")
    _check(cube(x), [x], [np.arange(-3, 4, dtype="int16")], lambda a: a**3)
    assert cube == Cube(ps.same_out) and cube != Cube(ps.upgrade_to_float)

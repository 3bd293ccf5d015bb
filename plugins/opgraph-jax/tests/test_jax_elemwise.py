"""The scalar table: every elementwise function against the Python linker (one graph each)."""

from __future__ import annotations

import numpy as np
import pytest
from jax_helpers import compare_with_py
from opgraph.link.jax.dispatch import JAXUnsupportedOpError, jax_funcify
from opgraph.link.jax.dispatch.scalar import SCALAR_TABLE, scalar_function

import opgraph.tensor as pt
from opgraph import function
from opgraph.scalar.basic import ScalarOp
from opgraph.scalar.math import Sigmoid

RNG = np.random.default_rng(0)
POS = RNG.uniform(0.1, 0.9, size=(3, 4))  # inside every domain below (log, arcsin, ...)
ANY = RNG.normal(size=(3, 4))
INTS = RNG.integers(-5, 6, size=(3, 4))
BIG = RNG.uniform(1.1, 3.0, size=(3, 4))

UNARY = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "sin", "cos",
         "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arctanh",
         "sigmoid", "softplus", "abs", "neg", "sqr", "sign", "floor", "ceil", "trunc",
         "reciprocal", "round_half_to_even", "round_half_away_from_zero", "log1mexp"]
BINARY = ["add", "sub", "mul", "true_div", "maximum", "minimum", "pow", "arctan2",
          "eq", "neq", "lt", "le", "gt", "ge"]


def test_unary_float_functions() -> None:
    x = pt.matrix("x")
    outs = [getattr(pt, name)(-x if name == "log1mexp" else x) for name in UNARY]
    compare_with_py([x], outs, [POS], names=UNARY)


def test_arccosh_on_its_domain() -> None:
    x = pt.matrix("x")
    compare_with_py([x], pt.arccosh(x), [BIG])


def test_binary_functions() -> None:
    x, y = pt.matrix("x"), pt.matrix("y")
    outs = [getattr(pt, name)(x, y) for name in BINARY]
    compare_with_py([x, y], outs, [POS, POS[::-1]], names=BINARY)


def test_integer_functions_keep_numpy_dtypes() -> None:
    names = ["int_div", "mod", "bitwise_and", "bitwise_or", "bitwise_xor", "maximum",
             "true_div"]
    x, y = pt.matrix("x", dtype="int64"), pt.matrix("y", dtype="int64")
    y_vals = np.where(INTS == 0, 3, INTS)
    compare_with_py([x, y], [getattr(pt, n)(x, y) for n in names], [INTS, y_vals], names=names)


def test_variadic_add_and_mul_fold_over_all_inputs() -> None:
    x, y, z = pt.vectors("x", "y", "z")
    vals = [ANY[0], ANY[1], ANY[2]]
    compare_with_py([x, y, z], [pt.add(x, y, z), pt.mul(x, y, z)], vals)


def test_switch_clip_cast_and_broadcasting() -> None:
    x = pt.matrix("x")
    r = pt.row("r")
    out = [pt.switch(x > 0, x, r), pt.clip(x, -0.5, 0.5), pt.cast(x * 10, "int32"), x + r]
    compare_with_py([x, r], out, [ANY, ANY[:1]])


def test_composite_from_fusion_is_translated_as_one_function() -> None:
    x = pt.vector("x")
    from_fast_run = pt.exp(x) * 2 + pt.sin(x) ** 2
    compare_with_py([x], from_fast_run, [ANY[0]])


def test_runtime_broadcasting_is_refused_as_by_the_python_linker() -> None:
    x, y = pt.matrix("x"), pt.matrix("y")
    f = function([x, y], x + y, mode="JAX")
    with pytest.raises(ValueError, match="Runtime broadcasting not allowed"):
        f(np.ones((3, 4)), np.ones((1, 4)))


def test_the_scalar_table_is_what_elemwise_compiles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(SCALAR_TABLE, Sigmoid, lambda x: x * 0 + 7.0)
    x = pt.vector("x")
    np.testing.assert_array_equal(function([x], pt.sigmoid(x), mode="JAX")(ANY[0]), 7.0)


def test_a_scalar_op_without_translation_names_itself() -> None:
    class Mystery(ScalarOp):
        nin, nout = 1, 1

    with pytest.raises(JAXUnsupportedOpError, match="Mystery"):
        scalar_function(Mystery(lambda *t: t))
    with pytest.raises(JAXUnsupportedOpError, match="Mystery"):
        jax_funcify(Mystery(lambda *t: t))

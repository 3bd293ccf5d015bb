"""Values and dtypes: every tensor function agrees with SciPy, through a compiled function."""

from __future__ import annotations

import numpy as np
import opgraph_special as special
import pytest
import scipy.special as sc
from conftest import DOMAINS, compile_py
from hypothesis import given, settings
from hypothesis import strategies as st
from opgraph_special import scalar as s

import opgraph.tensor as pt


@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_matches_scipy_on_arrays(name: str, rng: np.random.Generator) -> None:
    nin, draw = DOMAINS[name]
    values = draw(rng, 50)
    xs = [pt.dvector(f"x{i}") for i in range(nin)]
    fn = compile_py(xs, getattr(special, name)(*xs))
    np.testing.assert_allclose(fn(*values), getattr(sc, name)(*values), rtol=1e-12, atol=0)


@pytest.mark.parametrize("name", sorted(DOMAINS))
@pytest.mark.parametrize("dtype", ["float32", "int16", "int64", "bool"])
def test_declared_dtype_is_computed_dtype(name: str, dtype: str) -> None:
    nin, _ = DOMAINS[name]
    xs = [pt.tensor(dtype=dtype, shape=(None,), name=f"x{i}") for i in range(nin)]
    out = getattr(special, name)(*xs)
    values = [np.ones(3, dtype=dtype) for _ in range(nin)]
    expected = np.asarray(getattr(sc, name)(*values)).dtype
    assert out.type.dtype == expected.name
    assert compile_py(xs, out)(*values).dtype == expected


def test_complex_inputs_are_refused_with_a_clear_error() -> None:
    with pytest.raises(TypeError, match="real inputs only, got complex128"):
        special.erf(pt.zvector("z"))


def test_scalar_impl_on_one_element() -> None:
    assert s.erf.impl(np.float64(0.5)) == pytest.approx(sc.erf(0.5), rel=1e-15)
    assert s.betaln.impl(np.float64(2.0), np.float64(3.0)) == pytest.approx(
        sc.betaln(2.0, 3.0), rel=1e-15
    )


def test_broadcasting_two_input_functions(rng: np.random.Generator) -> None:
    x, y = pt.dmatrix("x"), pt.drow("y")
    fn = compile_py([x, y], special.xlogy(x, y))
    a, b = rng.uniform(0, 2, (4, 3)), rng.uniform(0.5, 2, (1, 3))
    np.testing.assert_allclose(fn(a, b), sc.xlogy(a, b), rtol=1e-12)


def test_xlogy_is_zero_where_x_is_zero() -> None:
    x, y = pt.dvector("x"), pt.dvector("y")
    fn = compile_py([x, y], [special.xlogy(x, y), special.xlog1py(x, y)])
    a, b = fn(np.array([0.0, 0.0]), np.array([0.0, -1.0]))
    np.testing.assert_array_equal(a, [0.0, 0.0])
    np.testing.assert_array_equal(b, [0.0, 0.0])


def test_polygamma_matches_scipy(rng: np.random.Generator) -> None:
    n, x = pt.lscalar("n"), pt.dvector("x")
    fn = compile_py([n, x], special.polygamma(n, x))
    values = rng.uniform(0.5, 4, 10)
    for order in (0, 1, 3):
        np.testing.assert_allclose(fn(order, values), sc.polygamma(order, values), rtol=1e-12)


def test_polygamma_order_must_be_an_integer() -> None:
    with pytest.raises(TypeError, match="n must be an integer"):
        special.polygamma(pt.dscalar("n"), pt.dvector("x"))


@settings(max_examples=40, deadline=None)
@given(st.floats(-1e3, 1e3, allow_nan=False))
def test_erf_plus_erfc_is_one(value: float) -> None:
    total = s.erf.impl(np.float64(value)) + s.erfc.impl(np.float64(value))
    assert total == pytest.approx(1.0, abs=1e-15)


@settings(max_examples=40, deadline=None)
@given(st.floats(-0.999, 0.999))
def test_erfinv_inverts_erf(value: float) -> None:
    assert s.erf.impl(s.erfinv.impl(np.float64(value))) == pytest.approx(value, abs=1e-12)

"""Pullback and pushforward of every function against central finite differences."""

from __future__ import annotations

import numpy as np
import opgraph_special as special
import pytest
import scipy.special as sc
from conftest import DOMAINS, compile_py

import opgraph.tensor as pt
from opgraph.gradient import Rop, grad, verify_grad


@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_pullback_matches_finite_differences(name: str, rng: np.random.Generator) -> None:
    _nin, draw = DOMAINS[name]
    verify_grad(getattr(special, name), draw(rng, 5), rng=rng, mode="FAST_COMPILE")


def _central_difference(f, values, direction, eps=1e-6):
    plus = f(*[v + eps * d for v, d in zip(values, direction)])
    minus = f(*[v - eps * d for v, d in zip(values, direction)])
    return (plus - minus) / (2 * eps)


@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_pushforward_matches_finite_differences(name: str, rng: np.random.Generator) -> None:
    nin, draw = DOMAINS[name]
    values = draw(rng, 6)
    direction = [rng.normal(size=6) for _ in range(nin)]
    xs = [pt.dvector(f"x{i}") for i in range(nin)]
    ts = [pt.dvector(f"t{i}") for i in range(nin)]
    jvp = compile_py([*xs, *ts], Rop(getattr(special, name)(*xs), xs, ts))
    expected = _central_difference(getattr(sc, name), values, direction)
    np.testing.assert_allclose(jvp(*values, *direction), expected, rtol=1e-5, atol=1e-7)


def test_second_derivatives_go_through_polygamma(rng: np.random.Generator) -> None:
    x = pt.dscalar("x")
    g2 = grad(grad(special.gammaln(x), x), x)  # trigamma
    g3 = grad(grad(special.digamma(x), x), x)  # polygamma(2, x)
    fn = compile_py([x], [g2, g3])
    for value in (0.7, 2.5):
        a, b = fn(value)
        assert a == pytest.approx(sc.polygamma(1, value), rel=1e-12)
        assert b == pytest.approx(sc.polygamma(2, value), rel=1e-12)


def test_i1_derivative_at_zero_is_one_half() -> None:
    x = pt.dvector("x")
    fn = compile_py([x], grad(special.i1(x).sum(), x))
    np.testing.assert_allclose(fn(np.array([0.0, 1e-300])), [0.5, 0.5])


def test_log_ndtr_gradient_is_finite_in_the_far_tail() -> None:
    x = pt.dvector("x")
    fn = compile_py([x], grad(special.log_ndtr(x).sum(), x))
    values = np.array([-40.0, -20.0])
    # d/dx log Phi(x) ~ -x for x -> -inf
    np.testing.assert_allclose(fn(values), -values, rtol=1e-2)


def test_integer_inputs_get_a_zero_gradient() -> None:
    n = pt.ivector("n")
    x = pt.dvector("x")
    (g,) = grad(special.polygamma(pt.constant(1, dtype="int64"), x).sum() +
                pt.cast(special.erf(n).sum(), "float64"), [n],
                disconnected_inputs="ignore", return_disconnected="zero")
    fn = compile_py([n, x], g, on_unused_input="ignore")
    np.testing.assert_array_equal(fn(np.array([1, 2], dtype="int32"), np.ones(2)), [0.0, 0.0])

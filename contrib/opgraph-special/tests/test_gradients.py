"""Pullback and pushforward of every function against central finite differences."""

from __future__ import annotations

import numpy as np
import opgraph_special as special
import pytest
import scipy.special as sc
from conftest import DIFFERENTIABLE, DOMAINS, compile_py

import opgraph.tensor as pt
from opgraph.gradient import Rop, grad, verify_grad


def _fixing_others(fn, values, keep):
    """``fn`` as a function of the inputs in ``keep`` only, the others held at ``values``."""

    def partial(*free):
        args = list(values)
        for i, v in zip(keep, free):
            args[i] = v
        return fn(*args)

    return partial


@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_pullback_matches_finite_differences(name: str, rng: np.random.Generator) -> None:
    nin, draw = DOMAINS[name]
    values = draw(rng, 5)
    keep = DIFFERENTIABLE.get(name, tuple(range(nin)))
    fn = _fixing_others(getattr(special, name), [pt.constant(v) for v in values], keep)
    verify_grad(fn, [values[i] for i in keep], rng=rng, mode="FAST_COMPILE")


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_gradient_of_an_order_or_shape_parameter_is_not_implemented(name: str) -> None:
    nin, _draw = DOMAINS[name]
    xs = [pt.dvector(f"x{i}") for i in range(nin)]
    out = getattr(special, name)(*xs).sum()
    frozen = next(i for i in range(nin) if i not in DIFFERENTIABLE[name])
    with pytest.raises(Exception, match="not implemented"):
        grad(out, xs[frozen])


def _central_difference(f, values, direction, eps=1e-6):
    plus = f(*[v + eps * d for v, d in zip(values, direction)])
    minus = f(*[v - eps * d for v, d in zip(values, direction)])
    return (plus - minus) / (2 * eps)


@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_pushforward_matches_finite_differences(name: str, rng: np.random.Generator) -> None:
    nin, draw = DOMAINS[name]
    values = draw(rng, 6)
    keep = DIFFERENTIABLE.get(name, tuple(range(nin)))
    direction = [rng.normal(size=6) if i in keep else np.zeros(6) for i in range(nin)]
    xs = [pt.dvector(f"x{i}") for i in range(nin)]
    ts = [pt.dvector(f"t{i}") for i in keep]
    jvp = compile_py([*xs, *ts], Rop(getattr(special, name)(*xs), [xs[i] for i in keep], ts))
    expected = _central_difference(getattr(sc, name), values, direction)
    got = jvp(*values, *[direction[i] for i in keep])
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7)


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

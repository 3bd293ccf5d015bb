"""PyTensor's extra math names: NumPy aliases and compositions, values and gradients."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.gradient import grad
from opgraph.tensor import math_names as mn

from .helpers import check_derivatives, evaluate

rng = np.random.default_rng(2)


def test_aliases_are_the_same_ops() -> None:
    assert mn.greater is pt.gt and mn.less_equal is pt.le and mn.not_equal is pt.neq
    assert mn.expit is pt.sigmoid and mn.log1pexp is pt.softplus and mn.sgn is pt.sign


def test_float_classification() -> None:
    x = pt.dvector("x")
    v = np.array([1.0, -np.inf, np.inf, np.nan, 0.0])
    np.testing.assert_array_equal(evaluate(mn.isfinite(x), {x: v}), np.isfinite(v))
    np.testing.assert_array_equal(evaluate(mn.isposinf(x), {x: v}), np.isposinf(v))
    np.testing.assert_array_equal(evaluate(mn.isneginf(x), {x: v}), np.isneginf(v))
    np.testing.assert_allclose(evaluate(mn.rad2deg(mn.deg2rad(x)), {x: v[[0, 4]]}), v[[0, 4]])


def test_integer_helpers() -> None:
    i, j = pt.lvector("i"), pt.lvector("j")
    iv, jv = np.array([7, -7, 6, 0, -1]), np.array([2, 2, 3, 5, 4])
    np.testing.assert_array_equal(evaluate(mn.ceil_intdiv(i, j), {i: iv, j: jv}), -(-iv // jv))
    q, r = evaluate(list(mn.divmod(i, j)), {i: iv, j: jv})
    np.testing.assert_array_equal(q, np.divmod(iv, jv)[0])
    np.testing.assert_array_equal(r, np.divmod(iv, jv)[1])
    x = pt.dvector("x")
    np.testing.assert_array_equal(evaluate(mn.iround(x), {x: np.array([0.5, 1.5, -2.5])}),
                                  [1, 2, -3])
    a, b, c = pt.dvectors("a", "b", "c")
    vals = {a: np.array([1.0, 5.0]), b: np.array([3.0, 2.0]), c: np.array([2.0, 4.0])}
    np.testing.assert_array_equal(evaluate(mn.largest(a, b, c), vals), [3.0, 5.0])
    np.testing.assert_array_equal(evaluate(mn.smallest(a, b, c), vals), [1.0, 2.0])


def test_logaddexp_values_and_gradient_at_extremes() -> None:
    x, y = pt.dvector("x"), pt.dvector("y")
    xv = np.array([1.0, -np.inf, 800.0, -800.0, 0.0])
    yv = np.array([2.0, -np.inf, 800.0, -801.0, -1e-300])
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(evaluate(mn.logaddexp(x, y), {x: xv, y: yv}),
                                   np.logaddexp(xv, yv))
    finite = [0, 2, 3, 4]
    g = evaluate(grad(mn.logaddexp(x, y).sum(), x), {x: xv[finite], y: yv[finite]})
    want = 1.0 / (1.0 + np.exp(yv[finite] - xv[finite]))
    np.testing.assert_allclose(g, want)
    check_derivatives(lambda p, q: mn.logaddexp(p, q), [rng.normal(size=3),
                                                        rng.normal(size=3)], rng)


def test_log1mexp_is_accurate_and_its_gradient_finite() -> None:
    z = pt.dvector("z")
    zv = np.array([-1e-20, -1e-5, -0.1, -1.0, -50.0, -800.0])
    want = np.array([float(np.log(-np.expm1(v))) if v > -1 else float(np.log1p(-np.exp(v)))
                     for v in zv])
    np.testing.assert_allclose(evaluate(pt.log1mexp(z), {z: zv}), want, rtol=1e-12)
    g = evaluate(grad(pt.log1mexp(z).sum(), z), {z: zv})
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g, -1.0 / np.expm1(-zv), rtol=1e-10)


def test_products() -> None:
    a, b, c = pt.dtensor3("a"), pt.dvector("b"), pt.dvector("c")
    av, bv, cv = rng.normal(size=(2, 3, 4)), rng.normal(size=4), rng.normal(size=3)
    np.testing.assert_allclose(evaluate(mn.matvec(a, b), {a: av, b: bv}), av @ bv)
    np.testing.assert_allclose(evaluate(mn.vecmat(c, a), {c: cv, a: av}),
                               np.einsum("j,bjk->bk", cv, av))
    np.testing.assert_allclose(evaluate(mn.vecdot(a, b), {a: av, b: bv}), np.sum(av * bv, -1))


@pytest.mark.parametrize(("rowvar", "bias", "ddof"), [(True, False, None), (False, True, None),
                                                      (True, False, 0)])
def test_cov(rowvar: bool, bias: bool, ddof: int | None) -> None:
    m, y = pt.dmatrix("m"), pt.dmatrix("y")
    mv, yv = rng.normal(size=(3, 5)), rng.normal(size=(3, 5))
    got = evaluate(mn.cov(m, rowvar=rowvar, bias=bias, ddof=ddof), {m: mv})
    np.testing.assert_allclose(got, np.cov(mv, rowvar=rowvar, bias=bias, ddof=ddof))
    got = evaluate(mn.cov(m, y, rowvar=rowvar), {m: mv, y: yv})
    np.testing.assert_allclose(got, np.cov(mv, yv, rowvar=rowvar))
    with pytest.raises(NotImplementedError, match="fweights"):
        mn.cov(m, fweights=np.ones(5))

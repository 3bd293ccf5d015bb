"""The structural linalg rewrites (inv_of_inv, det_of_kronecker, ...): each fires under its
PyTensor name and keeps values and gradients (FAST_RUN vs the unrewritten graph and finite
differences through ``check_rewrite``; FAST_COMPILE vs the unrewritten graph)."""

from __future__ import annotations

import numpy as np
import opgraph_linalg as la
import pytest
from test_rewrite_gradients import PLAIN, _core_names, _illcond, check_rewrite

import opgraph
import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode, get_mode
from opgraph.graph.rewriting.utils import rewrite_graph

FAST_COMPILE = Mode(linker="py", optimizer=get_mode("FAST_COMPILE").optimizer)


def _same_in_fast_compile(inputs, out, vals, rng):
    """FAST_COMPILE values and gradients equal the unrewritten graph's."""
    grads = opgraph.grad(pt.sum(out * out), inputs)
    got = function(inputs, [out, *grads], mode=FAST_COMPILE)(*vals)
    want = function(inputs, [out, *grads], mode=PLAIN)(*vals)
    for g, e in zip(got, want):
        np.testing.assert_allclose(g, e, rtol=1e-7, atol=1e-9 * max(1.0, np.abs(e).max()))


def _spd(rng, n):
    x = rng.standard_normal((n, n))
    return x @ x.T + n * np.eye(n)


@pytest.mark.parametrize("first", [la.inv, la.pinv])
@pytest.mark.parametrize("second", [la.inv, la.pinv])
def test_inv_of_inv(rng, first, second):
    x = pt.dmatrix("x")
    out = second(first(x))
    assert rewrite_graph(out, include=("canonicalize",)) is x
    vals = [_illcond(rng, 4, cond=10.0)]
    check_rewrite([x], out, vals, rng, gone="MatrixInverse")
    _same_in_fast_compile([x], out, vals, rng)


def test_transpose_of_inv_moves_the_transpose_onto_the_input(rng):
    x = pt.dtensor3("x")
    out = pt.swapaxes(la.inv(x), -1, -2)
    rewritten = rewrite_graph(out, include=("canonicalize",))
    assert rewritten.owner.op.core_op.__class__.__name__ == "MatrixInverse"
    vals = [np.stack([_illcond(rng, 3, cond=10.0) for _ in range(2)])]
    check_rewrite([x], out, vals, rng)
    _same_in_fast_compile([x], out, vals, rng)


def test_det_of_inv(rng):
    x = pt.dmatrix("x")
    out = la.det(la.inv(x))
    vals = [_illcond(rng, 4, cond=10.0)]
    check_rewrite([x], out, vals, rng, gone="MatrixInverse")
    _same_in_fast_compile([x], out, vals, rng)


@pytest.mark.parametrize("summary", ["det", "slogdet"])
def test_det_of_kronecker(rng, summary):
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    k = la.kron(a, b)
    out = la.det(k) if summary == "det" else la.slogdet(k)[1]
    vals = [_illcond(rng, 3, cond=5.0), _illcond(rng, 2, cond=5.0)]
    check_rewrite([a, b], out, vals, rng, gone="KroneckerProduct")
    _same_in_fast_compile([a, b], out, vals, rng)
    sign = function([a, b], la.slogdet(k)[0], mode="FAST_RUN")
    np.testing.assert_allclose(sign(*vals), np.linalg.slogdet(np.kron(*vals))[0])


def test_diag_of_kronecker(rng):
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    out = pt.diagonal(la.kron(a, b))
    vals = [rng.standard_normal((3, 3)), rng.standard_normal((4, 4))]
    check_rewrite([a, b], out, vals, rng, gone="KroneckerProduct")
    _same_in_fast_compile([a, b], out, vals, rng)


def test_diag_of_kronecker_of_non_square_factors_raises_instead_of_a_wrong_value(rng):
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    f = function([a, b], pt.diagonal(la.kron(a, b)), mode="FAST_RUN")
    assert "KroneckerProduct" not in _core_names(f)
    with pytest.raises(AssertionError, match="must be square"):
        f(rng.standard_normal((2, 3)), rng.standard_normal((3, 2)))


@pytest.mark.parametrize("build", [la.kron, la.block_diag])
@pytest.mark.parametrize("func", ["inv", "pinv", "cholesky"])
def test_lift_linalg_of_expanded_matrices(rng, build, func):
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    out = getattr(la, func)(build(a, b))
    vals = [_spd(rng, 3), _spd(rng, 2)]
    f = function([a, b], out, mode="FAST_RUN")
    assert sum(n in ("MatrixInverse", "MatrixPinv", "Cholesky") for n in _core_names(f)) == 2
    if func != "cholesky":  # cholesky's gradient reads one triangle: FAST_COMPILE below
        check_rewrite([a, b], out, vals, rng)
    _same_in_fast_compile([a, b], out, vals, rng)
    np.testing.assert_allclose(f(*vals), function([a, b], out, mode=PLAIN)(*vals), atol=1e-12)


@pytest.mark.parametrize("kind", ["solve", "triangular", "unit", "cho_solve"])
@pytest.mark.parametrize("b_ndim", [1, 2])
def test_scalar_solve_to_division(rng, kind, b_ndim):
    a = pt.tensor("a", shape=(3, 1, 1), dtype="float64")
    b = pt.tensor("b", shape=(None,) * b_ndim, dtype="float64")
    if kind == "cho_solve":
        out = la.cho_solve((a, True), b, b_ndim=b_ndim)
    elif kind == "solve":
        out = la.solve(a, b, b_ndim=b_ndim)
    else:
        out = la.solve_triangular(a, b, b_ndim=b_ndim, unit_diagonal=kind == "unit")
    a0 = rng.uniform(0.5, 2.0, size=(3, 1, 1))
    vals = [a0, rng.standard_normal((1,) if b_ndim == 1 else (1, 4))]
    f = function([a, b], out, mode="FAST_RUN")
    assert not any("Solve" in n for n in _core_names(f))
    check_rewrite([a, b], out, vals, rng)
    _same_in_fast_compile([a, b], out, vals, rng)
    with pytest.raises(AssertionError):  # b with 2 rows: the shape error is kept
        f(a0, rng.standard_normal((2,) if b_ndim == 1 else (2, 4)))


@pytest.mark.parametrize("build", ["diag", "lower", "upper", "batched_lower"])
def test_det_of_triangular(rng, build):
    from opgraph.assumptions import assume

    if build == "diag":
        x = pt.dvector("x")
        out, vals = la.det(pt.diag(x)), [rng.standard_normal(5)]
    else:
        x = pt.dtensor3("x") if build.startswith("batched") else pt.dmatrix("x")
        side = "upper" if build == "upper" else "lower"
        out = la.det(assume(x, **{f"{side}_triangular": True}))
        tri = np.triu if side == "upper" else np.tril
        vals = [tri(rng.standard_normal((2, 4, 4) if x.type.ndim == 3 else (4, 4)))]
    f = function([x], out, mode="FAST_RUN")
    assert "Det" not in _core_names(f)
    check_rewrite([x], out, vals, rng)
    _same_in_fast_compile([x], out, vals, rng)


def test_det_of_triangular_keeps_the_non_square_error(rng):
    from opgraph.assumptions import assume

    x = pt.dmatrix("x")
    f = function([x], la.det(assume(x, lower_triangular=True)), mode="FAST_RUN")
    with pytest.raises((AssertionError, ValueError, np.linalg.LinAlgError)):
        f(np.tril(rng.standard_normal((3, 4))))


@pytest.mark.parametrize("build", ["abs", "exp", "sqr", "abs_of_prod", "tag", "axis0"])
def test_local_log_prod_to_sum_log(rng, build):
    x = pt.dmatrix("x")
    if build == "tag":
        x.tag.positive = True
    prods = {
        "abs": lambda: pt.prod(pt.abs(x)), "exp": lambda: pt.prod(pt.exp(x)),
        "sqr": lambda: pt.prod(x**2), "abs_of_prod": lambda: pt.abs(pt.prod(x)),
        "tag": lambda: pt.prod(x), "axis0": lambda: pt.prod(pt.abs(x), axis=0),
    }
    out = pt.log(prods[build]())
    vals = [rng.uniform(0.5, 2.0, size=(3, 4)) * (1 if build == "tag" else rng.choice([-1, 1]))]
    f = function([x], out, mode="FAST_RUN")
    assert not any(n == "Prod" for n in _core_names(f)), _core_names(f)
    check_rewrite([x], out, vals, rng)
    _same_in_fast_compile([x], out, vals, rng)


def test_log_prod_of_a_value_of_unknown_sign_is_kept(rng):
    x = pt.dmatrix("x")
    f = function([x], pt.log(pt.prod(x)), mode="FAST_RUN")
    assert "Prod" in _core_names(f)
    assert np.isnan(f(-np.ones((1, 1))))


@pytest.mark.parametrize("product", ["lower", "upper"])
@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_ldotlt_gives_the_factor_with_a_positive_diagonal(rng, product, lower):
    from opgraph.assumptions import assume

    a = pt.dmatrix("a")
    side = {"lower": "lower_triangular", "upper": "upper_triangular"}[product]
    t = assume(a, **{side: True})
    m = pt.dot(t, t.T) if product == "lower" else pt.dot(t.T, t)
    out = la.cholesky(m, lower=lower)
    tri = np.tril if product == "lower" else np.triu
    # negative diagonal entries: the Cholesky factor is not the triangle itself
    vals = [tri(rng.standard_normal((4, 4))) + np.diag([2.0, -3.0, 1.5, -1.0])]
    f = function([a], out, mode="FAST_RUN")
    assert "Cholesky" not in _core_names(f)
    check_rewrite([a], out, vals, rng)
    _same_in_fast_compile([a], out, vals, rng)


def test_cholesky_ldotlt_of_a_singular_factor_is_nan_as_the_factorisation():
    from opgraph.assumptions import assume

    a = pt.dmatrix("a")
    t = assume(a, lower_triangular=True)
    out = la.cholesky(pt.dot(t, t.T))
    got = function([a], out, mode="FAST_RUN")(np.diag([1.0, 0.0, 2.0]))
    want = function([a], out, mode=PLAIN)(np.diag([1.0, 0.0, 2.0]))
    assert np.isnan(got).all() and np.isnan(want).all()


@pytest.mark.parametrize("factor", ["cholesky", "lu_u", "lu_l"])
def test_det_of_a_triangular_factor(rng, factor):
    x = pt.dmatrix("x")
    if factor == "cholesky":
        tri = la.cholesky(pt.dot(x, x.T) + pt.eye(4))
    else:
        tri = la.lu(x)[-1 if factor == "lu_u" else -2]
    out = la.det(tri)
    vals = [rng.standard_normal((4, 4))]
    f = function([x], out, mode="FAST_RUN")
    assert "Det" not in _core_names(f)
    np.testing.assert_allclose(f(*vals), function([x], out, mode=PLAIN)(*vals), rtol=1e-12)
    _same_in_fast_compile([x], out, vals, rng)


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transposed", [False, True])
def test_generic_solve_to_solve_triangular(rng, lower, transposed):
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    factor = la.cholesky(pt.dot(a, a.T) + pt.eye(4), lower=lower)
    out = la.solve(factor, b, transposed=transposed)
    vals = [rng.standard_normal((4, 4)), rng.standard_normal((4, 2))]
    f = function([a, b], out, mode="FAST_RUN")
    names = _core_names(f)
    assert "SolveTriangular" in names and "Solve" not in names, names
    check_rewrite([a, b], out, vals, rng)
    _same_in_fast_compile([a, b], out, vals, rng)

"""The closed forms for diagonal, orthogonal and block matrices keep values and gradients.

Each case: FAST_RUN has no factorization left (the rewrite fired), its values equal
NumPy/SciPy's, and (``check_rewrite``) FAST_RUN's values and gradients equal the
unrewritten graph's and finite differences.
"""

from __future__ import annotations

import numpy as np
import opgraph_linalg as la
import pytest
import scipy.linalg as sl
from opgraph.tensor.rewriting.linalg.solvers import decompose_A, solve_decomposed_system
from opgraph_linalg.solvers import Solve
from test_rewrite_gradients import FAST, _core_names, check_rewrite

import opgraph.tensor as pt
from opgraph.assumptions import (
    DIAGONAL,
    LOWER_TRIANGULAR,
    SYMMETRIC,
    UPPER_TRIANGULAR,
    AssumptionFeature,
)
from opgraph.assumptions.specify import assume
from opgraph.compile.function import function

FACTORIZATIONS = {"Cholesky", "Eigh", "Eigvalsh", "SVD", "LU", "LUFactor", "QR", "Schur", "QZ",
                  "MatrixInverse", "MatrixPinv", "Det", "Expm", "Solve", "SolveTriangular",
                  "CholeskySolve", "SolveSylvester", "KroneckerProduct", "BlockDiagonal",
                  "Eig"}


def _run(inputs, outputs, vals):
    fn = function(inputs, outputs, mode=FAST)
    left = FACTORIZATIONS.intersection(_core_names(fn))
    assert not left, f"not rewritten: {left}"
    return fn(*vals)


@pytest.fixture
def dvals(rng):
    d = rng.normal(size=5)
    d[1] = -3.0  # a negative entry and a repeated magnitude
    d[3] = 3.0
    return d


def test_facts_flow_through_eye_products_and_transposes():
    x, v = pt.dmatrix("x"), pt.dvector("v")
    f = AssumptionFeature()
    assert f.check(pt.eye(4) * v, DIAGONAL)
    assert f.check(-(pt.eye(4) * x), DIAGONAL)
    assert not f.check(pt.eye(4, k=1) * x, DIAGONAL)
    assert not f.check(pt.eye(4) + x, DIAGONAL)
    low = assume(x, lower_triangular=True)
    assert f.check(low.T, UPPER_TRIANGULAR) and not f.check(low.T, LOWER_TRIANGULAR)
    assert f.check(pt.constant(np.eye(3)), DIAGONAL)
    assert not f.check(pt.constant(np.ones((3, 3))), DIAGONAL)
    assert f.check(pt.constant(np.ones((3, 3))), SYMMETRIC)


def test_decompositions_of_diag_values(dvals):
    d = pt.dvector("d")
    dm = np.diag(dvals)
    D = pt.eye(5) * d
    chol, lu3, luf, qr2, schur2 = _run(
        [d], [la.cholesky(pt.eye(5) * pt.abs(d)), la.lu(D)[2], la.lu_factor(D)[0],
              la.qr(D)[0], la.schur(D)[0]], [dvals])
    np.testing.assert_allclose(chol, np.linalg.cholesky(np.abs(dm)))
    np.testing.assert_allclose(lu3, sl.lu(dm)[2])
    np.testing.assert_allclose(luf, sl.lu_factor(dm)[0])
    np.testing.assert_allclose(qr2, sl.qr(dm)[0])
    np.testing.assert_allclose(schur2, sl.schur(dm)[0])


def test_eigh_svd_of_diag_reconstruct(dvals):
    d = pt.dvector("d")
    dm = np.diag(dvals)
    w, v = la.eigh(pt.diag(d))
    u, s, vh = la.svd(pt.diag(d))
    got = _run([d], [w, v, u, s, vh, la.eigvalsh(pt.diag(d))], [dvals])
    np.testing.assert_allclose(got[0], np.linalg.eigvalsh(dm))
    np.testing.assert_allclose(got[1] @ np.diag(got[0]) @ got[1].T, dm, atol=1e-12)
    np.testing.assert_allclose(got[3], np.linalg.svd(dm, compute_uv=False))
    np.testing.assert_allclose(got[2] @ np.diag(got[3]) @ got[4], dm, atol=1e-12)
    np.testing.assert_allclose(got[5], np.linalg.eigvalsh(dm))


@pytest.mark.parametrize("sort", ["lhp", "rhp", "iuc", "ouc"])
def test_sorted_schur_and_qz_of_diag(rng, sort):
    a, b = pt.dvector("a"), pt.dvector("b")
    av, bv = rng.uniform(-2, 2, 5), rng.uniform(0.5, 2, 5)
    t, z = la.schur(pt.diag(a), sort=sort)
    aa, bb, q, zz = la.qz(pt.diag(a), pt.diag(b), sort=sort)
    tv, zv, aav, bbv, qv, zzv = _run([a, b], [t, z, aa, bb, q, zz], [av, bv])
    ref_t, _, n_sel = sl.schur(np.diag(av), sort=sort)
    np.testing.assert_allclose(zv @ tv @ zv.T, np.diag(av), atol=1e-12)
    np.testing.assert_allclose(np.sort(np.diag(tv)[:n_sel]), np.sort(np.diag(ref_t)[:n_sel]))
    np.testing.assert_allclose(qv @ aav @ zzv.T, np.diag(av), atol=1e-12)
    np.testing.assert_allclose(qv @ bbv @ zzv.T, np.diag(bv), atol=1e-12)


def test_inverses_of_diag_keep_zero_pivots_for_pinv(dvals):
    d = pt.dvector("d")
    dz = dvals.copy()
    dz[2] = 0.0
    inv, pinv = _run([d], [la.inv(pt.diag(d)), la.pinv(pt.diag(d))], [dz])
    assert np.isinf(inv[2, 2])
    np.testing.assert_allclose(pinv, np.linalg.pinv(np.diag(dz)))


@pytest.mark.parametrize("build", [
    lambda d: la.cholesky(pt.eye(4) * pt.exp(d)),
    lambda d: la.eigvalsh(pt.diag(d)),
    lambda d: la.inv(pt.diag(pt.exp(d))),
    lambda d: la.det(pt.eye(4) * d),
    lambda d: la.expm(pt.diag(d)),
    lambda d: la.solve(pt.diag(pt.exp(d)), d[::-1]),
    lambda d: la.cho_solve((pt.diag(pt.exp(d)), True), d[::-1]),
    lambda d: la.solve_sylvester(pt.diag(pt.exp(d)), pt.diag(pt.exp(-d)), pt.outer(d, d)),
    lambda d: la.kron(assume(pt.diag(d), diagonal=True), pt.diag(d[:2])),
], ids=["cholesky", "eigvalsh", "inv", "det", "expm", "solve", "cho_solve", "sylvester",
        "kron"])
def test_diag_rewrites_keep_gradients(rng, build):
    d = pt.dvector("d")
    out = build(d)
    names = _core_names(function([d], out, mode=FAST))
    assert not FACTORIZATIONS.intersection(names), names
    check_rewrite([d], out, [rng.normal(size=4)], rng)


def test_orthogonal_rewrites(rng):
    x, b = pt.dmatrix("x", shape=(4, 4)), pt.dvector("b")
    q = assume(x, orthogonal=True)
    qv, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    bv = rng.normal(size=4)
    inv, sol, eye = _run([x, b], [la.inv(q), la.solve(q, b), q @ q.T], [qv, bv])
    np.testing.assert_allclose(inv, np.linalg.inv(qv), atol=1e-12)
    np.testing.assert_allclose(sol, np.linalg.solve(qv, bv), atol=1e-12)
    np.testing.assert_allclose(eye, np.eye(4), atol=1e-12)


def test_orthonormal_columns_are_not_square_identity(rng):
    """Q @ Q.T is not I for a tall Q with orthonormal columns: no rewrite then."""
    x = pt.dmatrix("x")
    q = assume(x, orthogonal=True)
    qv, _ = np.linalg.qr(rng.normal(size=(5, 3)))
    got = function([x], q @ q.T, mode=FAST)(qv)
    np.testing.assert_allclose(got, qv @ qv.T)


def test_block_diagonal_rewrites(rng):
    s = pt.tensor("s", shape=(3, 2, 2))
    sv = rng.normal(size=(3, 2, 2))
    bd = la.block_diag(*[s[i] for i in range(3)])
    fn = function([s], [la.diagonal(bd), la.det(bd), *la.slogdet(bd)], mode=FAST)
    assert "BlockDiagonal" not in _core_names(fn)  # det of each 2x2 block instead
    diag, det, sign, logabs = fn(sv)
    full = sl.block_diag(*sv)
    np.testing.assert_allclose(diag, np.diag(full))
    np.testing.assert_allclose(det, np.linalg.det(full))
    np.testing.assert_allclose([sign, logabs], np.linalg.slogdet(full))


def test_rectangular_blocks_keep_the_full_determinant(rng):
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    av, bv = rng.normal(size=(2, 3)), rng.normal(size=(3, 2))
    got = function([a, b], la.det(la.block_diag(a, b)), mode=FAST)(av, bv)
    np.testing.assert_allclose(got, np.linalg.det(sl.block_diag(av, bv)), atol=1e-12)


def test_eig_of_symmetric_is_eigh(rng):
    x = pt.dmatrix("x")
    w, v = la.eig(assume(x, symmetric=True))
    a = rng.normal(size=(4, 4))
    a = a + a.T
    fn = function([x], [w, v], mode=FAST)
    assert "Eig" not in _core_names(fn)
    wv, vv = fn(a)
    assert wv.dtype == np.complex128
    np.testing.assert_allclose(a @ vv, vv * wv, atol=1e-10)


def test_block_diagonal_solves(rng):
    a1, a2 = pt.dmatrix("a1", shape=(3, 3)), pt.dmatrix("a2", shape=(2, 2))
    b1, b2 = pt.dmatrix("b1", shape=(3, 3)), pt.dmatrix("b2", shape=(2, 2))
    y = pt.dvector("y", shape=(5,))
    a = la.block_diag(a1, a2)
    fn = function([a1, a2, b1, b2, y], [la.solve(a, la.block_diag(b1, b2)), la.solve(a, y)],
                  mode=FAST)
    vals = [rng.normal(size=(3, 3)) + 3 * np.eye(3), rng.normal(size=(2, 2)) + 3 * np.eye(2),
            rng.normal(size=(3, 3)), rng.normal(size=(2, 2)), rng.normal(size=5)]
    both, vec = fn(*vals)
    full = sl.block_diag(vals[0], vals[1])
    np.testing.assert_allclose(both, np.linalg.solve(full, sl.block_diag(vals[2], vals[3])),
                               atol=1e-12)
    np.testing.assert_allclose(vec, np.linalg.solve(full, vals[4]), atol=1e-12)
    solves = [n for n in fn.maker.fgraph.apply_nodes if "Solve" in str(n.op)]
    assert all(i.owner is None or "BlockDiagonal" not in str(i.owner.op)
               for n in solves for i in n.inputs)


@pytest.mark.parametrize("fact, kind", [("lower_triangular", "SolveTriangular"),
                                        ("positive_definite", None), ("symmetric", "Solve")])
def test_generic_solve_to_structured_form(rng, fact, kind):
    x, b = pt.dmatrix("x"), pt.dmatrix("b")
    a0 = rng.normal(size=(4, 4))
    a0 = {"lower_triangular": np.tril(a0) + 4 * np.eye(4),
          "positive_definite": a0 @ a0.T + 4 * np.eye(4), "symmetric": a0 + a0.T}[fact]
    bv = rng.normal(size=(4, 2))
    fn = function([x, b], la.solve(assume(x, **{fact: True}), b), mode=FAST)
    np.testing.assert_allclose(fn(a0, bv), np.linalg.solve(a0, bv), rtol=1e-8)
    ops = [n.op.core_op if hasattr(n.op, "core_op") else n.op for n in fn.maker.fgraph.apply_nodes]
    solves = [op for op in ops if "Solve" in type(op).__name__]
    assert all(getattr(op, "assume_a", "tri") != "gen" for op in solves), solves
    if kind is not None:
        assert any(type(op).__name__ == kind for op in solves)


@pytest.mark.parametrize("assume_a", ["gen", "pos"])
@pytest.mark.parametrize("transposed", [False, True])
def test_decompose_and_solve_helpers(rng, assume_a, transposed):
    x, b = pt.dmatrix("x"), pt.dvector("b")
    a0 = rng.normal(size=(4, 4))
    a0 = a0 @ a0.T + 4 * np.eye(4) if assume_a == "pos" else a0 + 3 * np.eye(4)
    op = Solve(assume_a=assume_a, b_ndim=1, lower=True)
    out = solve_decomposed_system(decompose_A(x, assume_a, True), b, transposed, True,
                                  core_solve_op=op)
    bv = rng.normal(size=4)
    want = np.linalg.solve(a0.T if transposed else a0, bv)
    np.testing.assert_allclose(function([x, b], out, mode=FAST)(a0, bv), want, rtol=1e-8)

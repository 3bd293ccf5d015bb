"""The linear-algebra rewrites fire under FAST_RUN and keep every result."""

from __future__ import annotations

import numpy as np
import opgraph_linalg as la
import pytest
from helpers_la import spd, well_conditioned

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.tensor.blockwise import Blockwise

_LINALG_CORE = (la.Cholesky, la.CholeskySolve, la.Det, la.SLogDet, la.Solve,
                la.SolveTriangular, la.MatrixInverse)


def _core_ops(f):
    """Names of the linear-algebra ops in the compiled graph, batched or not."""
    names = []
    for n in f.maker.fgraph.apply_nodes:
        op = n.op.core_op if isinstance(n.op, Blockwise) else n.op
        if isinstance(op, _LINALG_CORE):
            names.append(type(op).__name__)
    return names


def _both(inputs, out):
    fast = function(inputs, out, mode="FAST_RUN", on_unused_input="ignore")
    plain = function(inputs, out, mode="FAST_COMPILE", on_unused_input="ignore")
    return fast, plain


@pytest.mark.parametrize(
    "build",
    [lambda a, b, m: pt.dot(la.inv(a), b), lambda a, b, m: pt.dot(la.inv(a), m),
     lambda a, b, m: pt.dot(m, la.inv(a)), lambda a, b, m: pt.matmul(la.inv(a), m),
     lambda a, b, m: pt.dot(b, la.inv(a))],
    ids=["inv_dot_vec", "inv_dot_mat", "mat_dot_inv", "matmul", "vec_dot_inv"],
)
def test_inv_times_b_becomes_solve(rng, build):
    a, b, m = pt.dmatrix("a"), pt.dvector("b"), pt.dmatrix("m")
    fast, plain = _both([a, b, m], build(a, b, m))
    assert "Solve" in _core_ops(fast) and "MatrixInverse" not in _core_ops(fast)
    vals = (well_conditioned(rng, 3), rng.normal(size=3), rng.normal(size=(3, 3)))
    np.testing.assert_allclose(fast(*vals), plain(*vals))


def test_log_det_becomes_slogdet(rng):
    a = pt.dmatrix("a")
    for out in (pt.log(la.det(a)), pt.log(pt.abs(la.det(a)))):
        fast, plain = _both([a], out)
        assert "SLogDet" in _core_ops(fast) and "Det" not in _core_ops(fast)
        for val in (spd(rng, 3), -spd(rng, 3), np.zeros((3, 3))):
            np.testing.assert_allclose(fast(val), plain(val))


def test_log_det_stays_finite_where_det_overflows():
    a = pt.dmatrix("a")
    fast = function([a], pt.log(la.det(a)), mode="FAST_RUN")
    np.testing.assert_allclose(fast(np.eye(400) * 1e3), 400 * np.log(1e3))


def test_psd_solve_uses_cholesky(rng):
    a, b = pt.dmatrix("a"), pt.dvector("b")
    vals = (spd(rng, 4), rng.normal(size=4))
    fast, plain = _both([a, b], la.solve(a, b, assume_a="pos"))
    assert {"Cholesky", "CholeskySolve"} <= set(_core_ops(fast))
    np.testing.assert_allclose(fast(*vals), plain(*vals))
    a.tag.psd = True
    fast, plain = _both([a, b], la.solve(a, b) + pt.sum(la.inv(a)))
    assert "Solve" not in _core_ops(fast) and "MatrixInverse" not in _core_ops(fast)
    np.testing.assert_allclose(fast(*vals), plain(*vals))


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("trans", [0, 1])
def test_transposed_triangular_solve(rng, lower, trans):
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    fast, plain = _both([a, b], la.solve_triangular(a.T, b, lower=lower, trans=trans))
    (op,) = [n.op for n in fast.maker.fgraph.apply_nodes if isinstance(n.op, la.SolveTriangular)]
    assert op.lower is (not lower) and op.trans == 1 - trans
    tri = np.triu if lower else np.tril  # a.T must be `lower`-triangular
    vals = (tri(well_conditioned(rng, 3)), rng.normal(size=(3, 2)))
    np.testing.assert_allclose(fast(*vals), plain(*vals))


def test_gram_product_solve_uses_cholesky(rng):
    x, b = pt.dmatrix("x"), pt.dvector("b")
    fast, plain = _both([x, b], la.solve(pt.dot(x, x.T), b))
    assert "CholeskySolve" in _core_ops(fast) and "Solve" not in _core_ops(fast)
    vals = (well_conditioned(rng, 3), rng.normal(size=3))
    np.testing.assert_allclose(fast(*vals), plain(*vals))


@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_of_cholesky_product(rng, lower):
    a = pt.dmatrix("a")
    chol = la.cholesky(a, lower=lower)
    prod = pt.dot(chol, chol.T) if lower else pt.dot(chol.T, chol)
    fast, plain = _both([a], la.cholesky(prod, lower=lower))
    assert _core_ops(fast) == ["Cholesky"]
    val = spd(rng, 3)
    np.testing.assert_allclose(fast(val), plain(val))
    # a different factor orientation is not the same matrix: left alone
    other = pt.dot(chol.T, chol) if lower else pt.dot(chol, chol.T)
    fast, plain = _both([a], la.cholesky(other, lower=lower))
    assert _core_ops(fast).count("Cholesky") == 2
    np.testing.assert_allclose(fast(val), plain(val))


def test_useless_blockwise_is_removed_without_batch_axes(rng):
    a, batch = pt.dmatrix("a"), pt.dtensor3("batch")
    fast, plain = _both([a, batch], [la.det(a), la.det(batch)])
    ops = [n.op for n in fast.maker.fgraph.apply_nodes]
    assert any(isinstance(op, la.Det) for op in ops)  # the unbatched one, bare
    assert any(isinstance(op, Blockwise) and isinstance(op.core_op, la.Det) for op in ops)
    vals = (well_conditioned(rng, 3), well_conditioned(rng, 3, (2,)))
    for got, expected in zip(fast(*vals), plain(*vals)):
        np.testing.assert_allclose(got, expected)

"""The BLAS-shaped Ops of ``opgraph.tensor.blas``: values against NumPy, errors, gradients."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.graph.utils import InconsistencyError
from opgraph.tensor.blas import (
    BatchedDot,
    Dot22,
    Dot22Scalar,
    Gemm,
    Gemv,
    Ger,
    _batched_dot,
    _dot22,
    _dot22scalar,
    batched_dot,
    batched_tensordot,
    gemm_inplace,
    gemm_no_inplace,
    gemv_inplace,
    gemv_no_inplace,
    ger,
    ger_destructive,
    must_initialize_y_gemv,
)
from opgraph.tensor.blas_c import CGemv, CGer
from tests.tensor.helpers import check_derivatives, evaluate

RNG = np.random.default_rng(7)


def layouts(a: np.ndarray) -> list[np.ndarray]:
    """``a`` row-major, column-major and as a strided (non-contiguous) view."""
    wide = np.repeat(a, 2, axis=-1)[..., ::2]
    return [a, np.asfortranarray(a), wide]


@pytest.mark.parametrize("a_val,b_val", [(1.0, 0.0), (0.5, 1.0), (-1.0, 2.0), (0.0, 0.6)])
@pytest.mark.parametrize("op", [gemm_no_inplace, gemm_inplace])
def test_gemm_values(op: Gemm, a_val: float, b_val: float) -> None:
    z, x, y = pt.matrix("z"), pt.matrix("x"), pt.matrix("y")
    a, b = pt.scalar("a"), pt.scalar("b")
    out = op(z, a, x, y, b)
    for xv in layouts(RNG.random((3, 5))):
        zv, yv = RNG.random((3, 4)), RNG.random((5, 4)).T.copy().T
        expected = b_val * zv + a_val * xv @ yv
        got = evaluate(out, {z: zv.copy(), a: a_val, x: xv, y: yv, b: b_val})
        np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_gemm_broadcasts_z_to_the_product() -> None:
    z = pt.tensor("z", shape=(1, 1))
    x, y, a, b = pt.matrix("x"), pt.matrix("y"), pt.scalar("a"), pt.scalar("b")
    out = gemm_no_inplace(z, a, x, y, b)
    assert out.type.shape == (None, None)
    xv, yv = RNG.random((3, 2)), RNG.random((2, 4))
    got = evaluate(out, {z: np.ones((1, 1)), a: 2.0, x: xv, y: yv, b: 3.0})
    np.testing.assert_allclose(got, 3.0 + 2.0 * xv @ yv)


def test_gemm_rejects_bad_input() -> None:
    m, s = pt.matrix(), pt.scalar()
    with pytest.raises(TypeError, match=r"rank 2.*'z'"):
        gemm_no_inplace(pt.vector(), s, m, m, s)
    with pytest.raises(TypeError, match=r"scalar argument.*'a'"):
        gemm_no_inplace(m, m, m, m, s)
    with pytest.raises(TypeError, match="matching dtypes"):
        gemm_no_inplace(pt.fmatrix(), s, m, m, s)
    with pytest.raises(TypeError, match="floating-point"):
        gemm_no_inplace(pt.imatrix(), pt.iscalar(), pt.imatrix(), pt.imatrix(), pt.iscalar())
    with pytest.raises(TypeError, match="5 inputs"):
        gemm_no_inplace(m, s, m, m)


def test_gemm_inplace_refuses_z_aliased_to_x_or_y() -> None:
    z, other = pt.matrix("z"), pt.matrix("o")
    with pytest.raises(InconsistencyError, match="aliased"):
        gemm_inplace(z, 1.0, z.T, other, 1.0)
    with pytest.raises(InconsistencyError, match="aliased"):
        gemm_inplace(z, 1.0, other, z, 1.0)
    assert gemm_no_inplace(z, 1.0, z, z, 1.0).owner.op == gemm_no_inplace


def test_gemm_inplace_writes_into_z() -> None:
    z, x, y = pt.matrix("z"), pt.matrix("x"), pt.matrix("y")
    out = gemm_inplace(z, 1.0, x, y, 1.0)
    assert out.owner.op.destroy_map == {0: [0]}
    zv, xv, yv = RNG.random((2, 2)), RNG.random((2, 2)), RNG.random((2, 2))
    expected = zv + xv @ yv
    got = evaluate(out, {z: zv, x: xv, y: yv})
    np.testing.assert_allclose(got, expected)


def test_dot22_and_dot22scalar() -> None:
    x, y, a = pt.matrix("x"), pt.matrix("y"), pt.scalar("a")
    for xv in layouts(RNG.random((4, 3))):
        yv = RNG.random((3, 2))
        np.testing.assert_allclose(evaluate(_dot22(x, y), {x: xv, y: yv}), xv @ yv)
        got = evaluate(_dot22scalar(x, y, a), {x: xv, y: yv, a: -1.5})
        np.testing.assert_allclose(got, -1.5 * xv @ yv)
    assert _dot22(pt.tensor(shape=(4, None)), pt.tensor(shape=(None, 2))).type.shape == (4, 2)
    with pytest.raises(TypeError, match="'y' must be a 2-d float or complex matrix"):
        _dot22(x, pt.vector())
    with pytest.raises(TypeError, match="dtype mismatch"):
        _dot22(x, pt.fmatrix())
    with pytest.raises(TypeError, match="matching dtypes"):
        _dot22scalar(x, y, pt.fscalar())


def test_dot22_gradient() -> None:
    check_derivatives(lambda x, y: _dot22(x, y), [RNG.random((3, 4)), RNG.random((4, 2))], RNG,
                      forward=False)


@pytest.mark.parametrize("op", [gemv_no_inplace, gemv_inplace])
def test_gemv_values(op: Gemv) -> None:
    y, A, x = pt.vector("y"), pt.matrix("A"), pt.vector("x")
    alpha, beta = pt.scalar("alpha"), pt.scalar("beta")
    out = op(y, alpha, A, x, beta)
    for Av in layouts(RNG.random((4, 3))):
        yv, xv = RNG.random(4), RNG.random(6)[::2]
        for al, be in [(1.0, 0.0), (2.0, 1.0), (-0.5, 3.0)]:
            got = evaluate(out, {y: yv.copy(), alpha: al, A: Av, x: xv, beta: be})
            np.testing.assert_allclose(got, be * yv + al * Av @ xv)


def test_gemv_beta_zero_never_reads_y() -> None:
    y, A, x = pt.vector("y"), pt.matrix("A"), pt.vector("x")
    out = gemv_no_inplace(y, 1.0, A, x, 0.0)
    got = evaluate(out, {y: np.full(2, np.nan), A: np.ones((2, 2)), x: np.ones(2)})
    np.testing.assert_array_equal(got, [2.0, 2.0])
    assert must_initialize_y_gemv() is False


def test_gemv_errors() -> None:
    with pytest.raises(TypeError, match="'A' must be 2-d"):
        gemv_no_inplace(pt.vector(), 1.0, pt.vector(), pt.vector(), 0.0)
    with pytest.raises(TypeError, match="matching dtypes"):
        gemv_no_inplace(pt.fvector(), 1.0, pt.matrix(), pt.vector(), 0.0)
    y, A, x = pt.vector("y"), pt.matrix("A"), pt.vector("x")
    with pytest.raises(ValueError, match="shapes do not match"):
        evaluate(gemv_no_inplace(y, 1.0, A, x, 1.0),
                 {y: np.ones(3), A: np.ones((2, 2)), x: np.ones(2)})


@pytest.mark.parametrize("op", [ger, ger_destructive])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_ger_values(op: Ger, dtype: str) -> None:
    A = pt.tensor("A", dtype=dtype, shape=(None, None))
    x = pt.tensor("x", dtype=dtype, shape=(None,))
    y = pt.tensor("y", dtype=dtype, shape=(None,))
    alpha = pt.tensor("alpha", dtype=dtype, shape=())
    out = op(A, alpha, x, y)
    for Av in layouts(RNG.random((3, 2)).astype(dtype)):
        xv, yv = RNG.random(3).astype(dtype), RNG.random(2).astype(dtype)
        expected = Av + 0.5 * np.outer(xv, yv)
        got = evaluate(out, {A: Av.copy(), alpha: 0.5, x: xv, y: yv})
        assert got.dtype == dtype
        np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_ger_rejects_bad_input() -> None:
    m, v, s = pt.matrix(), pt.vector(), pt.scalar()
    with pytest.raises(TypeError, match="only float and complex"):
        ger(pt.imatrix(), pt.iscalar(), pt.ivector(), pt.ivector())
    with pytest.raises(TypeError, match="'alpha' must be 0-d"):
        ger(m, v, v, v)
    with pytest.raises(TypeError, match="matching dtypes"):
        ger(m, pt.fscalar(), v, v)
    with pytest.raises(TypeError, match="'x' must be 1-d"):
        ger(m, s, m, v)


def test_c_ops_are_distinct_but_compute_the_same() -> None:
    assert CGer(True) == CGer(True) and hash(CGer(True)) == hash(CGer(True))
    assert CGer(True) != Ger(True) and CGer(False) != CGer(True)
    assert CGemv(inplace=False) != Gemv(inplace=False)
    y, A, x = pt.vector("y"), pt.matrix("A"), pt.vector("x")
    vals = {y: np.ones(2), A: RNG.random((2, 3)), x: RNG.random(3)}
    np.testing.assert_allclose(evaluate(CGemv(False)(y, 2.0, A, x, 1.0), vals),
                               evaluate(Gemv(False)(y, 2.0, A, x, 1.0), vals))


def test_batched_dot_op() -> None:
    x, y = pt.tensor3("x"), pt.tensor3("y")
    out = _batched_dot(x, y)
    assert isinstance(out.owner.op, BatchedDot)
    xv = RNG.random((4, 3, 6)).transpose(0, 2, 1)[:, ::2]  # non-contiguous, (4, 3, 3)
    yv = RNG.random((4, 3, 5))
    np.testing.assert_allclose(evaluate(out, {x: xv, y: yv}), np.matmul(xv, yv))
    with pytest.raises(ValueError, match="batch lengths differ"):
        evaluate(out, {x: RNG.random((2, 3, 3)), y: RNG.random((3, 3, 3))})
    with pytest.raises(TypeError, match="must be 3-d"):
        _batched_dot(pt.matrix(), y)
    with pytest.raises(ValueError, match="static batch lengths differ"):
        _batched_dot(pt.tensor(shape=(2, None, None)), pt.tensor(shape=(3, None, None)))
    mixed = _batched_dot(pt.tensor3(dtype="float32"), pt.tensor3(dtype="int64"))
    assert mixed.type.dtype == "float64"
    assert _batched_dot(pt.tensor(shape=(2, 3, None)), pt.tensor(shape=(None, 4, 5))).type.shape \
        == (2, 3, 5)


def test_batched_dot_derivatives() -> None:
    check_derivatives(lambda x, y: _batched_dot(x, y),
                      [RNG.random((2, 3, 4)), RNG.random((2, 4, 2))], RNG)


def test_deprecated_batched_helpers_warn_and_compute() -> None:
    x, y = pt.tensor3("x"), pt.tensor3("y")
    with pytest.warns(FutureWarning):
        out = batched_dot(x, y)
    xv, yv = RNG.random((3, 2, 4)), RNG.random((3, 4, 5))
    np.testing.assert_allclose(evaluate(out, {x: xv, y: yv}), np.matmul(xv, yv))
    with pytest.warns(FutureWarning):
        out = batched_tensordot(x, y, [[2], [1]])
    np.testing.assert_allclose(evaluate(out, {x: xv, y: yv}), np.matmul(xv, yv))


def test_infer_shape_of_each_op() -> None:
    z, x, y, a = pt.matrix("z"), pt.matrix("x"), pt.matrix("y"), pt.scalar("a")
    vals = {z: np.ones((3, 4)), x: np.ones((3, 5)), y: np.ones((5, 4)), a: 1.0}
    for out in (_dot22(x, y), _dot22scalar(x, y, a), gemm_no_inplace(z, a, x, y, a)):
        node = out.owner
        shapes = [tuple(np.shape(vals[i])) if i in vals else () for i in node.inputs]
        dims = node.op.infer_shape(None, node, shapes)[0]
        assert [int(evaluate(pt.as_tensor_variable(d), {})) for d in dims] == [3, 4]
    z1 = pt.tensor("z1", shape=(1, None))
    node = gemm_no_inplace(z1, a, x, y, a).owner
    dims = node.op.infer_shape(None, node, [(1, 6), (), (3, 5), (5, 6), ()])[0]
    assert [int(evaluate(pt.as_tensor_variable(d), {})) for d in dims] == [3, 6]
    assert isinstance(_dot22scalar(x, y, a).owner.op, Dot22Scalar)
    assert isinstance(_dot22(x, y).owner.op, Dot22)

"""The BLAS rewrites (opgraph.tensor.rewriting.blas): which Op forms, and equal results.

Every rewritten graph is compared with the unrewritten one on row-major,
column-major, transposed and strided inputs.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import assert_same, compile_pair
from opgraph.tensor.rewriting.blas import (
    _as_scalar,
    _factor_canonicalized,
    _gemm_canonicalize,
    _is_real_matrix,
    res_is_a,
)

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import get_mode
from opgraph.compile.sharedvalue import shared
from opgraph.graph.fg import FunctionGraph
from opgraph.tensor.blas import BatchedDot, Dot22, Dot22Scalar, Gemm, Gemv, Ger
from opgraph.tensor.blas_c import CGemv, CGer
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.math import mul, neg
from opgraph.tensor.products import Dot, MatMul

RNG = np.random.default_rng(3)


def ops_of(fn) -> list:
    return [node.op for node in fn.maker.fgraph.toposort()]


def count(fn, cls) -> int:
    return sum(isinstance(op, cls) for op in ops_of(fn))


def layouts(a: np.ndarray) -> list[np.ndarray]:
    wide = np.repeat(a, 2, axis=-1)[..., ::2]
    return [a, np.asfortranarray(a), np.ascontiguousarray(a.T).T, wide]


X, Y, Z = pt.matrix("X"), pt.matrix("Y"), pt.matrix("Z")
a, b = pt.scalar("a"), pt.scalar("b")

GEMM_CASES = [
    lambda: b * Z + a * pt.dot(X, Y),
    lambda: pt.dot(X, Y) * a - Z * b,
    lambda: Z - pt.dot(X, Y),
    lambda: Z + a * b * a * pt.dot(X, Y),
    lambda: b * Z.T - a * pt.dot(Y.T, X.T),
    lambda: a * Z - b * (a * pt.dot(X, Y) + b * Z),
]


@pytest.mark.parametrize("case", range(len(GEMM_CASES)))
def test_sums_of_scaled_products_become_one_gemm(case: int) -> None:
    out = GEMM_CASES[case]()
    fast, ref = compile_pair([X, Y, Z, a, b], out)
    assert count(fast, Gemm) == 1
    assert count(fast, Dot) + count(fast, Dot22) + count(fast, MatMul) == 0
    for xv in layouts(RNG.random((4, 4))):
        assert_same(fast, ref, xv, RNG.random((4, 4)), RNG.random((4, 4)), 0.7, -1.3, rtol=1e-12)


def test_a_product_used_twice_is_not_absorbed() -> None:
    d = pt.dot(X, Y)
    fast, ref = compile_pair([X, Y, Z], [Z + d, d * 2.0])
    assert count(fast, Gemm) == 0
    vals = [RNG.random((3, 3)) for _ in range(3)]
    for got, exp in zip(fast(*vals), ref(*vals), strict=True):
        np.testing.assert_allclose(got, exp)


def test_upcasting_scale_is_left_alone() -> None:
    w, v, t = pt.fmatrix("w"), pt.fmatrix("v"), pt.fmatrix("t")
    alpha = pt.dscalar("alpha")
    fast, ref = compile_pair([w, v, t, alpha], pt.dot(w, v) * alpha + t)
    assert count(fast, Gemm) == 0
    vals = [RNG.random((3, 3)).astype("float32") for _ in range(3)]
    assert_same(fast, ref, *vals, 0.5, rtol=1e-6)


def test_matrix_vector_products_become_gemv() -> None:
    """y + A @ x is one Gemv (beta = 1); x @ A one Gemv into unread memory."""
    A, x, y = pt.matrix("A"), pt.vector("x"), pt.vector("y")
    fast, ref = compile_pair([A, x, y], [y + pt.dot(A, x), pt.dot(x, A), pt.dot(x, y)])
    assert count(fast, Gemv) == 2
    assert count(fast, Dot) == 1  # vector . vector stays one ddot
    for Av in layouts(RNG.random((3, 3))):
        vals = [Av, RNG.random(3), RNG.random(3)]
        for got, exp in zip(fast(*vals), ref(*vals), strict=True):
            np.testing.assert_allclose(got, exp, rtol=1e-12)


def test_outer_product_added_to_a_matrix_becomes_ger() -> None:
    A, x, y = pt.matrix("A"), pt.vector("x"), pt.vector("y")
    fast, ref = compile_pair([A, x, y], A + 0.1 * pt.outer(x, y))
    assert count(fast, Ger) == 1
    assert count(fast, CGer) == 1  # the C backend's name, as in PyTensor
    for Av in layouts(RNG.random((3, 2))):
        assert_same(fast, ref, Av, RNG.random(3), RNG.random(2), rtol=1e-12)
    fast, ref = compile_pair([x, y], pt.outer(x, y))  # a bare outer product: one gemm
    assert count(fast, Ger) == 0 and count(fast, Dot22) == 1
    assert_same(fast, ref, RNG.random(3), RNG.random(2), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_matrix_plus_scaled_outer_becomes_ger(dtype: str) -> None:
    A = pt.tensor("A", dtype=dtype, shape=(None, None))
    x, y = (pt.tensor(n, dtype=dtype, shape=(None,)) for n in "xy")
    fast, ref = compile_pair([A, x, y], A + 0.1 * pt.outer(x, y))
    assert count(fast, Ger) == 1
    Av = (RNG.random((3, 2)) + 1j * RNG.random((3, 2))).astype(dtype)
    xv, yv = (RNG.random(3) + 2j).astype(dtype), (RNG.random(2) - 1j).astype(dtype)
    assert_same(fast, ref, Av, xv, yv, rtol=1e-5)


def test_scaled_product_becomes_dot22scalar() -> None:
    fast, ref = compile_pair([X, Y, a], [a * pt.dot(X, Y), 2.0 * a * pt.dot(X, Y) * X])
    assert count(fast, Dot22Scalar) >= 1
    vals = [RNG.random((3, 3)), RNG.random((3, 3)), 1.5]
    for got, exp in zip(fast(*vals), ref(*vals), strict=True):
        np.testing.assert_allclose(got, exp, rtol=1e-12)


def test_inplace_gemm_on_an_updated_shared_matrix() -> None:
    s = shared(np.zeros((3, 3)))
    f = function([X, Y], updates=[(s, 0.01 * pt.dot(X, Y) + 0.5 * s)], mode="FAST_RUN")
    nodes = f.maker.fgraph.toposort()
    assert [type(n.op) for n in nodes] == [Gemm] and nodes[0].op.inplace
    xv, yv = RNG.random((3, 3)), RNG.random((3, 3))
    s.set_value(np.ones((3, 3)))
    f(xv, yv)
    np.testing.assert_allclose(s.get_value(), 0.01 * xv @ yv + 0.5)


def test_constant_factors_fold_into_the_gemm_scales() -> None:
    s = shared(np.zeros((3, 3)))
    lr, l2 = pt.constant(0.01), pt.constant(0.0001)
    for upd in (lr * pt.dot(X, Y) + l2 * pt.constant(2.0) * s, lr * (pt.dot(X, Y) - l2 * s),
                s - lr * (s * 0.0002 + pt.dot(X, Y))):
        f = function([X, Y], updates=[(s, upd)], mode="FAST_RUN")
        assert [type(n.op) for n in f.maker.fgraph.toposort()] == [Gemm]
        ref = function([X, Y, Z], upd, givens={s: Z}, mode="FAST_COMPILE")
        xv, yv, sv = RNG.random((3, 3)), RNG.random((3, 3)), RNG.random((3, 3))
        expected = ref(xv, yv, sv)
        s.set_value(sv.copy())
        f(xv, yv)
        np.testing.assert_allclose(s.get_value(), expected, rtol=1e-12)


@pytest.mark.parametrize("x_shape,y_shape,batched", [
    ((7, 5, 3, 3), (7, 5, 3, 3), 1),  # batch axes raveled
    ((7, 5, 3, 3), (5, 3, 4), 1),  # y broadcast over the leading axis: folded into x's rows
    ((2, 7, 5, 3, 3), (5, 3, 2), 1),
    ((4, 3, 2), (4, 2, 5), 1),
    ((7, 5, 3, 3), (1, 5, 3, 3), 0),  # a static length-1 batch axis: left to matmul
    ((5, 3, 3), (7, 5, 3, 3), 0),  # x broadcast: left to matmul
])
def test_batched_matmul_becomes_batched_dot(x_shape: tuple, y_shape: tuple, batched: int) -> None:
    x = pt.tensor("x", shape=x_shape)
    y = pt.tensor("y", shape=y_shape)
    fast, ref = compile_pair([x, y], pt.matmul(x, y))
    assert count(fast, BatchedDot) == batched
    xv = np.swapaxes(RNG.random(x_shape[:-2] + x_shape[-2:][::-1]), -1, -2)  # non-contiguous
    assert_same(fast, ref, xv, RNG.random(y_shape), rtol=1e-12)


def test_excluding_blasopt_keeps_the_dots() -> None:
    mode = get_mode("FAST_RUN").excluding("BlasOpt")
    fast, _ = compile_pair([X, Y, Z], Z + pt.dot(X, Y), mode=mode)
    assert count(fast, Gemm) == 0


def test_c_blas_names_the_gemv() -> None:
    A, x = pt.matrix("A"), pt.vector("x")
    fast, _ = compile_pair([A, x], pt.dot(A, x))
    assert count(fast, CGemv) == 1


def test_canonical_form_of_sums() -> None:
    c = pt.scalar("c")
    v, u = pt.vector("v"), pt.row("u")
    fg = FunctionGraph([X, Y, Z], [X + Y + Z], clone=False)
    assert _gemm_canonicalize(fg, fg.outputs[0], 1.0, [], 0) == [(1.0, X), (1.0, Y), (1.0, Z)]
    fg = FunctionGraph([X, Y, u], [X + Y + u], clone=False)
    assert _gemm_canonicalize(fg, fg.outputs[0], 1.0, [], 0) == [(1.0, X), (1.0, Y), (1.0, u)]
    fg = FunctionGraph([X, Y, v], [X + Y + v], clone=False)
    can = _gemm_canonicalize(fg, fg.outputs[0], 1.0, [], 0)
    assert isinstance(can[2][1].owner.op, DimShuffle) and can[2][1].owner.inputs == [v]
    fg = FunctionGraph([a, X, Y, b, Z, c], [a * X + Y - b * Z * c], clone=False)
    can = _gemm_canonicalize(fg, fg.outputs[0], 1.0, [], 0)
    assert can[0] == (a, X) and can[1] == (1.0, Y)
    scale = can[2][0]
    assert scale.owner.op == mul and scale.owner.inputs[0].owner.op == neg
    assert scale.owner.inputs[1] is b and can[2][1] is Z


def test_factoring_and_helpers() -> None:
    assert _factor_canonicalized([(1.0, X), (1.0, Y)]) == [(1.0, X), (1.0, Y)]
    assert _factor_canonicalized([(1.0, X), (1.0, X)]) == [(2.0, X)]
    assert _is_real_matrix(X.T) and not _is_real_matrix(pt.vector().dimshuffle("x", 0))
    s = pt.dscalar("s")
    assert _as_scalar(s) is s and _as_scalar(s.dimshuffle("x", "x")) is s
    assert _as_scalar(X) is None
    assert _as_scalar(pt.iscalar("i")).type.dtype == "float64"
    root = pt.sqrt(a + a)
    fg = FunctionGraph([a], [2 * root], clone=False)
    assert res_is_a(fg, root, root.owner.op, 1) and not res_is_a(fg, root, root.owner.op, 0)
    assert not res_is_a(None, a, root.owner.op)


# A product that reaches the sum through a transpose ((x y)^T) is the accumulator's
# transpose: Gemm on L^T must accumulate x y, not (x y)^T (issue 35: the transposed
# operands were swapped twice, so ``C @ A + (D @ A).T`` computed ``C @ A + D @ A``).
TRANSPOSED_CASES = [
    # ``@`` (MatMul) keeps the transpose outside the product until Gemm forms;
    # ``pt.dot`` has it lifted into the operands first: both paths are checked.
    lambda: X @ Y + (Z @ Y).T,
    lambda: (X @ Y + Z).T,
    lambda: X @ Y.T + (Z @ Y).T,
    lambda: 0.5 * Y @ X + 0.25 * (Z.T @ Y).T,
    lambda: a * (X @ Y).T - b * Z,
    lambda: (X @ Y).T + (Z @ X).T + Z,
    lambda: pt.dot(X, Y) + pt.dot(Z, Y).T,
    lambda: (pt.dot(X, Y) + Z).T,
]


@pytest.mark.parametrize("case", range(len(TRANSPOSED_CASES)))
def test_products_through_a_transpose_keep_their_orientation(case: int) -> None:
    out = TRANSPOSED_CASES[case]()
    fast, ref = compile_pair([X, Y, Z, a, b], out)
    for xv in layouts(RNG.standard_normal((4, 4))):
        assert_same(fast, ref, xv, RNG.standard_normal((4, 4)), RNG.standard_normal((4, 4)),
                    0.7, -1.3, rtol=1e-12)


def test_gram_matrix_gradient_is_right_in_fast_run() -> None:
    """d/dA sum((A A^T) * W) = (W + W^T) A: the pullback is ``G A + G^T A``, one Gemm."""
    w = RNG.standard_normal((4, 4))
    g = pt.grad(((X @ X.T) * w).sum(), X)
    fast, ref = compile_pair([X], g)
    a0 = RNG.standard_normal((4, 4))
    np.testing.assert_allclose(fast(a0), (w + w.T) @ a0, rtol=1e-12)
    assert_same(fast, ref, a0, rtol=1e-12)

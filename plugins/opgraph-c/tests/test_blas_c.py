"""The BLAS products in C (Dot, Dot22, Gemm, Gemv) against the Python linker.

Every operand layout BLAS can read without a copy (row-major, transposed,
row/column slices) and the ones it cannot (negative and doubled strides,
broadcast rows) give the Python linker's result; so do empty shapes and the
IEEE corners of alpha/beta (beta == 0 never reads z, alpha == 0 still forms
the product).
"""

from __future__ import annotations

import numpy as np
import pytest
from opgraph_c.codegen.blas import find_blas
from opgraph_c.codegen.nodec import EmitContext
from opgraph_c.codegen.registry import c_for_node

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.io import In
from opgraph.compile.mode import Mode
from opgraph.tensor.basic_more import AllocEmpty
from opgraph.tensor.blas import Dot22, Gemm, Gemv, Ger, _batched_dot, _dot22scalar

RNG = np.random.default_rng(11)
C_MODE = Mode(linker="c", optimizer=None)
PY_MODE = Mode(linker="py", optimizer=None)

needs_blas = pytest.mark.skipif(find_blas() is None, reason="no CBLAS in this environment")


def layouts(a: np.ndarray) -> list[np.ndarray]:
    """The same values as row-major, column-major, reversed, stepped and broadcast views."""
    out = [a, np.asfortranarray(a), a[::-1, ::-1].copy()[::-1, ::-1]]
    out.append(np.repeat(a, 2, axis=1)[:, ::2])          # doubled column stride: copied
    out.append(np.ascontiguousarray(a[::-1])[::-1])      # negative row stride: copied
    big = np.zeros((a.shape[0] + 3, a.shape[1] + 5), a.dtype)
    big[1:1 + a.shape[0], 2:2 + a.shape[1]] = a
    out.append(big[1:1 + a.shape[0], 2:2 + a.shape[1]])  # a window: leading dimension
    out.append(np.asfortranarray(big)[1:1 + a.shape[0], 2:2 + a.shape[1]])
    for v in out:
        np.testing.assert_array_equal(v, a)
    return out


def compile_both(inputs, outputs):
    return (function(inputs, outputs, mode=C_MODE, accept_inplace=True),
            function(inputs, outputs, mode=PY_MODE, accept_inplace=True))


def assert_same(c_fn, py_fn, *values, rtol=1e-12):
    got, want = c_fn(*values), py_fn(*values)
    got = got if isinstance(got, list) else [got]
    want = want if isinstance(want, list) else [want]
    for g, w in zip(got, want, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol, equal_nan=True)


def origins(fn) -> dict[str, str]:
    order = fn.maker.fgraph.toposort()
    return {type(n.op).__name__: c_for_node(n, k, EmitContext(False))[1]
            for k, n in enumerate(order)}


@needs_blas
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_gemm_every_operand_layout(dtype):
    z, x, y = (pt.matrix(n, dtype=dtype) for n in "zxy")
    a, b = pt.scalar("a", dtype=dtype), pt.scalar("b", dtype=dtype)
    c_fn, py_fn = compile_both([z, a, x, y, b], Gemm()(z, a, x, y, b))
    assert origins(c_fn)["Gemm"] == "builtin"
    zv, xv, yv = (RNG.standard_normal(s).astype(dtype) for s in ((4, 6), (4, 5), (5, 6)))
    rtol = 1e-12 if dtype == "float64" else 1e-5
    for xl in layouts(xv):
        for yl in layouts(yv):
            assert_same(c_fn, py_fn, zv, 0.5, xl, yl, -2.0, rtol=rtol)
    for zl in layouts(zv):
        assert_same(c_fn, py_fn, zl, 1.5, xv, yv, 0.25, rtol=rtol)


@needs_blas
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_gemm_alpha_beta_ieee_corners():
    z, x, y = (pt.matrix(n) for n in "zxy")
    a, b = pt.scalar("a"), pt.scalar("b")
    c_fn, py_fn = compile_both([z, a, x, y, b], Gemm()(z, a, x, y, b))
    zv, xv, yv = (RNG.standard_normal(s) for s in ((3, 4), (3, 2), (2, 4)))
    z_nan = np.full((3, 4), np.nan)
    x_inf = xv.copy()
    x_inf[1, 0] = np.inf
    assert_same(c_fn, py_fn, z_nan, 1.0, xv, yv, 0.0)    # beta == 0 ignores z
    got = c_fn(z_nan, 1.0, xv, yv, 0.0)
    np.testing.assert_allclose(got, xv @ yv, rtol=1e-12)
    assert_same(c_fn, py_fn, zv, 0.0, x_inf, yv, 1.0)   # alpha == 0: 0 * inf is nan
    assert np.isnan(c_fn(zv, 0.0, x_inf, yv, 1.0)[1]).all()
    assert_same(c_fn, py_fn, zv, 0.0, xv, yv, 2.0)


@needs_blas
@pytest.mark.parametrize("shapes", [((0, 4), (0, 3), (3, 4)), ((3, 0), (3, 2), (2, 0)),
                                    ((3, 4), (3, 0), (0, 4))])
def test_gemm_empty_shapes(shapes):
    z, x, y = (pt.matrix(n) for n in "zxy")
    a, b = pt.scalar("a"), pt.scalar("b")
    c_fn, py_fn = compile_both([z, a, x, y, b], Gemm()(z, a, x, y, b))
    zv, xv, yv = (RNG.standard_normal(s) for s in shapes)
    assert_same(c_fn, py_fn, zv, 2.0, xv, yv, 3.0)


@needs_blas
def test_gemm_shape_mismatch_names_the_shapes():
    z, x, y = (pt.matrix(n) for n in "zxy")
    a, b = pt.scalar("a"), pt.scalar("b")
    c_fn = function([z, a, x, y, b], Gemm()(z, a, x, y, b), mode=C_MODE)
    with pytest.raises(ValueError, match=r"Gemm: shapes do not match: z 3x4, x 3x2, y 3x4"):
        c_fn(np.zeros((3, 4)), 1.0, np.zeros((3, 2)), np.zeros((3, 4)), 1.0)


@needs_blas
def test_gemm_inplace_writes_its_own_buffer_only():
    """An inplace Gemm on an intermediate: the result is right for row- and column-major z."""
    zin, x, y = (pt.matrix(n) for n in ("zin", "x", "y"))
    for make_z in (lambda v: v * 1.0, lambda v: (v.T * 1.0).T):
        z = make_z(zin)
        out = Gemm(inplace=True)(z, pt.constant(0.5), x, y, pt.constant(2.0))
        c_fn, py_fn = compile_both([zin, x, y], out)
        zv, xv, yv = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 5)), \
            RNG.standard_normal((5, 3))
        keep = zv.copy()
        for xl in layouts(xv)[:3]:
            assert_same(c_fn, py_fn, zv, xl, yv)
            np.testing.assert_allclose(c_fn(zv, xl, yv), 2.0 * zv + 0.5 * xv @ yv, rtol=1e-12)
        np.testing.assert_array_equal(zv, keep)  # the user's array is never written


@needs_blas
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_gemv_every_operand_layout(dtype):
    yv_, x = pt.vector("y", dtype=dtype), pt.vector("x", dtype=dtype)
    A = pt.matrix("A", dtype=dtype)
    a, b = pt.scalar("a", dtype=dtype), pt.scalar("b", dtype=dtype)
    c_fn, py_fn = compile_both([yv_, a, A, x, b], Gemv()(yv_, a, A, x, b))
    assert origins(c_fn)["Gemv"] == "builtin"
    rtol = 1e-12 if dtype == "float64" else 1e-5
    av = RNG.standard_normal((5, 7)).astype(dtype)
    xv = RNG.standard_normal(14).astype(dtype)
    yv = RNG.standard_normal(10).astype(dtype)
    for al in layouts(av):
        for xs in (xv[:7], xv[::2], xv[::-2][:7]):
            for ys in (yv[:5], yv[::2]):
                assert_same(c_fn, py_fn, ys, -1.5, al, xs, 0.5, rtol=rtol)
    assert_same(c_fn, py_fn, np.full(5, np.nan, dtype), 1.0, av, xv[:7], 0.0, rtol=rtol)
    assert_same(c_fn, py_fn, np.zeros(0, dtype), 1.0, np.zeros((0, 3), dtype),
                np.ones(3, dtype), 1.0)
    assert_same(c_fn, py_fn, yv[:5], 1.0, np.zeros((5, 0), dtype), np.ones(0, dtype), 2.0)


@needs_blas
def test_gemv_inplace_on_an_intermediate():
    yin, A, x = pt.vector("yin"), pt.matrix("A"), pt.vector("x")
    out = Gemv(inplace=True)(yin * 1.0, pt.constant(2.0), A, x, pt.constant(1.0))
    c_fn, py_fn = compile_both([yin, A, x], out)
    yv, av, xv = RNG.standard_normal(4), RNG.standard_normal((6, 4)), RNG.standard_normal(6)
    keep = yv.copy()
    assert_same(c_fn, py_fn, yv, av.T, xv)  # transposed A: a flag, not a copy
    np.testing.assert_array_equal(yv, keep)


@needs_blas
@pytest.mark.parametrize("kind", ["dot", "dot22"])
def test_dot_products_on_transposed_and_sliced_operands(kind):
    x, y = pt.matrix("x"), pt.matrix("y")
    out = pt.dot(x, y) if kind == "dot" else Dot22()(x, y)
    c_fn, py_fn = compile_both([x, y], out)
    assert set(origins(c_fn).values()) == {"builtin"}
    xv, yv = RNG.standard_normal((6, 5)), RNG.standard_normal((5, 4))
    for xl in layouts(xv):
        for yl in layouts(yv):
            assert_same(c_fn, py_fn, xl, yl)


@needs_blas
def test_matrix_vector_products_on_every_layout():
    A, v = pt.matrix("A"), pt.vector("v")
    c_fn, py_fn = compile_both([A, v], [pt.dot(A, v), pt.dot(v, A.T), pt.dot(v[:3], v[:3])])
    av, vv = RNG.standard_normal((3, 4)), RNG.standard_normal(8)
    for al in layouts(av):
        for vs in (vv[:4], vv[::2], vv[::-2]):
            assert_same(c_fn, py_fn, al, vs)


@needs_blas
@pytest.mark.parametrize("inplace", [False, True])
def test_gemm_broadcasting_z_and_product(inplace):
    """z and x @ y broadcast both ways (a length-1 row or column on either side), b == 0 too."""
    z, x, y = (pt.matrix(n) for n in "zxy")
    a, b = pt.scalar("a"), pt.scalar("b")
    out = Gemm(inplace=inplace)(z, a, x, y, b)
    ins = [In(z, mutable=True), x, y, a, b]  # an inplace Gemm overwrites z: declared mutable
    c_fn = function(ins, out, mode=C_MODE, accept_inplace=True)
    py_fn = function(ins, out, mode=PY_MODE, accept_inplace=True)
    for sz in [(5, 3), (1, 3), (5, 1), (1, 1)]:
        for sx, sy in [((5, 4), (4, 3)), ((1, 4), (4, 3)), ((5, 4), (4, 1)), ((1, 4), (4, 1))]:
            for bv in (1.5, 0.0):
                zv, xv, yv = RNG.random(sz), RNG.random(sx), RNG.random(sy)
                if bv == 0.0:
                    zv[...] = np.nan  # b == 0 never reads z
                got = c_fn(zv.copy(), xv, yv, 2.0, bv)
                np.testing.assert_allclose(got, py_fn(zv.copy(), xv, yv, 2.0, bv))
                expected = (bv * zv if bv else 0.0) + 2.0 * xv @ yv
                np.testing.assert_allclose(got, np.broadcast_to(expected, got.shape))


@needs_blas
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_dot22scalar_ger_batched_dot_match_python(dtype):
    """Dot22Scalar, Ger (both variants) and BatchedDot in C against perform, every layout."""
    for op_out in (_dot22scalar(pt.matrix(), pt.matrix(), pt.scalar()),
                   Ger(True)(pt.matrix(), pt.scalar(), pt.vector(), pt.vector()),
                   _batched_dot(pt.tensor3(), pt.tensor3())):
        assert c_for_node(op_out.owner, 0, EmitContext(openmp=False))[1] == "builtin"
    x, y = pt.tensor("x", dtype=dtype, shape=(None, None)), pt.tensor("y", dtype=dtype,
                                                                       shape=(None, None))
    a = pt.tensor("a", dtype=dtype, shape=())
    u, v = pt.tensor("u", dtype=dtype, shape=(None,)), pt.tensor("v", dtype=dtype, shape=(None,))
    rtol = 1e-12 if dtype == "float64" else 1e-5
    c_fn, py_fn = compile_both([x, y, a], _dot22scalar(x, y, a))
    scale = np.dtype(dtype).type(-1.5)
    for xv in layouts(RNG.random((4, 3)).astype(dtype)):
        assert_same(c_fn, py_fn, xv, RNG.random((3, 5)).astype(dtype), scale, rtol=rtol)
    for destructive in (False, True):
        A = pt.tensor("A", dtype=dtype, shape=(None, None))
        c_fn, py_fn = compile_both([A, a, u, v], Ger(destructive)(A * 1, a, u, v))
        for Av in layouts(RNG.random((4, 3)).astype(dtype)):
            uv, vv = RNG.random(8).astype(dtype)[::2], RNG.random(3).astype(dtype)
            assert_same(c_fn, py_fn, Av, np.dtype(dtype).type(0.5), uv, vv, rtol=rtol)
    b3, c3 = pt.tensor3("b3", dtype=dtype), pt.tensor3("c3", dtype=dtype)
    c_fn, py_fn = compile_both([b3, c3], _batched_dot(b3, c3))
    bv = RNG.random((5, 3, 4)).astype(dtype)
    assert_same(c_fn, py_fn, bv, RNG.random((5, 4, 2)).astype(dtype), rtol=rtol)
    assert_same(c_fn, py_fn, np.swapaxes(bv, 1, 2).copy().swapaxes(1, 2),
                RNG.random((5, 4, 2)).astype(dtype), rtol=rtol)
    for fn in (c_fn, py_fn):
        with pytest.raises(ValueError):
            fn(bv, RNG.random((4, 4, 2)).astype(dtype))


def test_alloc_empty_in_c_has_the_shape_and_dtype():
    n, m = pt.lscalar("n"), pt.iscalar("m")
    out = AllocEmpty("float32")(n, m)
    assert c_for_node(out.owner, 0, EmitContext(openmp=False))[1] == "builtin"
    c_fn = function([n, m], out, mode=C_MODE)
    got = c_fn(3, 4)
    assert got.shape == (3, 4) and got.dtype == np.float32
    assert c_fn(0, 2).shape == (0, 2)
    with pytest.raises(ValueError, match="negative length"):
        c_fn(-1, 2)

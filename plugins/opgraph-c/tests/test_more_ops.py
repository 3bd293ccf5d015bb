"""Differential tests for the ops added in C: argmax/argmin, softmax, join, inc_subtensor,
arange, eye, batched matmul and make_vector (against the Python linker)."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode

RNG = np.random.default_rng(3)


def run_both(inputs, outputs, *values, rtol=1e-12):
    c = function(inputs, outputs, mode=Mode(linker="c", optimizer=None))
    py = function(inputs, outputs, mode=Mode(linker="py", optimizer=None))
    origins = _origins(c)
    got, want = c(*values), py(*values)
    if not isinstance(got, list):
        got, want = [got], [want]
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol, equal_nan=True)
    return origins


def _origins(fn):
    from opgraph_c.codegen.nodec import EmitContext
    from opgraph_c.codegen.registry import c_for_node

    order = fn.maker.fgraph.toposort()
    return {type(n.op).__name__: c_for_node(n, k, EmitContext(False))[1]
            for k, n in enumerate(order)}


def layouts(a):
    """C order, transposed, reversed, stepped and empty variants of a 3-D array."""
    return [a, np.ascontiguousarray(a.transpose(2, 1, 0)).transpose(2, 1, 0), a[::-1, :, ::-1],
            np.repeat(a, 2, axis=2)[:, :, ::2], a[:, :0]]


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "uint8", "bool"])
def test_argmax_argmin_any_axes(dtype):
    x = pt.tensor3("x", dtype=dtype)
    outs = [pt.argmax(x), pt.argmin(x, axis=1), pt.argmax(x, axis=(0, 2)), pt.argmin(x, axis=-1),
            pt.argmax(x, axis=0, keepdims=True)]
    a = (RNG.standard_normal((3, 4, 5)) * 10).astype(dtype)
    if dtype.startswith("float"):
        a[1, 2, 3] = np.nan
    for v in layouts(a)[:4]:
        origins = run_both([x], outs, v)
        assert origins["Argmax"] == "builtin" and origins["Argmin"] == "builtin"


def test_argmax_of_empty_raises():
    x = pt.dvector("x")
    f = function([x], pt.argmax(x), mode=Mode(linker="c", optimizer=None))
    with pytest.raises(ValueError):
        f(np.zeros(0))


@pytest.mark.parametrize("shape, axis", [((0, 3, 0), 0), ((3, 0), 1), ((0, 3), 0), ((2, 0), 0),
                                         ((0, 3, 0), None), ((2, 0, 3), (0, 1))])
@pytest.mark.parametrize("reduce", ["max", "min"])
def test_max_min_over_an_empty_part_raise_like_numpy_even_with_an_empty_result(shape, axis,
                                                                                reduce):
    x = pt.tensor(dtype="int8", shape=(None,) * len(shape))
    outs = getattr(pt, reduce)(x, axis=axis)
    c = function([x], outs, mode=Mode(linker="c", optimizer=None))
    value = np.zeros(shape, "int8")
    try:
        want = getattr(np, reduce)(value, axis=axis)
    except ValueError:
        with pytest.raises(ValueError, match="zero-size"):
            c(value)
    else:
        got = c(value)
        assert got.shape == want.shape and got.dtype == want.dtype
    assert c(np.ones((2,) * len(shape), "int8")).shape == np.max(np.ones((2,) * len(shape)),
                                                                  axis=axis).shape


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("axis", [-1, 0, 1, None])
def test_softmax_and_log_softmax(dtype, axis):
    x = pt.tensor3("x", dtype=dtype)
    outs = [pt.special.softmax(x, axis=axis), pt.special.log_softmax(x, axis=axis)]
    a = (RNG.standard_normal((3, 4, 5)) * 30).astype(dtype)
    a[0, 0, 0] = 800  # would overflow without the max shift
    a[2, 1, :] = -np.inf
    a[1, 3, 2] = np.nan
    tol = 2e-6 if dtype == "float32" else 1e-12
    with np.errstate(all="ignore"):
        for v in layouts(a)[:4]:
            origins = run_both([x], outs, v, rtol=tol)
    assert origins["Softmax"] == "builtin" and origins["LogSoftmax"] == "builtin"
    empty = a[:, :0]  # NumPy's max over an empty axis raises; so does the C
    c = function([x], outs, mode=Mode(linker="c", optimizer=None))
    if axis in (1, None):
        with pytest.raises(ValueError, match="zero-size"):
            c(empty)
    else:
        assert all(r.shape == empty.shape for r in c(empty))


def test_join_dtypes_negative_axis_strides_and_empty():
    x, y = pt.dmatrix("x"), pt.matrix("y", dtype="int32")
    ax = pt.lscalar("ax")
    outs = [pt.concatenate([x, y], axis=0), pt.concatenate([x, x[:, ::-1]], axis=-1),
            pt.join(ax, x, x)]
    a = RNG.standard_normal((3, 4))
    b = (RNG.standard_normal((2, 4)) * 9).astype("int32")
    assert run_both([x, y, ax], outs, a, b, np.int64(1))["Join"] == "builtin"
    run_both([x, y, ax], outs, a.T.copy().T, b[::-1], np.int64(0))
    run_both([x, y, ax], outs, a[:0], b[:0], np.int64(-2))
    c = function([x, y], outs[0], mode=Mode(linker="c", optimizer=None))
    with pytest.raises(ValueError):
        c(np.ones((3, 4)), np.ones((2, 5), dtype="int32"))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_inc_and_set_subtensor(dtype):
    x = pt.matrix("x", dtype=dtype)
    r = pt.vector("r", dtype=dtype)
    n = pt.lscalar("n")
    outs = [pt.inc_subtensor(x[1:, ::2], r[:2]), pt.set_subtensor(x[n], r),
            pt.set_subtensor(x[::-1, 0], 7), pt.inc_subtensor(x[n:, 1:3], x[:1, :2]),
            pt.inc_subtensor(x[:0], 1)]
    a = (RNG.standard_normal((5, 4)) * 10).astype(dtype)
    rv = (RNG.standard_normal(4) * 10).astype(dtype)
    origins = run_both([x, r, n], outs, a, rv, np.int64(2))
    assert origins["IncSubtensor"] == "builtin"
    run_both([x, r, n], outs, np.asfortranarray(a), rv[::-1], np.int64(-1))
    ro = a.copy()
    ro.flags.writeable = False
    run_both([x, r, n], outs, ro, rv, np.int64(0))
    np.testing.assert_array_equal(ro, a)
    c = function([x, r, n], outs[1], mode=Mode(linker="c", optimizer=None))
    with pytest.raises(IndexError):
        c(a, rv, np.int64(9))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_inc_and_set_subtensor_direct_loop_broadcasts_like_numpy(dtype):
    """Same-dtype float increments run as a C loop over the view (no ufunc call): every
    broadcast, layout and 0-d case against the Python linker."""
    x = pt.tensor3("x", dtype=dtype)
    y2 = pt.matrix("y2", dtype=dtype)
    y1 = pt.vector("y1", dtype=dtype)
    s = pt.scalar("s", dtype=dtype)
    outs = [pt.inc_subtensor(x[1:, ::2], y2[:2]),  # y broadcast over the first axis
            pt.inc_subtensor(x[:, 1], y1[:1]),  # a length-1 axis broadcast
            pt.set_subtensor(x[::-1, :, 2], y2[:, :4]),
            pt.inc_subtensor(x[0, 1, 2], s),  # a 0-d view
            pt.inc_subtensor(x[:, :, ::-2], s),
            pt.inc_subtensor(x[:0], y1[:1])]
    a = RNG.standard_normal((3, 4, 5)).astype(dtype)
    b = RNG.standard_normal((3, 5)).astype(dtype)
    v = RNG.standard_normal(5).astype(dtype)
    for layout in layouts(a)[:4]:
        run_both([x, y2, y1, s], outs, layout, b, v, np.asarray(1.5, dtype=dtype), rtol=1e-6)
    run_both([x, y2, y1, s], outs, a, b[::-1, ::-1], v[::-1], np.asarray(-2, dtype=dtype),
             rtol=1e-6)
    c = function([x, y2, y1, s], outs, mode=Mode(linker="c", optimizer=None))
    assert f"og_incview_{dtype}" in c.linker.module_source
    with pytest.raises(ValueError):  # shapes that do not broadcast: NumPy's own error
        c(a, b[:, :4], v, np.asarray(1, dtype=dtype))


def test_inc_subtensor_in_place_from_an_overlapping_slice_of_itself():
    """y reads the memory the in-place increment writes: the result is NumPy's
    ``x[1:] += x[:-1].copy()``, never a running sum."""
    x = pt.dvector("x")
    out = pt.inc_subtensor(x[1:], x[:-1]) * 1.0
    for mode in ("c", "FAST_RUN"):
        f = function([x], out, mode=mode)
        a = np.arange(6.0)
        expected = a.copy()
        expected[1:] += a[:-1].copy()
        np.testing.assert_array_equal(f(a), expected)
        np.testing.assert_array_equal(a, np.arange(6.0))  # the argument is not modified


def test_inc_subtensor_in_place_under_fast_run():
    x = pt.dmatrix("x")
    out = pt.inc_subtensor(x[1:], 2.0) * 3
    c = function([x], out, mode="c")
    a = RNG.standard_normal((4, 3))
    np.testing.assert_allclose(c(a), (a + np.r_[[[0.0]], [[2.0]] * 3]) * 3)


@pytest.mark.parametrize("dtype", ["int64", "int32", "float64", "float32", "uint8"])
def test_arange(dtype):
    a, b, s = pt.dscalar("a"), pt.dscalar("b"), pt.dscalar("s")
    out = pt.arange(a, b, s, dtype=dtype)
    for args in [(0, 10, 1), (2.5, 9, 0.75), (10, 0, -3), (5, 5, 1), (5, 0, 1)]:
        if dtype == "uint8" and args[2] < 0:
            continue
        assert run_both([a, b, s], out, *map(np.float64, args))["ARange"] == "builtin"
    f = function([a, b, s], out, mode=Mode(linker="c", optimizer=None))
    with pytest.raises(ValueError):
        f(np.float64(0), np.float64(1), np.float64(0))


@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
def test_eye(dtype):
    n, m, k = pt.lscalar("n"), pt.lscalar("m"), pt.lscalar("k")
    out = pt.eye(n, m, k, dtype=dtype)
    for args in [(3, 3, 0), (3, 5, 2), (4, 2, -1), (0, 3, 0), (3, 3, 5), (3, 3, -7)]:
        assert run_both([n, m, k], out, *map(np.int64, args))["Eye"] == "builtin"
    f = function([n, m, k], out, mode=Mode(linker="c", optimizer=None))
    with pytest.raises(ValueError):
        f(np.int64(-1), np.int64(2), np.int64(0))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_batched_matmul(dtype):
    a3 = pt.tensor3("a3", dtype=dtype)
    b3 = pt.tensor3("b3", dtype=dtype)
    m = pt.matrix("m", dtype=dtype)
    bc = pt.tensor(dtype=dtype, shape=(1, None, None), name="bc")
    b4 = pt.tensor(dtype=dtype, shape=(None, 1, None, None), name="b4")
    outs = [pt.matmul(a3, b3), pt.matmul(a3, m), pt.matmul(m.T, a3.transpose(0, 2, 1)),
            pt.matmul(bc, b3), pt.matmul(b4, a3)]
    A = RNG.standard_normal((4, 3, 5)).astype(dtype)
    B = RNG.standard_normal((4, 5, 2)).astype(dtype)
    M = RNG.standard_normal((5, 2)).astype(dtype)
    BC = RNG.standard_normal((1, 6, 5)).astype(dtype)
    B4 = RNG.standard_normal((2, 1, 7, 3)).astype(dtype)
    tol = 2e-5 if dtype == "float32" else 1e-12
    assert run_both([a3, b3, m, bc, b4], outs, A, B, M, BC, B4, rtol=tol)["MatMul"] == "builtin"
    run_both([a3, b3, m, bc, b4], outs, A[::-1, :, ::-1], np.asfortranarray(B), M[::-1],
             BC.transpose(0, 2, 1).copy().transpose(0, 2, 1), B4[:, :, ::2], rtol=tol)
    run_both([a3, b3, m, bc, b4], outs, A[:0], B[:0], M, BC[:, :0], B4[:0], rtol=tol)
    f = function([a3, b3], pt.matmul(a3, b3), mode=Mode(linker="c", optimizer=None))
    with pytest.raises(ValueError):
        f(A, B[:3])


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "uint8", "bool"])
def test_make_vector_of_scalars(dtype):
    a, b = pt.scalar("a", dtype=dtype), pt.scalar("b", dtype=dtype)
    vec = pt.make_vector(a, b, a, dtype=dtype)
    origins = run_both([a, b], [vec, vec * 1], np.asarray(1, dtype), np.asarray(0, dtype))
    assert origins["MakeVector"] == "builtin"
    c = function([a, b], vec, mode=Mode(linker="c", optimizer=None))
    first = c(np.asarray(1, dtype), np.asarray(0, dtype)).copy()
    np.testing.assert_array_equal(first, np.array([1, 0, 1], dtype))
    np.testing.assert_array_equal(c(np.asarray(0, dtype), np.asarray(1, dtype)),
                                  np.array([0, 1, 0], dtype))
    empty = function([], pt.make_vector(dtype=dtype), mode=Mode(linker="c", optimizer=None))
    assert empty().shape == (0,) and empty().dtype == np.dtype(dtype)

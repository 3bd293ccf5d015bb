"""Differential tests: the "c" linker against the Python reference linker "py"."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode


def both(inputs, outputs):
    c = function(inputs, outputs, mode=Mode(linker="c"))
    py = function(inputs, outputs, mode=Mode(linker="py"))
    return c, py


def check(inputs, outputs, *values, rtol=1e-7):
    c, py = both(inputs, outputs)
    got, want = c(*values), py(*values)
    if not isinstance(got, list):
        got, want = [got], [want]
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-12, equal_nan=True)
    return c


RNG = np.random.default_rng(0)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "int64", "uint8", "bool"])
def test_arith_and_logic_all_dtypes(dtype):
    x, y = pt.matrix("x", dtype=dtype), pt.matrix("y", dtype=dtype)
    outs = [pt.maximum(x, y), pt.minimum(x, y), pt.eq(x, y), pt.lt(x, y), pt.ge(x, y),
            pt.switch(pt.gt(x, y), x, y)]
    if dtype != "bool":
        outs += [x + y, x * y, x - y, abs(x)]
    if dtype in ("int32", "int64", "uint8"):
        outs += [x // y, x % y, x & y, x | y, x ^ y, ~x]
    if dtype.startswith("float"):
        outs += [x / y, x // y, x % y, pt.exp(x), pt.log(abs(x)), pt.tanh(x), pt.sqrt(abs(x)),
                 x ** 2, pt.sigmoid(x), pt.softplus(x), pt.floor(x), pt.isnan(x / y)]
    a = (RNG.standard_normal((5, 7)) * 50).astype(dtype)
    b = (RNG.standard_normal((5, 7)) * 50).astype(dtype)
    if dtype.startswith(("int", "uint")):
        b[b == 0] = 3
    with np.errstate(all="ignore"):
        check([x, y], outs, a, b, rtol=1e-5 if dtype == "float32" else 1e-12)


def test_nan_inf_overflow_like_numpy():
    x = pt.dvector("x")
    outs = [pt.exp(x), pt.log(x), pt.tanh(x), x / 0.0, pt.maximum(x, 0.0), pt.sigmoid(x),
            x * 1e308]
    vals = np.array([np.nan, np.inf, -np.inf, 1000.0, -1000.0, 0.0, -0.0, 1e-320, 710.0])
    with np.errstate(all="ignore"):
        check([x], outs, vals, rtol=1e-13)


def test_integer_overflow_wraps_and_division_by_zero():
    x, y = pt.vector("x", dtype="int8"), pt.vector("y", dtype="int8")
    a = np.array([127, -128, 5, -7, 0], dtype="int8")
    b = np.array([1, -1, 0, 2, 0], dtype="int8")
    with np.errstate(all="ignore"):
        check([x, y], [x + y, x * y, x // y, x % y, -x], a, b)


def test_strides_negative_stepped_transposed_broadcast_and_empty():
    x, y = pt.dmatrix("x"), pt.dmatrix("y")
    r = pt.row("r", dtype="float64")
    outs = [pt.exp(x) * y + pt.tanh(x), x + r, (x * r).sum(axis=0)]
    big = RNG.standard_normal((40, 60))
    rr = RNG.standard_normal((1, 60))
    c, py = both([x, y, r], outs)
    for args in [
        (big, big.T.copy().T, rr),
        (big[::-1], big[:, ::-1], rr[:, ::-1]),
        (np.ascontiguousarray(big.T).T, big[::1], rr),
        (big[::2, ::3][:, :20], big[1::2, ::3][:, :20], rr[:, ::3]),
        (big[:0], big[:0], rr),
    ]:
        for g, w in zip(c(*args), py(*args)):
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-12)


def test_inputs_broadcast_along_the_last_axis_read_once_per_row():
    """A (n, 1) column or (1, 1) value in a fused loop with a (n, m) matrix: the row loop
    reads it as one value per row (codegen/elemwise.py's row kernel); multi-output, with
    an output written in place, strided and reversed operands, one and 600 columns."""
    x, col = pt.dmatrix("x"), pt.col("c", dtype="float64")
    one = pt.matrix("o", shape=(1, 1), dtype="float64")
    t3, c3 = pt.dtensor3("t3"), pt.tensor3("c3", shape=(None, None, 1), dtype="float64")
    outs = [pt.exp(-0.5 * (x - col) ** 2) * one + col, (x * col).sum(axis=1), x / col - one,
            t3 * c3 + 1.0]
    c, py = both([x, col, one, t3, c3], outs)
    assert "og_kern_" in c.linker.module_source and "r(m, og_p, og_q, og_st)" in (
        c.linker.module_source)
    for m in (1, 7, 600):
        big = RNG.standard_normal((9, 2 * m))
        cv = RNG.standard_normal((9, 1))
        ov = RNG.standard_normal((1, 1))
        tv, tc = RNG.standard_normal((3, 4, m)), RNG.standard_normal((3, 4, 1))
        for args in [(big[:, :m], cv, ov, tv, tc),
                     (big[::-1, ::2], cv[::-1], ov, tv[:, ::-1, ::-1], tc[::-1]),
                     (np.asfortranarray(big[:, :m]), cv, ov, tv.transpose(1, 0, 2).copy()
                      .transpose(1, 0, 2), tc)]:
            for g, w in zip(c(*args), py(*args)):
                assert g.shape == w.shape  # (libmvec's exp: a few ulps)
                np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)


def test_misaligned_input_is_refused_naming_it():
    """One rule for every type and mode (docs/modes.md): an unaligned argument is refused."""
    x = pt.dvector("x")
    buf = np.zeros(8 * 10 + 1, dtype=np.uint8)
    a = buf[1:].view(np.float64)
    a[:] = np.arange(10.0)
    assert not a.flags.aligned
    f = function([x], [x * 2 + 1, x.sum()], mode=Mode(linker="c"))
    for trust in (False, True):  # the compiled module checks it even under trust_input
        f.trust_input = trust
        with pytest.raises(TypeError, match=r"input 0 \('x'\).*not aligned"):
            f(a)
    np.testing.assert_allclose(f(a.copy())[0], np.arange(10.0) * 2 + 1)


def test_reductions_any_axes():
    x = pt.tensor3("x", dtype="float64")
    b = pt.tensor3("b", dtype="bool")
    outs = [x.sum(), x.sum(axis=(0, 2)), x.prod(axis=1), x.max(axis=(1, 2)), x.min(axis=0),
            x.sum(axis=2), b.all(axis=1), b.any(), b.sum(axis=0)]
    a = RNG.standard_normal((3, 4, 5))
    bb = RNG.standard_normal((3, 4, 5)) > 0
    check([x, b], outs, a, bb, rtol=1e-12)
    check([x, b], outs, a[:, ::-1, ::2], bb[::-1], rtol=1e-12)


@pytest.mark.parametrize("shape", [(30, 30), (3, 4, 5), (7, 300), (5, 1), (0, 6), (6, 0)])
def test_reductions_keeping_the_last_axis(shape):
    """sum(x, axis=0) and the like run whole rows at once (the row path of
    codegen/reduce.py): same values, bit for bit, as element by element (NumPy adds the
    rows in order too), for any length of the kept run, strided inputs and bools."""
    x = pt.tensor("x", dtype="float64", shape=(None,) * len(shape))
    i = pt.tensor("i", dtype="int32", shape=(None,) * len(shape))
    b = pt.tensor("b", dtype="bool", shape=(None,) * len(shape))
    head = tuple(range(len(shape) - 1))
    outs = [x.sum(axis=head), x.prod(axis=0), i.sum(axis=0), b.all(axis=0), b.any(axis=head),
            b.sum(axis=0), x.max(axis=0) if shape[0] else x.sum(axis=0)]
    a = RNG.standard_normal(shape)
    ai = RNG.integers(-5, 5, shape).astype("int32")
    bb = RNG.standard_normal(shape) > -1
    check([x, i, b], outs, a, ai, bb, rtol=1e-12)
    # without FAST_RUN's rewrites (a sum over rows may become a Gemv), the Sums themselves
    exact = function([x, i], [x.sum(axis=head), i.sum(axis=0)],
                     mode=Mode(linker="c", optimizer="fast_compile"))
    assert all(type(n.op).__name__ == "Sum" for n in exact.maker.fgraph.toposort())
    got = exact(a, ai)
    np.testing.assert_array_equal(got[0], a.sum(axis=head))  # same order of additions
    np.testing.assert_array_equal(got[1], ai.sum(axis=0))
    if len(shape) == 2 and shape[1] > 1:  # strided last axis: the general loop
        check([x, i, b], outs, a[:, ::-1], ai[::-1], np.asfortranarray(bb), rtol=1e-12)


def test_max_of_empty_raises_value_error():
    x = pt.dvector("x")
    f = function([x], x.max(), mode=Mode(linker="c"))
    with pytest.raises(ValueError):
        f(np.zeros(0))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_dot_all_shapes(dtype):
    m, v = pt.matrix("m", dtype=dtype), pt.vector("v", dtype=dtype)
    w = pt.vector("w", dtype=dtype)
    outs = [pt.dot(m, m.T), pt.dot(m, v), pt.dot(w, m), pt.dot(v, v), pt.matmul(m, v)]
    a = (RNG.standard_normal((4, 3)) * 4).astype(dtype)
    vv = (RNG.standard_normal(3) * 4).astype(dtype)
    ww = (RNG.standard_normal(4) * 4).astype(dtype)
    tol = 1e-5 if dtype == "float32" else 1e-12
    check([m, v, w], outs, a, vv, ww, rtol=tol)
    check([m, v, w], outs, np.asfortranarray(a), vv[::-1], ww[::2].repeat(2), rtol=tol)


def test_dot_shape_mismatch_raises():
    m, v = pt.dmatrix("m"), pt.dvector("v")
    f = function([m, v], pt.dot(m, v), mode=Mode(linker="c"))
    with pytest.raises(ValueError):
        f(np.ones((2, 3)), np.ones(4))


def test_shape_reshape_alloc_subtensor_cast():
    x = pt.dmatrix("x")
    n = pt.lscalar("n")
    outs = [x.shape, x.shape[0] + 0, x.reshape((-1,)), x.reshape((3, -1)), pt.alloc(1.5, n, 2),
            x[1:, ::-1], x[-1], x[::-2, 1], x[n - 2 :, :n], pt.cast(x, "int32"),
            pt.cast(x, "bool"), x.T.reshape((12,))]
    a = RNG.standard_normal((4, 3))
    check([x, n], outs, a, np.int64(3))


def test_subtensor_out_of_bounds_raises_index_error():
    x = pt.dvector("x")
    i = pt.lscalar("i")
    f = function([x, i], x[i], mode=Mode(linker="c"))
    assert f(np.arange(3.0), np.int64(-1)) == 2.0
    with pytest.raises(IndexError):
        f(np.arange(3.0), np.int64(3))


def test_views_keep_base_alive():
    x = pt.dmatrix("x")
    f = function([x], [x.T, x[1:]], mode=Mode(linker="c"))
    a = RNG.standard_normal((3, 3))
    t, s = f(a)
    del a
    np.testing.assert_allclose(t.T[1:], s)


def test_nodes_without_c_run_their_python_thunk():
    x = pt.dvector("x")
    h = pt.vector("h", dtype="float16")
    joined = pt.concatenate([x, x * 2])  # Join has no C: runs in Python between C nodes
    outs = [pt.exp(joined) + 1, pt.argmax(joined), h * 2]
    check([x, h], outs, RNG.standard_normal(6), RNG.standard_normal(3).astype("float16"))

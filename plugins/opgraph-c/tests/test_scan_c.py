"""The Scan loop in generated C: every loop gives what the Python loop gives."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
from opgraph_c.codegen.nodec import EmitContext
from opgraph_c.codegen.registry import c_for_node
from opgraph_c.codegen.scan_c import emit_scan

import opgraph
import opgraph.tensor as pt
from opgraph.compile.mode import Mode, get_mode
from opgraph.scan.op import Scan

RNG = np.random.default_rng(7)


def compile_both(inputs, outputs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fc = opgraph.function(inputs, outputs, mode="C")
        fp = opgraph.function(inputs, outputs, mode="FAST_COMPILE")
    return fc, fp


def c_scans(fn):
    """The Scan nodes of ``fn`` whose loop has C."""
    out = []
    for k, node in enumerate(fn.maker.fgraph.toposort()):
        if isinstance(node.op, Scan):
            ctx = EmitContext(openmp=False, emit_node=c_for_node)
            ctx.node_index = k
            out.append(emit_scan(node, ctx) is not None)
    return out


def check(inputs, outputs, *values):
    fc, fp = compile_both(inputs, outputs)
    got, want = fc(*values), fp(*values)
    for g, w in zip(got if isinstance(got, list) else [got],
                    want if isinstance(want, list) else [want]):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    return fc


def rnn(x, W, h0):
    return opgraph.scan(lambda xt, h, W: pt.tanh(pt.dot(W, h) + xt), sequences=x,
                        outputs_info=h0, non_sequences=W, return_updates=False)


def test_rnn_value_history_and_gradient():
    x, W, h0 = pt.matrix("x"), pt.matrix("W"), pt.vector("h0")
    h = rnn(x, W, h0)
    g = opgraph.grad(h[-1].sum(), [W, x, h0])
    vals = (RNG.normal(size=(12, 4)), RNG.normal(size=(4, 4)) / 2, RNG.normal(size=4))
    fc = check([x, W, h0], [h, h[-1], *g], *vals)
    assert c_scans(fc) and all(c_scans(fc))


def test_scalar_recurrence_with_constants():
    a = pt.dscalar("a")
    s = opgraph.scan(lambda s, a: s * a + 1.0, outputs_info=pt.as_tensor(0.0),
                     non_sequences=a, n_steps=50, return_updates=False)
    fc = check([a], [s, s[-1]], 0.9)
    assert all(c_scans(fc))
    np.testing.assert_allclose(fc(0.5)[1], sum(0.5 ** k for k in range(50)))


def test_taps_on_sequences_and_outputs_and_per_step_outputs():
    x = pt.vector("x")
    init = pt.vector("init")

    def step(xm1, xp1, a, b):
        return a + b * xm1, (a * xp1) ** 2

    fib, sq = opgraph.scan(step, sequences={"input": x, "taps": [-1, 1]},
                           outputs_info=[{"initial": init, "taps": [-2, -1]}, None],
                           return_updates=False)
    fc = check([x, init], [fib, sq], RNG.normal(size=9), np.array([0.5, 1.0]))
    assert all(c_scans(fc))


def test_zero_steps_and_a_symbolic_step_count():
    k = pt.iscalar("k")
    v = pt.vector("v")
    out = opgraph.scan(lambda h, v: h * 2.0 + v, outputs_info=v, non_sequences=v, n_steps=k,
                       return_updates=False)
    per_step = opgraph.scan(lambda v: v * 3.0, non_sequences=v, n_steps=k,
                            return_updates=False)
    fc, fp = compile_both([v, k], [out, per_step])
    for n in (0, 1, 5):
        got, want = fc(np.arange(3.0), n), fp(np.arange(3.0), n)
        np.testing.assert_array_equal(got[0], want[0])
        if n:  # without a step, the Python loop cannot know a per-step row's length
            np.testing.assert_array_equal(got[1], want[1])
    x = pt.matrix("x")
    rows = opgraph.scan(lambda xt: xt * 2.0, sequences=x, n_steps=k, return_updates=False)
    fc = check([x, k], [rows], np.ones((4, 2)), 0)
    assert all(c_scans(fc))


def test_bad_step_counts_and_short_sequences_are_errors():
    x, k = pt.vector("x"), pt.iscalar("k")
    y = opgraph.scan(lambda xt, s: s + xt, sequences=x, outputs_info=pt.as_tensor(0.0),
                     n_steps=k, return_updates=False)
    fc, _ = compile_both([x, k], y)
    assert all(c_scans(fc))
    with pytest.raises(ValueError, match="fewer than n_steps"):
        fc(np.arange(3.0), 5)
    with pytest.raises(ValueError, match="n_steps"):
        fc(np.arange(3.0), -1)


def test_loops_c_does_not_cover_keep_their_python_loop():
    srng = pt.random.RandomStream(seed=1)
    # a draw without C (uniform: not in opgraph_c.codegen.random_c.DISTRIBUTIONS)
    walk, updates = opgraph.scan(lambda s: s + srng.uniform(), outputs_info=pt.as_tensor(0.0),
                                 n_steps=3, return_updates=True)
    fc = opgraph.function([], walk, updates=updates, mode="C")
    assert c_scans(fc) == [False]
    assert fc().shape == (3,)


@pytest.mark.parametrize("limit", [0.5, 10.0, 1e9])
def test_while_loops_run_in_c_and_return_the_rows_written(limit):
    """until: the C loop stops after the step whose condition holds (at once, midway,
    never) and returns the rows written, for states with taps and per-step outputs."""
    w = pt.vector("w")
    lim = pt.dscalar("lim")
    n = pt.iscalar("n")

    def step(a, b, w, lim):
        c = a + b
        return (c, c * 2.0, w * c, pt.stack([c, -c])), opgraph.scan.until(c > lim)

    (fib, dbl, pair, both) = opgraph.scan(
        step, outputs_info=[{"initial": w, "taps": [-2, -1]}, None, None, None],
        non_sequences=[w, lim], n_steps=n, return_updates=False)
    fc = check([w, lim, n], [fib, dbl, pair, both, fib[-1]], np.array([1.0, 1.0]), limit,
               25)
    assert all(c_scans(fc))
    got = fc(np.array([1.0, 1.0]), limit, 25)
    fibs = [1.0, 1.0]
    while len(fibs) < 27:
        fibs.append(fibs[-1] + fibs[-2])
        if fibs[-1] > limit:
            break
    np.testing.assert_allclose(got[0], fibs[2:])
    np.testing.assert_allclose(got[1], 2 * np.array(fibs[2:]))
    np.testing.assert_allclose(got[2], np.outer(fibs[2:], [1.0, 1.0]))
    np.testing.assert_allclose(got[3], np.outer(fibs[2:], [1.0, -1.0]))
    for steps in (0, 1, 3):
        check([w, lim, n], [fib, dbl, pair], np.array([1.0, 1.0]), limit, steps)
    s = pt.dscalar("s")
    last = opgraph.scan(lambda s: (s * 2.0, opgraph.scan.until(s > 10.0)),
                        outputs_info=s, n_steps=20, return_updates=False)[-1]
    fc2 = check([s], [last], 1.0)
    assert all(c_scans(fc2)) and fc2(1.0)[0] == 32.0


def test_a_while_loop_keeping_a_ring_of_its_last_rows():
    """A while loop whose last rows only are read keeps a ring; stopping before the
    ring fills, as it fills and after it wrapped gives the Python loop's rows."""
    w, lim, n = pt.vector("w"), pt.dscalar("lim"), pt.iscalar("n")
    fib = opgraph.scan(lambda a, b, lim: (a + b, opgraph.scan.until(a + b > lim)),
                       outputs_info=[{"initial": w, "taps": [-2, -1]}], non_sequences=lim,
                       n_steps=n, return_updates=False)
    outs = [fib[-1], fib[-2]]
    fc = opgraph.function([w, lim, n], outs, mode="C")
    fp = opgraph.function([w, lim, n], outs,
                          mode=Mode(linker="py", optimizer=get_mode("FAST_RUN").optimizer))
    [node] = [v for v in fc.maker.fgraph.apply_nodes if isinstance(v.op, Scan)]
    assert node.op.keep_last and all(c_scans(fc))
    for limit in (0.5, 2.5, 4.0, 100.0, 1e9):
        for steps in (2, 3, 5, 30):
            got, want = fc(np.ones(2), limit, steps), fp(np.ones(2), limit, steps)
            np.testing.assert_allclose(got, want)


def test_a_ring_of_the_last_rows_when_only_those_are_read():
    k = pt.iscalar("k")
    init = pt.vector("init")
    fib = opgraph.scan(lambda a, b: a + b, outputs_info={"initial": init, "taps": [-2, -1]},
                       n_steps=k, return_updates=False)
    fc, fp = compile_both([init, k], [fib[-1], fib[-3]])
    [node] = [n for n in fc.maker.fgraph.apply_nodes if isinstance(n.op, Scan)]
    assert node.op.keep_last and all(c_scans(fc))
    for n in (3, 4, 7, 30):
        for g, w in zip(fc(np.array([0.0, 1.0]), n), fp(np.array([0.0, 1.0]), n)):
            np.testing.assert_allclose(g, w)
    x, W, h0 = pt.matrix("x"), pt.matrix("W"), pt.vector("h0")
    h = rnn(x, W, h0)
    g = opgraph.grad(h[-1].sum(), W)
    vals = (RNG.normal(size=(9, 3)), RNG.normal(size=(3, 3)) / 2, RNG.normal(size=3))
    check([x, W, h0], [h[-1], g], *vals)


def test_strided_sequences_and_views_of_rows_read_the_right_row_every_step():
    # the row views are moved from row to row: reversed and strided sequences, a step
    # whose nodes take views of the rows, and a per-step output returned twice
    x, y, s0 = pt.matrix("x"), pt.matrix("y"), pt.vector("s0")

    def step(xt, yt, xm1, s):
        v = xt[::-1] + yt.dimshuffle("x", 0)[0] * xm1
        return s + v, v, v

    (s, a, b) = opgraph.scan(step, sequences=[{"input": x[::-1], "taps": [0, -1]},
                                             y[:, ::2]],
                             outputs_info=[s0, None, None], return_updates=False)
    xv, yv, sv = RNG.normal(size=(7, 3)), RNG.normal(size=(8, 6)), RNG.normal(size=3)
    fc = check([x, y, s0], [s, a, b], xv, yv, sv)
    assert all(c_scans(fc))
    xr, s_want, a_want = xv[::-1], sv, []
    for t in range(6):
        v = xr[t + 1][::-1] + yv[t, ::2] * xr[t]
        s_want = s_want + v
        a_want.append(v)
    got = fc(xv, yv, sv)
    np.testing.assert_allclose(got[0][-1], s_want)
    np.testing.assert_allclose(got[1], np.array(a_want))
    np.testing.assert_allclose(got[2], np.array(a_want))


def _exact_matvec(W, h):
    """W @ h in exact rational arithmetic, rounded once (correct rounding)."""
    return np.array([float(sum(Fraction(float(w)) * Fraction(float(v)) for w, v in zip(row, h)))
                     for row in W], dtype=W.dtype)


@pytest.mark.parametrize("dtype, scale", [("float64", 1e-310), ("float32", 1e-40)])
def test_products_of_subnormal_vectors_are_rounded_once_not_flushed(dtype, scale):
    # the loop scales an all-subnormal vector by a power of two around the product
    # (a CPU takes a slow assist per subnormal multiplication): the result must be
    # the exact product rounded into the subnormal range, never flushed to zero
    W, h0 = pt.matrix("W", dtype=dtype), pt.vector("h0", dtype=dtype)
    h = opgraph.scan(lambda h, W: pt.dot(W, h), outputs_info=h0, non_sequences=W,
                     n_steps=4, return_updates=False)
    hv = h.T  # the other operand order takes the same path
    g = opgraph.scan(lambda h, W: pt.dot(h, W), outputs_info=h0, non_sequences=W,
                     n_steps=4, return_updates=False)
    fc, fp = compile_both([W, h0], [h, g, hv])
    assert all(c_scans(fc))
    rng = np.random.default_rng(2024)  # several draws: a rounding slip is data-dependent
    for _ in range(8):
        Wv = (rng.normal(size=(6, 6)) * 0.9).astype(dtype)
        h0v = (rng.normal(size=6) * scale).astype(dtype)
        _check_rounded_once(fc, fp, Wv, h0v, dtype)


def _check_rounded_once(fc, fp, Wv, h0v, dtype):
    assert np.all(np.abs(h0v) < np.finfo(dtype).tiny) and np.all(h0v != 0)
    got_h, got_g, _ = fc(Wv, h0v)
    want_h, want_g, _ = fp(Wv, h0v)
    tiny_ulp = np.finfo(dtype).smallest_subnormal
    prev_h, prev_g = h0v, h0v
    for t in range(4):
        # each step: the exact product of the previous step's value, rounded once
        # (the scaled sum's own rounding can move a tie: one unit of the grid)
        np.testing.assert_allclose(got_h[t], _exact_matvec(Wv, prev_h), rtol=0, atol=tiny_ulp)
        np.testing.assert_allclose(got_g[t], _exact_matvec(Wv.T, prev_g), rtol=0,
                                   atol=tiny_ulp)
        prev_h, prev_g = got_h[t], got_g[t]
    # the Python linker's BLAS rounds every partial sum into the subnormal grid (a
    # few units per step, which the recurrence carries on: measured up to about 40 in
    # float32 over four steps): the same to rounding
    np.testing.assert_allclose(got_h, want_h, rtol=1e-9, atol=64 * tiny_ulp)
    np.testing.assert_allclose(got_g, want_g, rtol=1e-9, atol=64 * tiny_ulp)
    assert np.count_nonzero(got_h[-1]) > 0


@pytest.mark.parametrize("special", [np.inf, np.nan, 1.0, 1e-100, 0.0])
def test_products_of_vectors_with_a_large_entry_are_left_alone(special):
    # an entry of 2**-600 or more, infinite or nan (or no subnormal at all) takes the
    # plain product: the same BLAS call as the Python linker's
    W, h0 = pt.matrix("W"), pt.vector("h0")
    h = opgraph.scan(lambda h, W: pt.dot(W, h), outputs_info=h0, non_sequences=W,
                     n_steps=3, return_updates=False)
    fc, fp = compile_both([W, h0], h)
    Wv = RNG.normal(size=(5, 5))
    h0v = RNG.normal(size=5) * 1e-310
    h0v[2] = special
    if special == 0.0:
        h0v[:] = 0.0
    with np.errstate(invalid="ignore"):
        got, want = fc(Wv, h0v), fp(Wv, h0v)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    if special == 0.0:
        assert np.all(got == 0)


def test_a_vector_of_subnormals_and_small_normals_is_scaled_too():
    # below 2**-600 everywhere: scaled (exactly); the result is normal, so it is the
    # exact product to the rounding of a normal sum
    W, h0 = pt.matrix("W"), pt.vector("h0")
    out = opgraph.scan(lambda h, W: pt.dot(W, h), outputs_info=h0, non_sequences=W,
                       n_steps=1, return_updates=False)
    fc, _ = compile_both([W, h0], out)
    Wv = RNG.normal(size=(6, 6))
    h0v = RNG.normal(size=6) * 1e-310
    h0v[0] = 3e-300  # normal, small: the sum is dominated by it, the rest is rounding
    h0v[1] = -2e-305
    got = fc(Wv, h0v)[0]
    np.testing.assert_allclose(got, _exact_matvec(Wv, h0v), rtol=4e-15, atol=0)


def test_rnn_gradient_that_decays_into_subnormals():
    # the benchmark's case: a backward pass through time whose deltas become subnormal
    x, W, h0 = pt.matrix("x"), pt.matrix("W"), pt.vector("h0")
    h = rnn(x, W, h0)
    g = opgraph.grad(h[-1].sum(), [W, h0])
    vals = (RNG.normal(size=(400, 16)), RNG.normal(size=(16, 16)) / 16, np.zeros(16))
    fc, fp = compile_both([x, W, h0], g)
    assert all(c_scans(fc))
    got, want = fc(*vals), fp(*vals)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("steps", [3, 80])
def test_large_weights_read_from_a_pinned_copy_give_the_same_values(steps):
    # a matrix of 64 KiB or more read by a loop of 64 steps or more is copied once
    # into a huge-page buffer (C and Fortran order: W and the backward loop's W.T)
    x, W, h0 = pt.matrix("x"), pt.matrix("W"), pt.vector("h0")
    h = rnn(x, W, h0)
    gW = opgraph.grad(h[-1].sum(), W)
    vals = (RNG.normal(size=(steps, 192)), RNG.normal(size=(192, 192)) / 192,
            RNG.normal(size=192))
    assert vals[1].nbytes >= 64 << 10
    fc = check([x, W, h0], [h, gW], *vals)
    assert all(c_scans(fc))
    # the inputs are untouched, and a second call gives the same
    before = [v.copy() for v in vals]
    first = fc(*vals)
    second = fc(*vals)
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(vals, before):
        np.testing.assert_array_equal(a, b)
    # Fortran-ordered weights given from outside take the same path (another BLAS
    # layout: sums in another order, so entries near zero differ by rounding only)
    np.testing.assert_allclose(fc(vals[0], np.asfortranarray(vals[1]), vals[2])[0], first[0],
                               rtol=1e-12, atol=1e-13)

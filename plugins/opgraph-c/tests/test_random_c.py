"""Draws in C (codegen/random_c.py, runtime/random.h) and Scan loops that draw, in C.

Every seeded stream is compared bit for bit with the Python perform (the
FAST_COMPILE VM), and so is the generator's state afterwards: the C calls the
functions NumPy's Generator methods call, on the same bit generator.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from opgraph_c.codegen import random_c
from opgraph_c.codegen.nodec import EmitContext
from opgraph_c.codegen.registry import c_for_node
from opgraph_c.codegen.scan_c import emit_scan

import opgraph
import opgraph.tensor as pt
from opgraph.scan.op import Scan
from opgraph.tensor.random.basic import halfnormal, lognormal, normal

pytestmark = pytest.mark.skipif(random_c.npyrandom_dir() is None,
                                reason="this NumPy ships no libnpyrandom.a")


def compile_pair(build, inputs, seed=3):
    """(C function, Python function, their shared generators) for ``build(rng) -> (outs,
    next_rng)``, each side with its own generator seeded alike."""
    funcs, rngs = [], []
    for mode in ("C", "FAST_COMPILE"):
        rng = opgraph.shared(np.random.default_rng(seed))
        outs, nxt = build(rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            funcs.append(opgraph.function(inputs, outs, updates={rng: nxt}, mode=mode))
        rngs.append(rng)
    return funcs[0], funcs[1], rngs


def same_state(a, b):
    return a.get_value().bit_generator.state == b.get_value().bit_generator.state


def test_draws_match_python_bit_for_bit():
    loc, sc = pt.vector("loc"), pt.scalar("sc")
    loc32 = pt.vector("loc32", dtype="float32")

    def build(rng):
        a = normal(loc, sc, rng=rng)
        b = normal(0, 1, size=(2, 3), rng=a.owner.outputs[0])
        c = lognormal(loc[:, None], sc, size=(4, 3), rng=b.owner.outputs[0])
        d = normal(loc32, 1.0, rng=c.owner.outputs[0])  # a float32 draw
        e = normal(pt.arange(3), sc, rng=d.owner.outputs[0])  # integer parameters
        return [a, b, c, d, e], e.owner.outputs[0]

    fc, fp, (rc, rp) = compile_pair(build, [loc, sc, loc32])
    assert fc.linker.module_source.count("og_rng_draw2(") >= 6  # defined, five calls
    args = (np.arange(4.0), 2.0, np.ones(3, "float32"))
    for _ in range(3):
        for got, want in zip(fc(*args), fp(*args)):
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)
        assert same_state(rc, rp)


def test_halfnormal_matches_scipy_stream():
    """halfnormal draws with scipy.stats.halfnorm.rvs: |z| * scale + loc, each rounded."""
    loc, sc = pt.vector("loc"), pt.scalar("sc")

    def build(rng):
        a = halfnormal(loc, sc, rng=rng)
        b = halfnormal(0.1, 0.7, size=(300,), rng=a.owner.outputs[0])  # no fused rounding
        c = halfnormal(loc, 0.0, rng=b.owner.outputs[0])  # scale 0: loc, no draw
        return [a, b, c], c.owner.outputs[0]

    fc, fp, (rc, rp) = compile_pair(build, [loc, sc])
    assert fc.linker.module_source.count("og_rng_draw2(") >= 4
    for args in [(np.arange(3.0), 0.5), (np.array([1e-300, -2.0, 7.0]), 3.0)]:
        for got, want in zip(fc(*args), fp(*args)):
            np.testing.assert_array_equal(got, want)
        assert same_state(rc, rp)
    for bad in (-1.0, np.nan):
        with pytest.raises(ValueError, match="Domain error"):
            fc(np.zeros(3), bad)
    assert same_state(rc, rp)


def test_bad_parameters_raise_before_any_draw():
    loc, sc = pt.vector("loc"), pt.scalar("sc")
    fc, _, (rc, _) = compile_pair(lambda rng: ([x := normal(loc, sc, rng=rng)],
                                                x.owner.outputs[0]), [loc, sc])
    before = rc.get_value().bit_generator.state
    for bad in (-1.0, -0.0):
        with pytest.raises(ValueError, match="scale < 0"):
            fc(np.zeros(2), bad)
    assert rc.get_value().bit_generator.state == before
    assert np.isnan(fc(np.zeros(2), np.nan)[0]).all()  # NaN passes, as in NumPy
    size = pt.tensor("size", dtype="int64", shape=(2,))
    fs, _, _ = compile_pair(lambda rng: ([x := normal(loc, 1.0, size=size, rng=rng)],
                                         x.owner.outputs[0]), [loc, size])
    with pytest.raises(ValueError, match="broadcast"):
        fs(np.zeros(3), np.array([2, 2]))
    assert fs(np.zeros(3), np.array([2, 3]))[0].shape == (2, 3)


def test_a_draw_that_is_not_inplace_leaves_its_input_generator_alone():
    rng = pt.random.type.random_generator_type("rng")
    draw = normal(0.0, 1.0, size=(3,), rng=rng)
    fc = opgraph.function([rng], [draw, draw.owner.outputs[0]], mode="C")
    assert "og_rng_draw2(" in fc.linker.module_source
    g = np.random.default_rng(5)
    before = g.bit_generator.state
    got, new_rng = fc(g)
    assert g.bit_generator.state == before and new_rng is not g
    np.testing.assert_array_equal(got, np.random.default_rng(5).normal(0.0, 1.0, size=3))


def c_scans(fn):
    out = []
    for k, node in enumerate(fn.maker.fgraph.toposort()):
        if isinstance(node.op, Scan):
            ctx = EmitContext(openmp=False, emit_node=c_for_node)
            ctx.node_index = k
            out.append(emit_scan(node, ctx) is not None)
    return out


@pytest.mark.parametrize("n_steps", [0, 1, 50])
def test_scan_that_draws_runs_in_c_with_the_python_stream(n_steps):
    """An AR(2)-like walk (two taps, a draw per step) as PyMC's forward sampling builds it."""
    rho, sigma, init = pt.vector("rho"), pt.scalar("sigma"), pt.vector("init")
    k = pt.iscalar("k")

    def build(rng):
        def step(x2, x1, rng, rho, sigma):
            mu = (pt.stack([x2, x1]) * rho).sum()
            nxt = normal(mu, sigma, rng=rng)
            return (nxt, nxt.owner.outputs[0])

        (walk, last_rng) = opgraph.scan(step, outputs_info=[{"initial": init, "taps": [-2, -1]},
                                                            rng],
                                        non_sequences=[rho, sigma], n_steps=k,
                                        return_updates=False)
        return [walk], last_rng

    fc, fp, (rc, rp) = compile_pair(build, [rho, sigma, init, k])
    assert c_scans(fc) == [True]
    args = (np.array([0.5, -0.3]), 0.7, np.array([0.1, 0.2]), n_steps)
    for _ in range(2):
        got, want = fc(*args), fp(*args)
        np.testing.assert_array_equal(got[0], want[0])
        assert same_state(rc, rp)


def test_scan_with_a_draw_and_a_stop_condition():
    lim = pt.dscalar("lim")

    def build(rng):
        def step(s, rng, lim):
            nxt = normal(s, 1.0, rng=rng)
            return (nxt, nxt.owner.outputs[0]), opgraph.scan.until(pt.abs(nxt) > lim)

        (walk, last_rng) = opgraph.scan(step, outputs_info=[pt.as_tensor(0.0), rng],
                                        non_sequences=[lim], n_steps=200,
                                        return_updates=False)
        return [walk], last_rng

    fc, fp, (rc, rp) = compile_pair(build, [lim])
    assert c_scans(fc) == [True]
    got, want = fc(3.0), fp(3.0)
    assert 0 < got[0].shape[0] < 200
    np.testing.assert_array_equal(got[0], want[0])
    assert same_state(rc, rp)

"""A small graph called in a loop (a sampler's logp and gradient) makes no array objects
per call: buffers of in-place chains, view headers and the outputs a caller has dropped
are reused.  Each reuse is checked against the Python linker over several calls, with
results the caller still holds staying as they were."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph import grad
from opgraph.autodiff.verify import verify_grad
from opgraph.compile.function import function
from opgraph.compile.mode import Mode

C_RUN = Mode(linker="c", optimizer="fast_run")
PY_RUN = Mode(linker="py", optimizer="fast_run")

Y8 = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
S8 = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])


def _eight_schools(theta):
    mu, log_tau, eta = theta[0], theta[1], theta[2:]
    tau = pt.exp(log_tau)
    return (-0.5 * (mu / 5.0) ** 2 - pt.log1p((tau / 5.0) ** 2) + log_tau
            - 0.5 * pt.sum(eta ** 2) - 0.5 * pt.sum(((Y8 - mu - tau * eta) / S8) ** 2))


def _logp_and_grad(mode):
    theta = pt.dvector("theta")
    logp = _eight_schools(theta)
    return function([theta], [logp, grad(logp, theta)], mode=mode)


def _assert_same(got, want):
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-300, equal_nan=True)


def test_sampler_model_matches_python_linker_over_many_calls_and_held_results_stay():
    c, py = _logp_and_grad(C_RUN), _logp_and_grad(PY_RUN)
    rng = np.random.default_rng(0)
    held = []
    for step in range(12):
        theta = rng.normal(scale=2.0, size=10)
        got = c(theta)
        _assert_same(got, py(theta))
        if step % 3 == 0:  # some results are kept by the caller, the others dropped
            held.append(([np.array(g, copy=True) for g in got], got))
    for copies, got in held:
        for g, copy in zip(got, copies):
            np.testing.assert_array_equal(g, copy)


@pytest.mark.parametrize("log_tau", [-800.0, -30.0, 0.0, 30.0, 400.0, 800.0, np.inf, np.nan])
def test_sampler_model_extreme_inputs_match_python_linker(log_tau):
    c, py = _logp_and_grad(C_RUN), _logp_and_grad(PY_RUN)
    theta = np.linspace(-3.0, 3.0, 10)
    theta[1] = log_tau
    with np.errstate(all="ignore"):
        want = py(theta)
        for _ in range(2):  # the second call runs on the kept buffers
            _assert_same(c(theta), want)
    theta[0] = 1e308
    with np.errstate(all="ignore"):
        _assert_same(c(theta), py(theta))


def test_sampler_model_gradient_against_finite_differences():
    rng = np.random.default_rng(3)
    verify_grad(_eight_schools, [rng.normal(scale=0.5, size=10)], rng=rng, mode=C_RUN)


def test_view_headers_kept_between_calls_do_not_keep_the_callers_input_alive():
    x = pt.dvector("x")
    out = pt.sum(pt.exp(x[1:]) * x[0]) + x[-1]
    c = function([x], out, mode=C_RUN)
    py = function([x], out, mode=PY_RUN)
    a = np.linspace(0.0, 1.0, 6)
    ref = weakref.ref(a)
    want = py(a)
    np.testing.assert_allclose(c(a), want, rtol=1e-14)
    b = np.arange(5.0)
    np.testing.assert_allclose(c(b), py(b), rtol=1e-14)
    del a
    gc.collect()
    assert ref() is None


@pytest.mark.parametrize("make", [
    lambda rng: rng.normal(size=7),
    lambda rng: rng.normal(size=15)[::2],  # strided: the re-pointed views get new strides
    lambda rng: rng.normal(size=7)[::-1],
    lambda rng: rng.normal(size=3),  # another length
    lambda rng: rng.normal(size=1),
])
def test_re_pointed_views_follow_each_calls_input(make):
    x = pt.dvector("x")
    v = x[1:]
    outs = [pt.exp(v) * x[0], pt.sum(v * 2.0), x[0].dimshuffle("x") + v]
    c = function([x], outs, mode=C_RUN)
    py = function([x], outs, mode=PY_RUN)
    rng = np.random.default_rng(1)
    first = rng.normal(size=9)
    _assert_same(c(first), py(first))
    a = make(rng)
    _assert_same(c(a), py(a))
    _assert_same(c(first), py(first))


def test_read_only_input_then_writeable_input():
    """A view header re-pointed from a read-only array must not stay read-only (and the
    other way round): an in-place node after it picks its path from the flag."""
    x = pt.dvector("x")
    out = pt.exp(x[1:]) + x[:-1]
    c = function([x], out, mode=C_RUN)
    py = function([x], out, mode=PY_RUN)
    ro = np.linspace(0.0, 1.0, 5)
    ro.flags.writeable = False
    rw = np.linspace(1.0, 2.0, 5)
    for a in (ro, rw, ro, rw):
        np.testing.assert_allclose(c(a), py(a), rtol=1e-14)
    assert not ro.flags.writeable and rw.flags.writeable
    np.testing.assert_array_equal(ro, np.linspace(0.0, 1.0, 5))
    np.testing.assert_array_equal(rw, np.linspace(1.0, 2.0, 5))


def test_an_output_the_caller_dropped_is_reused_and_one_it_holds_is_not():
    x = pt.dvector("x")
    s = pt.sum(x ** 2)
    outs = [s * 2.0, grad(s, x)]
    c = function([x], outs, mode=C_RUN)
    first = c(np.arange(4.0))
    kept = [np.array(r, copy=True) for r in first]
    for k in range(5):
        a = np.full(4, float(k))
        got = c(a)
        np.testing.assert_allclose(got[0], 2.0 * np.sum(a ** 2))
        np.testing.assert_allclose(got[1], 2.0 * a)
        assert not any(np.shares_memory(g, f) for g in got for f in first)
    for r, copy in zip(first, kept):
        np.testing.assert_array_equal(r, copy)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
@pytest.mark.parametrize("shape", [(0,), (5,), (3, 4)])
def test_alloc_of_one_value_fills_like_numpy(dtype, shape):
    v = pt.scalar("v", dtype=dtype)
    dims = [pt.iscalar(f"n{k}") for k in range(len(shape))]
    out = pt.alloc(v, *dims)
    c = function([v, *dims], out, mode=C_RUN)
    for value in (0, 3, -2):
        got = c(np.asarray(value, dtype=dtype), *shape)
        np.testing.assert_array_equal(got, np.full(shape, value, dtype=dtype))
        assert got.dtype == np.dtype(dtype)


def test_alloc_of_a_value_of_another_dtype_still_casts():
    v = pt.iscalar("v")
    n = pt.iscalar("n")
    out = pt.alloc(pt.cast(v, "float64"), n) + pt.alloc(v, n, 2).sum(axis=1)
    c = function([v, n], out, mode=C_RUN)
    py = function([v, n], out, mode=PY_RUN)
    np.testing.assert_array_equal(c(7, 3), py(7, 3))

"""Lowered xtensor graphs under JAX: the casts are views, values match the Python linker."""

from __future__ import annotations

import numpy as np
import pytest

xr = pytest.importorskip("xarray")
pytest.importorskip("opgraph_jax")

from opgraph.xtensor import as_xtensor, xtensor  # noqa: E402
from opgraph.xtensor.math import exp, log  # noqa: E402
from opgraph.xtensor.random import normal  # noqa: E402
from opgraph.xtensor.shape import stack  # noqa: E402

import opgraph  # noqa: E402
from opgraph import function, grad  # noqa: E402
from opgraph.compile.mode import Mode  # noqa: E402

RNG = np.random.default_rng(11)
PY = Mode(linker="py", optimizer="fast_run")


def both(inputs, outputs, values, rtol=1e-10):
    """Values of ``outputs`` in JAX mode, checked against the Python linker."""
    got = function(inputs, outputs, mode="JAX")(*values)
    want = function(inputs, outputs, mode=PY)(*values)
    for g, w in zip(got, want, strict=True):
        g = np.asarray(g)
        assert g.dtype == np.asarray(w).dtype
        np.testing.assert_allclose(g, w, rtol=rtol)
    return got


def test_casts_renames_and_dtype_changes() -> None:
    x = xtensor("x", dims=("a", "b"), shape=(2, 3))
    y = xtensor("y", dims=("b",), shape=(3,))
    outs = [(x + y).sum("a"), x.astype("int32"), x.rename(a="c"), x.values * 2,
            stack(x, ab=("a", "b")), x.transpose("b", "a").isel(b=slice(None, None, -1))]
    xv, yv = RNG.normal(size=(2, 3)), RNG.normal(size=3)
    got = both([x, y], outs, [xv, yv])
    expect = (xr.DataArray(xv, dims=("a", "b")) + xr.DataArray(yv, dims=("b",))).sum("a")
    np.testing.assert_allclose(got[0], expect.values)
    np.testing.assert_array_equal(got[1], xv.astype("int32"))


def test_dataarray_inputs_and_shared_dataarray() -> None:
    a = opgraph.shared(xr.DataArray(np.arange(6.0).reshape(2, 3), dims=("i", "j")))
    v = xtensor("v", dims=("j",), shape=(3,))
    f = function([v], a.dot(v), mode="JAX")
    np.testing.assert_allclose(f(xr.DataArray([1.0, 2.0, 3.0], dims=("j",))),
                               np.arange(6.0).reshape(2, 3) @ [1.0, 2.0, 3.0])


def test_docs_model_logp_and_gradient() -> None:
    x, y = xtensor("x", dims=("obs",)), xtensor("y", dims=("obs",))
    group = xtensor("group", dims=("obs",), dtype="int64")
    alpha, beta = xtensor("alpha", dims=("group",)), xtensor("beta", dims=())
    log_sigma = xtensor("log_sigma", dims=())
    mu = alpha.isel(group=group) + beta * x
    sigma = exp(log_sigma)
    logp = (-0.5 * ((y - mu) / sigma) ** 2 - log(sigma) - 0.5 * np.log(2 * np.pi)).sum("obs")
    params = [alpha, beta, log_sigma]
    g = RNG.integers(0, 3, size=20)
    values = [RNG.normal(size=20), RNG.normal(size=20), g, np.array([0.5, -1.0, 2.0]), 0.3, -0.2]
    both([x, y, group, *params], [logp, *grad(logp.values, params)], values)


def test_random_draws_with_dims_under_jax() -> None:
    mu = as_xtensor(np.array([0.0, 10.0, 20.0]), dims=("group",))
    rng = opgraph.shared(np.random.default_rng(3))
    draw = normal(mu, 1.0, extra_dims={"obs": 4000}, rng=rng)
    with pytest.warns(UserWarning, match="RandomType SharedVariables"):
        f = function([], draw, mode="JAX")
    res = np.asarray(f())
    assert res.shape == (4000, 3)
    np.testing.assert_allclose(res.mean(0), [0.0, 10.0, 20.0], atol=0.1)
    np.testing.assert_allclose(res.std(0), 1.0, rtol=0.05)

"""opgraph.xtensor against xarray (the reference), in every mode, with gradients."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm as scipy_norm

xr = pytest.importorskip("xarray")

from opgraph.xtensor import as_xtensor, concat, xtensor  # noqa: E402
from opgraph.xtensor.basic import XOp  # noqa: E402
from opgraph.xtensor.math import exp, log  # noqa: E402
from opgraph.xtensor.random import as_xrv, normal  # noqa: E402
from opgraph.xtensor.shape import broadcast, stack, unstack  # noqa: E402
from opgraph.xtensor.vectorization import vectorize_graph  # noqa: E402

import opgraph  # noqa: E402
import opgraph.tensor.random.basic as ptrb  # noqa: E402
from opgraph import function, grad  # noqa: E402
from opgraph.compile.mode import Mode  # noqa: E402
from opgraph.graph.rewriting.utils import rewrite_graph  # noqa: E402

RNG = np.random.default_rng(7)


def da(x, seed=0):
    rng = np.random.default_rng(seed)
    return xr.DataArray(rng.normal(size=x.type.shape), dims=x.type.dims)


def run(inputs, out, values, mode=None):
    fn = function(inputs, out, mode=mode)
    res = fn(*[v.values for v in values])
    return xr.DataArray(res, dims=out.type.dims)


def close(res, expected):
    xr.testing.assert_allclose(res, expected.transpose(*res.dims))
    assert res.dims == expected.dims


def test_alignment_by_name_matches_xarray():
    x = xtensor("x", dims=("city", "year"), shape=(3, 4))
    y = xtensor("y", dims=("year", "country"), shape=(4, 2))
    out = exp(x * 2 + y).sum("year")
    xv, yv = da(x, 1), da(y, 2)
    assert out.type.dims == ("city", "country") and out.type.shape == (3, 2)
    close(run([x, y], out, [xv, yv]), np.exp(xv * 2 + yv).sum("year"))


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE", "DASK", "C",
                                  Mode(linker="py", optimizer="minimum_compile")])
def test_lowered_graph_runs_in_every_mode(mode):
    x = xtensor("x", dims=("a", "b"), shape=(2, 3))
    out = x.transpose("b", "a").isel(a=slice(None, None, -1)).cumsum("b") - x.mean()
    xv = da(x)
    close(run([x], out, [xv], mode=mode),
          xv.transpose("b", "a").isel(a=slice(None, None, -1)).cumsum("b") - xv.mean())


def test_no_xtensor_op_survives_lowering():
    x = xtensor("x", dims=("a", "b"))
    out = stack(x.expand_dims(c=2), cb=("c", "b")).sum("cb").values
    [lowered] = rewrite_graph([out], include=("lower_xtensor",))
    nodes = opgraph.graph.basic.ancestors([lowered])
    assert not any(v.owner is not None and isinstance(v.owner.op, XOp) for v in nodes)


def test_indexing_vectorized_and_update():
    x = xtensor("x", dims=("a", "b"), shape=(4, 5))
    idx = xtensor("idx", dims=("p",), shape=(3,), dtype="int64")
    xv = da(x)
    iv = xr.DataArray(np.array([0, 3, 1]), dims=("p",))
    out = x.isel(a=idx, b=idx)
    close(run([x, idx], out, [xv, iv]), xv.isel(a=iv, b=iv))
    upd = x[idx.rename(p="a")].inc(1.0)
    expected = xv.copy()
    expected[iv.rename(p="a")] += 1.0
    res = function([x, idx], upd)(xv.values, iv.values)
    np.testing.assert_allclose(res, expected.values)


def test_shape_ops_match_xarray():
    x = xtensor("x", dims=("a", "b", "c"), shape=(2, 3, 4))
    y = xtensor("y", dims=("c",), shape=(4,))
    xv, yv = da(x, 3), da(y, 4)
    s = stack(x, bc=("b", "c"))
    close(run([x], s, [xv]), xv.stack(bc=("b", "c")).drop_vars(["bc", "b", "c"],
                                                                errors="ignore"))
    u = unstack(s, bc={"b": 3, "c": 4})
    close(run([x], u, [xv]), xv.transpose("a", "b", "c"))
    bx, by = broadcast(x, y, exclude=("a",))
    ex, ey = xr.broadcast(xv, yv, exclude=("a",))
    close(run([x, y], bx, [xv, yv]), ex)
    close(run([x, y], by, [xv, yv]), ey)
    cat = concat([x, x], dim="b")
    close(run([x], cat, [xv]), xr.concat([xv, xv], dim="b"))


def test_static_errors_name_the_dims():
    x = xtensor("x", dims=("a", "b"), shape=(2, 3))
    y = xtensor("y", dims=("b",), shape=(4,))
    with pytest.raises(ValueError, match="'b'"):
        x + y
    with pytest.raises(ValueError, match="'c'"):
        x.sum("c")
    with pytest.raises(ValueError, match=r"'a'.*static size 2"):
        x.squeeze("a")
    with pytest.raises(TypeError, match="allow_xtensor_conversion"):
        opgraph.tensor.as_tensor_variable(x)


def test_gradient_matches_finite_differences():
    x = xtensor("x", dims=("a", "b"), shape=(2, 3))
    w = xtensor("w", dims=("b",), shape=(3,))
    cost = ((x * w).sum("b") ** 2).sum().values + x.std("a").sum().values
    gx, gw = grad(cost, [x, w])
    assert gx.type.dims == ("a", "b") and gw.type.dims == ("b",)
    f = function([x, w], cost)
    fg = function([x, w], [gx, gw])
    xv, wv = RNG.normal(size=(2, 3)), RNG.normal(size=3)
    got_x, got_w = fg(xv, wv)
    eps = 1e-6
    for val, got, which in ((xv, got_x, 0), (wv, got_w, 1)):
        num = np.zeros_like(val)
        for i in np.ndindex(val.shape):
            d = np.zeros_like(val)
            d[i] = eps
            args = [xv, wv]
            args[which] = val + d
            hi = f(*args)
            args[which] = val - d
            num[i] = (hi - f(*args)) / (2 * eps)
        np.testing.assert_allclose(got, num, rtol=1e-5, atol=1e-6)


def test_random_draws_with_dims_are_reproducible():
    mu = as_xtensor(np.array([0.0, 10.0, 20.0]), dims=("group",))
    rng = opgraph.shared(np.random.default_rng(3))
    draw = normal(mu, 1.0, extra_dims={"obs": 5}, rng=rng)
    assert draw.type.dims == ("obs", "group") and draw.type.shape == (5, 3)
    res = function([], draw)()
    expected = np.random.default_rng(3).normal(np.array([0.0, 10.0, 20.0]), 1.0, size=(5, 3))
    np.testing.assert_allclose(res, expected)


def test_shared_dataarray_and_dot():
    a = opgraph.shared(xr.DataArray(np.arange(6.0).reshape(2, 3), dims=("i", "j")))
    v = xtensor("v", dims=("j",), shape=(3,))
    out = a.dot(v)
    res = function([v], out)(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(res, np.arange(6.0).reshape(2, 3) @ [1.0, 2.0, 3.0])
    a.set_value(xr.DataArray(np.ones((3, 2)), dims=("j", "i")))
    np.testing.assert_allclose(a.get_value(), np.ones((2, 3)))


def test_vectorize_graph_adds_named_batch_dims():
    x = xtensor("x", dims=("a", "b"), shape=(2, 3))
    out = x.sum("b") * 2
    xb = xtensor("xb", dims=("a", "batch", "b"), shape=(2, 4, 3))
    [vec] = vectorize_graph([out], {x: xb})
    assert vec.type.dims == ("batch", "a")
    xv = xr.DataArray(RNG.normal(size=(2, 4, 3)), dims=xb.type.dims)
    xr.testing.assert_allclose(run([xb], vec, [xv]), (xv.sum("b") * 2).transpose("batch", "a"))
    t = opgraph.tensor.vector("t", shape=(3,))
    tx = as_xtensor(t, dims=("b",)) + x
    tb = opgraph.tensor.matrix("tb", shape=(5, 3))
    [vec_t] = vectorize_graph([tx], {t: tb}, new_tensor_dims=["n"])
    assert vec_t.type.dims == ("n", "b", "a")
    tv, xv2 = RNG.normal(size=(5, 3)), RNG.normal(size=(2, 3))
    res = function([tb, x], vec_t)(tv, xv2)
    expected = (xr.DataArray(tv, dims=("n", "b")) + xr.DataArray(xv2, dims=("a", "b")))
    np.testing.assert_allclose(res, expected.transpose(*vec_t.type.dims).values)


def test_as_xrv_returns_next_rng_and_draw():
    alpha = as_xtensor(np.array([[1.0, 2.0, 3.0], [5.0, 5.0, 5.0]]), dims=("g", "k"))
    rng = opgraph.shared(np.random.default_rng(11))
    next_rng, draw = as_xrv(ptrb.dirichlet)(alpha, core_dims=("k",), rng=rng,
                                            return_next_rng=True)
    assert draw.type.dims == ("g", "k") and next_rng is draw.owner.outputs[0]
    res = function([], draw)()
    np.testing.assert_allclose(res.sum(-1), 1.0)
    expected = np.random.default_rng(11).dirichlet([1.0, 2.0, 3.0], size=None)
    np.testing.assert_allclose(res[0], expected)


def test_where_method_follows_xarray():
    a = xtensor("a", dims=("a", "b"), shape=(2, 3))
    av = xr.DataArray(np.arange(6.0).reshape(2, 3), dims=("a", "b"))
    close(run([a], a.isel(a=0).where(a > 1, -1), [av]), av.isel(a=0).where(av > 1, -1))


def test_docs_model_with_named_dims():
    """The model of docs/xtensor.md: logp against scipy, its gradient against the closed form."""
    x = xtensor("x", dims=("obs",))
    y = xtensor("y", dims=("obs",))
    group = xtensor("group", dims=("obs",), dtype="int64")
    alpha = xtensor("alpha", dims=("group",))
    beta = xtensor("beta", dims=())
    log_sigma = xtensor("log_sigma", dims=())
    mu = alpha.isel(group=group) + beta * x
    sigma = exp(log_sigma)
    logp = (-0.5 * ((y - mu) / sigma) ** 2 - log(sigma) - 0.5 * np.log(2 * np.pi)).sum("obs")
    fn = function([x, y, group, alpha, beta, log_sigma],
                  [logp, grad(logp.values, alpha)])
    g = RNG.integers(0, 3, size=20)
    xs, ys = RNG.normal(size=20), RNG.normal(size=20)
    a, b, ls = np.array([0.5, -1.0, 2.0]), 0.3, -0.2
    value, d_alpha = fn(xs, ys, g, a, b, ls)
    np.testing.assert_allclose(value, scipy_norm.logpdf(ys, a[g] + b * xs, np.exp(ls)).sum())
    resid = (ys - a[g] - b * xs) / np.exp(ls) ** 2
    np.testing.assert_allclose(d_alpha, np.bincount(g, weights=resid, minlength=3))

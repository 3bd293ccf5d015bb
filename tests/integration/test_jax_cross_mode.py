"""JAX mode beside the Python linker and FAST_RUN (C) on the same graphs, when installed.

Random graphs of the fuzzer's generator (fixed seeds, smooth and general values)
and the graphs users run most (an MLP's value and gradient, a scan RNN, a
hierarchical model's log-density and gradient) must give the same values in
every mode.  Skipped only where the opgraph-jax plugin (and so JAX) is absent.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph import function
from opgraph.compile.mode import Mode

from .fuzz.build import build, values
from .fuzz.generate import random_spec

pytest.importorskip("opgraph_jax", reason="the opgraph-jax plugin (and JAX) is not installed")

MODES = {"py": lambda: Mode(linker="py", optimizer=None), "FAST_RUN": lambda: "FAST_RUN",
         "JAX": lambda: "JAX"}


def _all_modes(inputs, outputs, vals, rtol=1e-7, atol=1e-9, **kwargs):
    results = {}
    for name, make in MODES.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn = function(inputs, outputs, mode=make(), **kwargs)
        results[name] = [np.asarray(o) for o in fn(*[np.copy(v) for v in vals])]
    for name in ("FAST_RUN", "JAX"):
        for k, (got, want) in enumerate(zip(results[name], results["py"], strict=True)):
            assert got.dtype == want.dtype and got.shape == want.shape, (name, k)
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True,
                                       err_msg=f"{name} output {k}")


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("smooth", [True, False])
def test_random_graphs_agree_with_the_python_linker(seed: int, smooth: bool) -> None:
    spec = random_spec(seed, smooth=smooth)
    inputs, outputs = build(spec)
    vals = values(spec)
    ref = function(inputs, outputs, mode=Mode(linker="py", optimizer=None),
                   on_unused_input="ignore")
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = ref(*[np.copy(v) for v in vals])
    except Exception:  # a graph NumPy refuses on these values: nothing to compare
        return
    got = function(inputs, outputs, mode="JAX", on_unused_input="ignore")(*vals)
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        g, w = np.asarray(g), np.asarray(w)
        assert (g.dtype, g.shape) == (w.dtype, w.shape), (k, spec)
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, equal_nan=True)
        else:
            np.testing.assert_array_equal(g, w)


def test_mlp_value_and_gradient() -> None:
    rng = np.random.default_rng(0)
    x, y = pt.matrix("x"), pt.vector("y")
    w1, w2 = pt.matrix("w1"), pt.vector("w2")
    hidden = pt.tanh(x @ w1)
    loss = ((pt.sigmoid(hidden @ w2) - y) ** 2).mean()
    grads = opgraph.grad(loss, [w1, w2])
    vals = [rng.normal(size=(16, 8)), rng.uniform(size=16), rng.normal(size=(8, 4)),
            rng.normal(size=4)]
    _all_modes([x, y, w1, w2], [loss, *grads], vals)


def test_scan_rnn_and_its_gradient() -> None:
    rng = np.random.default_rng(1)
    xs, h0, w = pt.matrix("xs"), pt.vector("h0"), pt.matrix("w")
    hs = opgraph.scan(lambda x_t, h: pt.tanh(x_t + h @ w), sequences=[xs], outputs_info=[h0],
                      return_updates=False)
    cost = hs[-1].sum()
    _all_modes([xs, h0, w], [hs, opgraph.grad(cost, w)],
               [rng.normal(size=(7, 3)), rng.normal(size=3), 0.3 * rng.normal(size=(3, 3))])


def test_eight_schools_logp_and_gradient() -> None:
    y = np.array([28.0, 8, -3, 7, -1, 1, 18, 12])
    sigma = np.array([15.0, 10, 16, 11, 9, 11, 10, 18])
    mu, log_tau, theta = pt.dscalar("mu"), pt.dscalar("log_tau"), pt.vector("theta")
    tau = pt.exp(log_tau)
    logp = (-0.5 * (mu / 5) ** 2 - 0.5 * (tau / 5) ** 2 + log_tau
            - (0.5 * ((theta - mu) / tau) ** 2 + pt.log(tau)).sum()
            - (0.5 * ((y - theta) / sigma) ** 2).sum())
    _all_modes([mu, log_tau, theta], [logp, *opgraph.grad(logp, [mu, log_tau, theta])],
               [np.array(4.0), np.array(1.2), np.linspace(-2, 10, 8)])


def test_special_functions_of_opgraph_special() -> None:
    x = pt.vector("x")
    names = ["erf", "erfc", "erfcx", "erfinv", "erfcinv", "gammaln", "psi",
             "i0", "i1", "log_ndtr"]
    two = pt.constant(2, dtype="int64")
    outs = [getattr(pt, n)(x) for n in names] + [
        pt.polygamma(two, x + 1), pt.xlogy(x, x + 1), pt.gammainc(x + 1, x), pt.betaln(x, x + 1),
        pt.erfcx(x * 60)]  # past x = 25 erfcx needs its asymptotic form (exp(x**2) overflows)
    _all_modes([x], outs, [np.linspace(0.05, 0.95, 7)], rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("case", ["vector @ sparse", "dense @ sparse (structured)",
                                  "sparse @ dense (structured)", "sparse @ vector"])
def test_sparse_products_with_a_constant_sparse_operand(case):
    """opgraph-sparse gives JAX its products (the opgraph_op_impl hook; the constant is a
    JAX BCOO matrix), equal to the Python linker's; a sparse input that is not a
    constant is refused when the function is compiled."""
    import opgraph.sparse as ps
    import scipy.sparse

    rng = np.random.default_rng(4)
    right = ps.as_sparse_variable(scipy.sparse.random(40, 3, density=0.25, format="csc",
                                                      random_state=rng))
    left = ps.as_sparse_variable(scipy.sparse.random(5, 40, density=0.25, format="csr",
                                                     random_state=rng))
    x, m = pt.dvector("x"), pt.dmatrix("m")
    out, inputs, vals = {
        "vector @ sparse": (ps.dot(x, right), [x], [rng.normal(size=40)]),
        "dense @ sparse (structured)": (ps.structured_dot(m, right), [m],
                                        [rng.normal(size=(5, 40))]),
        "sparse @ dense (structured)": (ps.structured_dot(left, m.T), [m],
                                        [rng.normal(size=(3, 40))]),
        "sparse @ vector": (ps.dot(left, x), [x], [rng.normal(size=40)]),
    }[case]
    _all_modes(inputs, [out], vals, rtol=1e-12, atol=1e-12)
    var = right.type()
    with pytest.raises(NotImplementedError, match="constant sparse inputs"):
        function([x, var], ps.dot(x, var), mode="JAX")
    held = ps.shared(right.data, name="held")  # pytensor.sparse.shared: not a constant
    with pytest.raises(NotImplementedError, match="constant sparse inputs"):
        function([x], ps.dot(x, held), mode="JAX")

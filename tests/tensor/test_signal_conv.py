"""convolve1d / convolve2d against NumPy references (SciPy's definitions), and gradients."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.signal import Convolve1d, convolve1d, convolve2d

from .helpers import check_derivatives, evaluate


def _ref1d(a, b, mode):
    full = np.convolve(a, b)
    n, k = len(a), len(b)
    if mode == "full":
        return full
    if mode == "same":
        s = (k - 1) // 2
        return full[s: s + n]
    return full[min(n, k) - 1: max(n, k)]


def _ref2d_full(x, k):
    out = np.zeros((x.shape[0] + k.shape[0] - 1, x.shape[1] + k.shape[1] - 1))
    for i in range(k.shape[0]):
        for j in range(k.shape[1]):
            out[i: i + x.shape[0], j: j + x.shape[1]] += k[i, j] * x
    return out


@pytest.mark.parametrize("mode", ["full", "valid", "same"])
@pytest.mark.parametrize(("n", "k"), [(3, 3), (8, 3), (3, 8)])
def test_convolve1d_values_and_gradient(mode, n, k):
    rng = np.random.default_rng(n * 10 + k)
    a, b = rng.normal(size=n), rng.normal(size=k)
    x, y = pt.dvector(), pt.dvector()
    np.testing.assert_allclose(evaluate(convolve1d(x, y, mode), {x: a, y: b}), _ref1d(a, b, mode))
    check_derivatives(lambda v, w: convolve1d(v, w, mode), [a, b], rng, forward=False)


def test_convolve1d_is_blockwise_over_batches():
    x, y = pt.dmatrix(), pt.dmatrix()
    out = convolve1d(x, y)
    assert isinstance(out.owner.op, Blockwise) and isinstance(out.owner.op.core_op, Convolve1d)
    xv = np.random.default_rng(1).normal(size=(2, 5))
    res = evaluate(out, {x: xv, y: xv[::-1]})
    np.testing.assert_allclose(res[0], np.convolve(xv[0], xv[1]))
    np.testing.assert_allclose(res[1], np.convolve(xv[1], xv[0]))


@pytest.mark.parametrize("mode", ["full", "same"])
@pytest.mark.parametrize(("boundary", "np_mode", "kwargs"), [
    ("fill", "constant", {"fillvalue": 0.5}), ("wrap", "wrap", {}), ("symm", "symmetric", {}),
])
def test_convolve2d_boundaries(mode, boundary, np_mode, kwargs):
    rng = np.random.default_rng(4)
    d, k = rng.normal(size=(5, 4)), rng.normal(size=(3, 2))
    extra = {"constant_values": kwargs["fillvalue"]} if kwargs else {}
    padded = np.pad(d, [(2, 2), (1, 1)], mode=np_mode, **extra)
    full = _ref2d_full(padded, k)[2: 2 + 7, 1: 1 + 5]
    expected = full if mode == "full" else full[1: 1 + 5, 0: 4]
    X, K = pt.dmatrix(), pt.dmatrix()
    out = convolve2d(X, K, mode=mode, boundary=boundary, **kwargs)
    np.testing.assert_allclose(evaluate(out, {X: d, K: k}), expected)
    check_derivatives(lambda kk: convolve2d(d, kk, mode=mode, boundary=boundary, **kwargs).sum(),
                      [k], rng, forward=False)


def test_convolve2d_valid_and_bad_arguments():
    rng = np.random.default_rng(5)
    d, k = rng.normal(size=(6, 5)), rng.normal(size=(3, 2))
    np.testing.assert_allclose(evaluate(convolve2d(d, k, mode="valid")),
                               _ref2d_full(d, k)[2:6, 1:5])
    with pytest.raises(ValueError, match="mode"):
        convolve2d(d, k, mode="circular")
    with pytest.raises(ValueError, match="boundary"):
        convolve2d(d, k, boundary="reflect")
    with pytest.raises(TypeError, match="vectors"):
        Convolve1d()(d, k)

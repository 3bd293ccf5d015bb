"""opgraph.tensor.fft (real FFTs as real tensors) and opgraph.tensor.fourier against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.tensor import fft
from opgraph.tensor.fourier import fft as fourier_fft

from .helpers import check_derivatives, evaluate

RNG = np.random.default_rng(5)


def _complex(stacked: np.ndarray) -> np.ndarray:
    return stacked[..., 0] + 1j * stacked[..., 1]


@pytest.mark.parametrize("shape", [(2, 8), (1, 6, 5), (3, 4, 7)])
def test_rfft_and_irfft_match_numpy(shape):
    x = pt.tensor("x", shape=(None,) * len(shape))
    xv = RNG.normal(size=shape)
    axes = tuple(range(1, len(shape)))
    ref = np.fft.rfftn(xv, axes=axes)
    spec = evaluate(fft.rfft(x), {x: xv})
    np.testing.assert_allclose(_complex(spec), ref, atol=1e-12)
    n = float(np.prod(shape[1:]))
    np.testing.assert_allclose(_complex(evaluate(fft.rfft(x, norm="ortho"), {x: xv})),
                               ref / np.sqrt(n), atol=1e-12)
    m = pt.tensor("m", shape=(None,) * (len(shape) + 1))
    odd = shape[-1] % 2 == 1
    back = evaluate(fft.irfft(m, is_odd=odd), {m: spec})
    np.testing.assert_allclose(back, xv, atol=1e-12)
    np.testing.assert_allclose(evaluate(fft.irfft(m, norm="no_norm", is_odd=odd), {m: spec}),
                               xv * n, atol=1e-9)


def test_fft_gradients_by_finite_differences():
    check_derivatives(lambda a: fft.rfft(a), [RNG.normal(size=(1, 8))], RNG, forward=False)
    check_derivatives(lambda a: fft.rfft(a, norm="ortho"), [RNG.normal(size=(1, 4, 5))], RNG,
                      forward=False)
    check_derivatives(lambda a: fft.irfft(a), [RNG.normal(size=(1, 5, 2))], RNG, forward=False)
    check_derivatives(lambda a: fft.irfft(a, is_odd=True), [RNG.normal(size=(1, 4, 3, 2))], RNG,
                      forward=False)


def test_fft_bad_arguments():
    x = pt.matrix("x")
    with pytest.raises(ValueError, match="norm must be one of"):
        fft.rfft(x, norm=123)
    with pytest.raises(ValueError, match="is_odd must be a bool"):
        fft.irfft(pt.tensor3("s"), is_odd=123)
    with pytest.raises(TypeError, match="batch of signals"):
        fft.rfft(pt.vector("v"))


def test_fourier_matches_numpy_with_static_and_symbolic_axis():
    a = pt.dmatrix("a")
    av = RNG.normal(size=(8, 6))
    np.testing.assert_allclose(evaluate(fourier_fft(a, n=10, axis=0), {a: av}),
                               np.fft.fft(av, 10, 0))
    assert fourier_fft(a, 10, 0).type.shape == (10, None)
    np.testing.assert_allclose(evaluate(fourier_fft(a), {a: av}), np.fft.fft(av))
    ax = pt.iscalar("ax")
    out = fourier_fft(a, None, ax)
    np.testing.assert_allclose(evaluate(out, {a: av, ax: 0}), np.fft.fft(av, axis=0))
    (shape,) = out.owner.op.infer_shape(None, out.owner, [(a.shape[0], a.shape[1])])
    assert [int(evaluate(s, {a: av, ax: 0})) for s in shape] == [8, 6]

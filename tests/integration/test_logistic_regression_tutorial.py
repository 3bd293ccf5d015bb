"""PyTensor's logistic-regression tutorial, ported by changing the import name.

The model is written the way the tutorial writes it: the sigmoid spelled out as
``1 / (1 + exp(-t))`` and the cross-entropy as ``-y log p - (1-y) log(1-p)``.
With 784 features and random weights ``t`` starts around +-80, where ``p``
rounds to exactly 0 or 1: the plain gradient is NaN there, so this trains only
if the rewrites stabilise the gradient graph too.  Every mode must reach the
cost of the same training done in NumPy with a stable formulation.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.compile.mode import LinkerUnavailableError, Mode, available_modes, get_mode

N, FEATS, STEPS, RATE, DECAY = 400, 784, 1000, 0.1, 0.01


def _modes() -> list[tuple[str, Any]]:
    out = []
    for name in sorted(available_modes()):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                get_mode(name).linker  # noqa: B018 - resolving is the check
            except LinkerUnavailableError:
                continue
        out.append((name, name))
    rewrites = get_mode("FAST_RUN").optimizer
    out.append(("py+FAST_RUN", Mode(linker="py", optimizer=rewrites)))
    return out


MODES = _modes()


def _data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1234)
    x = rng.standard_normal((N, FEATS))
    y = rng.integers(0, 2, N).astype(float)
    w0 = rng.standard_normal(FEATS)
    return x, y, w0


def _stable_xent(t: np.ndarray, y: np.ndarray) -> np.ndarray:
    # -y log sigmoid(t) - (1-y) log(1 - sigmoid(t)) = y softplus(-t) + (1-y) softplus(t)
    return y * np.logaddexp(0, -t) + (1 - y) * np.logaddexp(0, t)


def _numpy_training(x: np.ndarray, y: np.ndarray, w0: np.ndarray) -> tuple:
    w, b = w0.copy(), 0.0
    for _ in range(STEPS):
        t = x @ w + b
        p = np.where(t >= 0, 1 / (1 + np.exp(-np.abs(t))), np.exp(-np.abs(t))
                     / (1 + np.exp(-np.abs(t))))
        xent = _stable_xent(t, y)
        r = (p - y) / N  # d mean(xent) / dt
        w, b = w - RATE * (x.T @ r + 2 * DECAY * w), b - RATE * r.sum()
    return w, b, xent


def _opgraph_training(mode: Any, x_data: np.ndarray, y_data: np.ndarray,
                      w0: np.ndarray) -> tuple:
    x = pt.dmatrix("x")
    y = pt.dvector("y")
    w = opgraph.shared(w0.copy(), name="w")
    b = opgraph.shared(0.0, name="b")
    p_1 = 1 / (1 + pt.exp(-pt.dot(x, w) - b))
    prediction = p_1 > 0.5
    xent = -y * pt.log(p_1) - (1 - y) * pt.log(1 - p_1)
    cost = xent.mean() + DECAY * (w**2).sum()
    gw, gb = pt.grad(cost, [w, b])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        train = opgraph.function([x, y], [prediction, xent],
                                 updates=[(w, w - RATE * gw), (b, b - RATE * gb)], mode=mode)
    first_gw = opgraph.function([x, y], gw, mode=mode)(x_data, y_data)
    for _ in range(STEPS):
        pred, err = train(x_data, y_data)
    return w.get_value(), b.get_value(), err, pred, first_gw


@pytest.fixture(scope="module")
def reference() -> tuple:
    x, y, w0 = _data()
    return (x, y, w0, *_numpy_training(x, y, w0))


def test_the_start_is_saturated(reference: tuple) -> None:
    # the test is only meaningful if the plain sigmoid rounds to 1 at the start, where
    # log(1 - p) is -inf and the plain gradient of the cross-entropy is NaN
    x, w0 = reference[0], reference[2]
    with np.errstate(over="ignore"):
        p = 1 / (1 + np.exp(-(x @ w0)))
    assert np.any(p == 1.0)


@pytest.mark.parametrize("mode_name, mode", MODES, ids=[m[0] for m in MODES])
def test_tutorial_trains_to_the_reference_cost(reference: tuple, mode_name: str,
                                               mode: Any) -> None:
    x, y, w0, w_ref, b_ref, xent_ref = reference
    w, b, xent, pred, first_gw = _opgraph_training(mode, x, y, w0)
    assert np.all(np.isfinite(first_gw)), f"first gradient not finite in {mode_name}"
    assert np.all(np.isfinite(xent)) and np.all(np.isfinite(w))
    np.testing.assert_allclose(xent.mean(), xent_ref.mean(), rtol=1e-8)
    np.testing.assert_allclose(w, w_ref, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(b, b_ref, rtol=1e-7, atol=1e-12)
    np.testing.assert_array_equal(pred, (x @ w_ref + b_ref) > 0)
    assert xent_ref.mean() < 0.1 and (pred == y).mean() == 1.0

"""pad against np.pad for every mode, its static shapes, and its gradient."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.tensor.pad import pad

from .helpers import check_derivatives, evaluate

_CASES = [
    ("constant", {"constant_values": 1.5}), ("edge", {}), ("linear_ramp", {"end_values": -1.0}),
    ("wrap", {}), ("symmetric", {"reflect_type": "even"}), ("symmetric", {"reflect_type": "odd"}),
    ("reflect", {"reflect_type": "even"}), ("mean", {"stat_length": 2}), ("maximum", {}),
    ("minimum", {"stat_length": [(1, 2), (2, 1), (3, 3)]}), ("median", {}),
]


@pytest.mark.parametrize(("mode", "kwargs"), _CASES)
@pytest.mark.parametrize("width", [4, (4, 0), (0, 4), [(1, 2), (3, 4), (0, 1)]])
def test_matches_numpy(mode, kwargs, width):
    x = np.random.default_rng(0).normal(size=(3, 5, 4))
    out = pad(x, width, mode=mode, **kwargs)
    expected = np.pad(x, width, mode=mode, **kwargs)
    assert out.owner.op.pad_mode == mode
    assert out.type.shape == expected.shape
    np.testing.assert_allclose(evaluate(out), expected)


def test_symbolic_input_keeps_unknown_lengths():
    x = pt.matrix()
    out = pad(x, 2, mode="edge")
    assert out.type.shape == (None, None)
    xv = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(evaluate(out, {x: xv}), np.pad(xv, 2, mode="edge"))


def test_bad_arguments():
    with pytest.raises(ValueError, match="Invalid mode: unknown"):
        pad(np.ones(3), 1, mode="unknown")
    with pytest.raises(TypeError, match="integers"):
        pad(np.ones(3), 1.5)
    with pytest.raises(TypeError, match="takes no argument"):
        pad(np.ones(3), 1, mode="edge", constant_values=2)


@pytest.mark.parametrize("mode", ["constant", "edge", "wrap", "symmetric", "reflect"])
def test_gradient_matches_finite_differences(mode):
    rng = np.random.default_rng(2)
    check_derivatives(lambda x: pad(x, [(2, 1), (0, 3)], mode=mode), [rng.normal(size=(3, 4))],
                      rng, forward=False)


def test_gradient_of_stat_mode_is_refused():
    x = pt.vector()
    with pytest.raises(NotImplementedError, match="gradient of mode 'mean'"):
        pt.grad(pad(x, 1, mode="mean").sum(), x)

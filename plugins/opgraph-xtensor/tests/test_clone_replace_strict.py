"""``clone_replace`` rebuilds strictly by default, as PyTensor's ``rebuild_strict``: a
value given for an xtensor is converted to the xtensor type it replaces (PyMC swaps
shared data for constants this way before sampling with JAX)."""

from __future__ import annotations

import numpy as np
import pytest
from opgraph.xtensor import xtensor
from opgraph.xtensor.math import exp

from opgraph import function
from opgraph.graph.replace import clone_replace
from opgraph.tensor import constant


def test_a_tensor_constant_replaces_an_xtensor_input():
    x = xtensor("x", dims=("a",), shape=(3,))
    out = exp(x).values.sum()
    value = np.array([0.0, 1.0, 2.0])
    new = clone_replace(out, {x: constant(value)})
    np.testing.assert_allclose(function([], new)(), np.exp(value).sum(), rtol=1e-12)
    with pytest.raises(TypeError):  # without strict rebuilding the cast Op refuses it
        clone_replace(out, {x: constant(value)}, rebuild_strict=False)

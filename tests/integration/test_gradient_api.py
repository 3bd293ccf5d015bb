"""Gradient behaviours that need a compiled function (a linker plugin installed)."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.gradient import (
    GradClip,
    GradScale,
    ZeroGrad,
    grad,
    grad_clip,
    grad_not_implemented,
    grad_scale,
    grad_undefined,
    hessian,
    zero_grad,
)


@pytest.mark.parametrize("marker", [grad_not_implemented, grad_undefined])
def test_compiling_an_undefined_gradient_is_a_type_error(marker):
    a = pt.dvector("a")
    with pytest.raises(TypeError, match="undefined gradient"):
        opgraph.function([a], marker(pt.add, 0, a), on_unused_input="ignore")


def test_gradient_identities_are_removed_after_differentiation():
    x = pt.dscalar("x")
    outs = [grad(grad_scale(x, 2.0) ** 2, x), grad(grad_clip(x, -1.0, 1.0) ** 2, x),
            x * zero_grad(x)]
    f = opgraph.function([x], outs, mode="FAST_RUN")
    kinds = (GradScale, GradClip, ZeroGrad)
    assert not any(isinstance(n.op, kinds) for n in f.maker.fgraph.apply_nodes)
    np.testing.assert_allclose(f(2.0), [8.0, 1.0, 4.0])


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_hessian_with_runtime_length_compiles_in_every_mode(mode):
    theta = pt.dvector("theta")
    cost = (theta[0] ** 2) * theta[1] + (theta[pt.constant(np.array([1, 1]))] ** 3).sum()
    f = opgraph.function([theta], hessian(cost, theta), mode=mode)
    t = np.array([0.5, -0.3, 2.0])
    want = np.array([[2 * t[1], 2 * t[0], 0.0], [2 * t[0], 12 * t[1], 0.0], [0.0, 0.0, 0.0]])
    np.testing.assert_allclose(f(t), want, rtol=1e-12, atol=1e-12)

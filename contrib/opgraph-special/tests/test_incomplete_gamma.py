"""The scalar Ops ``gammal`` / ``gammau`` (non-regularised incomplete gamma) at PyTensor's
``scalar`` and ``scalar.math`` paths: values against SciPy, gradient in x against finite
differences, and no gradient in k."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sc

import opgraph
import opgraph.scalar as ps
import opgraph.scalar.math as psm
import opgraph.tensor as pt
from opgraph.gradient import NullTypeGradError, grad, verify_grad
from opgraph.tensor.elemwise import Elemwise

K = np.array([0.5, 1.0, 2.5, 7.0])
X = np.array([0.3, 1.0, 2.0, 5.5])


def test_paths_and_values():
    assert ps.gammal is psm.gammal and ps.GammaU is psm.GammaU
    assert isinstance(ps.gammau, ps.GammaU)
    k, x = pt.dvector("k"), pt.dvector("x")
    f = opgraph.function([k, x], [Elemwise(ps.gammal)(k, x), Elemwise(ps.gammau)(k, x)])
    low, up = f(K, X)
    np.testing.assert_allclose(low, sc.gammainc(K, X) * sc.gamma(K), rtol=1e-12)
    np.testing.assert_allclose(up, sc.gammaincc(K, X) * sc.gamma(K), rtol=1e-12)
    np.testing.assert_allclose(low + up, sc.gamma(K), rtol=1e-12)


@pytest.mark.parametrize("op", [ps.gammal, ps.gammau])
def test_gradient_in_x_matches_finite_differences(op):
    k = pt.constant(K)
    verify_grad(lambda x: Elemwise(op)(k, x), [X], rng=np.random.default_rng(0),
                mode="FAST_COMPILE")


@pytest.mark.parametrize("op", [ps.gammal, ps.gammau])
def test_gradient_in_k_is_not_implemented(op):
    k, x = pt.dvector("k"), pt.dvector("x")
    with pytest.raises(NullTypeGradError):
        grad(Elemwise(op)(k, x).sum(), k)

"""beta, factorial, poch, logit of ``opgraph.tensor.special`` against SciPy."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sps

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.tensor import special as pts
from opgraph.tensor.math import tri_gamma
from opgraph.tensor.special import polygamma


def _value(var):
    return function([], var, mode="FAST_COMPILE")()


def test_compositions_match_scipy():
    a = np.array([0.5, 2.5, 4.0])
    b = np.array([1.5, 0.25, 3.0])
    np.testing.assert_allclose(_value(pts.beta(a, b)), sps.beta(a, b))
    np.testing.assert_allclose(_value(pts.poch(a, b)), sps.poch(a, b))
    np.testing.assert_allclose(_value(pts.factorial(a)), sps.factorial(a, exact=False))
    p = np.array([0.1, 0.5, 0.9])
    np.testing.assert_allclose(_value(pts.logit(p)), sps.logit(p))


def test_plugin_names_resolve_from_tensor_special():
    assert pts.betaln is pt.betaln
    assert pts.xlogy is pt.xlogy


def test_polygamma_order_given_as_a_python_int_stays_an_integer():
    """``polygamma(1, x)`` with float ``x``: the weak-scalar rule would make the order a
    float64 and the Op refuse it; an order is an integer input, as in PyTensor."""
    x = pt.vector("x", dtype="float64")
    out = polygamma(1, x)
    assert out.owner.inputs[0].dtype.startswith("int")
    values = np.array([0.5, 3.0, 40.0])
    got = function([x], [out, tri_gamma(x), polygamma(3, x)])(values)
    for k, order in enumerate((1, 1, 3)):
        np.testing.assert_allclose(got[k], sps.polygamma(order, values), rtol=1e-12)
    with pytest.raises(TypeError, match="n must be an integer"):
        polygamma(1.5, x)

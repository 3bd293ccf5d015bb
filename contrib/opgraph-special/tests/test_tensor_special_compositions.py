"""beta, factorial, poch, logit of ``opgraph.tensor.special`` against SciPy."""

from __future__ import annotations

import numpy as np
import scipy.special as sps

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.tensor import special as pts


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

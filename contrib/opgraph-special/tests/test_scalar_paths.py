"""The special-function scalar ops at PyTensor's paths ``scalar`` and ``scalar.math``."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp

import opgraph
import opgraph.scalar as ps
import opgraph.scalar.math as psm


@pytest.mark.parametrize("name, ref", [
    ("gammaln", sp.gammaln), ("psi", sp.digamma), ("erf", sp.erf), ("erfcinv", sp.erfcinv),
    ("tri_gamma", lambda v: sp.polygamma(1, v)), ("i0", sp.i0), ("j1", sp.j1),
])
def test_scalar_math_instances_compute_scipy_values(name, ref):
    x = ps.float64("x")
    op = getattr(psm, name)
    assert getattr(ps, name) is op
    f = opgraph.function([x], op(x))
    np.testing.assert_allclose(f(1.7), ref(1.7), rtol=1e-12)


def test_scalar_math_classes_are_the_plugin_op_classes():
    assert isinstance(psm.gammaln, psm.GammaLn) and isinstance(psm.erf, psm.Erf)
    assert psm.Owens_t is type(psm.owens_t) and ps.Psi is psm.Psi
    x, a = ps.float64("x"), ps.float64("a")
    f = opgraph.function([a, x], psm.gammainc(a, x))
    np.testing.assert_allclose(f(2.0, 1.5), sp.gammainc(2.0, 1.5), rtol=1e-12)


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError):
        psm.not_a_special_function  # noqa: B018

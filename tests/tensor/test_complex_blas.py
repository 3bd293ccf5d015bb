"""Complex parts/construction and the BLAS-shaped Ops, against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.tensor import blas, blas_c
from opgraph.tensor import math as ptm

from .helpers import evaluate


@pytest.mark.parametrize(("dtype", "cdtype"), [("float32", "complex64"),
                                               ("float64", "complex128")])
def test_complex_parts(dtype, cdtype):
    re = np.array([1.5, -2.0, 0.0], dtype=dtype)
    im = np.array([0.5, 3.0, -1.0], dtype=dtype)
    z = ptm.complex(re, im)
    assert z.dtype == cdtype
    zv = evaluate(z)
    np.testing.assert_allclose(zv, re + 1j * im)
    assert ptm.real(z).dtype == dtype
    np.testing.assert_allclose(evaluate(ptm.real(z)), re)
    np.testing.assert_allclose(evaluate(ptm.imag(z)), im)
    np.testing.assert_allclose(evaluate(ptm.angle(z)), np.angle(re + 1j * im), rtol=1e-6)
    np.testing.assert_allclose(evaluate(ptm.conj(z)), np.conj(re + 1j * im))
    polar = evaluate(ptm.complex_from_polar(np.abs(zv), np.angle(zv)))
    np.testing.assert_allclose(polar, zv, rtol=1e-5, atol=1e-6)


def test_complex_rejects_complex_parts():
    with pytest.raises(TypeError):
        ptm.complex(pt.zvector(), pt.dvector())


def test_blas_ops_match_numpy():
    rng = np.random.default_rng(1)
    A, B = rng.normal(size=(3, 4)), rng.normal(size=(4, 2))
    x, y = rng.normal(size=4), rng.normal(size=3)
    np.testing.assert_allclose(evaluate(blas.dot22(A, B)), A @ B)
    np.testing.assert_allclose(evaluate(blas.gemv_no_inplace(y, 2.0, A, x, 0.5)),
                               0.5 * y + 2.0 * A @ x)
    Z = rng.normal(size=(3, 2))
    np.testing.assert_allclose(evaluate(blas.gemm_no_inplace(Z, -1.0, A, B, 3.0)),
                               3.0 * Z - A @ B)
    np.testing.assert_allclose(evaluate(blas.ger(A, 0.5, y, x)), A + 0.5 * np.outer(y, x))
    assert isinstance(blas_c.CGemv(), blas.Gemv)
    with pytest.raises(TypeError, match="'x' must be a 2-d"):
        blas.dot22(pt.vector(), pt.matrix())


def test_math_exposes_pytensor_names():
    assert ptm.isclose is pt.isclose
    assert ptm.tensordot is pt.tensordot
    assert ptm.isnan_ is ptm.isnan
    assert isinstance(ptm.ProdWithoutZeros(axis=0)(pt.matrix()).owner.op, ptm.Prod)
    with pytest.raises(AttributeError):
        ptm.no_such_name  # noqa: B018

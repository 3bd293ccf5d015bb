"""Every example of the PyTensor and the Theano OpFromGraph documentation pages."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from opgraph.compile.builders import OpFromGraph

import opgraph
import opgraph.tensor as pt
from opgraph.compile import function
from opgraph.config import config
from opgraph.gradient import grad


def test_pytensor_basic_usage():
    x, y, z = pt.scalars("xyz")
    e = x + y * z
    op = OpFromGraph([x, y, z], [e])
    e2 = op(x, y, z) + op(z, y, x)
    fn = function([x, y, z], [e2])
    (out,) = fn(2.0, 3.0, 4.0)
    np.testing.assert_allclose(out, (2 + 3 * 4) + (4 + 3 * 2))


def test_pytensor_shared_variable():
    x, y, z = pt.scalars("xyz")
    s = opgraph.compile.shared(np.random.random((2, 2)).astype(config.floatX))
    e = x + y * z + s
    op = OpFromGraph([x, y, z], [e])
    e2 = op(x, y, z) + op(z, y, x)
    fn = function([x, y, z], [e2])
    (out,) = fn(2.0, 3.0, 4.0)
    np.testing.assert_allclose(out, 14 + 10 + 2 * s.get_value(), rtol=1e-6)


def test_pytensor_per_input_pullback_override():
    x, y, z = pt.scalars("xyz")
    e = x + y * z

    def rescale_dy(inps, outputs, out_grads):
        _x, _y, z = inps
        (_g,) = out_grads
        return z * 2

    op = OpFromGraph([x, y, z], [e], pullback=[None, rescale_dy, None])
    e2 = op(x, y, z)
    dx, dy, dz = grad(e2, [x, y, z])
    fn = function([x, y, z], [dx, dy, dz])
    np.testing.assert_allclose(fn(2.0, 3.0, 4.0), [1.0, 8.0, 3.0])


def test_theano_example_1():
    x, y, z = pt.scalars("xyz")
    e = x + y * z
    op = OpFromGraph([x, y, z], [e])
    e2 = op(x, y, z) + op(z, y, x)
    fn = function([x, y, z], [e2])
    np.testing.assert_allclose(fn(1.0, 2.0, 3.0), [7.0 + 5.0])


def test_theano_example_2_shared():
    x, y, z = pt.scalars("xyz")
    s = opgraph.compile.shared(np.random.rand(2, 2).astype(config.floatX))
    e = x + y * z + s
    op = OpFromGraph([x, y, z], [e])
    e2 = op(x, y, z) + op(z, y, x)
    fn = function([x, y, z], [e2])
    np.testing.assert_allclose(fn(1.0, 2.0, 3.0)[0], 12 + 2 * s.get_value(), rtol=1e-6)


def test_theano_example_3_grad_overrides_with_default_strings():
    x, y, z = pt.scalars("xyz")
    e = x + y * z

    def rescale_dy(inps, grads):
        _x, _y, z = inps
        (_g,) = grads
        return z * 2

    with pytest.warns(DeprecationWarning):
        op = OpFromGraph([x, y, z], [e], grad_overrides=["default", rescale_dy, "default"])
    e2 = op(x, y, z)
    dx, dy, dz = grad(e2, [x, y, z])
    fn = function([x, y, z], [dx, dy, dz])
    np.testing.assert_allclose(fn(2.0, 3.0, 4.0), [1.0, 8.0, 3.0])


def test_theano_lop_overrides_default_string_is_no_override():
    x, y, z = pt.scalars("xyz")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        op = OpFromGraph([x, y, z], [x * y], lop_overrides="default", rop_overrides="default")
    assert not op.has_overrides

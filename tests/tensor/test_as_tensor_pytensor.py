"""as_tensor_variable / constant behaviours PyTensor code relies on."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.scalar as ps
import opgraph.tensor as pt
from opgraph.tensor.creation import ARange

from .helpers import evaluate


def test_range_becomes_arange():
    out = pt.as_tensor_variable(range(1, 7, 2), name="r")
    assert isinstance(out.owner.op, ARange) and out.name == "r" and out.dtype == "int64"
    np.testing.assert_array_equal(evaluate(out), np.arange(1, 7, 2))
    with pytest.raises(ValueError, match="ndim for range must be 1"):
        pt.as_tensor_variable(range(3), ndim=2)


@pytest.mark.parametrize("items", [[pt.as_tensor(1), pt.as_tensor(2)],
                                   [ps.constant(1), ps.constant(2)]])
def test_list_of_constants_is_a_constant(items):
    out = pt.as_tensor_variable(items)
    assert isinstance(out, pt.TensorConstant)
    np.testing.assert_array_equal(out.data, [1, 2])


def test_constant_passes_constants_through_and_refuses_masked_arrays():
    c = pt.constant(np.array([1, 2], dtype="int8"))
    assert pt.constant(c) is c
    assert pt.constant(pt.constant(np.int8(2)), ndim=1).type.ndim == 1
    with pytest.raises(NotImplementedError, match="MaskedArrays are not supported"):
        pt.constant(np.ma.masked_greater(np.arange(4), 2))


def test_python_bool_and_ndim_errors():
    with pytest.raises(TypeError, match="bool"):
        pt.as_tensor_variable(True)
    assert pt.as_tensor_variable(np.array([True, False])).dtype == "bool"
    x = pt.TensorType("float64", shape=(1, None))("x")
    with pytest.raises(ValueError, match=r"^Tensor of type"):
        pt.as_tensor_variable(x, ndim=0)


def test_alloc_messages_and_empty_shape():
    assert pt.ones(pt.as_tensor_variable([])).type.ndim == 0
    with pytest.raises(ValueError, match="Alloc static input type and target shape are incompat"):
        pt.alloc(pt.tensor(shape=(3,)), 5)
    x = pt.dvector()
    with pytest.raises(ValueError, match="Runtime broadcasting not allowed"):
        evaluate(pt.alloc(x, 2, 3), {x: np.ones(1)})


@pytest.mark.parametrize("dtype", ["bool", "int8", "int64"])
def test_mean_with_a_discrete_sum_dtype_is_float64(dtype):
    x = pt.matrix(dtype="int8")
    m = x.mean(dtype=dtype)
    assert m.dtype == "float64"
    # the sum is taken in ``dtype`` (a bool sum is True), then divided by the count
    expected = np.array(3).astype(dtype) / 2
    assert evaluate(m, {x: np.array([[1], [2]], dtype="int8")}) == expected
    assert x.mean(dtype="float32").dtype == "float32"


def test_numpy_ufuncs_build_tensor_graphs():
    x = pt.dscalar("x")
    for fn in (np.exp, np.arccos, np.deg2rad, np.log1p, np.sqrt):
        out = fn(x)
        assert isinstance(out, pt.TensorVariable)
        np.testing.assert_allclose(evaluate(out, {x: 0.5}), fn(0.5))
    a, v = np.ones(3), pt.dvector("v")
    np.testing.assert_array_equal(evaluate(a - v, {v: np.arange(3.0)}), 1 - np.arange(3.0))
    assert (a < v).dtype == "bool"
    assert (a == v) is False and (a != v) is True
    with pytest.raises(TypeError):
        np.exp(v, out=np.ones(3))


def test_shape_error_wording():
    with pytest.raises(ValueError, match="will never match"):
        pt.specify_shape(pt.dvector(), ())
    with pytest.raises(TypeError, match="must be integer types"):
        pt.specify_shape(pt.dvector(), (2.2,))
    with pytest.raises(ValueError, match="axis 2 is out of bounds for array of dimension 2"):
        pt.specify_broadcastable(pt.dmatrix(), 2)

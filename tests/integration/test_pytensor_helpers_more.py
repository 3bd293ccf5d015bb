"""PyTensor's tensor helper names: tensor.utils shape helpers, batch axes, unique constant
values, interpolation padding, random-generator checks and the shared-variable loader."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
import opgraph.tensor.utils as tu
from opgraph.tensor.elemwise import get_normalized_batch_axes
from opgraph.tensor.random.type import as_rng, gen_states_keys, numpy_bit_gens
from opgraph.tensor.random.variable import rng as variable_rng
from opgraph.tensor.random.variable import shared_rng
from opgraph.tensor.sharedvar import TensorSharedVariable, load_shared_variable
from opgraph.tensor.variable import get_unique_constant_value


def test_static_broadcast_lengths():
    assert tu.broadcast_static_dim_lengths([1, None]) is None
    assert tu.broadcast_static_dim_lengths([1, 3, None]) == 3
    assert tu.broadcast_static_dim_lengths([4, 4]) == 4
    with pytest.raises(ValueError, match="incompatible"):
        tu.broadcast_static_dim_lengths([2, 3])
    np.testing.assert_array_equal(tu.faster_broadcast_to(np.arange(3), (2, 3)),
                                  np.broadcast_to(np.arange(3), (2, 3)))
    assert list(tu.faster_ndindex((2, 3))) == list(np.ndindex(2, 3))
    assert tu.get_static_shape_from_size_variables([pt.constant(3), pt.iscalar()]) == (3, None)


def test_axis_and_function_lookup():
    assert tu.normalize_reduce_axis(None, 2) is None
    assert tu.normalize_reduce_axis(-1, 3) == (2,) and tu.normalize_reduce_axis(0, 0) == (0,)
    with pytest.raises(np.exceptions.AxisError):
        tu.normalize_reduce_axis(3, 2)
    assert tu.import_func_from_string("exp") is np.exp
    import scipy.special

    assert tu.import_func_from_string("scipy.special.gammaln") is scipy.special.gammaln
    assert tu.import_func_from_string("no_such_pkg.f") is None
    assert get_normalized_batch_axes(None, 2, 2) == (2, 3)
    assert get_normalized_batch_axes((0, -1), 3, 1) == (1, 3)


def test_unique_constant_value():
    assert get_unique_constant_value(pt.constant(np.full(3, 2.0))) == 2.0
    assert get_unique_constant_value(pt.constant(np.arange(3.0))) is None
    assert get_unique_constant_value(pt.constant(np.full(2, np.nan))) is None
    assert get_unique_constant_value(pt.vector()) is None


def test_pad_or_return():
    interp = importlib.import_module("opgraph.tensor.interpolate")
    x = pt.vector("x")
    idx = pt.ivector("i")
    out = interp.pad_or_return(x, idx, idx * 10.0, -1.0, 99.0, extrapolate=False)
    f = opgraph.function([x, idx], out)
    np.testing.assert_array_equal(f(np.zeros(3), np.array([0, 1, 3], "int32")), [-1, 10, 99])
    assert interp.pad_or_return(x, idx, x, 0, 0, extrapolate=True) is x


def test_rng_helpers():
    r = shared_rng(np.random.default_rng(0))
    assert as_rng(r) is r and variable_rng is pt.random.type.rng
    with pytest.raises(TypeError, match="None"):
        as_rng(None)
    with pytest.raises(TypeError, match="shared_rng"):
        as_rng(np.random.default_rng())
    with pytest.raises(TypeError, match="RandomGeneratorVariable"):
        as_rng(pt.vector())
    state = np.random.default_rng(0).bit_generator.state
    top, inner = gen_states_keys[state["bit_generator"]]
    assert set(top) <= set(state) and set(inner) <= set(state["state"])
    assert numpy_bit_gens[1] == "PCG64"


def test_load_shared_variable():
    v = load_shared_variable(np.arange(3.0))
    assert isinstance(v, TensorSharedVariable)
    np.testing.assert_array_equal(v.get_value(), np.arange(3.0))


def test_warn_reuse_warns_on_the_second_use():
    import warnings

    from opgraph.tensor.random.variable import warn_reuse

    calls = []

    @warn_reuse
    def draw(self):
        calls.append(1)
        return len(calls)

    r = pt.random.type.rng("r")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert draw(r) == 1
    with pytest.warns(UserWarning, match="already been used"):
        assert draw(r) == 2

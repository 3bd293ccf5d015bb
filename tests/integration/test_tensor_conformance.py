"""Compiled checks of tensor behaviours PyTensor code relies on, in every installed mode.

Each case runs through the Python VM and the C linker and is compared with NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest

import opgraph
import opgraph.scalar as ps
import opgraph.tensor as pt
from opgraph.tensor.elemwise import Elemwise

MODES = ["FAST_COMPILE", "FAST_RUN"]


@pytest.mark.parametrize("mode", MODES)
def test_dropping_a_dimension_of_unknown_length_is_checked_at_run_time(mode):
    x = pt.tensor("x", shape=(None, 1, None))
    f = opgraph.function([x], x.dimshuffle(1, 2), mode=mode)
    np.testing.assert_array_equal(f(np.arange(4.0).reshape(1, 1, 4)), [[0.0, 1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="dropped dimension must have length 1"):
        f(np.ones((2, 1, 4)))


@pytest.mark.parametrize("mode", MODES)
def test_inplace_op_on_real_part_leaves_the_complex_input_alone(mode):
    # np.real returns a view: the Elemwise must not hand it out as its own output,
    # or the in-place multiplication writes into the input.
    a = pt.zvector("a")
    doubled = Elemwise(ps.mul, inplace_pattern={0: 0})(pt.real(a), 2.0)
    f = opgraph.function([a], doubled + a, mode=opgraph.compile.mode.Mode(
        linker=opgraph.compile.mode.get_mode(mode).linker, optimizer=None),
        accept_inplace=True)
    value = np.array([1 + 2j, 3 + 4j, 5 + 6j])
    np.testing.assert_allclose(f(value.copy()), np.real(value) * 2 + value)


@pytest.mark.parametrize("mode", MODES)
def test_runtime_broadcast_error_names_the_cause(mode):
    x, m = pt.matrix("x"), pt.vector("m")
    f = opgraph.function([x, m], x - m, mode=mode)
    with pytest.raises(ValueError, match="Runtime broadcasting not allowed"):
        f(np.ones((2, 3)), np.zeros(1))
    with pytest.raises(ValueError, match="Runtime broadcasting not allowed"):
        f(np.ones((2, 1)), np.zeros(3))


@pytest.mark.parametrize("mode", MODES)
def test_alloc_runtime_broadcast_error_names_the_cause(mode):
    v, n = pt.vector("v"), pt.lscalar("n")
    f = opgraph.function([v, n], pt.alloc(v, n, 3), mode=mode)
    np.testing.assert_array_equal(f(np.arange(3.0), 2), np.tile(np.arange(3.0), (2, 1)))
    with pytest.raises(ValueError, match="Runtime broadcasting not allowed"):
        f(np.ones(1), 2)

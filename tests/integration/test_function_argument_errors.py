"""A constant in the inputs list and a plain value as an output raise PyTensor's clear
TypeError, in every mode (docs/modes.md)."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt

MODES = ["FAST_RUN", "FAST_COMPILE", "C", "CVM", "DASK", "DebugMode"]


@pytest.mark.parametrize("mode", MODES)
def test_a_constant_input_is_refused(mode):
    c = pt.constant(np.ones(2))
    with pytest.raises(TypeError, match=r"input 0 is a constant.*not allowed"):
        opgraph.function([c], c * 2, mode=mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("value", [np.ones(2), 3.0, [1.0, 2.0]], ids=["ndarray", "float", "list"])
def test_a_plain_value_as_an_output_is_refused(mode, value):
    x = pt.dvector("x")
    with pytest.raises(TypeError, match=r"output 1 must be a symbolic Variable or Out"):
        opgraph.function([x], [x * 2, value], mode=mode)
    # a constant, as the message says, is the way to return a fixed value
    f = opgraph.function([x], [x * 2, pt.constant(np.ones(2))], mode=mode)
    np.testing.assert_array_equal(f(np.ones(2))[1], np.ones(2))

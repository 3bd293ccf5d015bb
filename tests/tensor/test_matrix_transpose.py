"""``x.mT``: the last two axes swapped, as NumPy's ``ndarray.mT``."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt

from .helpers import evaluate


@pytest.mark.parametrize("shape", [(2, 3), (4, 2, 3), (1, 5, 2, 3)])
def test_mT_swaps_the_last_two_axes(shape):
    x = pt.tensor("x", shape=(None,) * len(shape))
    value = np.random.default_rng(1).normal(size=shape)
    assert x.mT.type.ndim == len(shape)
    np.testing.assert_array_equal(evaluate(x.mT, {x: value}), value.mT)


def test_mT_keeps_static_shapes():
    x = pt.tensor("x", shape=(4, 2, 3))
    assert x.mT.type.shape == (4, 3, 2)


def test_mT_of_a_vector_is_an_error_naming_it():
    with pytest.raises(ValueError, match="mT needs at least 2 dimensions; v has 1"):
        pt.vector("v").mT  # noqa: B018

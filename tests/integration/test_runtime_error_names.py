"""A shape mismatch at run time names the user's variables and the line that built the
node, in every mode, also when the node is a fused Composite or a Gemv."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt

MODES = ["FAST_RUN", "C", "CVM", "FAST_COMPILE", "DASK", "DebugMode"]


@pytest.mark.parametrize("mode", MODES)
def test_elemwise_shape_mismatch_names_the_users_variables(mode):
    speed, weight = pt.dvector("speed"), pt.dvector("weight")
    out = pt.exp(speed) + weight * 2  # the line the error points at
    line = test_elemwise_shape_mismatch_names_the_users_variables.__code__.co_firstlineno + 3
    f = opgraph.function([speed, weight], out, mode=mode)
    with pytest.raises(ValueError) as info:
        f(np.ones(3), np.ones(4))
    text = str(info.value)
    assert "speed" in text and "weight" in text, text
    assert "input[0]" not in text, text
    assert f"{__file__}:{line}" in text, text


@pytest.mark.parametrize("mode", MODES)
def test_dot_shape_mismatch_names_the_users_variables(mode):
    design, coef, offset = pt.dmatrix("design"), pt.dvector("coef"), pt.dvector("offset")
    f = opgraph.function([design, coef, offset], pt.dot(design, coef) + offset, mode=mode)
    with pytest.raises(ValueError) as info:
        f(np.ones((3, 2)), np.ones(3), np.ones(3))
    text = str(info.value)
    assert "design" in text and "coef" in text, text
    assert "input[0]" not in text, text
    assert __file__ in text, text

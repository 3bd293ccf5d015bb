"""An input with static lengths is checked inline in the generated call (no ``filter``
call for a matching array: PyMC's raveled parameter vector has a fixed length), and a
value of other lengths still gets the input's clear TypeError; a mode's ``excluding``
reaches ``provided_optimizer``, which PyMC builds its mode from."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.compile.mode import get_mode

MODES = ["FAST_RUN", "FAST_COMPILE", "CVM"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape", [(3,), (2, None), (None, 2), (2, 3)])
def test_static_lengths_checked_inline(mode, shape):
    x = pt.tensor("x", dtype="float64", shape=shape)
    f = opgraph.function([x], x * 2.0, mode=mode)
    good = np.arange(float(np.prod([n or 2 for n in shape]))).reshape([n or 2 for n in shape])
    np.testing.assert_array_equal(f(good), good * 2.0)
    wrong = np.ones([(n or 2) + 1 for n in shape])
    with pytest.raises(TypeError, match=r"input 0 \('x'\).*static shape"):
        f(wrong)
    with pytest.raises(TypeError, match=r"input 0 \('x'\)"):
        f(np.ones((1,) * (len(shape) + 1)))  # wrong rank
    # other dtypes and Python lists still convert through the Type's filter
    np.testing.assert_array_equal(f(good.tolist()), good * 2.0)
    np.testing.assert_array_equal(f(good.astype("int32")), good * 2.0)


def test_excluding_reaches_provided_optimizer():
    mode = get_mode("FAST_RUN").excluding("fusion")
    assert "fusion" in mode.provided_optimizer.exclude
    again = mode.including("random_make_inplace")
    assert "fusion" in again.provided_optimizer.exclude
    assert "random_make_inplace" in again.provided_optimizer.include
    x = pt.dvector("x")
    f = opgraph.function([x], pt.exp(x) * 2.0,
                         mode=opgraph.compile.mode.Mode(linker=mode.linker,
                                                        optimizer=again.provided_optimizer))
    assert len(f.maker.fgraph.apply_nodes) == 2  # exp and mul, not one fused Composite

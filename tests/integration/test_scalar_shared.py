"""``opgraph.scalar.sharedvar.shared``: a shared variable of a scalar Type."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph
import opgraph.scalar as ps
from opgraph.scalar.sharedvar import ScalarSharedVariable, shared


def test_scalar_shared_dtype_value_and_updates():
    s = shared(2.5, name="s")
    assert isinstance(s, ScalarSharedVariable) and s.type == ps.float64
    assert shared(3).type == ps.int64 and shared(np.float32(1.5)).type == ps.float32
    x = ps.float64("x")
    f = opgraph.function([x], s * x, updates=[(s, s + 1)])
    assert f(2.0) == 5.0 and s.get_value() == 3.5
    with pytest.raises(TypeError, match="expected a number"):
        shared(np.zeros(2))

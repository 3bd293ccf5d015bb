"""ScalarLoop: a recurrence run n_steps times, or until its condition holds."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.scalar as ps


def test_fixed_number_of_steps_with_a_constant():
    x, c = ps.float64("x"), ps.float64("c")
    loop = ps.ScalarLoop([x], [x * c], [c])
    assert loop.nin == 3 and loop.nout == 1
    assert loop.impl(np.int64(4), 1.5, 2.0) == 1.5 * 2.0**4
    assert loop.impl(np.int64(0), 1.5, 2.0) == 1.5


def test_until_stops_early_and_reports_done():
    x = ps.float64("x")
    loop = ps.ScalarLoop([x], [x + 1.0], until=(x + 1.0) >= 3.0)
    out, done = loop(10, 0.0)
    assert out.type.dtype == "float64" and done.type.dtype == "bool"
    assert loop.impl(np.int64(10), 0.0) == (3.0, True)
    assert loop.impl(np.int64(2), 0.0) == (2.0, False)


def test_two_state_variables_fibonacci():
    a, b = ps.int64("a"), ps.int64("b")
    loop = ps.ScalarLoop([a, b], [b, a + b])
    assert loop.impl(np.int64(10), np.int64(0), np.int64(1)) == (55, 89)


def test_construction_errors():
    x, y = ps.float64("x"), ps.float32("y")
    with pytest.raises(TypeError, match="update 0"):
        ps.ScalarLoop([x], [y])
    with pytest.raises(ValueError, match="init"):
        ps.ScalarLoop([x], [x, x])
    with pytest.raises(TypeError, match="n_steps"):
        ps.ScalarLoop([x], [x + 1.0])(1.5, 0.0)

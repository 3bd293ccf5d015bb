"""``PdbBreakpoint``: passes values through, enters the debugger only when the condition holds."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.breakpoint import PdbBreakpoint
from opgraph.gradient import grad


def _compile():
    x = pt.vector("x")
    y = pt.vector("y")
    bx, by = PdbBreakpoint("sum too big")(pt.gt(x.sum(), 10), x, y)
    return x, y, bx, by, opgraph.function([x, y], bx * 2 + by)


def test_values_pass_through_and_the_hook_runs_only_when_true(monkeypatch):
    calls = []
    monkeypatch.setattr(sys, "breakpointhook", lambda *a, **k: calls.append(1))
    *_, fn = _compile()
    np.testing.assert_allclose(fn([1.0, 2.0], [1.0, 1.0]), [3.0, 5.0])
    assert calls == []
    np.testing.assert_allclose(fn([10.0, 2.0], [1.0, 1.0]), [21.0, 5.0])
    assert calls == [1]


def test_gradient_flows_to_the_monitored_inputs_only():
    x, y, bx, by, _ = _compile()
    gx, gy = grad((bx * 3 + by).sum(), [x, y])
    f = opgraph.function([x, y], [gx, gy])
    a, b = f([1.0, 2.0], [0.0, 0.0])
    np.testing.assert_allclose(a, [3.0, 3.0])
    np.testing.assert_allclose(b, [1.0, 1.0])


def test_condition_must_be_scalar():
    with pytest.raises(TypeError, match="scalar"):
        PdbBreakpoint("b")(pt.vector("c"), pt.vector("x"))

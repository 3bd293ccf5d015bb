"""The specialised Elemwise thunks through the VM: fresh outputs, 0-d arrays."""

from __future__ import annotations

import numpy as np

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode

VM = Mode(linker="vm", optimizer=None)


def test_vm_results_are_never_recycled() -> None:
    x = pt.dvector("x")
    f = function([x], pt.exp(x) + x, mode=VM)
    first = f(np.zeros(3))
    second = f(np.ones(3))
    assert first is not second and not np.shares_memory(first, second)
    np.testing.assert_array_equal(first, np.ones(3))


def test_vm_float_argument_and_0d_output() -> None:
    x = pt.dscalar("x")
    f = function([x], x + 1, mode=VM)
    out = f(2.0)
    assert type(out) is np.ndarray and out.dtype == np.float64 and out.shape == ()
    assert float(out) == 3.0


def test_variadic_add_over_hundreds_of_inputs() -> None:
    from opgraph.scalar import add
    from opgraph.tensor.elemwise import Elemwise

    xs = [pt.dvector(f"x{i}") for i in range(400)]
    f = function(xs, Elemwise(add)(*xs), mode=VM)
    values = [np.full(2, float(i)) for i in range(400)]
    np.testing.assert_array_equal(f(*values), np.full(2, sum(range(400)), dtype=float))

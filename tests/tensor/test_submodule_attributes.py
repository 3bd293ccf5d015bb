"""``import opgraph.tensor as pt`` binds the submodules PyTensor 3.0.7's ``pytensor.tensor``
binds, so ``pt.signal.convolve1d(...)`` ports unchanged (no separate import needed).

The list is what ``dir(pytensor.tensor)`` holds as modules in PyTensor 3.0.7, less its C
internals (``blas_headers``, ``elemwise_cgen``: C code lives in the opgraph-c plugin),
``symbolic`` (see docs/migrating.md) and the ``pytensor`` package itself.  ``linalg``,
``optimize`` and ``rewriting`` come from plugins: tests/integration/test_served_submodules.py.
"""

from __future__ import annotations

import importlib
import subprocess
import sys

import numpy as np
import pytest

import opgraph.tensor as pt

from .helpers import evaluate

CORE_SUBMODULES = (
    "basic", "blas", "blas_c", "blockwise", "elemwise", "exceptions", "extra_ops",
    "functional", "interpolate", "math", "random", "sharedvar", "signal", "special",
    "subtensor", "type", "type_other", "utils", "variable", "xlogx",
)


@pytest.mark.parametrize("name", CORE_SUBMODULES)
def test_submodule_is_an_attribute(name: str) -> None:
    assert getattr(pt, name) is importlib.import_module(f"opgraph.tensor.{name}")


def test_signal_is_reachable_without_importing_it() -> None:
    code = ("import opgraph.tensor as pt; import sys; "
            "print(pt.signal.convolve1d.__module__, 'opgraph.tensor.signal' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out[1] == "True" and out[0].startswith("opgraph.tensor.signal")


def test_pt_signal_convolve1d_matches_numpy() -> None:
    a, b = pt.dvector("a"), pt.dvector("b")
    x, k = np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.5, -1.0, 2.0])
    got = evaluate(pt.signal.convolve1d(a, b, mode="full"), {a: x, b: k})
    np.testing.assert_allclose(got, np.convolve(x, k, mode="full"))

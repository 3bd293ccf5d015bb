"""Shared helpers: compile in a mode that exists in the plugin session (Python VM)."""

from __future__ import annotations

import numpy as np
import pytest

from opgraph.compile import Mode, function


@pytest.fixture
def vm_mode() -> Mode:
    """The Python VM without rewrites: what the plugin session can always run."""
    return Mode(linker="vm", optimizer=None)


def compile_vm(inputs, outputs, **kwargs):
    kwargs.setdefault("on_unused_input", "ignore")
    return function(inputs, outputs, mode=Mode(linker="vm", optimizer=None), **kwargs)


def finite_difference(f, args, eps=1e-6):
    """Central differences of the scalar ``f(*args)`` for each argument."""
    grads = []
    for k, a in enumerate(args):
        a = np.asarray(a, dtype="float64")
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            hi, lo = a.copy(), a.copy()
            hi[idx] += eps
            lo[idx] -= eps
            ahi = list(args)
            alo = list(args)
            ahi[k], alo[k] = hi, lo
            g[idx] = (float(f(*ahi)) - float(f(*alo))) / (2 * eps)
        grads.append(g)
    return grads

"""Shared helpers: compile with and without rewrites, count op types."""

from __future__ import annotations

import warnings
from collections import Counter
from typing import Any

import numpy as np

from opgraph.compile.function import function
from opgraph.compile.mode import Mode, get_mode

EDGE = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -3.0, 1e-8, np.inf, -np.inf, np.nan])


def compile_pair(inputs: list, out: Any, mode: Any = "FAST_RUN") -> tuple[Any, Any]:
    """(rewritten function, reference function without rewrites) on the VM."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = get_mode(mode) if isinstance(mode, str) else mode
        m = m.clone() if hasattr(m, "clone") else m
        fast = function(inputs, out, mode=Mode(linker="vm", optimizer=m.optimizer),
                        on_unused_input="ignore")
        ref = function(inputs, out, mode=Mode(linker="vm", optimizer=None),
                       on_unused_input="ignore")
    return fast, ref


def op_counts(fn: Any) -> Counter:
    """Counter of op labels: Elemwise nodes by scalar op class name, others by Op class.

    The DeepCopyOp ``function`` puts on an output that is an input or a constant (the
    copy it returns, as in PyTensor) is not a rewrite result and is not counted.
    """
    c: Counter = Counter()
    for node in fn.maker.fgraph.apply_nodes:
        if type(node.op).__name__ == "DeepCopyOp" and node.inputs[0].owner is None:
            continue
        sop = getattr(node.op, "scalar_op", None)
        c[type(sop).__name__ if sop is not None else type(node.op).__name__] += 1
    return c


def assert_same(fast: Any, ref: Any, *values: Any, rtol: float = 1e-7, atol: float = 0.0) -> None:
    with np.errstate(all="ignore"):
        a = fast(*[np.copy(v) for v in values])
        b = ref(*[np.copy(v) for v in values])
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
    assert np.asarray(a).dtype == np.asarray(b).dtype

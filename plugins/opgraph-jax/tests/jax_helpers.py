"""Compile one graph with the Python reference linker and with JAX, and compare."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import numpy as np

from opgraph import function
from opgraph.compile.mode import Mode


def compare_with_py(inputs: Sequence[Any], outputs: Any, values: Sequence[Any],
                    rtol: float = 1e-7, atol: float = 1e-10, names: Sequence[str] = (),
                    **kwargs: Any) -> list[Any]:
    """Run ``outputs`` in JAX mode and with the "py" linker; assert equal values and dtypes."""
    ref = function(list(inputs), outputs, mode=Mode(linker="py", optimizer=None), **kwargs)
    fj = function(list(inputs), outputs, mode="JAX", **kwargs)
    want = ref(*values)
    got = fj(*values)
    single = not isinstance(outputs, list | tuple)
    want_l, got_l = ([want], [got]) if single else (want, got)
    for k, (w, g) in enumerate(zip(want_l, got_l, strict=True)):
        label = names[k] if k < len(names) else f"output {k}"
        assert isinstance(g, jax.Array), (label, type(g))
        g = np.asarray(g)
        assert g.dtype == np.asarray(w).dtype, (label, g.dtype, np.asarray(w).dtype)
        assert g.shape == np.shape(w), (label, g.shape, np.shape(w))
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=label)
    return got_l

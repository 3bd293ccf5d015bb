"""Test helpers: compile with the Python VM, well-conditioned test matrices."""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.compile.function import function
from opgraph.gradient import verify_grad


def compile_py(inputs: Any, outputs: Any, **kwargs: Any) -> Any:
    """Compile with the Python VM and no rewrites beyond FAST_COMPILE's."""
    return function(inputs, outputs, mode="FAST_COMPILE", **kwargs)


def check_grad(fun: Any, values: Any, rng: np.random.Generator, **kwargs: Any) -> None:
    """verify_grad (finite differences) on the Python VM."""
    verify_grad(fun, [np.ascontiguousarray(v) for v in values], rng=rng,
                mode="FAST_COMPILE", **kwargs)


def spd(rng: np.random.Generator, n: int, batch: tuple[int, ...] = ()) -> np.ndarray:
    """Symmetric positive definite matrices, well conditioned."""
    r = rng.normal(size=(*batch, n, n))
    return r @ np.swapaxes(r, -1, -2) + n * np.eye(n)


def well_conditioned(rng: np.random.Generator, n: int, batch: tuple[int, ...] = ()) -> np.ndarray:
    return rng.normal(size=(*batch, n, n)) + 3 * np.eye(n)

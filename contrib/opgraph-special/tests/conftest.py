"""Shared helpers: the domain each special function is tested on."""

from __future__ import annotations

import numpy as np
import pytest

#: name -> (number of inputs, a function drawing valid float64 inputs of one shape)
DOMAINS = {
    "erf": (1, lambda rng, n: [rng.uniform(-3, 3, n)]),
    "erfc": (1, lambda rng, n: [rng.uniform(-3, 3, n)]),
    "erfcx": (1, lambda rng, n: [rng.uniform(-3, 5, n)]),
    "erfinv": (1, lambda rng, n: [rng.uniform(-0.9, 0.9, n)]),
    "gammaln": (1, lambda rng, n: [rng.uniform(0.2, 6, n)]),
    "digamma": (1, lambda rng, n: [rng.uniform(0.3, 6, n)]),
    "betaln": (2, lambda rng, n: [rng.uniform(0.3, 5, n), rng.uniform(0.3, 5, n)]),
    "xlogy": (2, lambda rng, n: [rng.uniform(-2, 2, n), rng.uniform(0.2, 4, n)]),
    "xlog1py": (2, lambda rng, n: [rng.uniform(-2, 2, n), rng.uniform(-0.7, 4, n)]),
    "i0": (1, lambda rng, n: [rng.uniform(-4, 4, n)]),
    "i1": (1, lambda rng, n: [rng.uniform(-4, 4, n)]),
    "log_ndtr": (1, lambda rng, n: [rng.uniform(-8, 4, n)]),
}


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20240607)


def compile_py(inputs, outputs, **kwargs):
    """Compile with the Python VM (the reference linker; the only one this package's
    isolated test session installs)."""
    from opgraph.compile.function import function

    kwargs.setdefault("mode", "FAST_COMPILE")
    return function(inputs, outputs, **kwargs)

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
    "gamma": (1, lambda rng, n: [rng.uniform(0.3, 5, n)]),
    "erfcinv": (1, lambda rng, n: [rng.uniform(0.1, 1.9, n)]),
    "j0": (1, lambda rng, n: [rng.uniform(-8, 8, n)]),
    "j1": (1, lambda rng, n: [rng.uniform(-8, 8, n)]),
    "jv": (2, lambda rng, n: [rng.integers(0, 4, n).astype(float), rng.uniform(0.5, 8, n)]),
    "iv": (2, lambda rng, n: [rng.integers(0, 4, n).astype(float), rng.uniform(0.5, 4, n)]),
    "ive": (2, lambda rng, n: [rng.integers(0, 4, n).astype(float), rng.uniform(0.5, 4, n)]),
    "kv": (2, lambda rng, n: [rng.integers(0, 4, n).astype(float), rng.uniform(0.5, 4, n)]),
    "kve": (2, lambda rng, n: [rng.integers(0, 4, n).astype(float), rng.uniform(0.5, 4, n)]),
    "gammainc": (2, lambda rng, n: [rng.uniform(0.5, 4, n), rng.uniform(0.2, 5, n)]),
    "gammaincc": (2, lambda rng, n: [rng.uniform(0.5, 4, n), rng.uniform(0.2, 5, n)]),
    "gammaincinv": (2, lambda rng, n: [rng.uniform(0.5, 4, n), rng.uniform(0.1, 0.9, n)]),
    "gammainccinv": (2, lambda rng, n: [rng.uniform(0.5, 4, n), rng.uniform(0.1, 0.9, n)]),
    "betainc": (3, lambda rng, n: [rng.uniform(0.5, 4, n), rng.uniform(0.5, 4, n),
                                   rng.uniform(0.1, 0.9, n)]),
    "betaincinv": (3, lambda rng, n: [rng.uniform(0.5, 4, n), rng.uniform(0.5, 4, n),
                                      rng.uniform(0.1, 0.9, n)]),
    "hyp2f1": (4, lambda rng, n: [rng.uniform(0.1, 2, n), rng.uniform(0.1, 2, n),
                                  rng.uniform(2.5, 4, n), rng.uniform(-0.8, 0.8, n)]),
    "owens_t": (2, lambda rng, n: [rng.uniform(-3, 3, n), rng.uniform(-3, 3, n)]),
}

#: for functions with a gradient in only some inputs: the inputs it is defined for
DIFFERENTIABLE = {
    "jv": (1,), "iv": (1,), "ive": (1,), "kv": (1,), "kve": (1,),
    "gammaincinv": (1,), "gammainccinv": (1,), "betaincinv": (2,), "hyp2f1": (3,),
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

"""One rule for unaligned arguments (docs/modes.md): refused with a TypeError naming
the input, for every type, rank, dtype and mode, as PyTensor does."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.compile.mode import Mode

MODES = ["FAST_RUN", "FAST_COMPILE", "CVM", "DASK", "DebugMode", "py"]
DTYPES = ["float64", "float32", "int64", "int16", "uint16", "complex128"]
STATIC = {0: (), 1: (None,), 2: (1, None), 3: (None, None, None)}


def _unaligned(shape: tuple, dtype: str) -> np.ndarray:
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    a = np.zeros(n * dt.itemsize + 1, dtype=np.uint8)[1:].view(dt).reshape(shape)
    a[...] = 1
    assert not a.flags.aligned
    return a


@pytest.mark.parametrize("mode", MODES)
def test_unaligned_arguments_are_refused_for_every_type(mode):
    inputs, good = [], []
    for dtype in DTYPES:
        for nd, static in STATIC.items():
            inputs.append(pt.tensor(f"x_{dtype}_{nd}", dtype=dtype, shape=static))
            good.append(np.ones(tuple(2 if s is None else s for s in static), dtype=dtype))
    m = Mode(linker="py", optimizer=None) if mode == "py" else mode
    f = opgraph.function(inputs, [x * 2 for x in inputs], mode=m)
    for k in range(len(inputs)):
        np.testing.assert_array_equal(f(*good)[k], good[k] * 2)
        args = list(good)
        args[k] = _unaligned(good[k].shape, good[k].dtype)
        with pytest.raises(TypeError, match=rf"(?s)input {k} .*not aligned"):
            f(*args)
    # the function stays usable (and trust_input, which skips checks, still computes)
    f.trust_input = True
    np.testing.assert_array_equal(f(*good)[-1], good[-1] * 2)

"""PyTensor's ``autocast_float``: which float dtype a Python float constant gets.

By default a Python float becomes ``floatX`` when ``floatX`` holds it exactly
and float64 otherwise. Inside ``with autocast_float_as("float32"):`` the
listed dtypes are tried in order instead (the first that holds the value
exactly wins, else the last one).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np

__all__ = ["NumpyAutocaster", "autocast_float", "autocast_float_as"]

_FLOATS = ("float16", "float32", "float64")


class NumpyAutocaster:
    """Picks the dtype of a Python number from a list of candidate dtypes."""

    def __init__(self, dtypes: tuple[str, ...]) -> None:
        self.default = tuple(dtypes)
        self.dtypes = tuple(dtypes)

    @property
    def overridden(self) -> bool:
        """Whether ``autocast_float_as`` currently sets the candidates."""
        return self.dtypes != self.default

    def __call__(self, x: float) -> str:
        for dtype in self.dtypes:
            if np.isnan(x) or float(np.asarray(x, dtype=dtype)) == x:
                return dtype
        return self.dtypes[-1]


autocast_float = NumpyAutocaster(_FLOATS)
"""The float dtype a Python float literal becomes (per ``config.cast_policy``)."""


@contextlib.contextmanager
def autocast_float_as(*dtypes: str) -> Iterator[None]:
    """Within the block, Python floats get the first of ``dtypes`` that holds them exactly."""
    bad = [d for d in dtypes if d not in _FLOATS]
    if not dtypes or bad:
        raise ValueError(f"autocast_float_as: dtypes must be among {_FLOATS}, got {dtypes!r}")
    saved = autocast_float.dtypes
    autocast_float.dtypes = tuple(dtypes)
    try:
        yield
    finally:
        autocast_float.dtypes = saved

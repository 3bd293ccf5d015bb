"""Signal processing over named dims: ``convolve1d``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.tensor.signal import convolve1d as tensor_convolve1d
from opgraph_xtensor.xtensor.basic import as_xtensor
from opgraph_xtensor.xtensor.type import XTensorVariable
from opgraph_xtensor.xtensor.vectorization import XBlockwise

__all__ = ["convolve1d"]

_MODES = ("full", "valid", "same")


def convolve1d(in1: Any, in2: Any, mode: str = "full", *, dims: Sequence[str]) -> XTensorVariable:
    """1-d convolution of ``in1`` along ``dims[0]`` with ``in2`` along ``dims[1]``;
    the other dims are batch dims; the output's core dim is ``dims[0]``."""
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {_MODES}, got {mode}")
    if isinstance(dims, str) or len(dims) != 2:
        raise ValueError(f"Two dims required, got {dims!r}")
    d1, d2 = dims
    if d1 == d2:
        raise ValueError(f"The two dims must be unique, got {dims!r}")
    in1, in2 = as_xtensor(in1), as_xtensor(in2)
    for k, (x, own, other) in enumerate(((in1, d1, d2), (in2, d2, d1))):
        if other in x.type.dims:
            raise ValueError(f"Input {k} has invalid core dims {[other]}. Allowed: {(own,)}")
    return XBlockwise(tensor_convolve1d, (((d1,), (d2,)), ((d1,),)), (("mode", mode),),
                       static_core=False)(in1, in2)

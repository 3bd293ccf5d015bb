"""PyTensor's ``pytensor.link.numba`` path: opgraph has no Numba backend.

The module exists so that code which imports ``NumbaLinker`` (typically to ask
``isinstance(mode.linker, NumbaLinker)``) keeps working; building the linker
raises an error that says what to use instead.
"""

from __future__ import annotations

from typing import Any

from opgraph.link.basic import JITLinker

__all__ = ["NumbaLinker"]

_NO_NUMBA = (
    "opgraph has no Numba backend: NumbaLinker cannot be built. Compile with the "
    "C linker (mode='FAST_RUN', linker 'c' from the opgraph-c plugin) or the Python "
    "VM (linker 'vm' / 'py' from opgraph-numpy) instead."
)


class NumbaLinker(JITLinker):
    """Stands for PyTensor's Numba linker; constructing it raises NotImplementedError."""

    name = "numba"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(_NO_NUMBA)

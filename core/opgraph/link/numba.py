"""PyTensor's ``link.numba`` path: opgraph has no Numba backend.

Ported code and tests refer to ``NumbaLinker`` to ask whether a mode compiles
with Numba (``isinstance(mode.linker, NumbaLinker)``); in opgraph the answer
is always no.  Building one raises, naming the backends opgraph has.
"""

from __future__ import annotations

from typing import Any

from opgraph.link.basic import JITLinker

__all__ = ["NumbaLinker"]


class NumbaLinker(JITLinker):
    """Stands for PyTensor's Numba linker in ``isinstance`` checks; cannot be built."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError("NumbaLinker: opgraph has no Numba backend; use the C "
                                  "linker (mode 'C' / FAST_RUN) or the Python VM ('vm')")

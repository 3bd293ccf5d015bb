"""PyTensor's ``pytensor.link.numba`` path: opgraph has no Numba backend.

``NumbaLinker`` exists so that imports and ``isinstance`` checks work; creating
one raises :class:`~opgraph.link.backends.BackendUnavailableError` naming
the missing opgraph-numba plugin.
"""

from opgraph.link.numba.linker import NumbaLinker

__all__ = ["NumbaLinker"]

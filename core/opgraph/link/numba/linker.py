"""``NumbaLinker``: placeholder for PyTensor's Numba linker (deliberately not in opgraph)."""

from opgraph.link.backends import UnavailableBackendLinker

__all__ = ["NumbaLinker"]


class NumbaLinker(UnavailableBackendLinker):
    """PyTensor's Numba linker; constructing it says which plugin is missing."""

    backend = "Numba"
    plugin = "opgraph-numba"

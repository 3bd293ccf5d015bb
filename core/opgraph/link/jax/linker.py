"""``JAXLinker``: placeholder for PyTensor's JAX linker (deliberately not in opgraph)."""

from opgraph.link.backends import UnavailableBackendLinker

__all__ = ["JAXLinker"]


class JAXLinker(UnavailableBackendLinker):
    """PyTensor's JAX linker; constructing it says which plugin is missing."""

    backend = "JAX"
    plugin = "opgraph-jax"

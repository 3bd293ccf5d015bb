"""PyTensor's ``pytensor.link.jax`` path: opgraph has no JAX backend.

``JAXLinker`` exists so that imports and ``isinstance`` checks work; creating
one raises :class:`~opgraph.link.backends.BackendUnavailableError` naming
the missing opgraph-jax plugin.
"""

from opgraph.link.jax.linker import JAXLinker

__all__ = ["JAXLinker"]

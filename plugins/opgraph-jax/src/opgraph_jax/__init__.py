"""opgraph's JAX backend: the ``"jax"`` linker, the ``JAX`` mode and PyTensor's ``link.jax`` map.

The entry module (:mod:`opgraph_jax.plugin`) only declares records; JAX is
imported when a JAX function is first compiled or ``opgraph.link.jax`` is
first imported.  ``opgraph.link.jax`` is :mod:`opgraph_jax.link` (the face
mechanism of docs/architecture.md), so ``jax_funcify`` registrations made
through either name are one and the same.
"""

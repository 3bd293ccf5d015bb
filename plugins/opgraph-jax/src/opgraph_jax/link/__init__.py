"""PyTensor's ``pytensor.link.jax`` path (served as ``opgraph.link.jax``): the JAX linker.

``JAXLinker`` compiles a whole graph with ``jax.jit``; ``dispatch`` holds
``jax_funcify`` / ``jax_typify``; ``ops`` holds ``JAXOp`` and ``wrap_jax``.
"""

from opgraph_jax.link.linker import JAXLinker, jitted_function

__all__ = ["JAXLinker", "jitted_function"]

"""``jax_funcify`` / ``jax_typify`` and the JAX translations of opgraph's Ops.

Importing this package registers every translation (one module per area).
Extend it for your own Ops::

    from opgraph.link.jax.dispatch import jax_funcify

    @jax_funcify.register(MyOp)
    def _(op, node=None, **kwargs):
        return lambda x: ...
"""

from opgraph_jax.link.dispatch import (  # noqa: F401  (imported to register translations)
    control,
    linalg,
    math,
    optimize,
    random,
    random_more,
    scalar,
    scan,
    subtensor,
    tensor,
)
from opgraph_jax.link.dispatch.basic import (
    JAXUnsupportedOpError,
    funcify_graph,
    jax_funcify,
    jax_typify,
)

__all__ = ["JAXUnsupportedOpError", "funcify_graph", "jax_funcify", "jax_typify"]

"""PyTensor's ``link.jax.dispatch.sparse`` path: SciPy sparse matrices as JAX ``BCOO``.

The sparse products' translation comes from opgraph-sparse through the
``opgraph_op_impl`` hook (a plugin provides the JAX form of its own Ops).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.experimental.sparse as jsp
import scipy.sparse

from opgraph.graph.basic import Apply
from opgraph_jax.link.dispatch.basic import jax_funcify, jax_typify

__all__ = ["jax_funcify_sparse_dot", "jax_typify_spmatrix"]


@jax_typify.register(scipy.sparse.spmatrix)
@jax_typify.register(scipy.sparse.sparray)
def jax_typify_spmatrix(matrix: Any, dtype: Any = None, **kwargs: Any) -> Any:
    """A SciPy sparse matrix as a JAX ``BCOO`` matrix (of ``dtype`` when given)."""
    if dtype is not None:
        matrix = matrix.astype(dtype)
    return jsp.BCOO.from_scipy_sparse(matrix)


def jax_funcify_sparse_dot(op: Any, node: Apply | None = None, **kwargs: Any) -> Callable:
    """The JAX function of a sparse product (``Dot`` / ``StructuredDot`` of opgraph-sparse)."""
    return jax_funcify(op, node=node, **kwargs)

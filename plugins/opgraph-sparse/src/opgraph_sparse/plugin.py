"""Entry point of opgraph-sparse: serves ``opgraph.sparse`` and lets ``shared()`` take
scipy sparse matrices (imports the core only; SciPy loads on first sparse use)."""

from __future__ import annotations

import importlib
import sys
from typing import Any

from opgraph.graph.basic import Constant
from opgraph.link.sharedvalue import shared_constructor
from opgraph.plugins import OpImpl, PublicModule, hookimpl


def sparse_shared(value: Any, *args: Any, **kwargs: Any) -> Any:
    """``shared()``'s constructor for scipy sparse matrices (TypeError for other values)."""
    if not type(value).__module__.startswith("scipy.sparse"):
        raise TypeError(f"not a scipy.sparse matrix: {type(value).__name__}")
    return importlib.import_module("opgraph_sparse.sharedvar").sparse_constructor(
        value, *args, **kwargs)


shared_constructor(sparse_shared)


@hookimpl
def opgraph_public_modules() -> list[PublicModule]:
    """PyTensor's ``pytensor.sparse`` path is this package."""
    return [PublicModule("opgraph.sparse", "opgraph_sparse")]


@hookimpl
def opgraph_register_rewrites(db: Any) -> None:
    """The sparse rewrites (CSM round trips, specialised sparse products)."""
    importlib.import_module("opgraph_sparse.rewriting").register_rewrites(db)


@hookimpl
def opgraph_op_impl(op: Any, backend: str) -> OpImpl | None:
    """The JAX translation of a sparse product with a constant sparse operand
    (``jax_funcify``'s contract): the constant becomes a JAX ``BCOO`` matrix."""
    products = sys.modules.get("opgraph_sparse.products")  # no sparse Op exists before
    if backend != "jax" or products is None or \
            not isinstance(op, products.Dot | products.StructuredDot):
        return None
    return OpImpl("jax", _jax_sparse_dot, description="sparse @ dense with a constant sparse "
                  "operand (jax.experimental.sparse)")


def _jax_sparse_dot(op: Any, node: Any = None, **kwargs: Any) -> Any:
    import jax.experimental.sparse as jsp  # only when a JAX function is being built

    sparse_type = importlib.import_module("opgraph_sparse.type").SparseTensorType
    fixed = {}
    for k, x in enumerate(node.inputs):
        if isinstance(x.type, sparse_type):
            if not isinstance(x, Constant):
                raise NotImplementedError(
                    "JAX sparse dot only implemented for constant sparse inputs "
                    f"(input {k} of {op} is {x})")
            fixed[k] = jsp.BCOO.from_scipy_sparse(x.data)
    if isinstance(node.outputs[0].type, sparse_type):
        raise NotImplementedError("JAX sparse dot only implemented for dense outputs")

    @jsp.sparsify
    def product(a: Any, b: Any) -> Any:
        out = a @ b
        return out.todense() if isinstance(out, jsp.BCOO) else out

    def sparse_dot(*args: Any) -> Any:
        a, b = (fixed.get(k, v) for k, v in enumerate(args))
        return product(a, b)

    return sparse_dot

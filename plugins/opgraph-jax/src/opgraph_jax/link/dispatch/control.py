"""Ops with inner graphs: IfElse (``lax.cond``), OpFromGraph and Einsum-like inner
functions, Blockwise (``jnp.vectorize``: vmap over the batch axes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from opgraph_ofg import OpFromGraph

from opgraph.graph.basic import Apply
from opgraph.ifelse import IfElse
from opgraph.tensor.blockwise import Blockwise
from opgraph_jax.link.dispatch.basic import (
    funcify_graph,
    is_concrete,
    jax_funcify,
    node_function,
)

__all__: list[str] = []


@jax_funcify.register(IfElse)
def _funcify_ifelse(op: IfElse, node: Apply | None = None, **kwargs: Any) -> Callable:
    n = op.n_outs
    dtypes = [v.type.dtype for v in node.outputs] if node is not None else [None] * n

    def ifelse(cond: Any, *branches: Any) -> Any:
        then, other = branches[:n], branches[n:]
        if is_concrete(cond):
            chosen = then if bool(np.asarray(cond)) else other
            out = [jnp.asarray(v, dtype=d) for v, d in zip(chosen, dtypes)]
        else:
            out = jax.lax.cond(
                jnp.asarray(cond).astype(bool),
                lambda: [jnp.asarray(v, dtype=d) for v, d in zip(then, dtypes)],
                lambda: [jnp.asarray(v, dtype=d) for v, d in zip(other, dtypes)],
            )
        return out[0] if n == 1 else list(out)

    return ifelse


@jax_funcify.register(OpFromGraph)
def _funcify_ofg(op: OpFromGraph, node: Apply | None = None, **kwargs: Any) -> Callable:
    inner = funcify_graph(op.fgraph, **kwargs)
    single = len(op.fgraph.outputs) == 1

    def op_from_graph(*args: Any) -> Any:
        out = inner(*args)
        return out[0] if single else list(out)

    return op_from_graph


def _core_node(op: Blockwise, node: Apply) -> Apply:
    """A node of the core Op on inputs of the core types (batch axes dropped)."""
    core_in = []
    for var, sig in zip(node.inputs, op.inputs_sig):
        batch = var.type.ndim - len(sig)
        core_in.append(var.type.clone(shape=var.type.shape[batch:])())
    return op.core_op.make_node(*core_in)


def _check_batch_broadcast(op: Blockwise, static: list, args: tuple, sigs: list) -> None:
    """Batch axes broadcast only where the type says length 1 (as the other linkers)."""
    batch = [jnp.shape(a)[: jnp.ndim(a) - len(sig)] for a, sig in zip(args, sigs)]
    ndim = max((len(b) for b in batch), default=0)
    for d in range(ndim):
        sizes = [(b[d - ndim + len(b)], s[d - ndim + len(s)]) for b, s in zip(batch, static)
                 if d - ndim + len(b) >= 0]
        if any(n != 1 for n, _ in sizes) and any(n == 1 and st != 1 for n, st in sizes):
            raise ValueError(f"Runtime broadcasting not allowed. {op}: a batch axis has "
                             "length 1 at runtime but its type does not declare it")


@jax_funcify.register(Blockwise)
def _funcify_blockwise(op: Blockwise, node: Apply | None = None, **kwargs: Any) -> Callable:
    if node is None:
        raise TypeError("jax_funcify(Blockwise) needs the node (its core shapes)")
    core = node_function(_core_node(op, node), **kwargs)
    n_out = len(node.outputs)

    def core_fn(*args: Any) -> Any:
        out = core(list(args))
        return out[0] if n_out == 1 else tuple(out)

    vectorized = jnp.vectorize(core_fn, signature=op.signature)
    batch_static = [var.type.shape[: var.type.ndim - len(sig)]
                    for var, sig in zip(node.inputs, op.inputs_sig)]

    def blockwise(*args: Any) -> Any:
        _check_batch_broadcast(op, batch_static, args, op.inputs_sig)
        out = vectorized(*args)
        return out if n_out == 1 else list(out)

    return blockwise

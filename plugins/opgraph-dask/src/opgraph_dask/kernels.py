"""Running one Op on plain arrays (a chunk, or a whole array).

:func:`run_node` runs the Op's NumPy implementation once (fresh storage per
call, so concurrent tasks never share cells).  A :class:`NodeKernel` holds a
small node built for chunks (static lengths dropped except the broadcastable
1s) so that it pickles without the user's graph and accepts any chunk shape;
a dask task calls it, on a thread or on a cluster worker, and it runs the
node compiled with FAST_RUN (the C kernel when opgraph-c is installed; see
:mod:`opgraph_dask.compiled`).  :func:`node_kernel` keeps one per node, so
every call of a function reuses the compiled kernels.
"""

from __future__ import annotations

import uuid
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np
from opgraph_numpy import make_node_thunk

from opgraph.graph.basic import Apply, Variable
from opgraph.tensor.type import TensorType
from opgraph_dask.compiled import aligned, compiled

__all__ = ["NodeKernel", "chunk_node", "node_kernel", "run_node"]

_KERNELS: weakref.WeakKeyDictionary[Apply, dict[int, NodeKernel]] = weakref.WeakKeyDictionary()


def chunk_node(node: Apply) -> Apply:
    """A copy of ``node`` whose tensor inputs have unknown lengths (1s kept)."""
    inputs = []
    for var in node.inputs:
        if isinstance(var.type, TensorType):
            shape = tuple(1 if s == 1 else None for s in var.type.shape)
            inputs.append(TensorType(var.type.dtype, shape)())
        else:
            inputs.append(var.type())
    return node.op.make_node(*inputs)


def run_node(node: Apply, values: Sequence[Any]) -> list[Any]:
    """Compute ``node``'s outputs from input ``values`` with its NumPy thunk."""
    if getattr(node.op, "destroy_map", None):
        # a chunk may be read by other tasks: an in-place Op gets its own copy
        values = [v.copy() if isinstance(v, np.ndarray) else v for v in values]
    storage: dict[Variable, list] = {}
    compute: dict[Variable, list] = {}
    for var, value in zip(node.inputs, values):
        storage[var] = [value]
        compute[var] = [True]
    for var in node.outputs:
        storage[var] = [None]
        compute[var] = [False]
    thunk = make_node_thunk(node, storage, compute, [], "py")
    result = thunk()
    for _ in range(len(node.inputs) + 2):
        if not (thunk.lazy and result):
            break
        result = thunk()
    return [storage[var][0] for var in node.outputs]


class NodeKernel:
    """``kernel(*chunks) -> output[index]`` for one node, picklable for cluster workers."""

    def __init__(self, node: Apply, index: int = 0) -> None:
        self.node = chunk_node(node)
        self.index = index
        self.token = uuid.uuid4().hex

    def __call__(self, *chunks: Any) -> np.ndarray:
        fn = compiled(self.token, self.node.inputs, self.node.outputs)
        return fn(*aligned(chunks))[self.index]

    def __repr__(self) -> str:
        return f"NodeKernel({self.node.op})"


def node_kernel(node: Apply, index: int = 0) -> NodeKernel:
    """The kernel of ``node``'s output ``index``, made once per node."""
    kernels = _KERNELS.setdefault(node, {})
    if index not in kernels:
        kernels[index] = NodeKernel(node, index)
    return kernels[index]

"""MonitorMode: call user functions before and/or after every node runs.

``MonitorMode(post_func=f)``: ``f(fgraph, i, node, fn)`` after node ``i``,
with ``fn.inputs`` / ``fn.outputs`` the node's storage cells.  Rewrites are
those of ``optimizer`` (default "fast_run"), so ``.excluding(...)`` works.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.compile.debug.callback import CallbackLinker, NodeHook
from opgraph.compile.moderecord import Mode

__all__ = ["MonitorMode", "detect_nan"]


class MonitorMode(Mode):
    """A Mode that calls ``pre_func`` / ``post_func`` around every node (Python thunks)."""

    def __init__(self, pre_func: NodeHook | None = None, post_func: NodeHook | None = None,
                 optimizer: Any = "default", linker: Any = None) -> None:
        for label, fn in (("pre_func", pre_func), ("post_func", post_func)):
            if fn is not None and not callable(fn):
                raise TypeError(f"MonitorMode: {label} must be callable, got {fn!r}")
        if linker is not None and not isinstance(linker, CallbackLinker):
            raise ValueError("MonitorMode runs its own linker; pass pre_func/post_func instead")
        self.pre_func = pre_func
        self.post_func = post_func
        super().__init__(linker=linker or CallbackLinker(pre_func=pre_func, post_func=post_func),
                         optimizer=optimizer, name="MonitorMode")

    def eval(self, fgraph: Any, i: int, node: Any, fn: Any) -> None:
        """Run node ``i`` with the hooks (PyTensor's per-node entry point)."""
        if self.pre_func is not None:
            self.pre_func(fgraph, i, node, fn)
        fn()
        if self.post_func is not None:
            self.post_func(fgraph, i, node, fn)


def detect_nan(fgraph: Any, i: int, node: Any, fn: Any) -> None:
    """A ``post_func`` for MonitorMode: when an output of ``node`` holds a NaN, print
    ``*** NaN detected ***``, the node's graph, and its input and output values."""
    for cell in fn.outputs:
        value = cell[0]
        if isinstance(value, np.random.Generator):
            continue
        try:
            has_nan = bool(np.isnan(value).any())
        except TypeError:  # not numbers (a list, a string): nothing to check
            continue
        if has_nan:
            print("*** NaN detected ***")
            node.dprint()
            print(f"Inputs : {[c[0] for c in fn.inputs]}")
            print(f"Outputs: {[c[0] for c in fn.outputs]}")
            break

"""The inner graph of an inner-graph Op (Scan, OpFromGraph), as ``op.fgraph`` gives it."""

from __future__ import annotations

from typing import Any

from opgraph.graph.fg import FunctionGraph

__all__ = ["InnerFunctionGraph"]


class InnerFunctionGraph(FunctionGraph):
    """An inner-graph Op's ``op.fgraph`` (Scan, OpFromGraph): its clones keep the inputs.

    PyTensor builds inner graphs on nominal input variables, which a clone keeps;
    code written for it (PyMC's measurable-scan rewrite, CustomDist's support
    point) clones ``op.fgraph`` and then replaces ``op.inner_inputs`` in the clone.
    Here the clone shares the input variables for the same reason; its nodes and
    every other variable are new.
    """

    def clone_get_equiv(self, check_integrity: bool = True, attach_feature: bool = True,
                        **kwargs: Any) -> tuple[FunctionGraph, dict]:
        kwargs.setdefault("copy_inputs", False)
        return super().clone_get_equiv(check_integrity, attach_feature, **kwargs)

"""What PyTensor code imports from ``pytensor.tensor.rewriting.assumptions``: removing
the ``assume()`` markers once the rewrites that read them have run.

A ``SpecifyAssumptions`` node is an identity that carries facts. Draining replaces
its output by its input and records the facts for that input on the graph's
``AssumptionFeature`` (attached if missing), so ``fgraph.assumption_feature`` still
answers what ``assume`` stated, and the compiled function does not pay for the marker.
A stated fact that contradicts what the graph shows raises
``ConflictingAssumptionsError`` while draining.
"""

from __future__ import annotations

from typing import Any

from opgraph.assumptions import BUILTIN_KEYS, AssumptionFeature, FactState, SpecifyAssumptions
from opgraph.graph.rewriting.basic import GraphRewriter

__all__ = ["DrainSpecifyAssumptions", "drain_specify_assumptions"]


def _feature(fgraph: Any) -> AssumptionFeature:
    feature = getattr(fgraph, "assumption_feature", None)
    if feature is None:
        feature = AssumptionFeature()
        fgraph.attach_feature(feature)
    return feature


class DrainSpecifyAssumptions(GraphRewriter):
    """Replace every ``assume(x, ...)`` by ``x``, keeping its facts on the feature."""

    name = "drain_specify_assumptions"

    def add_requirements(self, fgraph: Any) -> None:
        _feature(fgraph)

    def apply(self, fgraph: Any) -> int:
        feature = _feature(fgraph)
        markers = [n for n in fgraph.toposort() if isinstance(n.op, SpecifyAssumptions)]
        for node in markers:  # inputs first: a nested marker's facts reach the root
            (x,), (out,) = node.inputs, node.outputs
            # what holds for the marker's output (stated, inferred, or declared by an
            # outer marker drained earlier) holds for x; get() raises on a contradiction
            for key in BUILTIN_KEYS:
                state = feature.get(out, key)
                if state is not FactState.UNKNOWN:
                    feature.declare(x, key, state)
            fgraph.replace(out, x, reason=self.name)
        return len(markers)


drain_specify_assumptions = DrainSpecifyAssumptions()

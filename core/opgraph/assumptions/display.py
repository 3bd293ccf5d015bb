"""``debugprint(..., print_assumptions=True)``: the ``a={...}`` tag of each line.

Shows only the strongest facts: a TRUE fact implied by another TRUE fact shown
(``pd`` makes ``sym`` redundant) and a FALSE fact implied by another FALSE one
(``!sym`` makes ``!pd`` redundant) are left out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from opgraph.assumptions.core import (
    BUILTIN_KEYS,
    AssumptionFeature,
    FactState,
    stronger_keys,
    weaker_keys,
)
from opgraph.graph.basic import Variable
from opgraph.graph.fg import FunctionGraph
from opgraph.printing import DEBUGPRINT_ANNOTATIONS

__all__ = ["assumption_tags", "assumptions_tag", "summarize_assumptions"]


def assumptions_tag(feature: AssumptionFeature, var: Variable) -> str:
    """``a={diag, !sym}`` for ``var``, or ``""`` when nothing is known."""
    facts = feature.known_facts(var, BUILTIN_KEYS)
    true = {k for k, st in facts.items() if st is FactState.TRUE}
    false = {k for k, st in facts.items() if st is FactState.FALSE}
    shown = []
    for k in BUILTIN_KEYS:
        if k in true and not (stronger_keys(k) & true):
            shown.append(k.short)
        elif k in false and not (weaker_keys(k) & false):
            shown.append(f"!{k.short}")
        elif facts.get(k) is FactState.CONFLICT:
            shown.append(f"?{k.short}")
    return f"a={{{', '.join(shown)}}}" if shown else ""


def summarize_assumptions(feature: AssumptionFeature, var: Variable) -> str:
    """``{diag, !sym}``: the strongest facts known about ``var``, ``""`` when none."""
    tag = assumptions_tag(feature, var)
    return tag[len("a="):] if tag else ""


def assumption_tags(outputs: Sequence[Variable]) -> dict[Variable, str]:
    """Every variable of the graph of ``outputs`` with something known about it, mapped to
    its :func:`summarize_assumptions` tag."""
    fgraph = FunctionGraph(outputs=list(outputs), clone=False)
    feature = AssumptionFeature()
    fgraph.attach_feature(feature)
    tags = {var: summarize_assumptions(feature, var) for var in fgraph.variables}
    return {var: tag for var, tag in tags.items() if tag}


def _annotator(roots: list[Variable], fgraph: Any) -> Callable[[Variable], str]:
    feature = getattr(fgraph, "assumption_feature", None) or AssumptionFeature()
    return lambda var: assumptions_tag(feature, var)


DEBUGPRINT_ANNOTATIONS.register("assumptions", _annotator)

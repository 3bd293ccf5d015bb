"""``debugprint(..., print_assumptions=True)``: the ``a={...}`` tag of each line.

Shows only the strongest facts: a TRUE fact implied by another TRUE fact shown
(``pd`` makes ``sym`` redundant) and a FALSE fact implied by another FALSE one
(``!sym`` makes ``!pd`` redundant) are left out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from opgraph.assumptions.core import (
    BUILTIN_KEYS,
    AssumptionFeature,
    FactState,
    stronger_keys,
    weaker_keys,
)
from opgraph.graph.basic import Variable
from opgraph.printing import DEBUGPRINT_ANNOTATIONS

__all__ = ["assumptions_tag"]


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


def _annotator(roots: list[Variable], fgraph: Any) -> Callable[[Variable], str]:
    feature = getattr(fgraph, "assumption_feature", None) or AssumptionFeature()
    return lambda var: assumptions_tag(feature, var)


DEBUGPRINT_ANNOTATIONS["assumptions"] = _annotator

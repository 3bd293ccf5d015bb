"""Jacobian rows for expressions without a Python loop over their elements (stretch)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.graph.basic import Variable

__all__ = ["batched_jacobian"]


def batched_jacobian(
    expression: Variable, wrt: Sequence[Variable], **grad_kwargs: Any
) -> list[Variable]:
    """Rows ``d expression.flatten()[k] / d wrt`` stacked on a leading axis."""
    raise NotImplementedError(
        "jacobian: vectorised Jacobians are not available for this graph; give the "
        "expression a static shape so the element loop can be used"
    )

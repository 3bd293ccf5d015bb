"""``opgraph.tensor.linalg.summary``."""

from __future__ import annotations

from typing import Literal

from opgraph_linalg.summary import (
    Det,
    SLogDet,
    det,
    norm,
    slogdet,
    trace,
)

__all__ = ["VALID_ORD", "Det", "SLogDet", "det", "norm", "slogdet", "trace"]

VALID_ORD = Literal["fro", "f", "nuc", "inf", "-inf", 0, 1, -1, 2, -2]
"""The ``ord`` values ``norm`` takes (an annotation alias)."""

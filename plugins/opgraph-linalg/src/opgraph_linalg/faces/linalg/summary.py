"""``opgraph.tensor.linalg.summary``."""

from __future__ import annotations

from opgraph_linalg.summary import (
    Det,
    SLogDet,
    det,
    norm,
    slogdet,
    trace,
)

__all__ = ["Det", "SLogDet", "det", "norm", "slogdet", "trace"]

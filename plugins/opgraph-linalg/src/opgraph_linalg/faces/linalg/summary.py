"""``opgraph.tensor.linalg.summary``."""

from __future__ import annotations

from opgraph_linalg.constructors import (
    trace,
)
from opgraph_linalg.summary import (
    Det,
    SLogDet,
    det,
    norm,
    slogdet,
)

__all__ = ["Det", "SLogDet", "det", "norm", "slogdet", "trace"]

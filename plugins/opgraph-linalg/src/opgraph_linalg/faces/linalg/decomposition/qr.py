"""``opgraph.tensor.linalg.decomposition.qr``."""

from __future__ import annotations

from opgraph_linalg.factor import (
    QR,
    qr,
)

__all__ = ["QR", "qr"]

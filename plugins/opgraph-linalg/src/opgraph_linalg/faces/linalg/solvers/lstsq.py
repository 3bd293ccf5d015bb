"""``opgraph.tensor.linalg.solvers.lstsq``."""

from __future__ import annotations

from opgraph_linalg.leastsq import Lstsq, lstsq, tensorsolve

__all__ = ["Lstsq", "lstsq", "tensorsolve"]

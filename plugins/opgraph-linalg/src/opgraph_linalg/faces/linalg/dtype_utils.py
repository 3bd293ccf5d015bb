"""``opgraph.tensor.linalg.dtype_utils``."""

from __future__ import annotations

from opgraph_linalg.dtype_rules import linalg_output_dtype, linalg_real_output_dtype

__all__ = ["linalg_output_dtype", "linalg_real_output_dtype"]

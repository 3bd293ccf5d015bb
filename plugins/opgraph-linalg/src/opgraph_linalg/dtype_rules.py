"""The dtype LAPACK works in for given input dtypes (scipy's ``find_best_lapack_type``),
and its real counterpart for results that are real for complex inputs too."""

from __future__ import annotations

import numpy as np

__all__ = ["linalg_output_dtype", "linalg_real_output_dtype"]


def _lapack_dtype(dt: np.dtype) -> np.dtype:
    if dt.kind == "c":
        return np.dtype("complex64" if dt.itemsize <= 8 else "complex128")
    if (dt.kind == "f" and dt.itemsize > 4) or (dt.kind in "ibu" and dt.itemsize > 2):
        return np.dtype("float64")
    return np.dtype("float32")


def linalg_output_dtype(*input_dtypes: np.dtype | str) -> str:
    """Each input's nearest LAPACK type (s, d, c, z), combined: int8/float32 -> float32,
    int32/float64 -> float64, complex stays complex."""
    if not input_dtypes:
        raise TypeError("linalg_output_dtype needs at least one dtype")
    return np.result_type(*(_lapack_dtype(np.dtype(d)) for d in input_dtypes)).name


def linalg_real_output_dtype(*input_dtypes: np.dtype | str) -> str:
    """As :func:`linalg_output_dtype`, with complex mapped to the real dtype of its precision
    (singular values, norms, log-determinants)."""
    dt = np.dtype(linalg_output_dtype(*input_dtypes))
    return np.finfo(dt).dtype.name if dt.kind == "c" else dt.name

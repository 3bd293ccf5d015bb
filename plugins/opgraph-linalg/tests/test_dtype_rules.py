"""``tensor.linalg.dtype_utils``: LAPACK working dtypes (as scipy's find_best_lapack_type)."""

from __future__ import annotations

import numpy as np
import opgraph.tensor.linalg as linalg
import pytest
import scipy.linalg
from opgraph.tensor.linalg.dtype_utils import linalg_output_dtype, linalg_real_output_dtype


@pytest.mark.parametrize("dtypes", [("int8",), ("int32", "float32"), ("complex64", "float64"),
                                    ("float16",), ("uint16", "bool"), ("float32",),
                                    ("complex64",), ("int64",)])
def test_matches_scipy_lapack_choice(dtypes):
    arrays = [np.zeros((1, 1), dtype=d) for d in dtypes]
    prefix, want, _ = scipy.linalg.lapack.find_best_lapack_type(arrays)
    assert linalg_output_dtype(*dtypes) == np.dtype(want).name
    assert prefix in "sdcz"


def test_real_output_and_errors():
    assert linalg_real_output_dtype("complex64") == "float32"
    assert linalg_real_output_dtype("complex128", "float32") == "float64"
    assert linalg_real_output_dtype("int16") == "float32"
    with pytest.raises(TypeError, match="at least one"):
        linalg_output_dtype()
    assert callable(linalg.tridiagonal_lu_factor) and callable(linalg.tridiagonal_lu_solve)

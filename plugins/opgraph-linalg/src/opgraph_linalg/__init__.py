"""opgraph-linalg: linear algebra for opgraph graphs, LAPACK through NumPy and SciPy.

>>> import opgraph.tensor as pt
>>> import opgraph_linalg as la
>>> A = pt.dmatrix("A")
>>> L = la.cholesky(A)

Every matrix Op is a :class:`opgraph.tensor.blockwise.Blockwise`, so a stack of
matrices (any leading batch axes) works wherever one matrix does.  Names load
on first use, so the plugin entry point does not import SciPy.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: public name -> the module defining it (the one list of this package's names)
_WHERE = {
    **dict.fromkeys(
        ["Cholesky", "Eig", "Eigh", "Eigvalsh", "EigvalshGrad", "cholesky", "eig", "eigh",
         "eigvalsh"], "decomposition"),
    **dict.fromkeys(
        ["LU", "QR", "SVD", "LUFactor", "lu", "lu_factor", "pivot_to_permutation", "qr",
         "svd"], "factor"),
    **dict.fromkeys(
        ["CholeskySolve", "LUSolve", "PivotToPermutations", "Solve", "SolveBase",
         "SolveTriangular", "cho_solve",
         "lu_solve", "solve", "solve_triangular"], "solvers"),
    **dict.fromkeys(["MatrixInverse", "MatrixPinv", "TensorInv", "inv", "matrix_inverse", "pinv",
                     "tensorinv"],
                    "inverse"),
    **dict.fromkeys(["Lstsq", "lstsq", "tensorsolve"], "leastsq"),
    **dict.fromkeys(["QZ", "Schur", "qz", "schur"], "schur_decomp"),
    **dict.fromkeys(
        ["SolveDiscreteARE", "SolveSylvester", "solve_continuous_lyapunov",
         "solve_discrete_are", "solve_discrete_lyapunov", "solve_sylvester"], "control"),
    **dict.fromkeys(["Det", "SLogDet", "det", "norm", "slogdet", "trace"], "summary"),
    **dict.fromkeys(
        ["AllocDiag", "BlockDiagonal", "ExtractDiag", "block_diag", "diag", "diagonal",
         "tril", "triu"], "constructors"),
    **dict.fromkeys(
        ["Expm", "ExpmFrechet", "KroneckerProduct", "expm", "kron", "matrix_dot", "matrix_power"],
        "products"),
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'opgraph_linalg' has no attribute {name!r}")
    return getattr(importlib.import_module(f"opgraph_linalg.{module}"), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])

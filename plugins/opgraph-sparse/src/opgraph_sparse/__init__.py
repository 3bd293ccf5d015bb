"""opgraph-sparse: sparse matrices, served at PyTensor's path ``opgraph.sparse``.

Names load on first use (``lazy_exports``), so the plugin's entry point, which
Python imports through this package, does not import SciPy.
"""

from __future__ import annotations

from opgraph.graph.utils import lazy_exports

_BASIC = (
    "CSMFromDense",
    "DenseFromSparse",
    "as_sparse",
    "as_sparse_or_tensor_variable",
    "as_sparse_variable",
    "csc_from_dense",
    "csc_matrix",
    "csr_from_dense",
    "csr_matrix",
    "dense_from_sparse",
    "matrix",
)
_TYPE = ("SparseConstant", "SparseTensorType", "SparseVariable")

__all__ = sorted((*_BASIC, *_TYPE))

_WHERE = dict.fromkeys((*_BASIC, *_TYPE), "opgraph_sparse.basic")
__getattr__, __dir__ = lazy_exports(__name__, _WHERE)

"""Sparse shared variables: ``opgraph.shared(scipy_matrix)`` gives a
``SparseTensorSharedVariable`` (the plugin registers ``sparse_constructor``)."""

from __future__ import annotations

import copy
from typing import Any

from opgraph.compile.sharedvalue import SharedVariable
from opgraph.utils import lazy_scipy_module
from opgraph_sparse.type import SparseTensorType
from opgraph_sparse.variable import SparseVariable, _sparse_py_operators

sp = lazy_scipy_module("sparse")  # SciPy loads when a sparse value is first used

__all__ = ["SparseTensorSharedVariable", "SparseTensorType", "SparseVariable", "shared",
           "sparse_constructor"]


class SparseTensorSharedVariable(_sparse_py_operators, SharedVariable):
    """A shared scipy sparse matrix, usable in sparse expressions."""

    __slots__ = ()

    def __str__(self) -> str:
        return self.name or f"{type(self).__name__}({self.type})"

    __repr__ = __str__


def sparse_constructor(
    value: Any, name: str | None = None, strict: bool = False,
    allow_downcast: bool | None = None, borrow: bool = False, format: str | None = None,
    **kwargs: Any,
) -> SparseTensorSharedVariable:
    """A SparseTensorSharedVariable of a scipy sparse matrix (TypeError for anything else)."""
    if not isinstance(value, sp.spmatrix | sp.sparray):
        raise TypeError(f"sparse_constructor expects a scipy.sparse matrix, got "
                        f"{type(value).__name__}")
    if kwargs:
        raise TypeError(f"sparse_constructor: unexpected keywords {sorted(kwargs)}")
    fmt = value.format if format is None else format
    stype = SparseTensorType(fmt, value.dtype)
    data = value if borrow else copy.deepcopy(value)
    data = stype.filter(data)
    return SparseTensorSharedVariable(stype, data, strict, allow_downcast, name=name)


shared = sparse_constructor
"""``pytensor.sparse.shared``: a shared variable holding a scipy sparse matrix."""

"""``SparseTensorType``: a 2-d sparse matrix of one format (CSR or CSC) and dtype.

Values are ``scipy.sparse`` matrices (or arrays) of that format.  ``filter``
converts another sparse format or a dense array unless ``strict`` is set,
and refuses a lossy dtype change unless ``allow_downcast`` is.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from opgraph.graph.basic import Constant, Variable
from opgraph.graph.type import Type
from opgraph.tensor.type import TensorType

__all__ = ["SparseConstant", "SparseTensorType", "SparseVariable"]

FORMATS = ("csr", "csc")


class SparseVariable(Variable):
    """A symbolic sparse matrix."""

    __slots__ = ()

    @property
    def format(self) -> str:
        return self.type.format

    @property
    def dtype(self) -> str:
        return self.type.dtype

    @property
    def ndim(self) -> int:
        return 2


class SparseConstant(Constant):
    """A constant sparse matrix."""

    __slots__ = ()

    format = SparseVariable.format
    dtype = SparseVariable.dtype
    ndim = SparseVariable.ndim

    def signature(self) -> Any:
        data = self.data
        return (self.type, data.format, data.shape, data.indices.tobytes(),
                data.indptr.tobytes(), data.data.tobytes())


class SparseTensorType(Type):
    """Sparse matrices of ``format`` ("csr" or "csc") and ``dtype``."""

    __props__ = ("format", "dtype", "shape")
    variable_type = SparseVariable
    constant_type = SparseConstant

    def __init__(self, format: str, dtype: Any, shape: Any = None) -> None:
        if format not in FORMATS:
            raise ValueError(f"SparseTensorType: format must be one of {FORMATS}, got {format!r}")
        self.format = format
        self.dtype = np.dtype(dtype).name
        if shape is None:
            shape = (None, None)
        shape = tuple(None if s is None else int(s) for s in shape)
        if len(shape) != 2:
            raise ValueError(f"SparseTensorType: sparse matrices are 2-d, got shape {shape}")
        self.shape = shape

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and (self.format, self.dtype, self.shape) == (
            other.format, other.dtype, other.shape)  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), self.format, self.dtype, self.shape))

    @property
    def ndim(self) -> int:
        return 2

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        if sp.issparse(data) and data.format == self.format and data.dtype == self.dtype:
            value = data
        elif strict:
            raise TypeError(
                f"{self}: expected a scipy.sparse {self.format} matrix of dtype {self.dtype}, "
                f"got {type(data).__name__}"
                + (f" ({data.format}, {data.dtype})" if sp.issparse(data) else "")
            )
        else:
            value = data if sp.issparse(data) else sp.csr_matrix(np.asarray(data))
            value = value.asformat(self.format)
            if value.dtype != self.dtype:
                if not allow_downcast and not np.can_cast(value.dtype, self.dtype, "same_kind"):
                    raise TypeError(
                        f"{self}: cannot convert a sparse matrix of dtype {value.dtype} to "
                        f"{self.dtype} without allow_downcast=True"
                    )
                value = value.astype(self.dtype)
        if value.ndim != 2:
            raise TypeError(f"{self}: expected a 2-d sparse matrix, got {value.ndim}-d")
        for want, got in zip(self.shape, value.shape):
            if want is not None and want != got:
                raise TypeError(f"{self}: expected shape {self.shape}, got {value.shape}")
        return value

    def values_eq(self, a: Any, b: Any) -> bool:
        return a.shape == b.shape and (a != b).nnz == 0

    def values_eq_approx(self, a: Any, b: Any) -> bool:
        return a.shape == b.shape and bool(np.allclose(a.toarray(), b.toarray()))

    @staticmethod
    def may_share_memory(a: Any, b: Any) -> bool:
        def buffers(x: Any) -> list:
            if sp.issparse(x):
                return [x.data, x.indices, x.indptr]
            return [x] if isinstance(x, np.ndarray) else []

        return any(np.may_share_memory(p, q) for p in buffers(a) for q in buffers(b))

    def dense_type(self) -> TensorType:
        """The TensorType of the same matrices stored densely."""
        return TensorType(self.dtype, self.shape)

    def __str__(self) -> str:
        return f"Sparse({self.format}, {self.dtype}, shape={self.shape})"

    __repr__ = __str__

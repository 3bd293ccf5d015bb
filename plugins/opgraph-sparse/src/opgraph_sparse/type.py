"""``SparseTensorType``: a 2-d sparse matrix of one format (CSR, CSC or BSR) and dtype.

Values are ``scipy.sparse`` matrices of that format.  ``filter`` converts
another sparse format or a dense array unless ``strict`` is set, and refuses
a lossy dtype change unless ``allow_downcast`` is.  It is a plain ``Type``,
not a ``TensorType``: dense tensor code never mistakes a sparse variable for
an ndarray (PyTensor subclasses TensorType; see docs/migrating.md).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from opgraph.graph.basic import Variable
from opgraph.graph.type import Type
from opgraph.scalar import upcast
from opgraph.tensor.type import TensorType
from opgraph.utils import lazy_scipy_module

sp = lazy_scipy_module("sparse")  # SciPy loads when a sparse value is first used

__all__ = ["SparseTensorType", "SparsityTypes", "_is_sparse"]

#: the formats a SparseTensorType may name (annotation only)
SparsityTypes = Literal["csr", "csc", "bsr"]

FORMATS = ("csr", "csc", "bsr")


def _is_sparse(x: Any) -> bool:
    """True for a scipy sparse matrix, False for an ndarray; TypeError otherwise."""
    if not isinstance(x, sp.spmatrix | sp.sparray | np.ndarray | tuple | list):
        raise TypeError(
            f"_is_sparse: expected a scipy.sparse matrix or an ndarray, got {type(x).__name__}"
        )
    return sp.issparse(x)


class _FormatClasses:
    """``format -> scipy class``, looked up when read (class or instance): the type is
    defined when the rewrite database is built, SciPy loads at the first sparse use."""

    def __get__(self, obj: Any, owner: Any = None) -> dict[str, Any]:
        return {"csr": sp.csr_matrix, "csc": sp.csc_matrix, "bsr": sp.bsr_matrix}


class SparseTensorType(Type):
    """Sparse matrices of ``format`` ("csr", "csc" or "bsr") and ``dtype``."""

    __props__ = ("dtype", "format", "shape")
    format_cls = _FormatClasses()
    dtype_specs_map = dict.fromkeys(
        ("float32", "float64", "uint8", "int8", "uint16", "int16", "uint32", "int32",
         "uint64", "int64", "complex128", "complex64"))
    ndim = 2
    #: values are scipy matrices: a function input given an ndarray must be filtered
    ndarray_values = False

    def __init__(
        self, format: str, dtype: Any, shape: Any = None, name: str | None = None,
        broadcastable: Any = None,
    ) -> None:
        if format not in FORMATS:
            raise ValueError(
                f"SparseTensorType: unsupported format {format!r}; expected one of {FORMATS}"
            )
        self.format = format
        self.dtype = np.dtype(dtype).name
        if shape is None and broadcastable is not None:
            shape = tuple(1 if b else None for b in broadcastable)
        if shape is None:
            shape = (None, None)
        shape = tuple(None if s is None else int(s) for s in shape)
        if len(shape) != 2:
            raise ValueError(f"SparseTensorType: sparse matrices are 2-d, got shape {shape}")
        self.shape = shape
        self.name = name

    @property
    def numpy_dtype(self) -> np.dtype:
        return np.dtype(self.dtype)

    @property
    def broadcastable(self) -> tuple[bool, ...]:
        return tuple(s == 1 for s in self.shape)

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and (self.format, self.dtype, self.shape) == (
            other.format, other.dtype, other.shape)  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), self.format, self.dtype, self.shape))

    def clone(self, dtype: Any = None, shape: Any = None, **kwargs: Any) -> SparseTensorType:
        """A copy with another dtype, shape or (``format=``) format."""
        fmt = kwargs.pop("format", self.format)
        kwargs.pop("broadcastable", None)
        return type(self)(fmt, self.dtype if dtype is None else dtype,
                          shape=self.shape if shape is None else shape, **kwargs)

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        if isinstance(data, Variable):
            raise TypeError(
                f"{self}: Expected an array-like object, but found the Variable {data}: maybe "
                "you are calling a function on a (shared) variable instead of a value?"
            )
        cls = self.format_cls[self.format]
        if isinstance(data, cls) and data.dtype == self.dtype:
            value = data
        elif strict:
            got = f"{data.format}, {data.dtype}" if sp.issparse(data) else type(data).__name__
            raise TypeError(
                f"{self}: expected a scipy.sparse {self.format} matrix of dtype {self.dtype}, "
                f"got {got}"
            )
        elif allow_downcast:
            value = cls(data, dtype=self.dtype)
        else:
            value = cls(data if sp.issparse(data) else np.asarray(data))
            if upcast(self.dtype, value.dtype) != self.dtype:
                raise TypeError(
                    f"{self}: Expected {self.dtype} dtype but got {value.dtype} "
                    "(pass allow_downcast=True to cast)"
                )
            value = value.astype(self.dtype)
        for want, got in zip(self.shape, value.shape):
            if want is not None and want != got:
                raise TypeError(f"{self}: expected shape {self.shape}, got {value.shape}")
        return value

    def convert_variable(self, var: Variable) -> Variable | None:
        """``var`` when it fits; a dense matrix of this dtype becomes one of this format."""
        vtype = var.type
        if isinstance(vtype, SparseTensorType):
            return var if self.is_super(vtype) else None
        if isinstance(vtype, TensorType) and vtype.ndim == 2 and vtype.dtype == self.dtype:
            return self.format_from_dense(var)
        return None

    def format_from_dense(self, var: Variable) -> Variable:
        """Filled in by ``opgraph_sparse.basic`` (which builds on this module)."""
        raise NotImplementedError

    def is_super(self, otype: Type) -> bool:
        return (isinstance(otype, SparseTensorType) and otype.format == self.format
                and otype.dtype == self.dtype
                and all(s is None or s == o for s, o in zip(self.shape, otype.shape)))

    def in_same_class(self, otype: Type) -> bool:
        return isinstance(otype, SparseTensorType) and otype.format == self.format

    def is_valid_value(self, a: Any, strict: bool = True) -> bool:
        return sp.issparse(a) and a.format == self.format

    def values_eq(self, a: Any, b: Any) -> bool:
        return (sp.issparse(a) and sp.issparse(b) and a.shape == b.shape
                and abs(a - b).sum() == 0)

    def values_eq_approx(self, a: Any, b: Any, eps: float = 1e-6) -> bool:
        if not (sp.issparse(a) and sp.issparse(b)) or a.shape != b.shape:
            return False
        diff = abs(a - b)
        return diff.nnz == 0 or bool(diff.data.max() < eps)

    @staticmethod
    def may_share_memory(a: Any, b: Any) -> bool:
        def buffers(x: Any) -> list:
            if sp.issparse(x):
                return [x.data, x.indices, x.indptr]
            return [x] if isinstance(x, np.ndarray) else []

        return any(np.may_share_memory(p, q) for p in buffers(a) for q in buffers(b))

    def get_shape_info(self, obj: Any) -> Any:
        obj = self.filter(obj)
        return (obj.shape, obj.data.size, obj.indices.size, obj.indptr.size, obj.nnz)

    def get_size(self, shape_info: Any) -> int:
        return (shape_info[1] * np.dtype(self.dtype).itemsize
                + (shape_info[2] + shape_info[3]) * np.dtype("int32").itemsize)

    def dense_type(self) -> TensorType:
        """The TensorType of the same matrices stored densely."""
        return TensorType(self.dtype, self.shape)

    def __str__(self) -> str:
        return f"Sparse({self.dtype}, {self.shape}, {self.format})"

    __repr__ = __str__

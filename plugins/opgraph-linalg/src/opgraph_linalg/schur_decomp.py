"""Schur and generalized Schur (QZ) decompositions (``scipy_linalg.schur`` / ``qz`` /
``ordqz``), batched through Blockwise.  No gradients (the factors are not unique)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.gradient import grad_not_implemented
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.type import TensorType
from opgraph.utils import lazy_scipy_module
from opgraph_linalg._util import as_matrix, check_square_static, check_square_value, float_dtype

scipy_linalg = lazy_scipy_module("linalg")  # imported on first use, not at plugin load

__all__ = ["QZ", "Schur", "qz", "schur"]

_SORTS = (None, "lhp", "rhp", "iuc", "ouc")


def _complex_of(dtype: str) -> str:
    return "complex64" if dtype in ("float32", "complex64") else "complex128"


def _check_output(output: str, who: str) -> None:
    if output not in ("real", "complex"):
        raise ValueError(f"{who}: output must be 'real' or 'complex', got {output!r}")


def _check_sort(sort: Any, who: str) -> None:
    if sort not in _SORTS:
        raise ValueError(f"{who}: sort must be one of {list(_SORTS)}, got {sort!r}")


def _into(buffer: np.ndarray, value: np.ndarray, overwrite: bool) -> np.ndarray:
    """``value`` written into ``buffer`` (and returned as it) when ``buffer`` may be destroyed."""
    if not overwrite or buffer is value or buffer.dtype != value.dtype \
            or not buffer.flags.writeable:
        return value
    buffer[...] = value
    return buffer


def _all_selected(alpha: np.ndarray, beta: np.ndarray | None = None) -> np.ndarray:
    return np.ones(np.shape(alpha), dtype=bool)


class Schur(Op):
    """``A = Z T Z^H`` with ``T`` (quasi-)upper triangular (``scipy_linalg.schur``)."""

    __props__ = ("output", "sort", "overwrite_a")
    gufunc_signature = "(m,m)->(m,m),(m,m)"

    def __init__(self, output: str = "real", sort: str | None = None,
                 overwrite_a: bool = False) -> None:
        _check_output(output, "schur")
        _check_sort(sort, "schur")
        self.output, self.sort = output, sort
        self.overwrite_a = bool(overwrite_a)
        # LAPACK writes T over A (when A is Fortran-ordered and of T's dtype)
        self.destroy_map = {0: [0]} if self.overwrite_a else {}

    def inplace_on_inputs(self, allowed_inplace_inputs: list[int]) -> Schur:
        """The same decomposition computed in A's buffer, when A may be destroyed."""
        if 0 not in allowed_inplace_inputs or self.overwrite_a:
            return self
        return Schur(self.output, self.sort, overwrite_a=True)

    def make_node(self, a: Any) -> Apply:
        a = as_matrix(a, "schur", "A")
        check_square_static(a, "schur", "A")
        dtype = float_dtype(a.type.dtype)
        if self.output == "complex":
            dtype = _complex_of(dtype)
        return Apply(self, [a], [TensorType(dtype, a.type.shape)() for _ in range(2)])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (a,) = inputs
        check_square_value(a, "schur", "A")
        res = scipy_linalg.schur(a, output=self.output, sort=self.sort,
                                 overwrite_a=self.overwrite_a)
        for cell, value, out in zip(output_storage, res[:2], node.outputs):
            cell[0] = np.asarray(value, dtype=out.type.numpy_dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [tuple(input_shapes[0])] * 2

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        return [grad_not_implemented(self, 0, inputs[0])]


def schur(a: Any, output: str = "real", sort: str | None = None) -> list[Variable]:
    """``(T, Z)`` with ``a = Z @ T @ Z^H``; ``sort`` orders the eigenvalues as SciPy."""
    a = as_matrix(a, "schur", "A")
    return Blockwise(Schur(output, sort))(a)


class QZ(Op):
    """``A = Q AA Z^H``, ``B = Q BB Z^H`` (``scipy_linalg.qz``; ``ordqz`` when sorted)."""

    __props__ = ("output", "sort", "return_eigenvalues", "overwrite_a", "overwrite_b")

    def __init__(self, output: str = "real", sort: str | None = None,
                 return_eigenvalues: bool = False, overwrite_a: bool = False,
                 overwrite_b: bool = False) -> None:
        _check_output(output, "qz")
        _check_sort(sort, "qz")
        self.output, self.sort = output, sort
        self.return_eigenvalues = bool(return_eigenvalues)
        self.overwrite_a, self.overwrite_b = bool(overwrite_a), bool(overwrite_b)
        # LAPACK writes AA over A and BB over B
        self.destroy_map = {k: [k] for k, on in enumerate((self.overwrite_a, self.overwrite_b))
                            if on}

    def inplace_on_inputs(self, allowed_inplace_inputs: list[int]) -> QZ:
        """The same decomposition computed in the buffers of the inputs that may be destroyed."""
        a = self.overwrite_a or 0 in allowed_inplace_inputs
        b = self.overwrite_b or 1 in allowed_inplace_inputs
        if (a, b) == (self.overwrite_a, self.overwrite_b):
            return self
        return QZ(self.output, self.sort, self.return_eigenvalues, overwrite_a=a, overwrite_b=b)

    @property
    def gufunc_signature(self) -> str:
        if self.return_eigenvalues:
            return "(m,m),(m,m)->(m,m),(m,m),(m),(m),(m,m),(m,m)"
        return "(m,m),(m,m)->(m,m),(m,m),(m,m),(m,m)"

    def make_node(self, a: Any, b: Any) -> Apply:
        a, b = as_matrix(a, "qz", "A"), as_matrix(b, "qz", "B")
        check_square_static(a, "qz", "A")
        check_square_static(b, "qz", "B")
        dtype = float_dtype(a.type.dtype, b.type.dtype)
        if self.output == "complex":
            dtype = _complex_of(dtype)
        mat = TensorType(dtype, a.type.shape)
        outs = [mat(), mat()]
        if self.return_eigenvalues:
            vec = (a.type.shape[-1],)
            outs += [TensorType(_complex_of(dtype), vec)(), TensorType(dtype, vec)()]
        outs += [mat(), mat()]
        return Apply(self, [a, b], outs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        a, b = inputs
        check_square_value(a, "qz", "A")
        check_square_value(b, "qz", "B")
        if self.sort is None and not self.return_eigenvalues:
            res = scipy_linalg.qz(a, b, output=self.output, overwrite_a=self.overwrite_a,
                                  overwrite_b=self.overwrite_b)
        else:
            res = scipy_linalg.ordqz(a, b, sort=self.sort or _all_selected, output=self.output,
                                     overwrite_a=self.overwrite_a, overwrite_b=self.overwrite_b)
            # the reordering works on copies: put the ordered factors in the destroyed buffers
            res = (_into(a, res[0], self.overwrite_a), _into(b, res[1], self.overwrite_b),
                   *res[2:])
            if not self.return_eigenvalues:
                res = (res[0], res[1], res[4], res[5])
        for cell, value, out in zip(output_storage, res, node.outputs):
            cell[0] = np.asarray(value, dtype=out.type.numpy_dtype)

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> list:
        return [grad_not_implemented(self, i, x) for i, x in enumerate(inputs)]


def qz(A: Any, B: Any, output: str = "real", sort: str | None = None,
       return_eigenvalues: bool = False) -> list[Variable]:
    """``(AA, BB, Q, Z)`` (with ``alpha, beta`` after ``BB`` when ``return_eigenvalues``)."""
    return Blockwise(QZ(output, sort, return_eigenvalues))(A, B)

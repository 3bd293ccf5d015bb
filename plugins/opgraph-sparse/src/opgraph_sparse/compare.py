"""Comparisons with at least one sparse operand: sparse-sparse gives a sparse uint8
matrix, sparse-dense a dense uint8 matrix."""

from __future__ import annotations

import operator
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.tensor.basic import as_tensor_variable
from opgraph.tensor.type import TensorType
from opgraph.utils import lazy_scipy_module
from opgraph_sparse.convert import (
    _is_sparse_variable,
    as_sparse_or_tensor_variable,
    as_sparse_variable,
)
from opgraph_sparse.type import SparseTensorType

sp = lazy_scipy_module("sparse")  # SciPy loads when a sparse value is first used


class ComparisonSS(Op):
    """Base of the sparse-sparse comparisons (``comparison`` names the operator)."""

    __props__ = ()
    comparison: Callable = staticmethod(operator.eq)

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_sparse_variable(x), as_sparse_variable(y)
        if x.type.format != y.type.format:
            raise NotImplementedError(
                f"{type(self).__name__}: the formats differ ({x.type.format}, {y.type.format})")
        return Apply(self, [x, y], [SparseTensorType(x.type.format, "uint8")()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y = inputs
        if x.shape != y.shape:
            raise ValueError(f"{type(self).__name__}: shapes {x.shape} and {y.shape} differ")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sp.SparseEfficiencyWarning)
            res = type(self).comparison(x, y)
        out[0][0] = sp.csr_matrix(res).astype("uint8").asformat(node.outputs[0].type.format)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [shapes[0]]


class ComparisonSD(Op):
    """Base of the sparse-dense comparisons."""

    __props__ = ()
    comparison: Callable = staticmethod(operator.eq)

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_sparse_variable(x), as_tensor_variable(y)
        if y.type.ndim != 2:
            raise TypeError(f"{type(self).__name__}: {y} must be a matrix, got {y.type}")
        return Apply(self, [x, y], [TensorType("uint8", (None, None))()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y = inputs
        if x.shape != y.shape:
            raise ValueError(f"{type(self).__name__}: shapes {x.shape} and {y.shape} differ")
        out[0][0] = np.asarray(type(self).comparison(x.toarray(), y)).astype("uint8")

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list) -> list:
        return [shapes[0]]


def _pair(name: str, op: Callable, doc: str) -> tuple[type, type]:
    ss = type(f"{name}SS", (ComparisonSS,),
              {"comparison": staticmethod(op), "__doc__": f"Sparse {doc} sparse.",
               "__module__": __name__})
    sd = type(f"{name}SD", (ComparisonSD,),
              {"comparison": staticmethod(op), "__doc__": f"Sparse {doc} dense.",
               "__module__": __name__})
    return ss, sd


EqualSS, EqualSD = _pair("Equal", operator.eq, "==")
NotEqualSS, NotEqualSD = _pair("NotEqual", operator.ne, "!=")
LessThanSS, LessThanSD = _pair("LessThan", operator.lt, "<")
GreaterThanSS, GreaterThanSD = _pair("GreaterThan", operator.gt, ">")
LessEqualSS, LessEqualSD = _pair("LessEqual", operator.le, "<=")
GreaterEqualSS, GreaterEqualSD = _pair("GreaterEqual", operator.ge, ">=")
equal_s_s = EqualSS()
"""``equal_s_s(x, y)``: sparse ``x`` == sparse ``y`` (uint8)."""
equal_s_d = EqualSD()
"""``equal_s_d(x, y)``: sparse ``x`` == dense ``y`` (uint8)."""
not_equal_s_s = NotEqualSS()
"""``not_equal_s_s(x, y)``: sparse ``x`` != sparse ``y`` (uint8)."""
not_equal_s_d = NotEqualSD()
"""``not_equal_s_d(x, y)``: sparse ``x`` != dense ``y`` (uint8)."""
less_than_s_s = LessThanSS()
"""``less_than_s_s(x, y)``: sparse ``x`` < sparse ``y`` (uint8)."""
less_than_s_d = LessThanSD()
"""``less_than_s_d(x, y)``: sparse ``x`` < dense ``y`` (uint8)."""
greater_than_s_s = GreaterThanSS()
"""``greater_than_s_s(x, y)``: sparse ``x`` > sparse ``y`` (uint8)."""
greater_than_s_d = GreaterThanSD()
"""``greater_than_s_d(x, y)``: sparse ``x`` > dense ``y`` (uint8)."""
less_equal_s_s = LessEqualSS()
"""``less_equal_s_s(x, y)``: sparse ``x`` <= sparse ``y`` (uint8)."""
less_equal_s_d = LessEqualSD()
"""``less_equal_s_d(x, y)``: sparse ``x`` <= dense ``y`` (uint8)."""
greater_equal_s_s = GreaterEqualSS()
"""``greater_equal_s_s(x, y)``: sparse ``x`` >= sparse ``y`` (uint8)."""
greater_equal_s_d = GreaterEqualSD()
"""``greater_equal_s_d(x, y)``: sparse ``x`` >= dense ``y`` (uint8)."""


def _switch(ss: Op, sd: Op, ds: Op, name: str) -> Callable:
    def compare(x: Any, y: Any) -> Variable:
        x, y = as_sparse_or_tensor_variable(x), as_sparse_or_tensor_variable(y)
        xs, ys = _is_sparse_variable(x), _is_sparse_variable(y)
        if xs and ys:
            return ss(x, y)
        if xs:
            return sd(x, y)
        if ys:
            return ds(y, x)
        raise TypeError(f"{name}: expected at least one sparse operand, got {x.type}, {y.type}")

    compare.__name__ = compare.__qualname__ = name
    compare.__doc__ = f"``{name}(x, y)`` with at least one sparse operand."
    return compare


eq = _switch(equal_s_s, equal_s_d, equal_s_d, "eq")
neq = _switch(not_equal_s_s, not_equal_s_d, not_equal_s_d, "neq")
lt = _switch(less_than_s_s, less_than_s_d, greater_than_s_d, "lt")
gt = _switch(greater_than_s_s, greater_than_s_d, less_than_s_d, "gt")
le = _switch(less_equal_s_s, less_equal_s_d, greater_equal_s_d, "le")
ge = _switch(greater_equal_s_s, greater_equal_s_d, less_equal_s_d, "ge")

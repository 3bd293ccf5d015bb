"""Gemm formation: ``b * Z + a * dot(X, Y)`` written as one ``Gemm`` (or ``Gemv``) call.

An elementwise sum is first read as a list of scaled terms (``(scale,
term)`` pairs, the scale a Python number or a scalar variable) by
:func:`_gemm_canonicalize`, walking through ``add``, ``sub``, ``neg`` and
``mul`` by scalars.  Equal terms are merged (:func:`_factor_canonicalized`).
Then any pair ``(beta, L), (alpha, M)`` where ``M`` is a ``Dot22`` (or a
matrix-vector ``Dot``) whose only use is this sum becomes
``Gemm(L, alpha, x, y, beta)`` (``Gemv`` for vectors), added to the rest.

:class:`GemmOptimizer` applies this to every sum of the graph until nothing
changes, and only keeps a rewrite that removes the product (a product used
elsewhere as well would otherwise be computed twice).
"""

from __future__ import annotations

import numbers
import time
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Constant, Variable, io_toposort
from opgraph.graph.features import ReplacementDidNotRemoveError, ReplaceValidate
from opgraph.graph.rewriting.basic import GraphRewriter, RewriterStats
from opgraph.graph.utils import InconsistencyError
from opgraph.scalar import arith
from opgraph.scalar.type import upcast
from opgraph.tensor.blas import Dot22, gemm_no_inplace, gemv_no_inplace
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.math import add, mul, neg
from opgraph.tensor.products import Dot, MatMul
from opgraph.tensor.type import TensorType
from opgraph.tensor.ufuncs import cast
from opgraph_rewrites.utils import keep_type, tensor_constant

__all__ = ["GemmOptimizer", "_as_scalar", "_factor_canonicalized", "_gemm_canonicalize",
           "_gemm_from_node", "_is_real_matrix", "_is_real_vector", "res_is_a"]

_REAL = ("float16", "float32", "float64")
_INEXACT = (*_REAL, "complex64", "complex128")


def res_is_a(fgraph: Any, var: Variable, op: Any, maxclients: int | None = None) -> bool:
    """``var`` is computed by ``op`` (and, given ``maxclients``, used at most that often)."""
    if var.owner is None or var.owner.op != op:
        return False
    if maxclients is not None and fgraph is not None and var in fgraph.clients:
        return len(fgraph.clients[var]) <= maxclients
    return True


def _strip_dimshuffles(var: Variable) -> Variable:
    while var.owner is not None and isinstance(var.owner.op, DimShuffle):
        var = var.owner.inputs[0]
    return var


def _zero_d(var: Variable) -> Variable:
    """The 0-d value behind a variable whose dimensions all have length 1.

    A constant stays a constant (specialize turns broadcast scalars into
    ``[[c]]`` constants; Gemm should get ``c``, not a DimShuffle of it).
    """
    inner = _strip_dimshuffles(var)
    if inner.type.ndim == 0:
        return inner
    if isinstance(inner, Constant):
        return tensor_constant(np.asarray(inner.data).reshape(()), inner.type.dtype)
    return inner.dimshuffle()


def _as_scalar(res: Variable, dtype: str | None = None) -> Variable | None:
    """The 0-d variable behind ``res`` if every dimension of ``res`` has length 1, else None.

    DimShuffles are looked through; an integer scalar is cast to ``dtype``
    (default float64) when that cast loses nothing, else None.
    """
    if not all(s == 1 for s in res.type.shape):
        return None
    out = _zero_d(res)
    if out.type.dtype.startswith(("int", "uint")) or out.type.dtype == "bool":
        target = dtype or "float64"
        if upcast(out.type.dtype, target) != target:
            return None
        return cast(out, target)
    return out


def _is_real_matrix(res: Variable) -> bool:
    """A float matrix with no dimension of static length 1."""
    t = res.type
    return t.dtype in _REAL and t.ndim == 2 and t.shape[0] != 1 and t.shape[1] != 1


def _is_real_vector(res: Variable) -> bool:
    """A float vector whose length is not statically 1."""
    t = res.type
    return t.dtype in _REAL and t.ndim == 1 and t.shape[0] != 1


def _is_inexact_array(res: Variable) -> bool:
    """A float or complex vector or matrix with no dimension of static length 1."""
    t = res.type
    return t.dtype in _INEXACT and t.ndim in (1, 2) and all(s != 1 for s in t.shape)


def _is_number(s: Any) -> bool:
    return isinstance(s, numbers.Number)


def _negate(scale: Any) -> Any:
    return -scale if _is_number(scale) else neg(scale)


def _scale_by(scale: Any, var: Variable) -> Variable:
    """``scale * var`` without a multiplication by 1 or -1."""
    if _is_number(scale):
        if scale == 1:
            return var
        if scale == -1 and var.type.dtype != "bool":
            return neg(var)
    return mul(scale, var)


def _elemwise_kind(var: Variable) -> type | None:
    owner = var.owner
    if owner is None or not isinstance(owner.op, Elemwise):
        return None
    kind = type(owner.op.scalar_op)
    return kind if kind in (arith.Add, arith.Sub, arith.Neg, arith.Mul) else None


def _gemm_canonicalize(fgraph: Any, r: Variable, scale: Any, rval: list,
                       maxclients: int) -> list | None:
    """Append to ``rval`` the ``(scale, term)`` pairs whose sum is ``scale * r``.

    A term that is not a float/complex vector or matrix is appended as a bare
    (already scaled) variable.  Below the top, only variables used once
    (``maxclients``) are opened up, so shared subexpressions stay whole.
    """
    if not isinstance(r.type, TensorType):
        return None
    if r.type.ndim not in (1, 2) or r.type.dtype not in _INEXACT:
        rval.append(_scale_by(scale, r))
        return rval
    if maxclients and len(fgraph.clients.get(r, ())) > maxclients:
        rval.append((scale, r))
        return rval
    kind = _elemwise_kind(r)
    if kind is arith.Add:
        for i in r.owner.inputs:
            _gemm_canonicalize(fgraph, i, scale, rval, 1)
    elif kind is arith.Sub:
        _gemm_canonicalize(fgraph, r.owner.inputs[0], scale, rval, 1)
        _gemm_canonicalize(fgraph, r.owner.inputs[1], _negate(scale), rval, 1)
    elif kind is arith.Neg:
        _gemm_canonicalize(fgraph, r.owner.inputs[0], _negate(scale), rval, 1)
    elif kind is arith.Mul:
        _canonicalize_product(fgraph, r, scale, rval)
    else:
        rval.append((scale, r))
    return rval


def _canonicalize_product(fgraph: Any, r: Variable, scale: Any, rval: list) -> None:
    """``scale * mul(scalars..., one vector or matrix)``: fold the scalars into the scale."""
    scalars, arrays = [], []
    for i in r.owner.inputs:
        if all(s == 1 for s in i.type.shape):
            scalars.append(_zero_d(i))
        elif _is_inexact_array(i):
            arrays.append(i)
        else:
            rval.append((scale, r))
            return
    if len(arrays) != 1:
        rval.append((scale, r))
        return
    # Constant factors are multiplied here (constant folding has already run).
    number, symbols = 1, []
    for f in (scale, *scalars):
        value = _number(f)
        if value is None:
            symbols.append(f)
        else:
            number = number * value
    if symbols:
        first = _scale_by(number, symbols[0])
        scale = first if len(symbols) == 1 else mul(first, *symbols[1:])
    else:
        scale = number
    _gemm_canonicalize(fgraph, arrays[0], scale, rval, 1)


def _number(factor: Any) -> Any:
    """A Python number for a number or a 0-d constant, else None."""
    if _is_number(factor):
        return factor
    if isinstance(factor, Constant) and factor.type.ndim == 0:
        return np.asarray(factor.data).item()
    return None


def _factor_canonicalized(lst: list) -> list:
    """Merge pairs with the same term (``(s1, M), (s2, M)`` -> ``(s1 + s2, M)``), in order."""
    out: list = []
    where: dict[int, int] = {}
    for item in lst:
        if not isinstance(item, tuple):
            out.append(item)
            continue
        s, m = item
        k = where.get(id(m))
        if k is None:
            where[id(m)] = len(out)
            out.append((s, m))
        else:
            s0 = out[k][0]
            out[k] = (s0 + s if _is_number(s0) and _is_number(s) else add(s0, s), m)
    return out


def _scale_as(scale: Any, dtype: str) -> Variable | None:
    """``scale`` as a 0-d variable of ``dtype``, or None when the cast would lose precision."""
    if _is_number(scale):
        value = np.asarray(scale)
        if np.iscomplexobj(value) and not dtype.startswith("complex"):
            return None
        return tensor_constant(scale, dtype)
    if scale.type.ndim != 0:
        return None
    if upcast(scale.type.dtype, dtype) != dtype:
        return None
    return scale if scale.type.dtype == dtype else cast(scale, dtype)


def _product_of(m: Variable) -> tuple[Variable, Any] | None:
    """``(dot variable, builder)`` when ``m`` is a product BLAS can accumulate into.

    ``builder(L, alpha, beta)`` returns ``beta * L + alpha * m`` as one call.
    """
    owner = m.owner
    if owner is None:
        return None
    if isinstance(owner.op, Dot22):
        x, y = owner.inputs
        return m, lambda L, a, b: gemm_no_inplace(L, a, x, y, b)
    if isinstance(owner.op, Dot | MatMul) and m.type.ndim == 1:
        x, y = owner.inputs
        if x.type.ndim == 2 and y.type.ndim == 1:
            return m, lambda L, a, b: gemv_no_inplace(L, a, x, y, b)
        if x.type.ndim == 1 and y.type.ndim == 2:
            return m, lambda L, a, b: gemv_no_inplace(L, a, y.T, x, b)
        return None
    if isinstance(owner.op, DimShuffle):
        inner = owner.inputs[0]
        if inner.owner is None or not isinstance(inner.owner.op, Dot22):
            return None
        x, y = inner.owner.inputs
        order = tuple(owner.op.new_order)
        if order == (1, 0):
            # beta*L + alpha*(x y)^T == (beta*L^T + alpha*x y)^T
            return inner, lambda L, a, b: gemm_no_inplace(L.T, a, x, y, b).T
        if order == (0,):
            return inner, lambda L, a, b: gemm_no_inplace(
                L.dimshuffle(0, "x"), a, x, y, b).dimshuffle(0)
        if order == (1,):
            return inner, lambda L, a, b: gemm_no_inplace(
                L.dimshuffle("x", 0), a, x, y, b).dimshuffle(1)
    return None


def _pair_to_blas(beta: Any, L: Variable, alpha: Any, M: Variable) -> tuple | None:
    """``beta * L + alpha * M`` as one BLAS call, trying M and then L as the product."""
    for (sb, lv), (sa, mv) in (((beta, L), (alpha, M)), ((alpha, M), (beta, L))):
        found = _product_of(mv)
        if found is None:
            continue
        dot_var, build = found
        dtype = dot_var.type.dtype
        if lv.type.dtype != dtype:
            continue
        a, b = _scale_as(sa, dtype), _scale_as(sb, dtype)
        if a is None or b is None:
            continue
        try:
            return build(lv, a, b), dot_var
        except (TypeError, ValueError):
            continue
    return None


def _term_value(item: Any) -> Variable:
    if not isinstance(item, tuple):
        return item
    s, m = item
    return _scale_by(s, m)


def _gemm_from_factored_list(lst: list) -> tuple[Variable, Variable] | None:
    """The first pair of ``lst`` that BLAS can compute, with the rest added to it."""
    pairs = [(k, item) for k, item in enumerate(lst) if isinstance(item, tuple)]
    for n, (i, (s_i, m_i)) in enumerate(pairs):
        for j, (s_j, m_j) in pairs[n + 1:]:
            # Only terms of one broadcast pattern pair up: a row added to a product
            # stays an addition (Gemm would have to broadcast it first).
            if m_i.type.broadcastable != m_j.type.broadcastable \
                    or m_i.type.dtype != m_j.type.dtype:
                continue
            found = _pair_to_blas(s_i, m_i, s_j, m_j)
            if found is None:
                continue
            blas_out, dot_var = found
            rest = [_term_value(t) for k, t in enumerate(lst) if k not in (i, j)]
            total = blas_out if not rest else add(*rest, blas_out)
            return total, dot_var
    return None


def _gemm_from_node(fgraph: Any, node: Apply) -> tuple[Variable, Variable] | None:
    """``node``'s output rewritten with one Gemm/Gemv, and the product it absorbs."""
    lst: list = []
    if _gemm_canonicalize(fgraph, node.outputs[0], 1.0, lst, 0) is None or len(lst) < 2:
        return None
    found = _gemm_from_factored_list(_factor_canonicalized(lst))
    if found is None:
        return None
    new, dot_var = found
    fixed = keep_type(node.outputs[0], new)
    if fixed is None:
        return None
    return fixed, dot_var


class GemmOptimizer(GraphRewriter):
    """Rewrites every elementwise sum holding a product into Gemm/Gemv, until none is left."""

    name = "gemm_optimizer"

    def add_requirements(self, fgraph: Any) -> None:
        super().add_requirements(fgraph)
        if not hasattr(fgraph, "replace_all_validate_remove"):
            fgraph.attach_feature(ReplaceValidate())

    def apply(self, fgraph: Any) -> RewriterStats:
        t0 = time.perf_counter()
        count, changed = 0, True
        while changed:
            changed = False
            for node in reversed(io_toposort(fgraph.inputs, fgraph.outputs)):
                if node not in fgraph.apply_nodes or _elemwise_kind(node.outputs[0]) is None:
                    continue
                try:
                    found = _gemm_from_node(fgraph, node)
                except InconsistencyError:
                    continue
                if found is None:
                    continue
                new, dot_var = found
                try:
                    fgraph.replace_all_validate_remove(
                        [(node.outputs[0], new)], [dot_var], reason=self.name, warn=False)
                except (InconsistencyError, ReplacementDidNotRemoveError):
                    continue
                count += 1
                changed = True
        return RewriterStats.single_pass(self.name, count, time.perf_counter() - t0)

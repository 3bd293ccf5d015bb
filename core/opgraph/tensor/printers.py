"""How tensor graphs read in ``pprint``: as the Python a user would have written.

``x * 2. + pt.exp(y).sum()`` prints ``x * 2.0 + sum(exp(y))``: the DimShuffles
that only broadcast are invisible, reductions, indexing and shape ops print as
the calls and subscripts that build them, and parentheses appear only where
Python's precedence needs them.

Choices worth knowing:

- ``Dot`` and ``MatMul`` print as ``x @ y`` (not PyTensor's ``\\dot``), so the
  text is Python that parses back to the same tree.  ``@`` shares ``*``'s
  level in Python but they do not associate, so ``x * (y @ z)`` and
  ``x @ (y * z)`` keep their parentheses while ``x * y @ z`` (left to right)
  needs none.
- A DimShuffle is invisible only where it changes nothing the reader needs:
  adding *leading* broadcastable axes to an input of an Elemwise (which
  would broadcast anyway).  ``v.dimshuffle(0, 'x')`` changes meaning and
  stays, so does ``v.dimshuffle('x', 0)`` fed to ``join``; one restoring a
  reduction's axes reads ``sum(x, axis=1, keepdims=True)``; a full reversal
  prints ``x.T``.
- ``mean`` is recognised in the ``sum(x) / cast(count)`` graph that
  ``pt.mean`` builds; a hand-written ``sum(x) / 4.0`` prints as written.

The printers are registered with ``register_pprint_extension``: the global
table is built (and this module's entries added) only when ``pprint`` is
first used.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Constant, Variable
from opgraph.graph.printer import (
    SCALAR_OP_WRAPPERS,
    FunctionPrinter,
    IgnorePrinter,
    PPrinter,
    PrinterState,
    register_pprint_extension,
)
from opgraph.graph.printer import _value_text as value_text
from opgraph.scalar import Cast, Mul, TrueDiv

# Classes by their modules: ``opgraph.tensor.shape`` etc. are shadowed by functions in the package.
from opgraph.tensor.advanced import AdvancedIncSubtensor, AdvancedSubtensor
from opgraph.tensor.basic import ScalarFromTensor, TensorFromScalar
from opgraph.tensor.creation import Alloc, ARange, Eye
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.ifelse import IfElse
from opgraph.tensor.indexing import SliceSpec, split_inputs
from opgraph.tensor.join import Join, Split
from opgraph.tensor.products import Dot, MatMul
from opgraph.tensor.reduction import All, Argmax, Argmin, Max, Min, Prod, Sum
from opgraph.tensor.reduction import Any as AnyReduce
from opgraph.tensor.shape import MakeVector, Reshape, Shape, Shape_i, SpecifyShape
from opgraph.tensor.special import LogSoftmax, Softmax
from opgraph.tensor.subtensor import (
    AdvancedIncSubtensor1,
    AdvancedSubtensor1,
    IncSubtensor,
    Subtensor,
)

__all__ = ["register_tensor_printers"]

_ARG = -1000.0  # inside brackets or call parentheses: never parenthesise
_POSTFIX = 1000.0  # the base of ``.T``, ``[...]``, ``.dimshuffle(...)``
_MUL_PRECEDENCE = -1.0  # ``*``, ``/``, ``@`` in Python (the scalar printers' table)
_MATMUL_PRECEDENCE = -1.5  # as seen from outside: ``*`` around ``@`` adds parentheses


def _text(var: Variable, pstate: PrinterState, precedence: float = _ARG) -> str:
    return pstate.pprinter.process(var, pstate.clone(precedence=precedence))


def _op_of(var: Variable) -> Any:
    return var.owner.op if var.owner is not None else None


def _axis_text(axes: Sequence[int] | None) -> str:
    if axes is None:
        return ""
    axes = tuple(axes)
    return f", axis={axes[0]}" if len(axes) == 1 else f", axis={axes}"


# --------------------------------------------------------------------------- DimShuffle


def _is_broadcast_only(op: Any) -> bool:
    """Adds leading length-1 axes and nothing else (what Elemwise broadcasting inserts)."""
    return bool(op.is_left_expand_dims)


def _broadcasts_into_elemwise(output: Variable, pstate: PrinterState) -> bool:
    """``output`` is printed as an input of an Elemwise, which broadcasts it anyway."""
    consumer = pstate.consumer()
    return (
        consumer is not None
        and isinstance(consumer.op, Elemwise)
        and any(inp is output for inp in consumer.inputs)
    )


def _keepdims_reduction(op: Any, inner: Variable) -> bool:
    """``op`` puts back exactly the axes the reduction ``inner`` removed (``keepdims=True``)."""
    red = _op_of(inner)
    if type(red) not in _REDUCTION_NAMES or op.drop:
        return False
    ndim = len(op.new_order)
    axes = tuple(range(ndim)) if red.axis is None else tuple(sorted(red.axis))
    kept = [o for o in op.new_order if o != "x"]
    return kept == list(range(len(kept))) and tuple(op.augment) == axes


class DimShufflePrinter:
    """Invisible when an Elemwise broadcasts it; ``sum(x, axis=1, keepdims=True)``;
    ``x.T``; else ``x.dimshuffle(1, 'x', 0)``."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        op = output.owner.op
        (x,) = output.owner.inputs
        if _is_broadcast_only(op) and _broadcasts_into_elemwise(output, pstate):
            return pstate.pprinter.process(x, pstate)
        if _keepdims_reduction(op, x):
            return _reduction_text(x, pstate, keepdims=True)
        if op.new_order == tuple(range(op.input_ndim)):
            return pstate.pprinter.process(x, pstate)
        base = _text(x, pstate, _POSTFIX)
        if op.new_order == tuple(range(op.input_ndim - 1, -1, -1)):
            return f"{base}.T"
        order = ", ".join("'x'" if o == "x" else str(o) for o in op.new_order)
        return f"{base}.dimshuffle({order})"


# --------------------------------------------------------------------------- reductions


_REDUCTION_NAMES: dict[type, str] = {
    Sum: "sum", Prod: "prod", Max: "max", Min: "min", All: "all", AnyReduce: "any",
    Argmax: "argmax", Argmin: "argmin",
}


def _reduction_text(
    var: Variable, pstate: PrinterState, keepdims: bool = False, name: str | None = None
) -> str:
    op = var.owner.op
    name = name or _REDUCTION_NAMES[type(op)]
    text = f"{name}({_text(var.owner.inputs[0], pstate)}{_axis_text(op.axis)}"
    if getattr(op, "dtype", None) is not None and name != "mean":
        text += f", dtype='{op.dtype}'"
    return text + (", keepdims=True)" if keepdims else ")")


class ReductionPrinter:
    """``sum(x)``, ``max(x, axis=1)``, ``prod(x, axis=(0, 2), dtype='float64')``."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        return _reduction_text(output, pstate)


def _strip(var: Variable, *op_tests: Any) -> Variable:
    """Follow ``var`` up through ops accepted by any of ``op_tests``."""
    while var.owner is not None and any(test(var.owner.op) for test in op_tests):
        var = var.owner.inputs[0]
    return var


def _is_dimshuffle(op: Any) -> bool:
    return isinstance(op, DimShuffle)


def _is_cast(op: Any) -> bool:
    return isinstance(op, Elemwise) and isinstance(op.scalar_op, Cast)


def _is_count_of(count: Variable, x: Variable, axes: Sequence[int]) -> bool:
    """``count`` is the number of elements of ``x`` over ``axes``, as ``pt.mean`` builds it."""
    if isinstance(count, Constant):
        static = [x.type.shape[a] for a in axes]
        if any(s is None for s in static):
            return False
        return np.ndim(count.data) == 0 and int(count.data) == int(np.prod(static, dtype=np.int64))
    dims = [count]
    op = _op_of(count)
    if isinstance(op, Elemwise) and isinstance(op.scalar_op, Mul):
        dims = list(count.owner.inputs)
    if len(dims) != len(axes):
        return False
    return all(
        isinstance(_op_of(d), Shape_i) and d.owner.inputs[0] is x and d.owner.op.i == a
        for d, a in zip(dims, axes)
    )


def _mean_parts(var: Variable) -> tuple[Variable, bool] | None:
    """``(sum output, keepdims)`` when ``var`` is ``pt.mean``'s ``sum / cast(count)``."""
    node = var.owner
    if node is None or not isinstance(node.op, Elemwise) or not isinstance(
        node.op.scalar_op, TrueDiv
    ):
        return None
    num, den = node.inputs
    keepdims = False
    if num.owner is not None and _is_dimshuffle(num.owner.op):
        inner = num.owner.inputs[0]
        if not _keepdims_reduction(num.owner.op, inner):
            return None
        num, keepdims = inner, True
    if not isinstance(_op_of(num), Sum):
        return None
    den = _strip(den, lambda op: _is_dimshuffle(op) and _is_broadcast_only(op))
    if not _is_cast(_op_of(den)):
        return None
    x = num.owner.inputs[0]
    axes = num.owner.op.axis
    axes = tuple(range(x.type.ndim)) if axes is None else axes
    return (num, keepdims) if _is_count_of(den.owner.inputs[0], x, axes) else None


def _is_mean(pstate: PrinterState, var: Variable) -> bool:
    return _mean_parts(var) is not None


class MeanPrinter:
    """``mean(x, axis=1)`` for the graph ``pt.mean`` builds."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        num, keepdims = _mean_parts(output)  # type: ignore[misc]
        return _reduction_text(num, pstate, keepdims=keepdims, name="mean")


# --------------------------------------------------------------------------- indexing


def _index_text(idx_list: Sequence[Any], inputs: Sequence[Variable], pstate: PrinterState) -> str:
    parts = []
    for entry, part in zip(idx_list, split_inputs(idx_list, inputs)):
        if isinstance(entry, SliceSpec):
            start, stop, step = ("" if p is None else _text(p, pstate) for p in part)
            parts.append(f"{start}:{stop}" + (f":{step}" if step else ""))
        else:
            parts.append(_text(part, pstate))
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts) if parts else "()"


class SubtensorPrinter:
    """``x[1:, 2]``, ``x[idx]``, ``x[idx, ::2]`` (basic and advanced indexing)."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        node = output.owner
        x, *idx = node.inputs
        idx_list = getattr(node.op, "idx_spec", None)
        index = _text(idx[0], pstate) if idx_list is None else _index_text(idx_list, idx, pstate)
        return f"{_text(x, pstate, _POSTFIX)}[{index}]"


class IncSubtensorPrinter:
    """``set_subtensor(x[1:], y)`` and ``inc_subtensor(x[idx], y)``."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        node = output.owner
        x, y, *idx = node.inputs
        idx_list = getattr(node.op, "idx_spec", None)
        index = _text(idx[0], pstate) if idx_list is None else _index_text(idx_list, idx, pstate)
        name = "set_subtensor" if node.op.set_instead_of_inc else "inc_subtensor"
        return f"{name}({_text(x, pstate, _POSTFIX)}[{index}], {_text(y, pstate)})"


# --------------------------------------------------------------------------- shapes


def _shape_arg(shp: Variable, pstate: PrinterState) -> str:
    """A shape vector as a tuple when its entries are known: ``(6,)``, ``(n, 3)``."""
    if isinstance(shp, Constant) and getattr(shp.data, "ndim", None) == 1:
        items = [value_text(v) for v in shp.data]
    elif isinstance(_op_of(shp), MakeVector):
        items = [_text(v, pstate) for v in shp.owner.inputs]
    else:
        return _text(shp, pstate)
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


class ReshapePrinter:
    """``reshape(x, (6,))``."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        x, shp = output.owner.inputs
        return f"reshape({_text(x, pstate)}, {_shape_arg(shp, pstate)})"


class ShapeIPrinter:
    """``shape(x)[1]``."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        return f"shape({_text(output.owner.inputs[0], pstate)})[{output.owner.op.i}]"


class MakeVectorPrinter:
    """``[a, b, 3]``."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        return "[" + ", ".join(_text(v, pstate) for v in output.owner.inputs) + "]"


class SpecifyShapePrinter:
    """``specify_shape(x, (None, 3))``."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        x, *dims = output.owner.inputs
        it = iter(dims)
        items = [_text(next(it), pstate) if g else "None" for g in output.owner.op.given]
        dims_text = f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
        return f"specify_shape({_text(x, pstate)}, {dims_text})"


class SplitPrinter:
    """``split(x, sizes, 2, axis=0)[i]``."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        x, axis, sizes = output.owner.inputs
        n = output.owner.op.len_splits
        call = f"split({_text(x, pstate)}, {_shape_arg(sizes, pstate)}, {n}, "
        return call + f"axis={_text(axis, pstate)})[{output.index}]"


# --------------------------------------------------------------------------- the rest


class MatMulPrinter:
    """``x @ y``: left operand as at ``@``'s level, right one strictly tighter than ``*``."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        a, b = output.owner.inputs
        left = _text(a, pstate, _MATMUL_PRECEDENCE)
        right = _text(b, pstate, _MUL_PRECEDENCE + 1e-6)
        text = f"{left} @ {right}"
        return f"({text})" if pstate.precedence > _MATMUL_PRECEDENCE else text


class CastPrinter:
    """``cast(x, 'float32')`` (the Elemwise of the scalar Cast)."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        return f"cast({_text(output.owner.inputs[0], pstate)}, '{output.type.dtype}')"


def _is_tensor_cast(pstate: PrinterState, var: Variable) -> bool:
    return var.owner is not None and _is_cast(var.owner.op)


class SoftmaxPrinter:
    """``softmax(x)`` (the default last axis) or ``log_softmax(x, axis=0)``."""

    def __init__(self, name: str):
        self.name = name

    def process(self, output: Variable, pstate: PrinterState) -> str:
        axis = output.owner.op.axis
        extra = "" if axis == -1 or axis == output.type.ndim - 1 else f", axis={axis}"
        return f"{self.name}({_text(output.owner.inputs[0], pstate)}{extra})"


class IfElsePrinter:
    """``ifelse(c, a, b)``; with several outputs ``ifelse(c, (a1, a2), (b1, b2))[i]``."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        node = output.owner
        n = node.op.n_outs
        cond = _text(node.inputs[0], pstate)
        then = [_text(v, pstate) for v in node.inputs[1 : 1 + n]]
        other = [_text(v, pstate) for v in node.inputs[1 + n :]]
        if n == 1:
            return f"ifelse({cond}, {then[0]}, {other[0]})"
        return f"ifelse({cond}, ({', '.join(then)}), ({', '.join(other)}))[{output.index}]"


def register_tensor_printers(pprinter: PPrinter) -> None:
    """Add the tensor library's printers to ``pprinter`` (rules as a table by op class)."""
    matmul = MatMulPrinter()
    table: list[tuple[type, Any]] = [
        (DimShuffle, DimShufflePrinter()),
        (Dot, matmul),
        (MatMul, matmul),
        (Subtensor, SubtensorPrinter()),
        (AdvancedSubtensor1, SubtensorPrinter()),
        (AdvancedSubtensor, SubtensorPrinter()),
        (IncSubtensor, IncSubtensorPrinter()),
        (AdvancedIncSubtensor1, IncSubtensorPrinter()),
        (AdvancedIncSubtensor, IncSubtensorPrinter()),
        (Shape, FunctionPrinter("shape")),
        (Shape_i, ShapeIPrinter()),
        (Reshape, ReshapePrinter()),
        (MakeVector, MakeVectorPrinter()),
        (SpecifyShape, SpecifyShapePrinter()),
        (Alloc, FunctionPrinter("alloc")),
        (ARange, FunctionPrinter("arange")),
        (Eye, FunctionPrinter("eye")),
        (Join, FunctionPrinter("join")),
        (Split, SplitPrinter()),
        (TensorFromScalar, IgnorePrinter()),
        (ScalarFromTensor, IgnorePrinter()),
        (Softmax, SoftmaxPrinter("softmax")),
        (LogSoftmax, SoftmaxPrinter("log_softmax")),
        (IfElse, IfElsePrinter()),
    ]
    table += [(klass, ReductionPrinter()) for klass in _REDUCTION_NAMES]
    for klass, printer in table:
        pprinter.assign(klass, printer)
    # Predicates are tried before classes: Elemwise forms with their own spelling.
    pprinter.assign(_is_tensor_cast, CastPrinter())
    pprinter.assign(_is_mean, MeanPrinter())


register_pprint_extension(register_tensor_printers)
SCALAR_OP_WRAPPERS.add(Elemwise)  # an Elemwise prints like its scalar op: x + y

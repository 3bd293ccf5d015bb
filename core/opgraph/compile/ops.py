"""Ops the compile layer provides: identity views and copies, and Python-function Ops.

``wrap_py(itypes, otypes)(fn)`` turns a NumPy function into an Op (PyTensor's
``as_op``, now deprecated under that name).  ``ViewOp`` returns its input as
is (a view), ``DeepCopyOp`` a copy: ``function()`` uses the latter where an
output must not alias an input.
"""

from __future__ import annotations

import copy
import importlib
import warnings
from collections.abc import Callable, Sequence
from functools import update_wrapper
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.graph.type import Type

__all__ = [
    "DeepCopyOp",
    "FromFunctionOp",
    "TypeCastingOp",
    "ViewOp",
    "as_op",
    "deep_copy_op",
    "load_back",
    "view_op",
    "wrap_py",
]


class TypeCastingOp(Op):
    """An Op that changes only what the graph knows about a value: it returns its input itself.

    The base of :class:`ViewOp` and of ported Ops that retype a value (PyMC's
    ``InitialPoint``); subclasses define ``make_node``.
    """

    __props__ = ()
    view_map = {0: [0]}

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = inputs[0]

    def __str__(self) -> str:
        return type(self).__name__


class ViewOp(TypeCastingOp):
    """Returns its input itself (``view_map = {0: [0]}``); a barrier for rewrites."""

    __props__ = ()
    view_map = {0: [0]}

    def make_node(self, x: Any) -> Apply:
        if not isinstance(x, Variable):
            raise TypeError(f"ViewOp expects a symbolic Variable, got {type(x).__name__}")
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = inputs[0]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return input_shapes

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        return list(cotangents)

    def pushforward(self, inputs: Sequence, outputs: Sequence, tangents: Sequence) -> list:
        return list(tangents)


view_op = ViewOp()
"""The ViewOp instance: returns its input itself (a view, no copy)."""


class DeepCopyOp(Op):
    """Returns a copy of its input (arrays: ``ndarray.copy()``; others: ``copy.deepcopy``)."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        if not isinstance(x, Variable):
            raise TypeError(f"DeepCopyOp expects a symbolic Variable, got {type(x).__name__}")
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        value = inputs[0]
        output_storage[0][0] = value.copy() if isinstance(value, np.ndarray) else copy.deepcopy(
            value
        )

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return input_shapes

    def pullback(self, inputs: Sequence, outputs: Sequence, cotangents: Sequence) -> list:
        return list(cotangents)


deep_copy_op = DeepCopyOp()
"""The DeepCopyOp instance: returns a copy of its input (what a function output gets
when it would alias an input or a shared value)."""


def _as_types(types: Any, what: str) -> list[Type]:
    items = list(types) if isinstance(types, list | tuple) else [types]
    for t in items:
        if not isinstance(t, Type):
            raise TypeError(f"wrap_py: {what} must be Types (e.g. dmatrix), got {t!r}")
    return items


class FromFunctionOp(Op):
    """An Op computing ``fn`` on NumPy values, with fixed input and output types.

    Equality is by the function and the types, so two Ops wrapping the same
    function merge; pickling works when ``fn`` is importable by name.
    """

    __props__ = ("fn", "itypes", "otypes", "infer_shape_fn")

    def __init__(self, fn: Callable[..., Any], itypes: Sequence[Type], otypes: Sequence[Type],
                 infer_shape: Callable[..., Any] | None = None) -> None:
        self.fn = fn
        self.itypes = tuple(itypes)
        self.otypes = tuple(otypes)
        self.infer_shape_fn = infer_shape
        update_wrapper(self, fn, updated=())

    def __str__(self) -> str:
        return f"FromFunctionOp{{{self.fn.__name__}}}"

    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) != len(self.itypes):
            raise TypeError(
                f"{self}: expected {len(self.itypes)} input(s), got {len(inputs)}"
            )
        converted = []
        for k, (value, itype) in enumerate(zip(inputs, self.itypes)):
            var = value if isinstance(value, Variable) else itype.make_constant(value)
            if var.type != itype:
                try:
                    var = itype.filter_variable(var)
                except TypeError as exc:
                    raise TypeError(f"{self}: input {k} must be {itype}, got {var.type}") from exc
            converted.append(var)
        return Apply(self, converted, [t() for t in self.otypes])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        outs = self.fn(*inputs)
        if len(self.otypes) == 1:
            outs = [outs]
        for cell, value, otype in zip(output_storage, outs, self.otypes):
            cell[0] = otype.filter(value, allow_downcast=True)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        if self.infer_shape_fn is None:
            raise NotImplementedError(f"{self}: no infer_shape was given to wrap_py")
        return self.infer_shape_fn(fgraph, node, input_shapes)

    def __reduce__(self) -> Any:
        # Pickle by reference to the decorated module-level name when possible.
        module = getattr(self.fn, "__module__", None)
        name = getattr(self.fn, "__qualname__", None)
        if module and name and "<locals>" not in name:
            return (_load_wrapped, (module, name))
        return (FromFunctionOp, (self.fn, self.itypes, self.otypes, self.infer_shape_fn))


def _load_wrapped(module: str, name: str) -> Any:
    obj: Any = importlib.import_module(module)
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def wrap_py(itypes: Any, otypes: Any,
            infer_shape: Callable[..., Any] | None = None) -> Callable[[Callable], FromFunctionOp]:
    """Decorator: ``@wrap_py([dmatrix, dvector], dvector)`` makes ``fn`` an Op.

    ``infer_shape(fgraph, node, input_shapes)`` may give the output shapes.
    """
    in_types = _as_types(itypes, "itypes")
    out_types = _as_types(otypes, "otypes")
    if infer_shape is not None and not callable(infer_shape):
        raise TypeError(f"wrap_py: infer_shape must be callable, got {infer_shape!r}")

    def decorator(fn: Callable[..., Any]) -> FromFunctionOp:
        if not callable(fn):
            raise TypeError(f"wrap_py: expected a function, got {fn!r}")
        return FromFunctionOp(fn, in_types, out_types, infer_shape)

    return decorator


def as_op(itypes: Any, otypes: Any,
          infer_shape: Callable[..., Any] | None = None) -> Callable[[Callable], FromFunctionOp]:
    """Deprecated name of :func:`wrap_py`."""
    warnings.warn("as_op is deprecated: use wrap_py (same arguments)", FutureWarning,
                  stacklevel=2)
    return wrap_py(itypes, otypes, infer_shape)


def load_back(mod: str, name: str) -> Any:
    """The object ``name`` of module ``mod`` (imported if needed): how a pickled
    ``as_op`` function is found again."""
    return getattr(importlib.import_module(mod), name)

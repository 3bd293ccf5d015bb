"""The Op contract: how an operation builds nodes, computes, and differentiates.

Ops compare and hash by their parameters so that equal Ops merge. Two styles
work: an ``attrs.frozen`` subclass (fields are the parameters) or a plain
PyTensor-style subclass declaring ``__props__``. Without either, an Op is equal
only to itself.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

import attrs

from opgraph.config import config
from opgraph.graph.basic import Apply, Variable, io_connection_pattern
from opgraph.graph.utils import add_tag_trace as _add_tag_trace
from opgraph.graph.utils import creation_frames

if TYPE_CHECKING:
    from opgraph.graph.fg import FunctionGraph

__all__ = [
    "ComputeMapType",
    "EqualByValueKey",
    "HasInnerGraph",
    "Op",
    "StorageMap",
    "ThunkType",
    "io_connection_pattern",  # PyTensor's path; defined in graph.basic
]

StorageMap = dict
ComputeMapType = dict
ThunkType = Callable[[], Any]

_MISSING = object()


def _props_of(op: Any) -> tuple[str, ...] | None:
    props = getattr(type(op), "__props__", None)
    if props is not None:
        return tuple(props)
    if attrs.has(type(op)):
        return tuple(a.name for a in attrs.fields(type(op)) if a.eq)
    return None


def _hashable(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    return value


class Op:
    """Base class of every operation.

    Subclasses implement ``make_node`` and ``perform``, and ``pullback`` /
    ``pushforward`` to be differentiable.
    """

    #: Index of the output ``op(...)`` returns; None returns all (one output: itself).
    default_output: int | None = None
    #: {output index: [input indices]} the output overwrites in place.
    destroy_map: dict[int, list[int]] = {}
    #: {output index: [input indices]} the output is a view of.
    view_map: dict[int, list[int]] = {}
    #: Name of the optional attribute naming the op in printouts.
    _output_type_depends_on_input_value = False

    def __new__(cls, *args: Any, **kwargs: Any) -> Op:
        """Refuse to instantiate an Op class that has no way to compute.

        ``perform`` is abstract: a subclass must define it, or another
        implementation (``make_thunk``, ``c_code``), as in PyTensor.
        """
        abstract = _ABSTRACT.get(cls)
        if abstract is None:
            abstract = _ABSTRACT[cls] = (
                cls.perform is Op.perform
                and cls.make_thunk is Op.make_thunk
                and not hasattr(cls, "c_code")
            )
        if abstract:
            raise TypeError(
                f"Can't instantiate {cls.__name__}: it defines no perform() (nor make_thunk "
                "or c_code), so its nodes could not be computed"
            )
        return super().__new__(cls)

    # -- equality -------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        props = getattr(type(self), "__props__", None)
        if props is None or type(self) is not type(other):
            return False
        return all(getattr(self, p) == getattr(other, p) for p in props)

    def __hash__(self) -> int:
        props = getattr(type(self), "__props__", None)
        if props is None:
            return object.__hash__(self)
        return hash((type(self), *(_hashable(getattr(self, p)) for p in props)))

    def _props(self) -> tuple:
        return tuple(getattr(self, p) for p in (_props_of(self) or ()))

    def _props_dict(self) -> dict[str, Any]:
        """The props by constructor argument name: ``type(op)(**op._props_dict()) == op``."""
        props = {p: getattr(self, p) for p in (_props_of(self) or ())}
        if attrs.has(type(self)) and getattr(type(self), "__props__", None) is None:
            fields = attrs.fields(cast(Any, type(self)))  # an attrs class, checked above
            aliases = {a.name: a.alias for a in fields if a.alias}
            props = {aliases.get(p, p): v for p, v in props.items()}
        return props

    def __str__(self) -> str:
        name = getattr(self, "name", None)
        if isinstance(name, str) and name:
            return name
        props = _props_of(self)
        if not props:
            return type(self).__name__
        inner = ", ".join(f"{p}={getattr(self, p)!s}" for p in props)
        return f"{type(self).__name__}{{{inner}}}"

    def __repr__(self) -> str:
        return str(self)

    # -- building ---------------------------------------------------------------------
    def make_node(self, *inputs: Any) -> Apply:
        """Return an Apply of this Op to ``inputs`` (converted and checked).

        The default serves Ops that declare ``itypes`` and ``otypes`` (lists of
        Types): the inputs must be of those kinds, the outputs are new
        variables of ``otypes``.
        """
        itypes = getattr(self, "itypes", None)
        otypes = getattr(self, "otypes", None)
        if itypes is None or otypes is None:
            raise NotImplementedError(
                f"{type(self).__name__} must implement make_node (or declare itypes and otypes)"
            )
        if len(inputs) != len(itypes):
            raise ValueError(
                f"{self} expects {len(itypes)} inputs ({', '.join(map(str, itypes))}), "
                f"got {len(inputs)}"
            )
        ins = [x if isinstance(x, Variable) else t.filter_variable(x)
               for t, x in zip(itypes, inputs)]
        bad = [(i, t, x) for i, (t, x) in enumerate(zip(itypes, ins)) if not t.in_same_class(x.type)
               and not t.is_super(x.type)]
        if bad:
            raise TypeError(
                f"Invalid input types for Op {self}: "
                + "; ".join(f"input {i} must be {t}, got {x.type} ({x})" for i, t, x in bad)
            )
        return Apply(self, ins, [t() for t in otypes])

    def __call__(
        self, *inputs: Any, name: str | None = None, return_list: bool = False, **kwargs: Any
    ) -> Any:
        """Build a node and return its default output (or all outputs)."""
        node = self.make_node(*inputs, **kwargs)
        limit = config.traceback__limit
        if limit:
            frames = creation_frames(limit if limit > 0 else 1000)
            if frames:
                for out in node.outputs:
                    if getattr(out.tag, "trace", None) is None:
                        out.tag.trace = [frames]
        if name is not None:
            if len(node.outputs) == 1:
                node.outputs[0].name = name
            elif self.default_output is not None:
                node.outputs[self.default_output].name = name
            else:
                for i, o in enumerate(node.outputs):
                    o.name = f"{name}_{i}"
        if return_list:
            return list(node.outputs)
        if self.default_output is not None:
            return node.outputs[self.default_output]
        if len(node.outputs) == 1:
            return node.outputs[0]
        return list(node.outputs)

    # -- computing --------------------------------------------------------------------
    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        """Compute outputs from input values; write each into ``output_storage[i][0]``."""
        raise NotImplementedError(f"{type(self).__name__} must implement perform")

    def do_constant_folding(self, fgraph: FunctionGraph | None, node: Apply) -> bool:
        """Whether a node whose inputs are all constant may be replaced by its value."""
        return True

    def inplace_on_inputs(self, allowed_inplace_inputs: list[int]) -> Op:
        """A version of this Op that overwrites some of the allowed inputs; default: self."""
        return self

    def prepare_node(
        self, node: Apply, storage_map: StorageMap | None, compute_map: ComputeMapType | None,
        impl: str | None,
    ) -> None:
        """Hook to adjust the node before a thunk is made; default does nothing."""

    def make_py_thunk(
        self,
        node: Apply,
        storage_map: StorageMap,
        compute_map: ComputeMapType,
        no_recycling: Sequence[Variable],
        debug: bool = False,
    ) -> ThunkType:
        """A zero-argument callable running ``perform`` over the storage cells."""
        inputs = [storage_map[v] for v in node.inputs]
        outputs = [storage_map[v] for v in node.outputs]
        out_computed = [compute_map[v] for v in node.outputs] if compute_map is not None else []
        perform = node.op.perform

        if out_computed:

            def thunk() -> None:
                perform(node, [x[0] for x in inputs], outputs)
                for c in out_computed:
                    c[0] = True

        else:

            def thunk() -> None:
                perform(node, [x[0] for x in inputs], outputs)

        thunk.inputs = inputs  # type: ignore[attr-defined]
        thunk.outputs = outputs  # type: ignore[attr-defined]
        thunk.perform = perform  # type: ignore[attr-defined]
        thunk.lazy = False  # type: ignore[attr-defined]
        return thunk

    def make_thunk(
        self,
        node: Apply,
        storage_map: StorageMap,
        compute_map: ComputeMapType,
        no_recycling: Sequence[Variable],
        impl: str | None = None,
    ) -> ThunkType:
        """A thunk for ``impl`` ("py" in the core; backends provide others)."""
        self.prepare_node(node, storage_map, compute_map, "py")
        return self.make_py_thunk(node, storage_map, compute_map, no_recycling)

    add_tag_trace = staticmethod(_add_tag_trace)

    # -- differentiation ------------------------------------------------------------
    def pullback(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable],
        cotangents: Sequence[Variable],
    ) -> list[Variable]:
        """Vector-Jacobian product: one cotangent per input.

        Defaults to a legacy ``L_op`` or ``grad`` if the subclass defines one.
        """
        cls = type(self)
        if cls.L_op is not Op.L_op:
            _warn_legacy(cls, "L_op", "pullback")
            return self.L_op(inputs, outputs, cotangents)
        if cls.grad is not Op.grad:
            _warn_legacy(cls, "grad", "pullback")
            return self.grad(inputs, cotangents)
        raise NotImplementedError(f"{cls.__name__} does not implement pullback")

    def pushforward(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable],
        tangents: Sequence[Variable],
    ) -> list[Variable]:
        """Jacobian-vector product: one tangent per output.

        Defaults to a legacy ``R_op`` if the subclass defines one.
        """
        cls = type(self)
        if cls.R_op is not Op.R_op:
            _warn_legacy(cls, "R_op", "pushforward")
            return self.R_op(inputs, tangents)
        raise NotImplementedError(f"{cls.__name__} does not implement pushforward")

    def L_op(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable],
        output_grads: Sequence[Variable],
    ) -> list[Variable]:
        """Deprecated: dispatches to ``pullback`` if overridden, else to ``grad``."""
        warnings.warn(
            "Op.L_op is deprecated: call or implement pullback() instead",
            DeprecationWarning,
            stacklevel=2,
        )
        if type(self).pullback is not Op.pullback:
            return self.pullback(inputs, outputs, output_grads)
        return self.grad(inputs, output_grads)

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable]) -> list[Variable]:
        """Deprecated: dispatches to ``pushforward`` if overridden."""
        warnings.warn(
            "Op.R_op is deprecated: call or implement pushforward() instead",
            DeprecationWarning,
            stacklevel=2,
        )
        if type(self).pushforward is not Op.pushforward:
            outputs = self.make_node(*inputs).outputs
            return self.pushforward(inputs, outputs, eval_points)
        raise NotImplementedError(f"{type(self).__name__} does not implement pushforward")

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Variable]:
        """Deprecated: implement ``pullback`` instead."""
        raise NotImplementedError(f"{type(self).__name__} does not implement grad/pullback")

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        """``pattern[i][j]``: output j depends on input i. Default: all connected."""
        return [[True] * len(node.outputs) for _ in node.inputs]


_ABSTRACT: dict[type, bool] = {}


def _warn_legacy(cls: type, old: str, new: str) -> None:
    warnings.warn(
        f"{cls.__name__} implements the deprecated {old}(); implement {new}() instead",
        DeprecationWarning,
        stacklevel=3,
    )


class EqualByValueKey:
    """Equality and hash from ``_value_key()``, for Ops whose identity is an inner graph
    plus options (OpFromGraph, Scan), which ``__props__`` cannot express.  Put it before
    ``Op`` among the bases so that it takes precedence over Op's props-based equality."""

    def _value_key(self) -> Any:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(self) is not type(other):
            return False
        return self._value_key() == other._value_key()

    def __hash__(self) -> int:
        return hash((type(self), self._value_key()))


class HasInnerGraph:
    """Mixin for Ops that hold a graph of their own (Composite, OpFromGraph)."""

    @property
    def inner_inputs(self) -> list[Variable]:
        raise NotImplementedError

    @property
    def inner_outputs(self) -> list[Variable]:
        raise NotImplementedError

    def clone(self) -> HasInnerGraph:
        """A copy whose inner graph is cloned too."""
        raise NotImplementedError


# PyTensor's annotation aliases of the storage and thunk protocol
StorageCellType = list[Any]
StorageMapType = dict[Variable, StorageCellType]
InputStorageType = list[StorageCellType]
OutputStorageType = list[StorageCellType]
PerformMethodType = Callable[[Apply, list[Any], OutputStorageType], None]
BasicThunkType = Callable[[], None]
ThunkCallableType = Callable[[Any, Any, Any, Any], None]
C = TypeVar("C", bound=Callable)


def is_thunk_type(thunk: Any) -> Any:
    """``thunk`` itself, typed as a thunk (an annotation helper: it checks nothing)."""
    return thunk

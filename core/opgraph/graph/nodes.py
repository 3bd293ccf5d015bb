"""Graph nodes: Variable, AtomicVariable, NominalVariable, Constant, Apply, FrozenApply.

Nodes hash and compare by identity (thousands of them live in dicts and sets)
and carry no validators (construction is the hot path). ``opgraph.graph.basic``
re-exports every name, with the cloning and comparison functions.
"""

from __future__ import annotations

import hashlib
import itertools
import warnings
import weakref
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np

from opgraph.graph.traversal import (
    get_var_by_name,
)
from opgraph.graph.utils import Scratchpad, type_name

if TYPE_CHECKING:
    from opgraph.graph.op import Op
    from opgraph.graph.type import Type

__all__ = [
    "DEBUGPRINT",
    "Apply",
    "AtomicVariable",
    "Constant",
    "FrozenApply",
    "Node",
    "NominalVariable",
    "Variable",
]

_ids = itertools.count()  # the former counter; Variable.__count__ is the live one

#: Filled by ``opgraph.printing`` (a higher layer): the function ``Node.dprint`` calls.
DEBUGPRINT: list[Callable[..., Any]] = []


class Node:
    """Common base of Variable and Apply (PyTensor's ``Node``).

    The fields are slots (fast to build, small); the ``__dict__`` slot lets code set
    attributes of its own on a node, as PyTensor allows (PyMC sets ``rv.str_repr``).
    The dict is created only when such an attribute is first set.
    """

    __slots__ = ("__dict__",)
    _tag: Scratchpad | None  # a slot of each subclass

    @property
    def tag(self) -> Scratchpad:
        """Free-form annotations, created on first use (most nodes never need one).

        Subclasses hold it in their ``_tag`` slot.
        """
        tag = self._tag
        if tag is None:
            tag = self._tag = Scratchpad()
        return tag

    @tag.setter
    def tag(self, value: Scratchpad) -> None:
        self._tag = value

    def get_parents(self) -> list:
        raise NotImplementedError

    def dprint(self, **kwargs: Any) -> Any:
        """``debugprint(self, **kwargs)``; loads ``opgraph.printing`` on first use."""
        if not DEBUGPRINT:
            # Documented exception to the layer rule (tools/layers.py): printing sits at the
            # top and fills DEBUGPRINT when imported; a node's dprint loads it on demand.
            import opgraph.printing  # noqa: F401
        return DEBUGPRINT[0](self, **kwargs)


def _slot_names(cls: type) -> list[str]:
    """Every slot of ``cls`` and its bases (the fields of a slotted attrs class)."""
    names: list[str] = []
    for klass in reversed(cls.__mro__):
        slots = klass.__dict__.get("__slots__", ())
        names.extend([slots] if isinstance(slots, str) else slots)
    return [n for n in dict.fromkeys(names) if n not in ("__weakref__", "__dict__")]


@attrs.define(eq=False, repr=False, init=False, getstate_setstate=False)
class Variable(Node):
    """A symbolic value: the output of an Apply (``owner``) or a graph input."""

    type: Type
    owner: Apply | None
    index: int | None
    name: str | None
    _tag: Scratchpad | None
    _uid: int
    _fn_cache: dict

    #: Source of ``auto_name`` numbers (PyTensor's name; tests may reset it).
    __count__ = itertools.count()
    #: True for variables that carry their own value (constants, shared
    #: variables): ``explicit_graph_inputs`` leaves them out.
    implicit_input = False

    def __init__(
        self,
        type: Type,
        owner: Apply | None = None,
        index: int | None = None,
        name: str | None = None,
    ) -> None:
        self.type = type
        self.owner = owner
        self.index = index
        self.name = name
        self._tag = None
        self._uid = next(Variable.__count__)

    @property
    def auto_name(self) -> str:
        return f"auto_{self._uid}"

    def get_parents(self) -> list[Apply]:
        return [self.owner] if self.owner is not None else []

    def clone(self, **kwargs: Any) -> Variable:
        """A new ownerless Variable of the same type, name and tag."""
        cp = type(self).__new__(type(self))
        Variable.__init__(cp, self.type, None, None, kwargs.get("name", self.name))
        if self._tag is not None:
            cp._tag = self._tag.copy()
        return cp

    def __reduce_ex__(self, protocol: Any) -> Any:
        """Outputs of a FrozenApply unpickle as that (re-interned) node's outputs."""
        owner = self.owner
        if isinstance(owner, FrozenApply):
            return (_frozen_output, (owner, self.index))
        return super().__reduce_ex__(protocol)

    def __getstate__(self) -> dict[str, Any]:
        """Every field but the compiled-function cache of ``eval``."""
        state = {
            k: getattr(self, k)
            for k in _slot_names(type(self))
            if k != "_fn_cache" and hasattr(self, k)
        }
        state.update(self.__dict__)  # attributes set by user code
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            object.__setattr__(self, k, v)

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        owner = self.owner
        if owner is not None:
            # PyTensor's form: ".out" only for an Op's declared default output.
            if self.index == getattr(owner.op, "default_output", None):
                return f"{owner.op}.out"
            return f"{owner.op}.{self.index}"
        return f"<{self.type}>"

    def __repr__(self) -> str:
        return str(self)

    def eval(self, inputs_to_values: Mapping[Any, Any] | None = None, **kwargs: Any) -> Any:
        """Compile (once per set of inputs and keywords) and evaluate this variable.

        Keys are Variables or their names; ``kwargs`` go to ``function``.
        """
        from opgraph.compile.function import function

        values = self._values_by_variable(inputs_to_values or {}, kwargs)
        keys = tuple(sorted(values, key=lambda v: v._uid))
        try:
            cache = self._fn_cache
        except AttributeError:
            cache = self._fn_cache = {}
        fn_key = (keys, tuple(kwargs.items()))
        try:
            fn = cache.get(fn_key)
        except TypeError:
            fn = None
        if fn is None:
            fn = function(list(keys), self, **kwargs)
            try:
                cache[fn_key] = fn
            except TypeError as exc:
                warnings.warn(
                    "Keyword arguments could not be used to create a cache key for eval; "
                    f"the function is recompiled on every such call ({exc})",
                    UserWarning,
                    stacklevel=2,
                )
        return fn(*[values[k] for k in keys])

    def _values_by_variable(self, inputs_to_values: Mapping[Any, Any], kwargs: dict) -> dict:
        """``eval``'s mapping with names replaced by the variables of this graph."""
        lenient = kwargs.get("on_unused_input") in ("ignore", "warn")
        values: dict = {}
        for key, value in dict(inputs_to_values).items():
            if not isinstance(key, str):
                if not isinstance(key, Variable):
                    raise TypeError(
                        f"eval() keys must be Variables or names, got {type_name(key)} {key!r:.60}"
                    )
                values[key] = value
                continue
            found = get_var_by_name([self], key)
            if len(found) > 1:
                raise ValueError(f"Found multiple variables with name {key}")
            if found:
                values[found[0]] = value
            elif not lenient:
                raise ValueError(f"{key} not found in graph")
        return values


def _signature_of(type_: Any, data: Any) -> Hashable:
    """A hashable stand-in for constant data, so equal constants merge."""
    if isinstance(data, np.ndarray | np.generic):
        return ArraySignature(type_, np.asarray(data))
    try:
        hash(data)
    except TypeError:
        return ("id", type_, id(data))
    return (type_, type(data), data)


class ArraySignature:
    """Compares constant arrays by dtype, shape and values; hashes a digest."""

    __slots__ = ("_hash", "data", "type")

    def __init__(self, type_: Any, data: Any) -> None:
        self.type = type_
        self.data = data
        self._hash: int | None = None

    def __hash__(self) -> int:
        if self._hash is None:
            d = self.data
            h = hashlib.blake2b(digest_size=8)
            h.update(str((d.dtype.str, d.shape)).encode())
            if d.size <= 1_000_000:
                h.update(d.tobytes() if d.flags.c_contiguous else d.copy().tobytes())
            else:
                h.update(d.ravel()[:: max(1, d.size // 10_000)].tobytes())
            self._hash = hash((self.type, h.digest()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ArraySignature):
            return False
        a, b = self.data, other.data
        if self.type != other.type or a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a is b:
            return True
        if a.dtype.kind in "fc":
            return bool(np.array_equal(a, b, equal_nan=True))
        return bool((a == b).all())


class AtomicVariable(Variable):
    """A Variable that is never computed: no owner, no index (constants, nominals)."""

    __slots__ = ()

    def __init__(self, type: Type, name: str | None = None, **kwargs: Any) -> None:
        Variable.__init__(self, type, None, None, name)

    def signature(self) -> Hashable:
        """What makes two atomic variables interchangeable."""
        raise NotImplementedError(f"{type(self).__name__} must implement signature")

    def merge_signature(self) -> Hashable:
        return self.signature()

    def equals(self, other: object) -> bool:
        """Same class and same signature."""
        return type(self) is type(other) and self.signature() == other.signature()

    @property
    def owner(self) -> None:  # type: ignore[override]
        return None

    @owner.setter
    def owner(self, value: Any) -> None:
        if value is not None:
            raise ValueError(f"{type(self).__name__} {self} cannot have an owner")

    @property
    def index(self) -> None:  # type: ignore[override]
        return None

    @index.setter
    def index(self, value: Any) -> None:
        if value is not None:
            raise ValueError(f"{type(self).__name__} {self} cannot have an index")

    def get_parents(self) -> list:
        return []


_NOMINALS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_NOMINAL_CLASSES: dict[type, type] = {}


def _nominal(id: Hashable, typ: Type, name: str | None = None) -> NominalVariable:
    """Unpickling target: the interned NominalVariable of ``(typ, id)``."""
    return NominalVariable(id, typ, name=name)


class NominalVariable(AtomicVariable):
    """A placeholder input identified by ``(type, id)`` alone, interned.

    ``NominalVariable(0, t)`` called twice returns the same object, so two
    graphs built on nominal inputs share them (inner graphs, frozen graphs).
    The instance is of ``type.variable_type`` too (a TensorType gives a
    TensorVariable with ``ndim``, ``dtype``, ...).
    """

    __slots__ = ("id",)

    def __new__(cls, id: Hashable, typ: Type, **kwargs: Any) -> NominalVariable:
        key = (typ, id)
        found = _NOMINALS.get(key)
        if found is not None:
            return found
        vt = getattr(typ, "variable_type", Variable)
        if cls is NominalVariable and vt is not Variable and not issubclass(vt, cls):
            sub = _NOMINAL_CLASSES.get(vt)
            if sub is None:
                sub = _NOMINAL_CLASSES[vt] = type(f"Nominal{vt.__name__}", (cls, vt), {
                    "__slots__": (), "__module__": __name__,
                })
            cls = sub
        obj = object.__new__(cls)
        obj.id = id
        AtomicVariable.__init__(obj, typ, kwargs.get("name"))
        _NOMINALS[key] = obj
        return obj

    def __init__(self, id: Hashable, typ: Type, name: str | None = None) -> None:
        """Everything is set by ``__new__`` (an interned instance is never re-initialised)."""

    def __reduce__(self) -> tuple:
        return (_nominal, (self.id, self.type, self.name))

    def clone(self, **kwargs: Any) -> NominalVariable:
        return self

    def signature(self) -> tuple[Type, Hashable]:
        return (self.type, self.id)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        return isinstance(other, NominalVariable) and self.signature() == other.signature()

    def __hash__(self) -> int:
        return hash((type(self.type), self.id, self.type))

    def __repr__(self) -> str:
        return f"NominalVariable({self.id}, {self.type!r})"

    def __str__(self) -> str:
        return self.name if self.name is not None else f"*{self.id}-<{self.type}>"


@attrs.define(eq=False, repr=False, init=False, getstate_setstate=False)
class Constant(AtomicVariable):
    """A Variable with a fixed, read-only value; equal constants share a signature."""

    _data: Any

    implicit_input = True

    def __init__(self, type: Type, data: Any, name: str | None = None) -> None:
        Variable.__init__(self, type, None, None, name)
        self._data = _freeze(type.filter(data))

    @property
    def data(self) -> Any:
        return self._data

    @data.setter
    def data(self, value: Any) -> None:
        raise AttributeError(
            f"Constant {self} is read-only: build a new Constant instead of assigning .data"
        )

    @property
    def value(self) -> Any:
        return self._data

    def signature(self) -> Hashable:
        return _signature_of(self.type, self._data)

    def equals(self, other: object) -> bool:
        return isinstance(other, Constant) and self.signature() == other.signature()

    def get_parents(self) -> list:
        return []

    def clone(self, **kwargs: Any) -> Constant:
        """Constants are immutable: the same object, unless a new ``name`` is asked for."""
        name = kwargs.get("name", self.name)
        if name == self.name:
            return self
        cp = type(self).__new__(type(self))
        Variable.__init__(cp, self.type, None, None, name)
        cp._data = self._data
        if self._tag is not None:
            cp._tag = self._tag.copy()
        return cp

    def __str__(self) -> str:
        # PyTensor's form: the value, after the name when there is one ("c{2}").
        text = str(self._data).replace("\n", "")
        if len(text) > 20:
            text = text[:10].strip() + " ... " + text[-10:].strip()
        return text if self.name is None else f"{self.name}{{{text}}}"


def _freeze(data: Any) -> Any:
    """Read-only view of array data; the caller's array is copied, never locked."""
    flags = getattr(data, "flags", None)
    if flags is not None and getattr(flags, "writeable", False):
        try:
            data = data.copy()
            data.flags.writeable = False
        except (AttributeError, ValueError):
            pass
    return data


@attrs.define(eq=False, repr=False, init=False)
class Apply(Node):
    """One application of an Op to input Variables, producing output Variables."""

    op: Op
    inputs: list[Variable]
    outputs: list[Variable]
    _tag: Scratchpad | None

    def __init__(self, op: Op, inputs: Sequence[Variable], outputs: Sequence[Variable]) -> None:
        # The hot path of graph building: one pass per list when everything is
        # well formed; the detailed checks run only to explain a failure.
        if not isinstance(inputs, list | tuple) or not isinstance(outputs, list | tuple):
            self._reject(op, inputs, outputs)
        inputs = list(inputs)
        outputs = list(outputs)
        for x in inputs:
            if not isinstance(x, Variable):
                self._reject(op, inputs, outputs)
        for o in outputs:
            if not isinstance(o, Variable) or o.owner is not None:
                self._check_outputs(op, outputs)
                break
        self.op = op
        self.inputs = inputs
        self.outputs = outputs
        self._tag = None
        i = 0
        for o in outputs:
            o.owner = self
            o.index = i
            i += 1

    def _reject(self, op: Op, inputs: Any, outputs: Any) -> None:
        """Raise the TypeError that names the malformed inputs or outputs."""
        for what, seq in (("inputs", inputs), ("outputs", outputs)):
            if not isinstance(seq, list | tuple):
                raise TypeError(
                    f"Apply of {op}: {what} must be a list or tuple of Variables, "
                    f"got {type_name(seq)}"
                )
        for i, x in enumerate(inputs):
            if not isinstance(x, Variable):
                raise TypeError(
                    f"Apply of {op}: input {i} must be a Variable, "
                    f"got {type_name(x)} {x!r:.80}"
                )

    def _check_outputs(self, op: Op, outputs: list) -> None:
        """Raise unless every output is a Variable free to be owned by this node."""
        for i, o in enumerate(outputs):
            if not isinstance(o, Variable):
                raise TypeError(
                    f"Apply of {op}: output {i} must be a Variable, "
                    f"got {type_name(o)} {o!r:.80}"
                )
            if o.owner is not None and (o.owner is not self or o.index != i):
                raise ValueError(
                    f"Apply of {op}: output {i} ({o}) already belongs to another Apply "
                    f"({o.owner.op}); outputs must be fresh Variables"
                )

    def default_output(self) -> Variable:
        """The output ``op(...)`` returns: ``op.default_output``, or the only one."""
        do = getattr(self.op, "default_output", None)
        if do is None:
            if len(self.outputs) == 1:
                return self.outputs[0]
            raise ValueError(
                f"{self.op} has {len(self.outputs)} outputs and no default_output; "
                "pick one with node.outputs[i]"
            )
        if not isinstance(do, int):
            raise TypeError(
                f"{self.op}.default_output must be an int index into {len(self.outputs)} "
                f"outputs, got {do!r}"
            )
        if not -len(self.outputs) <= do < len(self.outputs):
            raise IndexError(
                f"{self.op}.default_output {do} is out of range for {len(self.outputs)} "
                "output(s)"
            )
        return self.outputs[do]

    @property
    def out(self) -> Variable:
        return self.default_output()

    @property
    def nin(self) -> int:
        return len(self.inputs)

    @property
    def nout(self) -> int:
        return len(self.outputs)

    @property
    def params_type(self) -> Any:
        return getattr(self.op, "params_type", None)

    def get_parents(self) -> list[Variable]:
        return list(self.inputs)

    def clone(self, clone_inner_graph: bool = False) -> Apply:
        """Same op and inputs, fresh outputs."""
        op = self.op
        if clone_inner_graph and hasattr(op, "clone") and hasattr(op, "inner_outputs"):
            op = op.clone()
        cp = Apply(op, self.inputs, [o.clone() for o in self.outputs])
        if self._tag is not None:
            cp._tag = self._tag.copy()
        return cp

    def clone_with_new_inputs(
        self, inputs: Sequence[Variable], strict: bool = True, clone_inner_graph: bool = False
    ) -> Apply:
        """This node applied to ``inputs``; remade through make_node if types change."""
        if len(inputs) != len(self.inputs):
            raise ValueError(
                f"clone_with_new_inputs of {self.op}: expected {len(self.inputs)} inputs, "
                f"got {len(inputs)}"
            )
        new_inputs = list(inputs)
        remake = False
        # Ops whose output types read input *values* (Alloc, Reshape, SpecifyShape) are
        # remade on any new input, as in PyTensor.
        by_value = getattr(self.op, "_output_type_depends_on_input_value", False)
        for i, (cur, new) in enumerate(zip(self.inputs, new_inputs)):
            if cur.type != new.type or (by_value and cur is not new):
                if strict:
                    conv = cur.type.filter_variable(new)
                    new_inputs[i] = conv
                    if conv.type != cur.type:
                        remake = True
                else:
                    remake = True
        if remake:
            node = self.op.make_node(*new_inputs)
            if self._tag is not None:
                node._tag = self._tag.copy().update(node.tag)
            return node
        node = self.clone(clone_inner_graph=clone_inner_graph)
        node.inputs = new_inputs
        return node

    def __str__(self) -> str:
        ins = ", ".join(str(i) for i in self.inputs)
        return f"{self.op}({ins})"

    def __repr__(self) -> str:
        return str(self)


_FROZEN_NODES: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def _frozen_input_key(var: Variable) -> Hashable:
    """Constants key by value (equal constants intern together), others by identity."""
    if isinstance(var, Constant):
        return ("constant", var.signature())
    return var


class FrozenApply(Apply):
    """An immutable, interned Apply: one object per ``(op, inputs, output types)``.

    Built on NominalVariables (and other frozen nodes' outputs), equal
    subgraphs are the same objects, so frozen graphs compare and hash
    cheaply. ``inputs`` and ``outputs`` are tuples.
    """

    __slots__ = ()

    def __new__(
        cls, op: Op, inputs: Sequence[Variable], output_types: Sequence[Type]
    ) -> FrozenApply:
        inputs = tuple(inputs)
        output_types = tuple(output_types)
        key = (op, tuple(_frozen_input_key(x) for x in inputs), output_types)
        found = _FROZEN_NODES.get(key)
        if found is not None:
            return found
        node = object.__new__(cls)
        Apply.__init__(node, op, inputs, [t.make_variable() for t in output_types])
        node.inputs = inputs  # type: ignore[assignment]
        node.outputs = tuple(node.outputs)  # type: ignore[assignment]
        _FROZEN_NODES[key] = node
        return node

    def __init__(self, op: Op, inputs: Sequence[Variable], output_types: Sequence[Type]) -> None:
        """Everything is set by ``__new__`` (an interned node is never re-initialised)."""

    def __reduce__(self) -> tuple:
        return (FrozenApply, (self.op, self.inputs, tuple(o.type for o in self.outputs)))

    def clone(self, clone_inner_graph: bool = False) -> FrozenApply:
        return self

    def clone_with_new_inputs(
        self, inputs: Sequence[Variable], strict: bool = True, clone_inner_graph: bool = False
    ) -> Apply:
        """A mutable Apply of the same op on ``inputs`` (this node stays untouched)."""
        plain = Apply(self.op, list(self.inputs), [o.type.make_variable() for o in self.outputs])
        return plain.clone_with_new_inputs(inputs, strict, clone_inner_graph)


def _frozen_output(node: FrozenApply, index: int) -> Variable:
    """Unpickling target of a FrozenApply's output."""
    return node.outputs[index]



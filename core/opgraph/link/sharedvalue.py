"""Shared variables: symbolic inputs that carry their own value between calls.

Every compiled function that uses a SharedVariable reads its value straight
from the variable's storage cell (no copy per call), and writes updates back
into that same cell after the call.  ``shared(value)`` picks a constructor by
value type from a table the libraries fill: the tensor library registers the
one for arrays and numbers (tensor/sharedvar.py), the random module the one
for generators.  This module sits in the link layer (a Variable with a storage
Container), below the libraries; ``opgraph.compile.sharedvalue`` is PyTensor's
path for the same names.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable, Iterator
from typing import Any

from opgraph.graph.basic import Variable
from opgraph.graph.table import NameTable
from opgraph.graph.type import Type
from opgraph.graph.utils import type_name
from opgraph.link.basic import Container
from opgraph.link.c.type import Generic, generic
from opgraph.plugins.records import load_target

__all__ = [
    "SHARED_CONSTRUCTORS",
    "Container",
    "GenericType",
    "SharedVariable",
    "collect_new_shareds",
    "generic_type",
    "shared",
    "shared_constructor",
]


class SharedVariable(Variable):
    """A Variable whose value lives in ``container`` and persists across calls.

    ``get_value``/``set_value`` copy by default; ``borrow=True`` hands over
    the internal object (faster, but later changes on either side show up on
    the other).  ``default_update`` is applied by ``function()`` unless
    ``no_default_updates`` says otherwise.
    """

    implicit_input = True  # carries its value: not an explicit graph input

    __slots__ = ("container", "default_update")

    def __init__(
        self,
        type: Type,
        value: Any,
        strict: bool = False,
        allow_downcast: bool | None = None,
        container: Container | None = None,
        name: str | None = None,
    ) -> None:
        Variable.__init__(self, type, None, None, name)
        self.default_update: Variable | None = None
        if container is not None:
            self.container = container
            return
        try:
            data = type.filter(value, strict=strict, allow_downcast=allow_downcast)
        except (TypeError, ValueError) as exc:
            label = f" {name!r}" if name else ""
            raise type_error_like(exc)(
                f"cannot make shared variable{label} of type {type} from "
                f"{type_name(value)}: {exc}"
            ) from None
        self.container = Container(type, [data], name, strict, allow_downcast)

    def __getstate__(self) -> dict[str, Any]:
        # The attrs base pickles its own fields only; add this class's slots.
        state = dict(super().__getstate__())
        state["container"] = self.container
        state["default_update"] = self.default_update
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        container = state.pop("container")
        default_update = state.pop("default_update", None)
        super().__setstate__(state)
        self.container = container
        self.default_update = default_update

    def get_value(self, borrow: bool = False, return_internal_type: bool = False) -> Any:
        """The current value (a copy unless ``borrow``)."""
        value = self.container.storage[0]
        return value if borrow else copy.deepcopy(value)

    def set_value(self, new_value: Any, borrow: bool = False) -> None:
        """Replace the value; it is filtered first so a bad value changes nothing."""
        if isinstance(new_value, Variable):
            raise TypeError(
                f"set_value of shared variable {self.name!r} expects a value, got the "
                f"symbolic Variable {new_value}; use updates=... in function() instead"
            )
        if not borrow:
            new_value = copy.deepcopy(new_value)
        try:
            data = self.container.filter(new_value)
        except (TypeError, ValueError) as exc:
            raise type_error_like(exc)(
                f"set_value of shared variable {self.name!r} ({self.type}): {exc}"
            ) from None
        self.container.storage[0] = data

    def zero(self, borrow: bool = False) -> None:
        """Set the value to zeros of the same shape (arrays) or ``0``."""
        value = self.container.storage[0]
        zeros = value * 0 if borrow else copy.deepcopy(value) * 0
        self.container.storage[0] = self.container.filter(zeros)

    @property
    def value(self) -> Any:
        """The internal value (no copy); read-only shortcut."""
        return self.container.storage[0]

    def clone(self, **kwargs: Any) -> SharedVariable:
        """A new Variable of the same type sharing this one's container."""
        cp = type(self).__new__(type(self))
        Variable.__init__(cp, self.type, None, None, kwargs.get("name", self.name))
        cp.container = self.container
        cp.default_update = self.default_update
        if self._tag is not None:
            cp._tag = self._tag.copy()
        return cp

    def __str__(self) -> str:
        return self.name if self.name is not None else f"<{self.type}> shared"


def type_error_like(exc: BaseException) -> type[Exception]:
    """The class to re-raise a failed conversion as: TypeError/ValueError and opgraph's
    own subclasses of them keep their class (an out-of-range int stays an
    OverflowError too); anything else reports as TypeError or ValueError."""
    cls = type(exc)
    if cls in (TypeError, ValueError) or (
        issubclass(cls, TypeError | ValueError) and cls.__module__.startswith("opgraph")
    ):
        return cls
    return ValueError if isinstance(exc, ValueError) else TypeError


GenericType = Generic
generic_type = generic


# -- constructor registry ----------------------------------------------------------------

Constructor = Callable[..., SharedVariable]
SHARED_CONSTRUCTORS: NameTable[Constructor | str] = NameTable(
    "shared_constructors", "what shared() tries, newest first (a constructor raises "
    "TypeError for a value it does not take)")
"""Constructors by qualified name (a plugin may register an import string), in order."""


def _constructor_key(ctor: Constructor | str) -> str:
    if isinstance(ctor, str):
        return ctor
    return f"{getattr(ctor, '__module__', '?')}:{getattr(ctor, '__qualname__', repr(ctor))}"


def shared_constructor(ctor: Constructor | str, remove: bool = False) -> Constructor | str:
    """Register (or remove) a constructor tried by :func:`shared`, newest first.

    A constructor takes ``(value, name=None, strict=False, allow_downcast=None,
    borrow=False, **kwargs)`` and raises TypeError for values it does not handle.
    """
    key = _constructor_key(ctor)
    if remove:
        if key not in SHARED_CONSTRUCTORS:
            raise ValueError(f"shared_constructor: {key} is not registered")
        del SHARED_CONSTRUCTORS[key]
    else:
        SHARED_CONSTRUCTORS.register(key, ctor, stacklevel=2)
    return ctor


def _resolve(ctor: Constructor | str) -> Constructor:
    if isinstance(ctor, str):
        return load_target(ctor)
    return ctor


def shared(
    value: Any,
    name: str | None = None,
    strict: bool = False,
    allow_downcast: bool | None = None,
    **kwargs: Any,
) -> SharedVariable:
    """A SharedVariable holding ``value`` (copied unless ``borrow=True``).

    ndarray, NumPy scalars and Python numbers give a TensorSharedVariable
    (usable in tensor expressions); other objects a generic SharedVariable.
    """
    if isinstance(value, Variable):
        raise TypeError(
            f"shared() expects a value, got the symbolic Variable {value}; shared variables "
            "hold data (to share a computation, compile it with function())"
        )
    if name is not None and not isinstance(name, str):
        raise TypeError(f"shared(): name must be a str, got {type_name(name)}")
    errors: list[str] = []
    for ctor in list(SHARED_CONSTRUCTORS.values()):  # loading one may register more
        _resolve(ctor)
    for ctor in reversed(list(SHARED_CONSTRUCTORS.values())):
        try:
            var = _resolve(ctor)(
                value, name=name, strict=strict, allow_downcast=allow_downcast, **kwargs
            )
        except TypeError as exc:
            errors.append(str(exc))
            continue
        var.tag.is_shared = True
        return _collected(var)
    if kwargs.keys() - {"borrow"}:
        raise TypeError(
            f"shared(): no constructor accepts {type_name(value)} with keywords "
            f"{sorted(kwargs)}; tried: {'; '.join(errors)}"
        )
    borrow = kwargs.get("borrow", False)
    data = value if borrow else copy.deepcopy(value)
    var = SharedVariable(generic_type, data, strict, allow_downcast, name=name)
    var.tag.is_shared = True
    return _collected(var)


#: the lists of the open ``collect_new_shareds`` blocks (innermost last)
_COLLECTING: list[list[SharedVariable]] = []


def _collected(var: SharedVariable) -> SharedVariable:
    if _COLLECTING:
        _COLLECTING[-1].append(var)
    return var


@contextlib.contextmanager
def collect_new_shareds() -> Iterator[list[SharedVariable]]:
    """``with collect_new_shareds() as new:`` -- ``new`` lists the shared variables
    ``shared()`` creates inside the block (an inner block collects its own)."""
    collected: list[SharedVariable] = []
    _COLLECTING.append(collected)
    try:
        yield collected
    finally:
        _COLLECTING.pop()

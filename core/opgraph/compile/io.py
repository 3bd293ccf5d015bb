"""How function() inputs and outputs are declared: ``In`` and ``Out``.

``In`` adds a name, a default value, an update and memory flags to a symbolic
input; ``Out`` says whether the caller may receive memory the function keeps
(``borrow``).  Plain Variables are wrapped with the defaults.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Constant, Variable
from opgraph.graph.utils import type_name
from opgraph.link.sharedvalue import SharedVariable

__all__ = ["In", "Out", "SymbolicInput", "SymbolicOutput", "wrap_in", "wrap_out"]

_NO_VALUE = None


class SymbolicInput:
    """A function input: the variable and how the function treats its value.

    ``mutable``: the function may overwrite the caller's array in place.
    ``borrow``: returned outputs may share memory with this input.
    ``update``: expression whose value replaces this input's stored value
    (its default, or the shared variable's value) after each call.
    ``implicit``: not a positional argument (shared variables).
    """

    def __init__(
        self,
        variable: Variable,
        name: str | None = None,
        update: Variable | None = None,
        mutable: bool = False,
        strict: bool = False,
        allow_downcast: bool | None = None,
        autoname: bool = True,
        implicit: bool = False,
    ) -> None:
        if not isinstance(variable, Variable):
            raise TypeError(
                f"In(): expected a symbolic Variable, got {type_name(variable)} {variable!r:.60}"
            )
        if name is not None and not isinstance(name, str):
            raise TypeError(f"In(): name must be a str, got {type_name(name)}")
        if update is not None and not isinstance(update, Variable):
            raise TypeError(f"In(): update must be a symbolic Variable, got {type_name(update)}")
        if update is not None:
            try:
                variable.type.filter_variable(update, allow_convert=True)
            except (TypeError, ValueError) as exc:
                raise TypeError(
                    f"In({variable}): the update {update} has type {update.type}, which does "
                    f"not fit the input's type {variable.type}: {exc}"
                ) from None
        self.variable = variable
        self.name = variable.name if (autoname and name is None) else name
        self.update = update
        self.mutable = bool(mutable)
        self.strict = bool(strict)
        self.allow_downcast = allow_downcast
        self.implicit = bool(implicit)

    def __repr__(self) -> str:
        return f"In({self.variable}, name={self.name!r})"


class In(SymbolicInput):
    """A function input with optional default ``value`` (PyTensor's ``In``)."""

    def __init__(
        self,
        variable: Variable,
        name: str | None = None,
        value: Any = _NO_VALUE,
        update: Variable | None = None,
        mutable: bool | None = None,
        strict: bool = False,
        allow_downcast: bool | None = None,
        autoname: bool = True,
        implicit: bool | None = None,
        borrow: bool | None = None,
        shared: bool = False,
    ) -> None:
        is_shared = isinstance(variable, SharedVariable)
        if implicit is None:
            implicit = is_shared
        if mutable is None:
            mutable = False
        if borrow is None:
            borrow = mutable
        if mutable and not borrow:
            raise ValueError(
                f"In({variable}): mutable=True requires borrow=True (a mutable input may be "
                "both aliased and overwritten by the function)"
            )
        super().__init__(
            variable, name, update, mutable, strict, allow_downcast, autoname, implicit
        )
        self.value = value
        self.borrow = bool(borrow)
        self.shared = shared or is_shared
        if implicit and not is_shared and value is _NO_VALUE:
            raise TypeError(
                f"In({variable}): implicit=True needs a default value or a shared variable"
            )

    @property
    def has_default(self) -> bool:
        return self.value is not _NO_VALUE or isinstance(self.variable, SharedVariable)


class SymbolicOutput:
    """A function output; ``borrow=True`` lets it share memory the function keeps."""

    def __init__(self, variable: Variable, borrow: bool = False) -> None:
        if not isinstance(variable, Variable):
            raise TypeError(
                f"Out(): expected a symbolic Variable, got {type_name(variable)} {variable!r:.60}"
            )
        self.variable = variable
        self.borrow = bool(borrow)

    def __repr__(self) -> str:
        return f"Out({self.variable}, borrow={self.borrow})"


class Out(SymbolicOutput):
    """PyTensor's ``Out(variable, borrow=False)``."""


def wrap_in(item: Any, position: int) -> In:
    """``item`` as an :class:`In` (Variables and In pass through)."""
    if isinstance(item, In):
        return item
    if isinstance(item, SymbolicInput):
        return In(item.variable, name=item.name, update=item.update, mutable=item.mutable,
                  strict=item.strict, allow_downcast=item.allow_downcast,
                  implicit=item.implicit, borrow=item.mutable)
    if isinstance(item, Variable):
        if isinstance(item, SharedVariable):
            raise TypeError(
                f"Cannot use a shared variable ({item}) as explicit input of function() "
                f"(input {position}): shared variables are implicit inputs, leave them out "
                "of the inputs list (or use givens= to substitute one)"
            )
        if isinstance(item, Constant):
            raise TypeError(
                f"function(): input {position} is a constant ({item}); constants are not "
                "allowed in the inputs list (as in PyTensor): an input is a value the caller "
                "passes, so use a variable (e.g. pt.dvector()) or leave the constant out"
            )
        return In(item)
    raise TypeError(
        f"function(): input {position} must be a symbolic Variable or In(...), "
        f"got {type_name(item)} {item!r:.60}"
    )


def wrap_out(item: Any, position: int) -> Out:
    """``item`` as an :class:`Out`: a Variable or an Out, as PyTensor requires (a plain
    value such as a NumPy array is refused: wrap it with ``pt.constant`` to return it)."""
    if isinstance(item, SymbolicOutput):
        return item if isinstance(item, Out) else Out(item.variable, item.borrow)
    if isinstance(item, Variable):
        return Out(item)
    raise TypeError(
        f"function(): output {position} must be a symbolic Variable or Out(...), got "
        f"{type_name(item)} {item!r:.60}; to return a fixed value, pass pt.constant(value)"
    )

"""The Type contract: static knowledge about the values a Variable may hold.

Concrete Types are ``attrs.frozen`` classes whose fields are their parameters, so
two Types with the same parameters compare and hash equal.
"""

from __future__ import annotations

from abc import ABC
from types import GenericAlias
from typing import Any, TypeVar

import attrs

from opgraph.graph.basic import Constant, Variable
from opgraph.graph.utils import type_name

__all__ = ["HasDataType", "HasShape", "Type"]


class Type:
    """Base of all Types; subclasses implement ``filter`` at least."""

    __slots__ = ()

    #: Class used by ``make_variable`` / ``__call__``.
    variable_type: type[Variable] = Variable
    #: Class used by ``make_constant``.
    constant_type: type[Constant] = Constant

    #: ``Type[np.ndarray]`` in annotations, as PyTensor's generic Type allows.
    __class_getitem__: Any = classmethod(GenericAlias)

    # -- values -----------------------------------------------------------------
    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        """Return ``data`` as a valid value of this Type, or raise TypeError.

        ``strict`` refuses any conversion; ``allow_downcast`` permits lossy ones.
        """
        raise NotImplementedError(f"{type(self).__name__}.filter is not implemented")

    def filter_inplace(
        self, value: Any, storage: Any, strict: bool = False, allow_downcast: bool | None = None
    ) -> Any:
        """Like ``filter`` but may write into ``storage``; defaults to ``filter``."""
        return self.filter(value, strict=strict, allow_downcast=allow_downcast)

    def is_valid_value(self, data: Any, strict: bool = True) -> bool:
        try:
            self.filter(data, strict=strict)
            return True
        except (TypeError, ValueError):
            return False

    def values_eq(self, a: Any, b: Any) -> bool:
        return bool(a == b)

    def values_eq_approx(self, a: Any, b: Any) -> bool:
        return self.values_eq(a, b)

    @staticmethod
    def may_share_memory(a: Any, b: Any) -> bool:
        return a is b

    # -- variables ----------------------------------------------------------------
    def filter_variable(self, other: Any, allow_convert: bool = True) -> Variable:
        """Return ``other`` as a Variable of this Type, converting when allowed."""
        if not isinstance(other, Variable):
            other = self.make_constant(other)
        if other.type == self:
            return other
        if allow_convert:
            try:
                converted = self.convert_variable(other)
            except NotImplementedError:  # this Type knows no conversion
                converted = None
            if converted is not None:
                return converted
        raise TypeError(
            f"Cannot convert Type {other.type} (of Variable {other}) into Type {self}. "
            f"You can try to manually convert {other} into a {self}."
        )

    def convert_variable(self, var: Variable) -> Variable | None:
        """A Variable compatible with both this Type and ``var.type``, or None.

        ``var`` itself when its type is at least as specific as this one; a Type
        that can convert a less specific variable overrides this (the default
        raises NotImplementedError in that case, as PyTensor's does).
        """
        if self.is_super(var.type):
            return var
        if var.type.is_super(self):
            raise NotImplementedError(
                f"{type(self).__name__} cannot convert {var} of the less specific type "
                f"{var.type} into {self}"
            )
        return None

    def is_super(self, otype: Type) -> bool | None:
        """True when every value of ``otype`` is also a value of this Type.

        None when the relation is unknown (the default for different Types).
        """
        if self == otype:
            return True
        return None

    def in_same_class(self, otype: Type) -> bool | None:
        """True when ``otype`` is a refinement of this Type (same kind of values)."""
        return self == otype

    def make_variable(self, name: str | None = None) -> Variable:
        return self.variable_type(self, None, None, name)

    def make_constant(self, value: Any, name: str | None = None) -> Constant:
        return self.constant_type(type=self, data=value, name=name)

    def __call__(self, name: str | None = None) -> Variable:
        """A new Variable of this Type (``TensorType(...)('x')``)."""
        if name is not None and not isinstance(name, str):
            raise TypeError(f"{self}: a variable name must be a str, got {type_name(name)}")
        return self.make_variable(name)

    def clone(self, *args: Any, **kwargs: Any) -> Type:
        """A copy with some parameters changed.

        attrs Types take field names; other Types are rebuilt with
        ``type(self)(*args, **kwargs)`` (PyTensor's default).
        """
        if attrs.has(type(self)) and not args:
            return attrs.evolve(self, **kwargs)  # type: ignore[misc]  # attrs.has checked it
        if args or kwargs:
            return type(self)(*args, **kwargs)
        return self

    # -- shapes (used by memory estimates and the ShapeFeature) --------------------
    def get_shape_info(self, obj: Any) -> Any:
        return getattr(obj, "shape", None)

    def get_size(self, shape_info: Any) -> int:
        raise NotImplementedError


class HasDataType(ABC):
    """Marks a Type whose values have a NumPy ``dtype`` attribute (tensors, scalars)."""

    __slots__ = ()
    dtype: str


class HasShape(ABC):
    """Marks a Type with a static ``shape`` and ``ndim`` (tensors: None for an unknown length)."""

    __slots__ = ()
    ndim: int
    shape: tuple[int | None, ...]


D = TypeVar("D")  # PyTensor's annotation alias: a Type's data

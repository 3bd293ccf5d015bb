"""TensorSharedVariable and the constructors ``shared()`` uses for arrays and numbers.

PyTensor's ``pytensor.tensor.sharedvar`` path.  Importing it registers the
constructors in ``shared()``'s table (link/sharedvalue.py), which lies below
the tensor library; ``opgraph.compile.sharedvalue`` imports this module so
``opgraph.shared(array)`` always finds them.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from opgraph.link.sharedvalue import SharedVariable, shared, shared_constructor
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import TensorVariable

__all__ = [
    "SharedVariable",
    "TensorSharedVariable",
    "scalar_constructor",
    "shared",
    "tensor_constructor",
]


class TensorSharedVariable(SharedVariable, TensorVariable):
    """A shared NumPy array: usable in tensor expressions like any TensorVariable."""

    __slots__ = ()

    def zero(self, borrow: bool = False) -> None:
        """Set the value to zeros; with ``borrow`` the current array is zeroed in place."""
        value = self.container.storage[0]
        if borrow and isinstance(value, np.ndarray) and value.flags.writeable:
            value[...] = 0
        else:
            self.container.storage[0] = self.container.filter(np.zeros_like(value))


def tensor_constructor(
    value: Any,
    name: str | None = None,
    strict: bool = False,
    allow_downcast: bool | None = None,
    borrow: bool = False,
    shape: tuple[int | None, ...] | None = None,
    target: str = "cpu",
    broadcastable: tuple[bool, ...] | None = None,
) -> TensorSharedVariable:
    """Shared ndarray; its static shape is unknown (``set_value`` may change it)
    unless ``shape``/``broadcastable`` fixes some lengths."""
    if isinstance(value, np.ma.MaskedArray):
        raise NotImplementedError("shared(): MaskedArrays are not supported (pass value.filled() "
                                  "or the data and the mask as two arrays)")
    if not isinstance(value, np.ndarray):
        raise TypeError(f"tensor_constructor expects an ndarray, got {type(value).__name__}")
    if target != "cpu":
        raise TypeError(f"tensor_constructor only supports target='cpu', got {target!r}")
    if broadcastable is not None:
        if shape is not None:
            raise TypeError("shared(): pass shape= or broadcastable=, not both")
        shape = tuple(1 if b else None for b in broadcastable)
    if shape is None:
        shape = (None,) * value.ndim
    ttype = TensorType(dtype=value.dtype, shape=shape)
    data = value if borrow else value.copy()
    return TensorSharedVariable(ttype, data, strict, allow_downcast, name=name)


def scalar_constructor(
    value: Any,
    name: str | None = None,
    strict: bool = False,
    allow_downcast: bool | None = None,
    borrow: bool = False,
    dtype: str | None = None,
    target: str = "cpu",
) -> TensorSharedVariable:
    """Shared 0-d array from a Python or NumPy number (``shared(0.5)``)."""
    if not isinstance(value, numbers.Number | np.generic) or isinstance(value, np.ndarray):
        raise TypeError(f"scalar_constructor expects a number, got {type(value).__name__}")
    if target != "cpu":
        raise TypeError(f"scalar_constructor only supports target='cpu', got {target!r}")
    data = np.array(value, dtype=dtype)
    ttype = TensorType(dtype=data.dtype, shape=())
    return TensorSharedVariable(ttype, data, strict, allow_downcast, name=name)


# Tried newest first: a number is not an ndarray, so the order between these two is free.
shared_constructor(tensor_constructor)
shared_constructor(scalar_constructor)


def load_shared_variable(val: Any) -> TensorSharedVariable:
    """A tensor shared variable holding ``val`` (the name old pickles call)."""
    return tensor_constructor(val)

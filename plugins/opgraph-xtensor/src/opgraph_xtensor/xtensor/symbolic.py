"""``as_symbolic(DataArray)`` gives an XTensorConstant (PyTensor's ``pytensor.basic``).

The package never imports xarray: DataArrays are recognised by duck type
(an ABC whose subclass hook asks for ``dims``, ``values`` and ``coords``),
which ``functools.singledispatch`` honours.
"""

from __future__ import annotations

import abc
from typing import Any

from opgraph.basic import as_symbolic_dispatch
from opgraph_xtensor.xtensor.type import XTensorConstant, xtensor_constant

__all__ = ["DataArrayLike"]


class DataArrayLike(abc.ABC):  # noqa: B024  (an ABC only for its subclass hook)
    """Any class shaped like ``xarray.DataArray`` (``dims``, ``values``, ``coords``)."""

    @classmethod
    def __subclasshook__(cls, other: type) -> bool:
        if all(hasattr(other, a) for a in ("dims", "values", "coords")):
            return True
        return NotImplemented


def _dataarray_to_symbolic(x: Any, **kwargs: Any) -> XTensorConstant:
    return xtensor_constant(x, **kwargs)


as_symbolic_dispatch.register(DataArrayLike)(_dataarray_to_symbolic)

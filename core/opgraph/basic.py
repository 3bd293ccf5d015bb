"""PyTensor's ``pytensor.basic``: ``as_symbolic``, the conversion of any object to a Variable.

``as_tensor_variable`` converts to tensors only; ``as_symbolic`` is the
extensible front door libraries register their own types with
(``_as_symbolic.register(str)`` in PyMC makes dimension names symbolic).
"""

from __future__ import annotations

from functools import singledispatch
from typing import Any

from opgraph.graph.basic import Variable
from opgraph.tensor.variable import as_tensor_variable

__all__ = ["_as_symbolic", "as_symbolic", "as_symbolic_dispatch"]


def as_symbolic(x: Any, name: str | None = None, **kwargs: Any) -> Variable:
    """``x`` as a Variable: Variables pass through, anything else goes to :func:`_as_symbolic`.

    ``name`` names the new Variable; ``kwargs`` go to the converter (``ndim``,
    ``dtype`` for arrays and numbers).
    """
    if isinstance(x, Variable):
        return x
    result = _as_symbolic(x, **kwargs)
    result.name = name
    return result


@singledispatch
def _as_symbolic(x: Any, **kwargs: Any) -> Variable:
    """The converter per type of ``x``; the default makes a tensor (``as_tensor_variable``)."""
    return as_tensor_variable(x, **kwargs)


# The public name plugins register their own types with (PyTensor spells it privately).
as_symbolic_dispatch = _as_symbolic

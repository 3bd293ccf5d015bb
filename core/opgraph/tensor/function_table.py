"""The table of tensor functions that lower tensor modules call by name.

``TensorType`` (``opgraph.tensor.type``) converts values with
``as_tensor_variable``; the operators and methods of ``TensorVariable``
(``opgraph.tensor.variable``) build graphs with ``add``, ``get_item``,
``reshape``...; Elemwise's gradients sum with ``sum``.  Those functions are
defined in modules built on top of these ones, so this module, below all of
them, owns the table, and one module at the top of the package,
:mod:`opgraph.tensor.operators`, fills it with an explicit name -> function
list.  A name not listed resolves only if a plugin serves it on
``opgraph.tensor`` (the faces), else it is an AttributeError.
"""

from __future__ import annotations

from typing import Any

from opgraph import faces
from opgraph.graph.function_table import FunctionTable

__all__ = ["TENSOR_FUNCTIONS", "register_tensor_functions"]



def _plugin_name(name: str) -> Any:
    """A name a plugin serves on ``opgraph.tensor`` (``erf`` for ``scipy.special.erf(x)``)."""
    return faces.provided_name("opgraph.tensor", name)


TENSOR_FUNCTIONS = FunctionTable("opgraph.tensor", fallback=_plugin_name)


def register_tensor_functions(*namespaces: Any, **functions: Any) -> None:
    """Make ``functions`` (and every public name of ``namespaces``) the ones the
    tensor operators and methods call: ``x[i]`` calls the registered ``get_item``,
    ``x + y`` the registered ``add``...  The core's own are listed in
    :mod:`opgraph.tensor.operators`; this stays for code that adds or replaces one.
    """
    TENSOR_FUNCTIONS.register(*namespaces, **functions)

"""The table of tensor functions that lower tensor modules call by name.

``TensorType`` (``opgraph.tensor.type``) converts values with
``as_tensor_variable`` and narrows types with ``specify_shape``; the operators
and methods of ``TensorVariable`` (``opgraph.tensor.variable``) build graphs
with ``add``, ``get_item``, ``reshape``...; Elemwise's gradients sum with
``sum``.  Those functions are defined in modules built on top of these ones, so
this module, below all of them, owns the table and each defining module fills
it at import (``register_tensor_functions``).  ``opgraph.tensor.math``
registers its whole namespace, so a NumPy ufunc name (``np.exp(x)``) resolves
there, lazy and plugin-provided names included.  Importing any
``opgraph.tensor`` module imports the package, which imports every filler.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.function_table import FunctionTable

__all__ = ["TENSOR_FUNCTIONS", "register_tensor_functions"]

TENSOR_FUNCTIONS = FunctionTable("opgraph.tensor")


def register_tensor_functions(*namespaces: Any, **functions: Any) -> None:
    """Make ``functions`` (and every public name of ``namespaces``) the ones the
    tensor operators and methods call: ``x[i]`` calls the registered ``get_item``,
    ``x + y`` the registered ``add``...  Called at import by the defining modules.
    """
    TENSOR_FUNCTIONS.register(*namespaces, **functions)

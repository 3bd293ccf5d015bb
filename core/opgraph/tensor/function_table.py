"""The table of tensor functions that lower tensor modules call by name.

``TensorType`` (``opgraph.tensor.type``) converts values with
``as_tensor_variable`` and narrows types with ``specify_shape``; the operators
and methods of ``TensorVariable`` (``opgraph.tensor.variable``) build graphs
with ``add``, ``get_item``, ``reshape``...; Elemwise's gradients sum with
``sum``.  Those functions are defined in modules built on top of these ones, so
this module, below all of them, owns the table and each defining module fills
it at import (``register_tensor_functions``), the way a lower layer owns a
per-op table that the layer defining the ops fills.  Importing any
``opgraph.tensor`` module imports the package, which imports every filler.
"""

from __future__ import annotations

from typing import Any

__all__ = ["TENSOR_FUNCTIONS", "register_tensor_functions"]


class _TensorFunctions:
    """The registered tensor functions, looked up by name (``TENSOR_FUNCTIONS.add``).

    They are defined in modules built on this one (``ufuncs``, ``math``, ``shape``,
    ``subtensor``...), which register them at import with
    :func:`register_tensor_functions`: a lower module owns the table, the module
    that defines a function fills it.  ``opgraph.tensor.math`` registers its whole
    namespace, so a NumPy ufunc name (``np.exp(x)``) resolves there, lazy and
    plugin-provided names included.
    """

    __slots__ = ("functions", "namespaces")

    def __init__(self) -> None:
        self.functions: dict[str, Any] = {}
        self.namespaces: list[Any] = []

    def __getattr__(self, name: str) -> Any:
        try:
            return self.functions[name]
        except KeyError:
            pass
        for namespace in self.namespaces:
            try:
                return getattr(namespace, name)
            except AttributeError:
                continue
        raise AttributeError(
            f"no tensor function {name!r} is registered (they are registered when "
            "opgraph.tensor is imported)"
        )


TENSOR_FUNCTIONS = _TensorFunctions()


def register_tensor_functions(*namespaces: Any, **functions: Any) -> None:
    """Make ``functions`` (and every public name of ``namespaces``) the ones the
    tensor operators and methods call: ``x[i]`` calls the registered ``get_item``,
    ``x + y`` the registered ``add``...  Called at import by the defining modules.
    """
    TENSOR_FUNCTIONS.functions.update(functions)
    known = TENSOR_FUNCTIONS.namespaces
    known.extend(n for n in namespaces if n not in known)

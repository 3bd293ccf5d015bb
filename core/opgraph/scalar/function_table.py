"""The table of scalar ops that lower scalar modules call by name.

``ScalarVariable``'s operators (``opgraph.scalar.type``), the gradient helpers
(``gradhelpers``: ``add``, ``mul``, ``second``, ``cast``) and ``pow``'s
gradient (``log``) use ops defined in modules built on top of them, so this
module, below all of them, owns the table, and ``arith``, ``logic``,
``math`` and ``structural`` register their namespaces at import.
"""

from __future__ import annotations

from opgraph.graph.function_table import FunctionTable

__all__ = ["SCALAR_FUNCTIONS"]

SCALAR_FUNCTIONS = FunctionTable("opgraph.scalar")

"""``opgraph.tensor.optimize``: SciPy's minimizers and root finders as Ops with gradients.

>>> import opgraph.tensor as pt
>>> from opgraph.tensor.optimize import minimize
>>> x, a = pt.dscalar("x"), pt.dscalar("a")
>>> x_star, success = minimize((x - a) ** 2, x)

The solver runs in perform on a compiled copy of the objective; ``x*`` is
differentiable with respect to the variables the objective closes over.
"""

from __future__ import annotations

from opgraph_linalg.optimize.api import minimize, minimize_scalar, root, root_scalar
from opgraph_linalg.optimize.ops import MinimizeOp, MinimizeScalarOp, RootOp, RootScalarOp
from opgraph_linalg.optimize.wrapper import ScipyScalarWrapperOp, ScipyWrapperOp

__all__ = [
    "MinimizeOp",
    "MinimizeScalarOp",
    "RootOp",
    "RootScalarOp",
    "ScipyScalarWrapperOp",
    "ScipyWrapperOp",
    "minimize",
    "minimize_scalar",
    "root",
    "root_scalar",
]

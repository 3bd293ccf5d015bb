"""Scalar types and scalar ops: the bodies of Elemwise (PyTensor's ``pytensor.scalar``).

``opgraph.scalar.float64("x")`` makes a scalar variable; ``add``, ``exp``,
``switch``... are op instances; ``Composite`` groups a scalar graph into one op.
The dtype instances ``bool``, ``int8`` ... ``complex128`` and the ops ``abs``,
``pow``, ``round`` are attributes of this package but are left out of
``__all__`` so that ``from opgraph.scalar import *`` never shadows builtins.
"""

from typing import Any as _Any

from opgraph import faces as _faces

# What PyTensor's scalar package re-exports from the rest of the library: the same objects.
from opgraph.config import config  # noqa: F401
from opgraph.gradient import (  # noqa: F401
    disconnected_type,
    grad_not_implemented,
    grad_undefined,
)
from opgraph.graph.basic import Apply, Constant, Variable  # noqa: F401
from opgraph.graph.fg import FrozenFunctionGraph  # noqa: F401
from opgraph.graph.op import HasInnerGraph, Op  # noqa: F401
from opgraph.graph.printer import pprint  # noqa: F401
from opgraph.graph.traversal import applys_between  # noqa: F401
from opgraph.graph.type import HasDataType, HasShape  # noqa: F401
from opgraph.graph.utils import MetaObject, MethodNotDefined  # noqa: F401
from opgraph.link.c.op import COp  # noqa: F401
from opgraph.link.c.type import CType  # noqa: F401
from opgraph.scalar import arith as _arith
from opgraph.scalar import grad_arithmetic as _grad_arithmetic  # noqa: F401  (autodiff's table)
from opgraph.scalar import logic as _logic
from opgraph.scalar import math as _math
from opgraph.scalar import printers as _printers  # noqa: F401  (fills the pprint table)
from opgraph.scalar import structural as _structural
from opgraph.scalar import type as _type
from opgraph.scalar.arith import *  # noqa: F403
from opgraph.scalar.autocast import (  # noqa: F401
    NumpyAutocaster,
    autocast_float,
    autocast_float_as,
)
from opgraph.scalar.basic import *  # noqa: F403
from opgraph.scalar.complex import (  # noqa: F401 - PyTensor's scalar package has these
    Angle,
    Complex,
    ComplexFromPolar,
    Conj,
    Imag,
    Real,
    angle,
    complex_from_polar,
    conj,
    imag,
    real,
)
from opgraph.scalar.composite import Composite, ScalarInnerGraphOp  # noqa: F401
from opgraph.scalar.helpers import *  # noqa: F403
from opgraph.scalar.logic import *  # noqa: F403
from opgraph.scalar.loop import ScalarLoop  # noqa: F401
from opgraph.scalar.math import *  # noqa: F403
from opgraph.scalar.structural import *  # noqa: F403
from opgraph.scalar.type import *  # noqa: F403
from opgraph.scalar.type import all_dtypes, get_scalar_type
from opgraph.utils import (  # noqa: F401
    apply_across_args,
    difference,
    lazy_scipy_module,
    to_return_values,
)

_SHADOWING = {"abs", "pow", "round", "bool"}

# Dtype Types: opgraph.scalar.float64("x") is a float64 scalar variable.
for _d in all_dtypes:
    globals()[_d] = get_scalar_type(_d)
    globals()[f"convert_to_{_d}"] = _structural.convert_to[_d]

#: PyTensor's ``round`` rounds half to even, like np.round.
round = _math.round_half_to_even

#: PyTensor's other spellings of the same ops.
scalar_abs = _arith.abs
special = lazy_scipy_module("special")
floor_div = _arith.int_div
scalar_maximum = _arith.maximum
scalar_minimum = _arith.minimum

__all__ = sorted(
    (
        set(_arith.__all__)
        | set(_logic.__all__)
        | set(_math.__all__)
        | set(_structural.__all__)
        | set(_type.__all__)
        | set(__import__("opgraph.scalar.basic", fromlist=["__all__"]).__all__)
        | set(__import__("opgraph.scalar.helpers", fromlist=["__all__"]).__all__)
        | {"NumpyAutocaster", "ScalarInnerGraphOp", "scalar_abs"}
        | {"Composite", "ScalarLoop", "autocast_float", "autocast_float_as", "floor_div",
           "scalar_maximum", "scalar_minimum"}
        | {"Angle", "Complex", "ComplexFromPolar", "Conj", "Imag", "Real", "angle",
           "complex_from_polar", "conj", "imag", "real"}
        | {d for d in all_dtypes}
        | {f"convert_to_{d}" for d in all_dtypes}
    )
    - _SHADOWING
)

del _d


def __getattr__(name: str) -> _Any:
    """Op classes a plugin provides under PyTensor's names (``Psi`` from opgraph-special)."""
    value = _faces.provided_name(__name__, name)
    if not isinstance(value, _faces.MissingPluginName):
        globals()[name] = value
    return value

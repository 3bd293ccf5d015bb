"""Which function inputs JAX must see as Python values: integer scalars that set shapes.

``jnp.reshape(x, (n, n))`` needs ``n`` when JAX traces.  When ``n`` is a
function input (an integer scalar), the JAX function is compiled for its
value (``jax.jit(static_argnums=...)``): once per distinct value, as JAX
does for any static argument.  :data:`SHAPE_INPUTS` lists, per Op class, the
input positions that set a shape, a size or an axis.
"""

from __future__ import annotations

from typing import Any

from opgraph.compile.sharedvalue import SharedVariable
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.traversal import ancestors
from opgraph.scalar.type import ScalarType
from opgraph.scan.op import Scan
from opgraph.tensor.basic import AllocEmpty
from opgraph.tensor.creation import Alloc, ARange, Eye
from opgraph.tensor.extra_ops import Bartlett, FillDiagonalOffset, Repeat
from opgraph.tensor.join import Join, Split
from opgraph.tensor.pad import Pad
from opgraph.tensor.random.op import RandomVariable
from opgraph.tensor.reshape import SplitDims
from opgraph.tensor.shape import Reshape
from opgraph.tensor.type import TensorType

__all__ = ["SHAPE_INPUTS", "static_input_positions"]

SHAPE_INPUTS: dict[type, slice] = {
    Reshape: slice(1, 2),
    Alloc: slice(1, None),
    AllocEmpty: slice(0, None),
    ARange: slice(0, 3),
    Eye: slice(0, 3),
    Split: slice(1, 3),
    Join: slice(0, 1),
    SplitDims: slice(1, 2),
    RandomVariable: slice(1, 2),
    Scan: slice(0, 1),
    Repeat: slice(1, 2),
    Bartlett: slice(0, 1),
    FillDiagonalOffset: slice(2, 3),
    Pad: slice(1, 2),
}
"""Op class -> the inputs that set a shape, size or axis (extend for new Ops)."""


def _shape_slice(op: Any) -> slice | None:
    for cls in type(op).__mro__:
        if cls in SHAPE_INPUTS:
            return SHAPE_INPUTS[cls]
    return None


def _is_int_scalar(var: Any) -> bool:
    """An integer scalar, or an integer vector of static length (a whole shape)."""
    vtype = var.type
    dtype = getattr(vtype, "dtype", "")
    small = isinstance(vtype, ScalarType) or (isinstance(vtype, TensorType) and (
        vtype.ndim == 0 or (vtype.ndim == 1 and vtype.shape[0] is not None)))
    return small and dtype.startswith(("int", "uint")) and not isinstance(var, SharedVariable)


def static_input_positions(fgraph: FunctionGraph) -> tuple[int, ...]:
    """Positions of the integer inputs (scalars, short vectors) that a shape, size or axis
    depends on."""
    candidates = {var: k for k, var in enumerate(fgraph.inputs) if _is_int_scalar(var)}
    if not candidates:
        return ()
    feeding = []
    for node in fgraph.apply_nodes:
        where = _shape_slice(node.op)
        if where is not None:
            feeding.extend(node.inputs[where])
    if not feeding:
        return ()
    found = {var for var in ancestors(feeding) if var in candidates}
    return tuple(sorted(candidates[v] for v in found))

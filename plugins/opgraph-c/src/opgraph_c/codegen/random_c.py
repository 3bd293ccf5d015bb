"""The C of a RandomVariable node: NumPy's own C draws on the Generator's bit generator.

A draw that runs as a Python thunk costs microseconds of call overhead; inside
a Scan's C loop (``scan_c``) it would also force the whole loop back to Python.
For the distributions in :data:`DISTRIBUTIONS` whose Op draws with the
Generator method of its name (``RandomVariable.rng_fn``), and those of
:data:`SCIPY_DISTRIBUTIONS` drawn through ``scipy.stats`` (halfnormal: what
``halfnorm.rvs`` computes from ``Generator.standard_normal``), the node's C calls
the function that method calls (``random_normal``, ... from NumPy's
``libnpyrandom.a``, declared in ``numpy/random/distributions.h``) on the
Generator's ``bitgen_t``: the same checks first, the same numbers, the same
final state (runtime/random.h).  A NumPy without that static library, another
distribution, or parameters of an unsupported type: the node runs its perform.
"""

from __future__ import annotations

import functools
import os
from typing import Any

import numpy as np

from opgraph.tensor.random.basic import ScipyRandomVariable
from opgraph.tensor.random.op import RandomVariable
from opgraph.tensor.random.type import RandomGeneratorType
from opgraph.tensor.type import TensorType
from opgraph.tensor.type_other import NoneTypeT
from opgraph_c.codegen.ctypes_ import typenum
from opgraph_c.codegen.nodec import EmitContext, NodeC
from opgraph_c.codegen.runtime_c import runtime_file

__all__ = ["DISTRIBUTIONS", "RANDOM_SUPPORT", "SCIPY_DISTRIBUTIONS", "distribution_code",
           "emit_random", "npyrandom_dir"]

#: Generator method name -> the distribution code of runtime/random.h (two parameters each)
DISTRIBUTIONS = {"normal": "OG_RNG_NORMAL", "lognormal": "OG_RNG_LOGNORMAL"}
#: ``scipy.stats`` distribution of a ScipyRandomVariable -> its code (the same stream as
#: ``<dist>.rvs(..., random_state=generator)``)
SCIPY_DISTRIBUTIONS = {"halfnorm": "OG_RNG_HALFNORMAL"}

RANDOM_SUPPORT = runtime_file("random.h")
"""og_rng_draw2 and its helpers (fixed C, package data)."""

_HEADERS = ('"numpy/random/distributions.h"',)


@functools.cache
def npyrandom_dir() -> str | None:
    """The folder of NumPy's ``libnpyrandom.a`` (with its header present), or None."""
    lib = os.path.join(os.path.dirname(np.random.__file__), "lib")
    header = os.path.join(np.get_include(), "numpy", "random", "distributions.h")
    if os.path.isfile(os.path.join(lib, "libnpyrandom.a")) and os.path.isfile(header):
        return lib
    return None


def _param_ok(v: Any) -> bool:
    return isinstance(v.type, TensorType) and np.dtype(v.type.dtype).kind in "biuf"


def _size_ok(v: Any) -> bool:
    if isinstance(v.type, NoneTypeT):
        return True
    return isinstance(v.type, TensorType) and v.type.ndim == 1 and \
        np.dtype(v.type.dtype).kind in "iu"


def distribution_code(op: Any) -> str | None:
    """The runtime/random.h code of ``op``'s draws, or None when it has no C here."""
    if isinstance(op, ScipyRandomVariable):
        own = (type(op).rng_fn is ScipyRandomVariable.rng_fn
               and type(op).rng_fn_scipy is ScipyRandomVariable.rng_fn_scipy)
        return SCIPY_DISTRIBUTIONS.get(op.scipy_name) if own else None
    if isinstance(op, RandomVariable) and type(op).rng_fn is RandomVariable.rng_fn:
        return DISTRIBUTIONS.get(op.name)
    return None


def supported_node(node: Any) -> bool:
    """Whether :func:`emit_random` gives C for ``node``."""
    if distribution_code(node.op) is None or len(node.inputs) != 4:
        return False
    rng, size, *params = node.inputs
    draw = node.outputs[1]
    return (isinstance(rng.type, RandomGeneratorType) and _size_ok(size)
            and all(_param_ok(p) for p in params) and isinstance(draw.type, TensorType)
            and draw.type.dtype in ("float64", "float32") and npyrandom_dir() is not None)


def emit_random(node: Any, ctx: EmitContext) -> NodeC | None:
    """``og_rng_draw2`` for a supported RandomVariable node, else None (see module doc)."""
    if not supported_node(node):
        return None
    op = node.op
    dist = distribution_code(op)
    body = (f"if (og_rng_draw2({dist}, {int(bool(op.inplace))}, "
            f"{typenum(node.outputs[1].type.dtype)}, (PyObject *)i0, (PyObject *)i1, "
            "(PyObject *)i2, (PyObject *)i3, &o0, &o1)) goto fail;")
    return NodeC(body=body, support=(RANDOM_SUPPORT,), headers=_HEADERS,
                 libraries=("npyrandom",), lib_dirs=(str(npyrandom_dir()),))


def table() -> dict[type, Any]:
    return {RandomVariable: emit_random}

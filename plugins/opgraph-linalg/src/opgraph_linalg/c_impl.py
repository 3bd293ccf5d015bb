"""C implementations of the linalg Ops a model's gradient runs, for the C linker.

cholesky, solve_triangular, solve, cho_solve and the Cholesky pullback (LAPACK
and BLAS), and the diagonal Ops ``ExtractDiag``/``AllocDiag`` (NumPy's C API).

opgraph-c asks every plugin for C of an Op it does not know through the
``opgraph_op_impl(op, backend="c")`` hook; :func:`c_provider` answers for the
core Ops and for their Blockwise (a loop over the batch in C, one LAPACK call
per matrix).  The provider follows PyTensor's ``c_code`` protocol, so the C
plugin needs no import of this one and this one none of the C plugin.

LAPACK comes from SciPy (see :mod:`opgraph_linalg.c_lapack`).  Where there is
no C for a node (another dtype, ``assume_a`` other than gen/pos, batch axes
the loop does not handle, SciPy without the capsules) the provider answers
None and the node runs its Python ``perform``.
"""

from __future__ import annotations

import functools
from typing import Any

from opgraph.tensor.blockwise import Blockwise
from opgraph.utils import lazy_module
from opgraph_linalg.c_lapack import BLAS_ROUTINES, ROUTINES, SUPPORT
from opgraph_linalg.cholesky_grad import CholeskyPullback
from opgraph_linalg.constructors import AllocDiag, ExtractDiag
from opgraph_linalg.decomposition import Cholesky
from opgraph_linalg.solvers import CholeskySolve, Solve, SolveTriangular

__all__ = ["LinalgC", "c_provider", "lapack_available"]

# Loaded when a node that has C here is first compiled, not when the plugin loads.
cython_lapack = lazy_module("scipy.linalg.cython_lapack")
cython_blas = lazy_module("scipy.linalg.cython_blas")

_TYPENUM = {"float64": "NPY_DOUBLE", "float32": "NPY_FLOAT"}
_CORE = (Cholesky, SolveTriangular, Solve, CholeskySolve, CholeskyPullback)
_DIAG = (ExtractDiag, AllocDiag)  # any dtype, no LAPACK


@functools.cache
def lapack_available() -> bool:
    """True when SciPy exports every routine the C code uses, in both precisions."""
    capi = getattr(cython_lapack, "__pyx_capi__", {})
    blas = getattr(cython_blas, "__pyx_capi__", {})
    return (all(f"{p}{r}" in capi for p in "ds" for r in ROUTINES)
            and all(f"{p}{r}" in blas for p in "ds" for r in BLAS_ROUTINES))


def _core_call(op: Any, args: list[str], typenum: str, prev: str = "NULL") -> str | None:
    """The C expression computing one core result from core input arrays ``args``
    (``prev``: the output's previous value, an array the result may be written into)."""
    if isinstance(op, Cholesky):
        return (f"ogla_cholesky({args[0]}, {typenum}, {int(op.lower)}, "
                f"{int(op.on_error == 'nan')}, {int(op.check_finite)}, {prev})")
    if isinstance(op, SolveTriangular):
        return (f"ogla_solve_triangular({args[0]}, {args[1]}, {typenum}, {int(op.lower)}, "
                f"{int(op.trans != 0)}, {int(op.unit_diagonal)}, {int(op.check_finite)}, {prev})")
    if isinstance(op, Solve):
        if op.assume_a not in ("gen", "pos"):
            return None
        return (f"ogla_solve({args[0]}, {args[1]}, {typenum}, {int(op.assume_a == 'pos')}, "
                f"{int(op.lower)}, {int(op.transposed)}, {int(op.check_finite)})")
    if isinstance(op, CholeskySolve):
        return (f"ogla_cho_solve({args[0]}, {args[1]}, {typenum}, {int(op.lower)}, "
                f"{int(op.check_finite)})")
    if isinstance(op, CholeskyPullback):
        return (f"ogla_cholesky_pullback({args[0]}, {args[1]}, {typenum}, {int(op.lower)}, "
                f"{prev})")
    return None


def _diag_call(op: Any, args: list[str], prev: str) -> str:
    """The C expression of an ExtractDiag / AllocDiag node (the dtype is its input's)."""
    axes = f"{op.offset}, {op.axis1}, {op.axis2}"
    if isinstance(op, ExtractDiag):
        return f"ogla_extract_diag({args[0]}, {axes}, {prev})"
    return f"ogla_alloc_diag({args[0]}, {args[1]}, {axes}, {prev})"


def _label(var: Any) -> str:
    """A variable's name for an error message, safe inside a C string literal."""
    name = var.name or "unnamed"
    return "".join(c for c in name if c.isalnum() or c in "_.-[]") or "unnamed"


def _batched_body(node: Any, core: Any, inputs: list[str], out: str, typenum: str,
                  fail: str) -> str | None:
    """A C loop applying the core computation to every matrix of a Blockwise node.

    Handles inputs with as many batch axes as the output; a batch axis of
    static length 1 broadcasts (as in Blockwise.perform), any other length
    must match.
    """
    op = node.op
    nb = node.outputs[0].type.ndim - len(op.outputs_sig[0])
    core_nd = [len(sig) for sig in op.inputs_sig]
    if any(v.type.ndim - c != nb for v, c in zip(node.inputs, core_nd)):
        return None
    call = _core_call(core, [f"cv{i}" for i in range(len(inputs))], typenum)
    if call is None:
        return None
    out_core = len(op.outputs_sig[0])
    L = [f"npy_intp bshape[{nb}], ostride[{nb}], n_batch = 1;"]
    for d in range(nb):
        L.append(f"bshape[{d}] = 1;")
        for i, (name, var) in enumerate(zip(inputs, node.inputs)):
            if var.type.shape[d] == 1:
                continue
            L.append(
                f"if (bshape[{d}] == 1) bshape[{d}] = PyArray_DIMS({name})[{d}]; "
                f"else if (PyArray_DIMS({name})[{d}] != bshape[{d}]) {{ PyErr_Format("
                f"PyExc_ValueError, \"{type(core).__name__}: batch dimensions do not broadcast: "
                f"axis {d} has length %ld in input {i} ({_label(var)}) but %ld in an earlier "
                f"input\", "
                f"(long)PyArray_DIMS({name})[{d}], (long)bshape[{d}]); {fail} }}")
        L.append(f"n_batch *= bshape[{d}];")
    # the core output shape: the last input's core dims (cholesky: a, solves: b)
    last = inputs[-1]
    last_nd = node.inputs[-1].type.ndim
    L.append(f"npy_intp oshape[{nb + out_core}];")
    L.append(f"for (int d = 0; d < {nb}; d++) oshape[d] = bshape[d];")
    for k in range(out_core):
        L.append(f"oshape[{nb + k}] = PyArray_DIMS({last})[{last_nd - out_core + k}];")
    L += [
        f"PyArrayObject *res = (PyArrayObject *)PyArray_EMPTY({nb + out_core}, oshape, "
        f"{typenum}, 0);",
        f"if (res == NULL) {fail}",
        "npy_intp rem, idx;",
        "for (npy_intp r = 0; r < n_batch; r++) {",
        "  char *optr = PyArray_BYTES(res);",
    ]
    for i, name in enumerate(inputs):
        L.append(f"  char *p{i} = PyArray_BYTES({name});")
    L.append("  rem = r;")
    for d in reversed(range(nb)):
        L.append(f"  idx = rem % bshape[{d}]; rem /= bshape[{d}];")
        L.append(f"  optr += idx * PyArray_STRIDES(res)[{d}];")
        for i, (name, var) in enumerate(zip(inputs, node.inputs)):
            if var.type.shape[d] != 1:
                L.append(f"  p{i} += idx * PyArray_STRIDES({name})[{d}];")
    L.append("  PyArrayObject *ov = NULL, *rv = NULL;")
    for i, name in enumerate(inputs):
        L.append(
            f"  PyArrayObject *cv{i} = NULL;"
            f"  Py_INCREF(PyArray_DESCR({name}));"
            f"  cv{i} = (PyArrayObject *)PyArray_NewFromDescr(&PyArray_Type, PyArray_DESCR({name}),"
            f" {core_nd[i]}, PyArray_DIMS({name}) + {nb}, PyArray_STRIDES({name}) + {nb}, p{i},"
            f" 0, NULL);")
    L.append("  if (" + " && ".join(f"cv{i}" for i in range(len(inputs))) + ") {")
    L.append(f"    rv = {call};")
    L.append("    if (rv) {")
    L.append("      Py_INCREF(PyArray_DESCR(res));")
    L.append(f"      ov = (PyArrayObject *)PyArray_NewFromDescr(&PyArray_Type, PyArray_DESCR(res), "
             f"{out_core}, oshape + {nb}, PyArray_STRIDES(res) + {nb}, optr, NPY_ARRAY_WRITEABLE,"
             " NULL);")
    L.append("    }")
    L.append("  }")
    L.append("  int ok = ov != NULL && PyArray_CopyInto(ov, rv) == 0;")
    for i in range(len(inputs)):
        L.append(f"  Py_XDECREF(cv{i});")
    L.append("  Py_XDECREF(rv); Py_XDECREF(ov);")
    L.append(f"  if (!ok) {{ Py_DECREF(res); {fail} }}")
    L.append("}")
    L.append(f"Py_XDECREF({out}); {out} = res;")
    return "\n".join(L)


class LinalgC:
    """C (``c_code`` protocol) for one linalg Op or its Blockwise."""

    def __init__(self, op: Any) -> None:
        self.op = op

    def c_code(self, node: Any, name: str, inputs: list[str], outputs: list[str],
               sub: dict[str, Any]) -> str | None:
        fail = sub["fail"]
        out = outputs[0]
        op = node.op
        if isinstance(op, _DIAG):
            return _assign(_diag_call(op, inputs, out), out, fail)
        typenum = _TYPENUM.get(node.outputs[0].type.dtype)
        if typenum is None:
            return None
        if isinstance(op, Blockwise) and node.outputs[0].type.ndim > len(op.outputs_sig[0]):
            return _batched_body(node, op.core_op, inputs, out, typenum, fail)
        core = op.core_op if isinstance(op, Blockwise) else op
        call = _core_call(core, inputs, typenum, out)
        return None if call is None else _assign(call, out, fail)

    def c_support_code(self) -> str:
        return SUPPORT

    def c_headers(self) -> list[str]:
        return ["<math.h>", "<string.h>", "<stdlib.h>"]

    def c_code_cache_version(self) -> tuple[int, ...]:
        return (3,)


def _assign(call: str, out: str, fail: str) -> str:
    """C setting output ``out`` to the new array ``call`` returns (``fail`` on NULL)."""
    return (f"{{ PyArrayObject *res = {call}; if (res == NULL) {fail} "
            f"Py_XDECREF({out}); {out} = res; }}")


def c_provider(op: Any) -> LinalgC | None:
    """The C of ``op`` when it is one of the Ops above (bare or Blockwise), else None."""
    if isinstance(op, _DIAG):
        return LinalgC(op)
    core = op.core_op if isinstance(op, Blockwise) else op
    if not isinstance(core, _CORE) or not lapack_available():
        return None
    return LinalgC(op)

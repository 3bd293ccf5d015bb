"""C for the integer-vector gather ``x[idx]`` and its gradient, the scatter-add.

A hierarchical model reads one parameter per observation (``a[group]``) and
its gradient sums per group (``np.add.at(g, group, r)``); run in Python, each
is a NumPy call with its own temporaries and dispatch, several microseconds on
a thousand observations.  Here both are one loop.  Only vectors are handled
(the common case); everything else keeps the Python node.  Negative indices
wrap, out-of-range ones raise IndexError, repeated indices accumulate
(``AdvancedIncSubtensor1``), as in NumPy.
"""

from __future__ import annotations

from typing import Any

from opgraph.link.c.template import c_source
from opgraph_c.codegen.ctypes_ import c_type, typenum
from opgraph_c.codegen.emit import CWriter
from opgraph_c.codegen.nodec import EmitContext, NodeC
from opgraph_c.codegen.shape_ops import INDEX_SUPPORT, VIEW_SUPPORT, _ok, _read_int

__all__ = [
    "emit_advanced_inc_subtensor1", "emit_advanced_subtensor1",
    "emit_slice_length",
]

_FLOATS = ("float32", "float64")
_INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32")

INDEX_ERROR_SUPPORT = c_source(__package__, "runtime/index_error.h")
"""``og_index_error``: the IndexError of an index out of bounds."""

ALIGNED_SUPPORT = c_source(__package__, "runtime/aligned.h")
"""``og_aligned``: an array whose elements can be read as C values (a copy when needed)."""


def _loops(T: str, IT: str, dt: str, it: str) -> str:
    """og_gather_<dt>_<it>(out, x, idx) and og_scatter_<dt>_<it>(b, y, idx, set):
    0, or -1 with IndexError set (``runtime/gather_loops.h``)."""
    return c_source(__package__, "runtime/gather_loops.h",
                    CTYPE=T, INDEX_CTYPE=IT, DTYPE=dt, INDEX_DTYPE=it)


def _vector_case(node: Any, x: Any, idx: Any) -> bool:
    return (_ok(node) and x.type.ndim == 1 and idx.type.ndim == 1
            and x.type.dtype in _FLOATS and idx.type.dtype in _INTS)


def _fail_if(w: CWriter, cond: str, *error: str) -> None:
    """``if (cond) { error...; goto fail; }`` (the error sets the Python exception)."""
    with w.block(f"if ({cond})"):
        w.line(*error, "goto fail;")


def emit_advanced_subtensor1(node: Any, ctx: EmitContext) -> NodeC | None:
    """``x[idx]`` for a float vector x and an integer vector idx."""
    x, idx = node.inputs
    if not _vector_case(node, x, idx):
        return None
    dt, it = x.type.dtype, idx.type.dtype
    w = CWriter()
    w.line("npy_intp shp[1] = {PyArray_DIMS(i1)[0]};",
           f"OG_SET_OUT(o0, (PyArrayObject *)og_new_array(1, shp, {typenum(dt)}, o0, "
           "(PyArrayObject **)og_in, 2));",
           "PyArrayObject *xa = og_aligned(i0), *ia = og_aligned(i1);",
           f"int rc = (xa && ia) ? og_gather_{dt}_{it}(o0, xa, ia) : -1;",
           "Py_XDECREF(xa);",
           "Py_XDECREF(ia);",
           "if (rc < 0) goto fail;")
    support = (VIEW_SUPPORT, ALIGNED_SUPPORT, INDEX_ERROR_SUPPORT,
               _loops(c_type(dt), c_type(it), dt, it))
    return NodeC(w.text(), support=support)


def emit_advanced_inc_subtensor1(node: Any, ctx: EmitContext) -> NodeC | None:
    """``x`` with ``y`` added to (or written at) entries ``idx``; repeats accumulate."""
    op = node.op
    x, y, idx = node.inputs
    if (not _vector_case(node, x, idx) or y.type.dtype != x.type.dtype or y.type.ndim > 1
            or getattr(op, "ignore_duplicates", False)):
        return None
    dt, it = x.type.dtype, idx.type.dtype
    w = CWriter()
    if y.type.ndim == 1 and y.type.shape[0] != 1:
        # only a dimension of static length 1 broadcasts, as in the Python implementation
        _fail_if(w, "PyArray_DIMS(i1)[0] == 1 && PyArray_DIMS(i2)[0] != 1",
                 "PyErr_Format(PyExc_ValueError, \"Runtime broadcasting not allowed. "
                 "AdvancedIncSubtensor1 was asked to broadcast a value of length 1 onto %ld "
                 "indexed entries, but its type does not declare that dimension of length "
                 "1\", (long)PyArray_DIMS(i2)[0]);")
    w.line("PyArrayObject *og_b;")
    copy_head = "else" if op.inplace else ""
    if op.inplace:  # in place only when y and idx do not read the memory being written
        with w.block("if (PyArray_ISWRITEABLE(i0) && PyArray_ISALIGNED(i0) && "
                     "!og_overlaps(i0, i1) && !og_overlaps(i0, i2))"):
            w.line("og_b = i0;", "Py_INCREF(og_b);")
    with w.block(copy_head):
        # the previous call's buffer when nothing else holds it, else a new one
        with w.block("if (og_reusable(o0, 1, PyArray_DIMS(i0), PyArray_TYPE(i0), "
                     "(PyArrayObject **)og_in, 3))"):
            w.line("og_b = o0;", "Py_INCREF(og_b);")
        with w.block("else"):
            w.line("og_b = (PyArrayObject *)og_empty(1, PyArray_DIMS(i0), PyArray_TYPE(i0));",
                   "if (!og_b) goto fail;")
        _fail_if(w, "og_copy_same(og_b, i0) < 0", "Py_DECREF(og_b);")
    w.line("Py_XDECREF(o0);",
           "o0 = og_b;",
           "PyArrayObject *ya = og_aligned(i1), *ia = og_aligned(i2);",
           f"int rc = (ya && ia) ? og_scatter_{dt}_{it}(og_b, ya, ia, "
           f"{1 if op.set_instead_of_inc else 0}) : -1;",
           "Py_XDECREF(ya);",
           "Py_XDECREF(ia);",
           "if (rc < 0) goto fail;")
    support = (VIEW_SUPPORT, ALIGNED_SUPPORT, INDEX_ERROR_SUPPORT,
               _loops(c_type(dt), c_type(it), dt, it))
    return NodeC(w.text(), support=support)


def emit_slice_length(node: Any, ctx: EmitContext) -> NodeC | None:
    """``len(range(n)[start:stop:step])``: the length of the index vector a gradient
    scatters into (Python's slice rules, through ``PySlice_AdjustIndices``)."""
    spec = node.op.spec
    names = iter(f"i{k}" for k in range(1, len(node.inputs)))
    parts = iter(node.inputs[1:])
    read = {field: (_read_int(next(parts), next(names)) if getattr(spec, field) else None)
            for field in ("start", "stop", "step")}
    w = CWriter()
    w.line(f"const npy_intp n = {_read_int(node.inputs[0], 'i0')};",
           f"Py_ssize_t step = {read['step'] or '1'};",
           f"Py_ssize_t start = {read['start'] or '(step < 0 ? PY_SSIZE_T_MAX : 0)'};",
           f"Py_ssize_t stop = {read['stop'] or '(step < 0 ? PY_SSIZE_T_MIN : PY_SSIZE_T_MAX)'};",
           "if (PyErr_Occurred()) goto fail;")
    _fail_if(w, "step == 0",
             "PyErr_SetString(PyExc_ValueError, \"slice step cannot be zero\");")
    _fail_if(w, "n < 0",
             "PyErr_SetString(PyExc_ValueError, \"length should not be negative\");")
    w.line("npy_intp shp[1];",
           "OG_SET_OUT(o0, (PyArrayObject *)og_new_array(0, shp, NPY_INT64, o0, NULL, 0));",
           "*(npy_int64 *)PyArray_DATA(o0) = "
           "(npy_int64)PySlice_AdjustIndices((Py_ssize_t)n, &start, &stop, step);")
    return NodeC(w.text(), support=(VIEW_SUPPORT, INDEX_SUPPORT))

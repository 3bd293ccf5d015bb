"""C for the structural tensor ops: DimShuffle, Shape, Shape_i, MakeVector, Reshape,
Alloc, Subtensor.

Views (DimShuffle, Subtensor) are new array headers on the input's memory,
with the input as their base and its writeable flag; nothing is copied.
"""

from __future__ import annotations

from typing import Any

from opgraph.tensor.creation import Alloc
from opgraph.tensor.indexing import INT, SliceSpec
from opgraph.tensor.shape import MakeVector, Reshape, Shape, Shape_i
from opgraph.tensor.subtensor import Subtensor
from opgraph.tensor.type import TensorType
from opgraph_c.codegen import runtime_c
from opgraph_c.codegen.ctypes_ import c_type, supported, typenum
from opgraph_c.codegen.emit import CWriter
from opgraph_c.codegen.nodec import EmitContext, NodeC

__all__ = ["basic_view", "emit_dimshuffle", "table"]

#: ``og_view`` and ``OG_SET_OUT`` (``runtime/views.h``).
VIEW_SUPPORT = runtime_c.VIEW_SUPPORT


def _ok(node: Any) -> bool:
    return all(
        isinstance(v.type, TensorType) and supported(v.type.dtype)
        for v in (*node.inputs, *node.outputs)
    )


def _fail_if(w: CWriter, cond: str, *error: str) -> None:
    """``if (cond) { error...; goto fail; }`` (the error sets the Python exception)."""
    with w.block(f"if ({cond})"):
        w.line(*error, "goto fail;")


def emit_dimshuffle(node: Any, ctx: EmitContext) -> NodeC | None:
    if not _ok(node):
        return None
    order = node.op.new_order
    nd = len(order)
    w = CWriter()
    w.line(f"npy_intp dims[{max(nd, 1)}], strides[{max(nd, 1)}];")
    for d in node.op.drop:  # dropped dimensions of unknown static length: checked here
        if node.inputs[0].type.shape[d] != 1:
            _fail_if(w, f"PyArray_DIMS(i0)[{d}] != 1",
                     "PyErr_Format(PyExc_ValueError, "
                     f"\"DimShuffle: cannot drop dimension {d} of length %ld: a dropped "
                     f"dimension must have length 1\", (long)PyArray_DIMS(i0)[{d}]);")
    for p, o in enumerate(order):
        if o == "x":
            w.line(f"dims[{p}] = 1;", f"strides[{p}] = 0;")
        else:
            w.line(f"dims[{p}] = PyArray_DIMS(i0)[{o}];",
                   f"strides[{p}] = PyArray_STRIDES(i0)[{o}];")
    w.line(f"OG_SET_OUT(o0, og_view_into(o0, i0, {nd}, dims, strides, PyArray_BYTES(i0)));")
    return NodeC(w.text(), support=(VIEW_SUPPORT,))


def emit_shape(node: Any, ctx: EmitContext) -> NodeC | None:
    if not isinstance(node.inputs[0].type, TensorType):  # e.g. a sparse matrix: Python
        return None
    nd = node.inputs[0].type.ndim
    w = CWriter()
    w.line(f"npy_intp n = {nd};",
           "OG_SET_OUT(o0, (PyArrayObject *)og_new_array(1, &n, NPY_INT64, o0, NULL, 0));")
    for d in range(nd):
        w.line(f"((npy_int64 *)PyArray_DATA(o0))[{d}] = PyArray_DIMS(i0)[{d}];")
    return NodeC(w.text(), support=(VIEW_SUPPORT,))


def emit_shape_i(node: Any, ctx: EmitContext) -> NodeC | None:
    if not isinstance(node.inputs[0].type, TensorType):
        return None
    w = CWriter()
    w.line("OG_SET_OUT(o0, (PyArrayObject *)og_new_array(0, NULL, NPY_INT64, o0, NULL, 0));",
           f"*(npy_int64 *)PyArray_DATA(o0) = PyArray_DIMS(i0)[{node.op.i}];")
    return NodeC(w.text(), support=(VIEW_SUPPORT,))


def emit_make_vector(node: Any, ctx: EmitContext) -> NodeC | None:
    """Scalars into a new vector: one element copied from each (make_node cast them all
    to the vector's dtype), so a scan body that stacks scalars keeps its C loop."""
    if not _ok(node) or any(v.type.dtype != node.op.dtype for v in node.inputs):
        return None
    n = len(node.inputs)
    ct = c_type(node.op.dtype)
    w = CWriter()
    w.line(f"npy_intp n = {n};",
           f"OG_SET_OUT(o0, (PyArrayObject *)og_new_array(1, &n, {typenum(node.op.dtype)}, o0, "
           f"(PyArrayObject **)og_in, {n}));")
    for i in range(n):
        w.line(f"memcpy(PyArray_BYTES(o0) + {i} * sizeof({ct}), PyArray_DATA(i{i}), "
               f"sizeof({ct}));")
    return NodeC(w.text(), support=(VIEW_SUPPORT,))


def _read_int(var: Any, name: str) -> str:
    """C expression reading the integer value of input ``name`` (0-d array or scalar)."""
    if isinstance(var.type, TensorType) and var.type.ndim == 0 and supported(var.type.dtype):
        return f"(npy_intp)(*(const {c_type(var.type.dtype)} *)PyArray_DATA({name}))"
    return f"og_as_index((PyObject *){name})"


#: ``og_as_index`` (``runtime/index.h``).
INDEX_SUPPORT = runtime_c.INDEX_SUPPORT


def emit_reshape(node: Any, ctx: EmitContext) -> NodeC | None:
    if not _ok(node):
        return None
    nd = node.op.ndim
    ct = c_type(node.inputs[1].type.dtype)
    w = CWriter()
    _fail_if(w, f"PyArray_DIMS(i1)[0] != {nd}",
             "PyErr_Format(PyExc_AssertionError, "
             f"\"reshape: the new shape has %ld entries, expected {nd}\", "
             "(long)PyArray_DIMS(i1)[0]);")
    w.line(f"npy_intp dims[{max(nd, 1)}];", "PyArray_Dims newshape;")
    for k in range(nd):
        w.line(f"dims[{k}] = (npy_intp)*(const {ct} *)(PyArray_BYTES(i1) + {k} * "
               "PyArray_STRIDES(i1)[0]);")
    w.line("newshape.ptr = dims;", f"newshape.len = {nd};",
           "PyArrayObject *r = (PyArrayObject *)PyArray_Newshape(i0, &newshape, NPY_CORDER);",
           "if (!r) goto fail;",
           "Py_XDECREF(o0);",
           "o0 = r;")
    for d, s in enumerate(node.outputs[0].type.shape):
        if s is not None:
            _fail_if(w, f"PyArray_DIMS(o0)[{d}] != {s}",
                     "PyErr_Format(PyExc_ValueError, "
                     f"\"reshape: dimension {d} of the result has length %ld, its type says "
                     f"{s}\", (long)PyArray_DIMS(o0)[{d}]);")
    return NodeC(w.text(), support=(VIEW_SUPPORT,))


def emit_alloc(node: Any, ctx: EmitContext) -> NodeC | None:
    if not _ok(node):
        return None
    value = node.inputs[0]
    out = node.outputs[0]
    nd = out.type.ndim
    vnd = value.type.ndim
    offset = nd - vnd
    w = CWriter()
    w.line(f"npy_intp shp[{max(nd, 1)}];")
    for d in range(nd):
        w.line(f"shp[{d}] = {_read_int(node.inputs[1 + d], f'i{1 + d}')};")
        _fail_if(w, f"shp[{d}] < 0",
                 "if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "
                 f"\"alloc: negative dimension %ld in the requested shape\", (long)shp[{d}]);")
    for j in range(vnd):
        if value.type.shape[j] == 1:
            cond = f"PyArray_DIMS(i0)[{j}] != 1 && PyArray_DIMS(i0)[{j}] != shp[{offset + j}]"
        else:
            cond = f"PyArray_DIMS(i0)[{j}] != shp[{offset + j}]"
        _fail_if(w, cond,
                 f"PyErr_Format(PyExc_ValueError, \"alloc: dimension {j} of the value has "
                 "length %ld and cannot be broadcast to %ld (Runtime broadcasting not "
                 "allowed: only a dimension of static length 1 broadcasts)\", "
                 f"(long)PyArray_DIMS(i0)[{j}], (long)shp[{offset + j}]);")
    w.line(f"OG_SET_OUT(o0, (PyArrayObject *)og_new_array({nd}, shp, "
           f"{typenum(out.type.dtype)}, o0, &i0, 1));")
    if vnd == 0 and value.type.dtype == out.type.dtype:
        # one value into a new C-contiguous array: a typed fill, not NumPy's general copy
        # (whose casting and iterator set-up cost more than a small gradient buffer's fill)
        ct = c_type(out.type.dtype)
        size = " * ".join(f"shp[{d}]" for d in range(nd)) or "1"
        with w.block():
            w.line(f"{ct} og_fill; memcpy(&og_fill, PyArray_DATA(i0), sizeof({ct}));",
                   f"{ct} *og_q = ({ct} *)PyArray_DATA(o0);",
                   f"const npy_intp og_n = {size};",
                   "for (npy_intp k = 0; k < og_n; k++) og_q[k] = og_fill;")
    else:
        w.line("if (og_copy_same(o0, i0) < 0) goto fail;")
    return NodeC(w.text(), support=(VIEW_SUPPORT,))


def basic_view(w: CWriter, idx_list: Any, x: Any, ond: int, index_vars: list[Any],
               first_input: int, xname: str = "i0") -> bool:
    """Write C computing ``dims``/``strides``/``data`` of the basic-index view ``x[idx]``.

    ``index_vars`` are the index inputs, named ``i<first_input>``, ``i<first_input+1>``...
    False (and nothing usable written) when the index is not a basic one.
    """
    nd = x.type.ndim
    w.line(f"npy_intp dims[{max(ond, 1)}], strides[{max(ond, 1)}];",
           f"char *data = PyArray_BYTES({xname});",
           "npy_intp n, st, idx, start, stop, step;",
           "(void)idx; (void)start; (void)stop; (void)step; (void)n; (void)st;")
    pos, od = 0, 0

    def take() -> str:
        nonlocal pos
        k = first_input + pos
        text = _read_int(index_vars[pos], f"i{k}")
        pos += 1
        return text

    for ax, entry in enumerate(idx_list):
        w.line(f"n = PyArray_DIMS({xname})[{ax}];", f"st = PyArray_STRIDES({xname})[{ax}];")
        if isinstance(entry, SliceSpec):
            if entry.start:
                w.line(f"start = {take()};")
            if entry.stop:
                w.line(f"stop = {take()};")
            w.line(f"step = {take()};" if entry.step else "step = 1;",
                   "if (PyErr_Occurred()) goto fail;")
            _fail_if(w, "step == 0",
                     "PyErr_SetString(PyExc_ValueError, \"slice step cannot be zero\");")
            if not entry.start:
                w.line("start = step < 0 ? PY_SSIZE_T_MAX : 0;")
            if not entry.stop:
                w.line("stop = step < 0 ? PY_SSIZE_T_MIN : PY_SSIZE_T_MAX;")
            with w.block():
                w.line("Py_ssize_t s0 = start, s1 = stop;",
                       "Py_ssize_t len = PySlice_AdjustIndices(n, &s0, &s1, step);",
                       f"dims[{od}] = len;",
                       f"strides[{od}] = step * st;",
                       "if (len > 0) data += s0 * st;")
            od += 1
        elif entry == INT:
            w.line(f"idx = {take()};", "if (PyErr_Occurred()) goto fail;",
                   "if (idx < 0) idx += n;")
            _fail_if(w, "idx < 0 || idx >= n",
                     "PyErr_Format(PyExc_IndexError, "
                     f"\"index %ld is out of bounds for axis {ax} with size %ld\", "
                     "(long)(idx < 0 ? idx - n : idx), (long)n);")
            w.line("data += idx * st;")
        else:
            return False
    for ax in range(len(idx_list), nd):
        w.line(f"dims[{od}] = PyArray_DIMS({xname})[{ax}];",
               f"strides[{od}] = PyArray_STRIDES({xname})[{ax}];")
        od += 1
    return od == ond


def emit_subtensor(node: Any, ctx: EmitContext) -> NodeC | None:
    x, out = node.inputs[0], node.outputs[0]
    if not isinstance(x.type, TensorType) or not supported(x.type.dtype):
        return None
    w = CWriter()
    if not basic_view(w, node.op.idx_spec, x, out.type.ndim, list(node.inputs[1:]), 1):
        return None
    w.line(f"OG_SET_OUT(o0, og_view_into(o0, i0, {out.type.ndim}, dims, strides, data));")
    return NodeC(w.text(), support=(VIEW_SUPPORT, INDEX_SUPPORT))


def table() -> dict[type, Any]:
    return {
        Shape: emit_shape,
        Shape_i: emit_shape_i,
        MakeVector: emit_make_vector,
        Reshape: emit_reshape,
        Alloc: emit_alloc,
        Subtensor: emit_subtensor,
    }

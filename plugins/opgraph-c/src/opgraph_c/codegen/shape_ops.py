"""C for the structural tensor ops: DimShuffle, Shape, Shape_i, Reshape, Alloc, Subtensor.

Views (DimShuffle, Subtensor) are new array headers on the input's memory,
with the input as their base and its writeable flag; nothing is copied.
"""

from __future__ import annotations

from typing import Any

from opgraph_c.codegen.ctypes_ import c_type, supported, typenum
from opgraph_c.codegen.nodec import EmitContext, NodeC

__all__ = ["emit_dimshuffle", "table"]

VIEW_SUPPORT = r"""
/* A view of x with the given dims/strides starting at data (x becomes its base). */
static PyArrayObject *og_view(PyArrayObject *x, int nd, npy_intp *dims, npy_intp *strides,
                              char *data) {
    PyArray_Descr *descr = PyArray_DESCR(x);
    Py_INCREF(descr);
    PyArrayObject *v = (PyArrayObject *)PyArray_NewFromDescr(
        &PyArray_Type, descr, nd, dims, strides, data, PyArray_FLAGS(x) & NPY_ARRAY_WRITEABLE,
        NULL);
    if (!v) return NULL;
    Py_INCREF(x);
    if (PyArray_SetBaseObject(v, (PyObject *)x) < 0) { Py_DECREF(v); return NULL; }
    return v;
}
#define OG_SET_OUT(o, expr) do { PyArrayObject *og_new_ = (expr); Py_XDECREF(o); o = og_new_; \
                                 if (!o) goto fail; } while (0)
"""


def _ok(node: Any) -> bool:
    from opgraph.tensor.type import TensorType

    return all(
        isinstance(v.type, TensorType) and supported(v.type.dtype)
        for v in (*node.inputs, *node.outputs)
    )


def emit_dimshuffle(node: Any, ctx: EmitContext) -> NodeC | None:
    if not _ok(node):
        return None
    order = node.op.new_order
    nd = len(order)
    lines = [f"npy_intp dims[{max(nd, 1)}], strides[{max(nd, 1)}];"]
    for d in node.op.drop:  # dropped dimensions of unknown static length: checked here
        if node.inputs[0].type.shape[d] != 1:
            lines.append(
                f"if (PyArray_DIMS(i0)[{d}] != 1) {{ PyErr_Format(PyExc_ValueError, "
                f"\"DimShuffle: cannot drop dimension {d} of length %ld: a dropped dimension "
                f"must have length 1\", (long)PyArray_DIMS(i0)[{d}]); goto fail; }}"
            )
    for p, o in enumerate(order):
        if o == "x":
            lines.append(f"dims[{p}] = 1; strides[{p}] = 0;")
        else:
            lines.append(
                f"dims[{p}] = PyArray_DIMS(i0)[{o}]; strides[{p}] = PyArray_STRIDES(i0)[{o}];"
            )
    lines.append(f"OG_SET_OUT(o0, og_view(i0, {nd}, dims, strides, PyArray_BYTES(i0)));")
    return NodeC("\n".join(lines), support=(VIEW_SUPPORT,))


def emit_shape(node: Any, ctx: EmitContext) -> NodeC | None:
    nd = node.inputs[0].type.ndim
    lines = [
        f"npy_intp n = {nd};",
        "OG_SET_OUT(o0, (PyArrayObject *)og_new_array(1, &n, NPY_INT64, o0, NULL, 0));",
    ]
    for d in range(nd):
        lines.append(f"((npy_int64 *)PyArray_DATA(o0))[{d}] = PyArray_DIMS(i0)[{d}];")
    return NodeC("\n".join(lines), support=(VIEW_SUPPORT,))


def emit_shape_i(node: Any, ctx: EmitContext) -> NodeC | None:
    i = node.op.i
    return NodeC(
        "OG_SET_OUT(o0, (PyArrayObject *)og_new_array(0, NULL, NPY_INT64, o0, NULL, 0));\n"
        f"*(npy_int64 *)PyArray_DATA(o0) = PyArray_DIMS(i0)[{i}];",
        support=(VIEW_SUPPORT,),
    )


def _read_int(var: Any, name: str) -> str:
    """C expression reading the integer value of input ``name`` (0-d array or scalar)."""
    from opgraph.tensor.type import TensorType

    if isinstance(var.type, TensorType) and var.type.ndim == 0 and supported(var.type.dtype):
        return f"(npy_intp)(*(const {c_type(var.type.dtype)} *)PyArray_DATA({name}))"
    return f"og_as_index((PyObject *){name})"


INDEX_SUPPORT = r"""
static npy_intp og_as_index(PyObject *o) {
    return (npy_intp)PyNumber_AsSsize_t(o, PyExc_IndexError);
}
"""


def emit_reshape(node: Any, ctx: EmitContext) -> NodeC | None:
    if not _ok(node):
        return None
    nd = node.op.ndim
    sdt = node.inputs[1].type.dtype
    ct = c_type(sdt)
    lines = [
        f"if (PyArray_DIMS(i1)[0] != {nd}) {{ PyErr_Format(PyExc_AssertionError, "
        f"\"reshape: the new shape has %ld entries, expected {nd}\", "
        "(long)PyArray_DIMS(i1)[0]); goto fail; }",
        f"npy_intp dims[{max(nd, 1)}];",
        "PyArray_Dims newshape;",
    ]
    for k in range(nd):
        lines.append(
            f"dims[{k}] = (npy_intp)*(const {ct} *)(PyArray_BYTES(i1) + {k} * "
            "PyArray_STRIDES(i1)[0]);"
        )
    lines += [
        f"newshape.ptr = dims; newshape.len = {nd};",
        "PyArrayObject *r = (PyArrayObject *)PyArray_Newshape(i0, &newshape, NPY_CORDER);",
        "if (!r) goto fail;",
        "Py_XDECREF(o0); o0 = r;",
    ]
    out_shape = node.outputs[0].type.shape
    for d, s in enumerate(out_shape):
        if s is not None:
            lines.append(
                f"if (PyArray_DIMS(o0)[{d}] != {s}) {{ PyErr_Format(PyExc_ValueError, "
                f"\"reshape: dimension {d} of the result has length %ld, its type says {s}\", "
                f"(long)PyArray_DIMS(o0)[{d}]); goto fail; }}"
            )
    return NodeC("\n".join(lines), support=(VIEW_SUPPORT,))


def emit_alloc(node: Any, ctx: EmitContext) -> NodeC | None:
    if not _ok(node):
        return None
    value = node.inputs[0]
    out = node.outputs[0]
    nd = out.type.ndim
    vnd = value.type.ndim
    offset = nd - vnd
    dt = out.type.dtype
    lines = [f"npy_intp shp[{max(nd, 1)}];"]
    for d in range(nd):
        lines.append(f"shp[{d}] = {_read_int(node.inputs[1 + d], f'i{1 + d}')};")
        lines.append(
            f"if (shp[{d}] < 0) {{ if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "
            f"\"alloc: negative dimension %ld in the requested shape\", (long)shp[{d}]); "
            "goto fail; }"
        )
    for j in range(vnd):
        if value.type.shape[j] == 1:
            cond = f"PyArray_DIMS(i0)[{j}] != 1 && PyArray_DIMS(i0)[{j}] != shp[{offset + j}]"
        else:
            cond = f"PyArray_DIMS(i0)[{j}] != shp[{offset + j}]"
        lines.append(
            f"if ({cond}) {{ PyErr_Format(PyExc_ValueError, \"alloc: dimension {j} of the "
            f"value has length %ld and cannot be broadcast to %ld (Runtime broadcasting not "
            f"allowed: only a dimension of static length 1 broadcasts)\", "
            f"(long)PyArray_DIMS(i0)[{j}], (long)shp[{offset + j}]); goto fail; }}"
        )
    lines.append(
        f"OG_SET_OUT(o0, (PyArrayObject *)og_new_array({nd}, shp, {typenum(dt)}, o0, "
        "&i0, 1));"
    )
    lines.append("if (PyArray_CopyInto(o0, i0) < 0) goto fail;")
    return NodeC("\n".join(lines), support=(VIEW_SUPPORT,))


def basic_view_lines(idx_list: Any, x: Any, ond: int, index_vars: list[Any],
                     first_input: int, xname: str = "i0") -> list[str] | None:
    """C computing ``dims``/``strides``/``data`` of the basic-index view ``x[idx]``.

    ``index_vars`` are the index inputs, named ``i<first_input>``, ``i<first_input+1>``...
    None when the index is not a basic one.
    """
    from opgraph.tensor.indexing import INT, SliceSpec

    nd = x.type.ndim
    lines = [
        f"npy_intp dims[{max(ond, 1)}], strides[{max(ond, 1)}];",
        f"char *data = PyArray_BYTES({xname});",
        "npy_intp n, st, idx, start, stop, step;",
        "(void)idx; (void)start; (void)stop; (void)step; (void)n; (void)st;",
    ]
    pos, od = 0, 0

    def take() -> str:
        nonlocal pos
        k = first_input + pos
        text = _read_int(index_vars[pos], f"i{k}")
        pos += 1
        return text

    for ax, entry in enumerate(idx_list):
        lines.append(f"n = PyArray_DIMS({xname})[{ax}]; st = PyArray_STRIDES({xname})[{ax}];")
        if isinstance(entry, SliceSpec):
            if entry.start:
                lines.append(f"start = {take()};")
            if entry.stop:
                lines.append(f"stop = {take()};")
            lines.append(f"step = {take()};" if entry.step else "step = 1;")
            lines.append("if (PyErr_Occurred()) goto fail;")
            lines.append(
                "if (step == 0) { PyErr_SetString(PyExc_ValueError, "
                "\"slice step cannot be zero\"); goto fail; }"
            )
            if not entry.start:
                lines.append("start = step < 0 ? PY_SSIZE_T_MAX : 0;")
            if not entry.stop:
                lines.append("stop = step < 0 ? PY_SSIZE_T_MIN : PY_SSIZE_T_MAX;")
            lines.append(
                "{ Py_ssize_t s0 = start, s1 = stop; "
                "Py_ssize_t len = PySlice_AdjustIndices(n, &s0, &s1, step); "
                f"dims[{od}] = len; strides[{od}] = step * st; "
                "if (len > 0) data += s0 * st; }"
            )
            od += 1
        elif entry == INT:
            lines.append(f"idx = {take()};")
            lines.append("if (PyErr_Occurred()) goto fail;")
            lines.append(
                "if (idx < 0) idx += n; if (idx < 0 || idx >= n) { PyErr_Format("
                f"PyExc_IndexError, \"index %ld is out of bounds for axis {ax} with size %ld\", "
                "(long)(idx < 0 ? idx - n : idx), (long)n); goto fail; }"
            )
            lines.append("data += idx * st;")
        else:
            return None
    for ax in range(len(idx_list), nd):
        lines.append(
            f"dims[{od}] = PyArray_DIMS({xname})[{ax}]; "
            f"strides[{od}] = PyArray_STRIDES({xname})[{ax}];"
        )
        od += 1
    if od != ond:
        return None
    return lines


def emit_subtensor(node: Any, ctx: EmitContext) -> NodeC | None:
    from opgraph.tensor.type import TensorType

    x, out = node.inputs[0], node.outputs[0]
    if not isinstance(x.type, TensorType) or not supported(x.type.dtype):
        return None
    lines = basic_view_lines(node.op.idx_list, x, out.type.ndim, list(node.inputs[1:]), 1)
    if lines is None:
        return None
    lines.append(f"OG_SET_OUT(o0, og_view(i0, {out.type.ndim}, dims, strides, data));")
    return NodeC("\n".join(lines), support=(VIEW_SUPPORT, INDEX_SUPPORT))


def table() -> dict[type, Any]:
    from opgraph.tensor.creation import Alloc
    from opgraph.tensor.shape import Reshape, Shape, Shape_i
    from opgraph.tensor.subtensor import Subtensor

    return {
        Shape: emit_shape,
        Shape_i: emit_shape_i,
        Reshape: emit_reshape,
        Alloc: emit_alloc,
        Subtensor: emit_subtensor,
    }

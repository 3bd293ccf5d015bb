"""C for Argmax/Argmin, Softmax/LogSoftmax, Join, IncSubtensor, ARange, Eye and DeepCopyOp.

Where NumPy's C API already has the exact operation (argmax over one axis,
concatenate, arange, casting assignment) the node calls it directly, so
results, NaN handling and errors are NumPy's own; softmax and eye are
loops written here.  Batched matmul lives in :mod:`.blas`.
"""

from __future__ import annotations

from typing import Any

from opgraph.compile.ops import DeepCopyOp
from opgraph.link.c.template import c_source
from opgraph.tensor.creation import ARange, Eye
from opgraph.tensor.indexing import INT, SliceLength
from opgraph.tensor.join import Join
from opgraph.tensor.reduction import Argmax, Argmin
from opgraph.tensor.special import LogSoftmax, Softmax
from opgraph.tensor.subtensor import AdvancedIncSubtensor1, AdvancedSubtensor1, IncSubtensor
from opgraph_c.codegen.ctypes_ import c_type, typenum
from opgraph_c.codegen.emit import CWriter
from opgraph_c.codegen.gather import (
    emit_advanced_inc_subtensor1,
    emit_advanced_subtensor1,
    emit_slice_length,
)
from opgraph_c.codegen.nodec import EmitContext, NodeC
from opgraph_c.codegen.shape_ops import (
    INDEX_SUPPORT,
    VIEW_SUPPORT,
    _ok,
    _read_int,
    basic_view,
)

__all__ = ["table"]


def _fail_if(w: CWriter, cond: str, *error: str) -> None:
    """``if (cond) { error...; goto fail; }`` (the error sets the Python exception)."""
    with w.block(f"if ({cond})"):
        w.line(*error, "goto fail;")


def _cast_result(w: CWriter, typenum_: str) -> None:
    """Cast the new reference ``r`` to ``typenum_`` in place (NumPy chose another dtype)."""
    with w.block(f"if (PyArray_TYPE((PyArrayObject *)r) != {typenum_})"):
        w.line(f"PyObject *c = PyArray_Cast((PyArrayObject *)r, {typenum_});",
               "Py_DECREF(r);",
               "if (!c) goto fail;",
               "r = c;")


def emit_argmax(node: Any, ctx: EmitContext) -> NodeC | None:
    if not _ok(node):
        return None
    fn = "PyArray_ArgMin" if isinstance(node.op, Argmin) else "PyArray_ArgMax"
    x = node.inputs[0]
    nd = x.type.ndim
    axes = tuple(range(nd)) if node.op.axis is None else tuple(node.op.axis)
    kept = [d for d in range(nd) if d not in axes]
    w = CWriter()
    w.line("PyObject *r = NULL;")
    if nd == 0:
        w.line("r = PyArray_ZEROS(0, NULL, NPY_INT64, 0);")
    elif len(axes) == nd:
        with w.block():
            w.line("PyObject *flat = PyArray_Ravel(i0, NPY_CORDER);",
                   "if (!flat) goto fail;",
                   f"r = {fn}((PyArrayObject *)flat, 0, NULL);",
                   "Py_DECREF(flat);")
    elif len(axes) == 1:
        w.line(f"r = {fn}(i0, {axes[0]}, NULL);")
    else:
        perm = kept + sorted(axes)
        w.line(f"npy_intp perm_[{nd}] = {{{', '.join(map(str, perm))}}};",
               f"PyArray_Dims perm = {{perm_, {nd}}};",
               f"npy_intp shp[{len(kept) + 1}];")
        for j, d in enumerate(kept):
            w.line(f"shp[{j}] = PyArray_DIMS(i0)[{d}];")
        w.line(f"shp[{len(kept)}] = -1;",
               f"PyArray_Dims newshape = {{shp, {len(kept) + 1}}};")
        with w.block():
            w.line("PyObject *t = PyArray_Transpose(i0, &perm);",
                   "if (!t) goto fail;",
                   "PyObject *m = PyArray_Newshape((PyArrayObject *)t, &newshape, NPY_CORDER);",
                   "Py_DECREF(t);",
                   "if (!m) goto fail;",
                   f"r = {fn}((PyArrayObject *)m, {len(kept)}, NULL);",
                   "Py_DECREF(m);")
    w.line("if (!r) goto fail;")
    _cast_result(w, "NPY_INT64")
    w.line("Py_XDECREF(o0);", "o0 = (PyArrayObject *)r;")
    return NodeC(w.text())


def emit_softmax(node: Any, ctx: EmitContext) -> NodeC | None:
    """Stable softmax / log-softmax along one axis (or all): max, sum of exp, normalise."""
    x, out = node.inputs[0], node.outputs[0]
    dt = x.type.dtype
    if not _ok(node) or dt not in ("float32", "float64") or out.type.dtype != dt:
        return None
    nd = x.type.ndim
    axis = node.op.axis
    if axis is not None:
        axis = axis + nd if axis < 0 else axis
        if not 0 <= axis < nd:
            return None
    T, f = c_type(dt), ("f" if dt == "float32" else "")
    log = isinstance(node.op, LogSoftmax)
    name = "log_softmax" if log else "softmax"
    w = CWriter()
    w.line("PyArrayObject *src = i0;", "Py_INCREF(src);", f"npy_intp shp[{max(nd, 1)}];")
    for d in range(nd):
        w.line(f"shp[{d}] = PyArray_DIMS(i0)[{d}];")
    with w.block():
        w.line(f"PyObject *og_new_ = og_new_array({nd}, shp, {typenum(dt)}, o0, &i0, 1);",
               "Py_XDECREF(o0);",
               "o0 = (PyArrayObject *)og_new_;")
        _fail_if(w, "!o0", "Py_DECREF(src);")
    w.line("npy_intp size = PyArray_SIZE(o0);")
    if axis is None or nd == 0:
        with w.block("if (!PyArray_IS_C_CONTIGUOUS(src))"):
            w.line("PyArrayObject *c = (PyArrayObject *)PyArray_NewCopy(src, NPY_CORDER);",
                   "Py_DECREF(src);",
                   "src = c;",
                   "if (!src) goto fail;")
        w.line("npy_intp len = size, n_outer = size ? 1 : 0;",
               f"const npy_intp sx = sizeof({T}), sq = sizeof({T});")
        others: list[int] = []
    else:
        others = [d for d in range(nd) if d != axis]
        w.line(f"npy_intp len = PyArray_DIMS(src)[{axis}];",
               "npy_intp n_outer = len ? size / len : 0;",
               f"const npy_intp sx = PyArray_STRIDES(src)[{axis}];",
               f"const npy_intp sq = PyArray_STRIDES(o0)[{axis}];")
    _fail_if(w, "len == 0",
             f"PyErr_SetString(PyExc_ValueError, \"{name}: zero-size array to reduction "
             "operation maximum which has no identity\");",
             "Py_DECREF(src);")
    pragma = ctx.outer_pragma("size")
    if pragma:
        w.line(pragma)
    with w.block("for (npy_intp r = 0; r < n_outer; r++)"):
        w.line("const char *px = PyArray_BYTES(src);", "char *pq = PyArray_BYTES(o0);")
        if axis is not None and nd:
            w.line("npy_intp rem = r, idx;", "(void)rem;", "(void)idx;")
            for d in reversed(others):
                w.line(f"idx = rem % PyArray_DIMS(src)[{d}];",
                       f"rem /= PyArray_DIMS(src)[{d}];",
                       f"px += idx * PyArray_STRIDES(src)[{d}];",
                       f"pq += idx * PyArray_STRIDES(o0)[{d}];")
        w.line(f"{T} m = *(const {T} *)px;")
        with w.block("for (npy_intp k = 1; k < len; k++)"):
            w.line(f"{T} v = *(const {T} *)(px + k * sx);",
                   "if (m == m && (v > m || v != v)) m = v;  /* NaN propagates like np.max */")
        w.line("double s = 0;")
        with w.block("for (npy_intp k = 0; k < len; k++)"):
            w.line(f"{T} e = exp{f}(*(const {T} *)(px + k * sx) - m);")
            if log:
                w.line("s += e;")
            else:
                w.line(f"*({T} *)(pq + k * sq) = e;", "s += e;")
        if log:
            w.line(f"{T} ls = ({T})log(s);")
            with w.block("for (npy_intp k = 0; k < len; k++)"):
                w.line(f"*({T} *)(pq + k * sq) = (*(const {T} *)(px + k * sx) - m) - ls;")
        else:
            w.line(f"{T} ts = ({T})s;")
            with w.block("for (npy_intp k = 0; k < len; k++)"):
                w.line(f"*({T} *)(pq + k * sq) /= ts;")
    w.line("Py_DECREF(src);")
    return NodeC(w.text(), support=(VIEW_SUPPORT,))


def emit_join(node: Any, ctx: EmitContext) -> NodeC | None:
    if not _ok(node):
        return None
    n = len(node.inputs) - 1
    out_dt = node.outputs[0].type.dtype
    w = CWriter()
    w.line(f"npy_intp axis = {_read_int(node.inputs[0], 'i0')};",
           "if (PyErr_Occurred()) goto fail;",
           f"PyObject *seq = PyTuple_New({n});",
           "if (!seq) goto fail;")
    for k in range(n):
        w.line(f"Py_INCREF(i{k + 1});", f"PyTuple_SET_ITEM(seq, {k}, (PyObject *)i{k + 1});")
    w.line("PyObject *r = PyArray_Concatenate(seq, (int)axis);",
           "Py_DECREF(seq);",
           "if (!r) goto fail;")
    _cast_result(w, typenum(out_dt))
    w.line("Py_XDECREF(o0);", "o0 = (PyArrayObject *)r;")
    return NodeC(w.text(), support=(INDEX_SUPPORT,))


def emit_incsubtensor(node: Any, ctx: EmitContext) -> NodeC | None:
    """Basic-index set/inc: copy x (unless in place on a writeable x), write the view."""
    if not _ok(node):
        return None
    op = node.op
    x = node.inputs[0]
    nd = x.type.ndim
    ond = nd - sum(1 for e in op.idx_spec if e == INT)
    view = CWriter()
    if not basic_view(view, op.idx_spec, x, ond, list(node.inputs[2:]), 2, xname="og_b"):
        return None
    y_dt = node.inputs[1].type.dtype
    # same float dtype on both sides: the add (or set) is a strided C loop over the view
    # (no temporary ``v + y`` array, no ufunc call); other cases use NumPy's own path
    direct = y_dt == x.type.dtype and x.type.dtype in _DIRECT_INC
    w = CWriter()
    w.line("PyArrayObject *og_b;")
    copy_head = "else" if op.inplace else ""
    if op.inplace:
        with w.block("if (PyArray_ISWRITEABLE(i0))"):
            w.line("og_b = i0;", "Py_INCREF(og_b);")
    with w.block(copy_head):
        # the previous call's buffer when nothing else holds it, else a new one
        with w.block("if (og_reusable(o0, PyArray_NDIM(i0), PyArray_DIMS(i0), "
                     f"PyArray_TYPE(i0), (PyArrayObject **)og_in, {len(node.inputs)}))"):
            w.line("og_b = o0;", "Py_INCREF(og_b);")
        with w.block("else"):
            w.line("og_b = (PyArrayObject *)og_empty(PyArray_NDIM(i0), PyArray_DIMS(i0), "
                   "PyArray_TYPE(i0));",
                   "if (!og_b) goto fail;")
        _fail_if(w, "og_copy_same(og_b, i0) < 0", "Py_DECREF(og_b);")
    w.line("Py_XDECREF(o0);", "o0 = og_b;")
    support: tuple[str, ...] = (VIEW_SUPPORT, INDEX_SUPPORT)
    with w.block():
        w.code(view.text())
        w.line("int rc = 0;")
        head = ""
        if direct:
            ctype = c_type(x.type.dtype)
            support += (_inc_view_support(x.type.dtype, ctype, typenum(x.type.dtype)),)
            set_flag = 1 if op.set_instead_of_inc else 0
            head = (f"if (!og_incview_{x.type.dtype}(og_b, data, {ond}, dims, strides, i1, "
                    f"{set_flag}))")
        with w.block(head):
            w.line(f"PyArrayObject *v = og_view(og_b, {ond}, dims, strides, data);",
                   "if (!v) goto fail;")
            # ``v + y`` of two 0-d arrays is a NumPy scalar, not an array: copy it back
            # with PyArray_CopyObject (any object, unsafe cast as ``x[idx] = ...``), never
            # by treating it as a PyArrayObject.
            if op.set_instead_of_inc:
                w.line("rc = PyArray_CopyObject(v, (PyObject *)i1);")
            else:
                w.line("PyObject *sum = PyNumber_Add((PyObject *)v, (PyObject *)i1);",
                       "rc = sum ? PyArray_CopyObject(v, sum) : -1;",
                       "Py_XDECREF(sum);")
            w.line("Py_DECREF(v);")
        w.line("if (rc < 0) goto fail;")
    return NodeC(w.text(), support=support)

_DIRECT_INC = ("float32", "float64")


def _inc_view_support(dtype: str, ctype: str, tnum: str) -> str:
    """``og_incview_<dtype>(base, data, nd, dims, strides, y, set)``: the view of ``base``
    given by data/dims/strides ``+= y`` (or ``= y``) with y broadcast onto it, in C and
    without making the view an array object.  Returns 0, writing nothing, whenever
    NumPy's path must decide (another dtype, unaligned or swapped data, y overlapping
    base, shapes that do not broadcast: NumPy raises its own error there)."""
    return c_source(__package__, "runtime/inc_view.h", DTYPE=dtype, CTYPE=ctype, TYPENUM=tnum)


def emit_arange(node: Any, ctx: EmitContext) -> NodeC | None:
    if not _ok(node):
        return None
    dt = node.outputs[0].type.dtype
    w = CWriter()
    w.line("PyObject *a[3] = {NULL, NULL, NULL};", "PyObject *r = NULL;")
    for k in range(3):
        w.line(f"a[{k}] = PyArray_GETITEM(i{k}, PyArray_DATA(i{k}));", f"if (!a[{k}]) goto done;")
    with w.block():
        w.line("int zero = PyObject_Not(a[2]);", "if (zero < 0) goto done;")
        with w.block("if (zero)"):
            w.line("PyErr_SetString(PyExc_ValueError, \"arange: step must not be 0\");",
                   "goto done;")
    with w.block():
        w.line(f"PyArray_Descr *d = PyArray_DescrFromType({typenum(dt)});",
               "r = PyArray_ArangeObj(a[0], a[1], a[2], d);",
               "Py_XDECREF(d);")
    w.line("done:",
           "Py_XDECREF(a[0]);",
           "Py_XDECREF(a[1]);",
           "Py_XDECREF(a[2]);",
           "if (!r) goto fail;",
           "Py_XDECREF(o0);",
           "o0 = (PyArrayObject *)r;")
    return NodeC(w.text())


def emit_eye(node: Any, ctx: EmitContext) -> NodeC | None:
    if not _ok(node):
        return None
    dt = node.outputs[0].type.dtype
    T = c_type(dt)
    w = CWriter()
    w.line("npy_intp shp[2];",
           f"shp[0] = {_read_int(node.inputs[0], 'i0')};",
           f"shp[1] = {_read_int(node.inputs[1], 'i1')};",
           f"npy_intp k = {_read_int(node.inputs[2], 'i2')};",
           "if (PyErr_Occurred()) goto fail;")
    _fail_if(w, "shp[0] < 0 || shp[1] < 0",
             "PyErr_Format(PyExc_ValueError, \"eye: n and m must be >= 0, got %ld and %ld\", "
             "(long)shp[0], (long)shp[1]);")
    w.line(f"OG_SET_OUT(o0, (PyArrayObject *)og_new_array(2, shp, {typenum(dt)}, o0, NULL, 0));",
           f"{T} *q = ({T} *)PyArray_DATA(o0);",
           "memset(q, 0, PyArray_NBYTES(o0));")
    with w.block("for (npy_intp i = (k < 0 ? -k : 0); i < shp[0] && i + k < shp[1]; i++)"):
        w.line(f"q[i * shp[1] + i + k] = ({T})1;")
    return NodeC(w.text(), support=(VIEW_SUPPORT, INDEX_SUPPORT))


def emit_deep_copy(node: Any, ctx: EmitContext) -> NodeC | None:
    """A copy of a tensor into a fresh (or this node's own reusable) array: the node
    PyTensor puts on an output that would alias an input, a view or another output."""
    if not _ok(node):
        return None
    nd = node.inputs[0].type.ndim
    w = CWriter()
    w.line(f"npy_intp shp[{max(nd, 1)}];")
    for d in range(nd):
        w.line(f"shp[{d}] = PyArray_DIMS(i0)[{d}];")
    w.line(f"OG_SET_OUT(o0, (PyArrayObject *)og_new_array({nd}, shp, PyArray_TYPE(i0), o0, "
           "&i0, 1));",
           "if (PyArray_CopyInto(o0, i0) < 0) goto fail;")
    return NodeC(w.text(), support=(VIEW_SUPPORT,))


def table() -> dict[type, Any]:
    return {
        Argmax: emit_argmax,  # Argmin subclasses Argmax
        Softmax: emit_softmax,
        LogSoftmax: emit_softmax,
        Join: emit_join,
        IncSubtensor: emit_incsubtensor,
        AdvancedSubtensor1: emit_advanced_subtensor1,
        AdvancedIncSubtensor1: emit_advanced_inc_subtensor1,
        SliceLength: emit_slice_length,
        ARange: emit_arange,
        Eye: emit_eye,
        DeepCopyOp: emit_deep_copy,
    }

"""C for the products: Dot, MatMul, Dot22(Scalar), Gemm, Gemv, Ger, BatchedDot (CBLAS).

Which BLAS, in order:

1. The OpenBLAS NumPy ships with (``numpy.libs/libscipy_openblas64_*.so`` in
   wheels): already loaded in the process by NumPy, 64-bit integers, symbols
   ``scipy_cblas_dgemm64_``...  No header is needed: the prototypes are
   declared here.
2. A system CBLAS found by ``ctypes.util.find_library`` ("openblas",
   "cblas", "blas") exporting ``cblas_dgemm`` (32-bit integers).
3. None: Dot calls NumPy's own ``PyArray_MatrixProduct2`` (which uses NumPy's
   BLAS itself), so results are the same, only the call is not inlined;
   Gemm/Gemv run their Python ``perform``.

Operands reach BLAS without a copy whenever BLAS can read them as they are:
a transposed (column-major) matrix is passed with the transpose flag and its
leading dimension, a row or column slice with its stride.  Only an operand
with no unit stride is copied.  Integer and mixed-dtype products always take
path 3.  The C support (prototypes, operand helpers) is in
:mod:`opgraph_c.codegen.blas_support`; this module writes each node's
statements with :class:`CWriter`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import glob
import os
from typing import Any

import attrs
import numpy

from opgraph.link.c.template import c_source
from opgraph.tensor.basic import AllocEmpty
from opgraph.tensor.blas import BatchedDot, Dot22, Dot22Scalar, Gemm, Gemv, Ger
from opgraph.tensor.products import Dot, MatMul
from opgraph.tensor.type import TensorType
from opgraph_c.codegen.blas_support import blas_support
from opgraph_c.codegen.ctypes_ import c_type, supported, typenum
from opgraph_c.codegen.emit import CWriter
from opgraph_c.codegen.nodec import EmitContext, NodeC

__all__ = ["BlasInfo", "emit_alloc_empty", "emit_batched_matmul", "emit_dot",
           "emit_dot22scalar", "emit_gemm", "emit_gemv", "emit_ger", "find_blas", "table"]


@attrs.frozen
class BlasInfo:
    """A CBLAS usable from generated code."""

    description: str
    lib_dir: str
    link_name: str  # for -l (":file.so" links a file by name)
    prefix: str
    suffix: str
    int_type: str


def _try(path: str, prefix: str, suffix: str) -> bool:
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return False
    return all(hasattr(lib, f"{prefix}cblas_{f}{suffix}") for f in ("dgemm", "sgemm", "dgemv",
                                                                     "sgemv", "ddot", "sdot"))


@functools.cache
def find_blas() -> BlasInfo | None:
    """The CBLAS to link (see module docstring), or None."""
    if os.environ.get("OPGRAPH_C_NO_BLAS"):
        return None
    site = os.path.dirname(os.path.dirname(numpy.__file__))
    for path in sorted(glob.glob(os.path.join(site, "numpy.libs", "libscipy_openblas64_*.so"))):
        if _try(path, "scipy_", "64_"):
            return BlasInfo(f"NumPy's bundled OpenBLAS ({os.path.basename(path)}, ILP64)",
                            os.path.dirname(path), ":" + os.path.basename(path), "scipy_", "64_",
                            "long long")
    for path in sorted(glob.glob(os.path.join(site, "numpy.libs", "libscipy_openblas*.so"))):
        if _try(path, "scipy_", ""):
            return BlasInfo(f"NumPy's bundled OpenBLAS ({os.path.basename(path)})",
                            os.path.dirname(path), ":" + os.path.basename(path), "scipy_", "",
                            "int")
    for name in ("openblas", "cblas", "blas"):
        found = ctypes.util.find_library(name)
        if found and _try(found, "", ""):
            return BlasInfo(f"system {found}", "", name, "", "", "int")
    return None


@functools.cache
def _support(info: BlasInfo) -> str:
    """The prototypes of ``info``'s CBLAS and the operand helpers."""
    return blas_support(info.int_type, info.prefix, info.suffix)


def _blas_node(w: CWriter, info: BlasInfo) -> NodeC:
    lib_dirs = (info.lib_dir,) if info.lib_dir else ()
    return NodeC(w.text(), support=(_support(info),), libraries=(info.link_name,),
                 lib_dirs=lib_dirs)


def _float_blas(node: Any) -> tuple[BlasInfo, str] | None:
    """(BLAS, output dtype) when every input and the output share one BLAS float dtype."""
    out = node.outputs[0]
    dt = out.type.dtype
    info = find_blas()
    if info is None or dt not in ("float32", "float64"):
        return None
    if not all(isinstance(v.type, TensorType) and v.type.dtype == dt for v in node.inputs):
        return None
    return info, dt


def _fallback(dt: str) -> NodeC:
    w = CWriter()
    with w.block():
        # no BLAS: NumPy's product (runtime/blas_fallback.c)
        w.code(c_source(__package__, "runtime/blas_fallback.c", OUT_TYPENUM=typenum(dt)))
    return NodeC(w.text())


def _operands(w: CWriter, names: tuple[tuple[str, str, int], ...], fail: str) -> None:
    """Owned references ``a``, ``b``... to the inputs, each made readable by BLAS."""
    for name, src, _nd in names:
        w.line(f"PyArrayObject *{name} = {src}; Py_INCREF({name});")
    for name, _src, nd in names:
        if nd == 2:
            w.line(f"int tr_{name}; og_blasint ld_{name};",
                   f"if (og_mat_operand(&{name}, &ld_{name}, &tr_{name})) {fail}")
        elif nd == 1:
            w.line(f"og_blasint inc_{name};",
                   f"if (og_vec_operand(&{name}, &inc_{name})) {fail}")


def _new_output(w: CWriter, nd: int, shape: list[str], dt: str, fail: str) -> None:
    """``o0``: the previous call's buffer when free and not aliasing an input, else new."""
    w.line(f"npy_intp shp[{max(nd, 1)}] = {{{', '.join(shape) or '0'}}};",
           "PyArrayObject *ins[2] = {i0, i1};")
    with w.block():
        w.line(f"PyObject *og_new_ = og_new_array({nd}, shp, {typenum(dt)}, o0, ins, 2);",
               "Py_XDECREF(o0);", "o0 = (PyArrayObject *)og_new_;", f"if (!o0) {fail}")


def emit_dot(node: Any, ctx: EmitContext) -> NodeC | None:
    """Dot, MatMul and Dot22 of 1-D/2-D operands: gemm, gemv or dot on the operands as they are."""
    x, y = node.inputs
    out = node.outputs[0]
    if not all(isinstance(v.type, TensorType) and supported(v.type.dtype) for v in (x, y, out)):
        return None
    xd, yd = x.type.ndim, y.type.ndim
    if xd >= 2 and yd >= 2 and max(xd, yd) > 2:
        return emit_batched_matmul(node, ctx)
    if xd not in (1, 2) or yd not in (1, 2):
        return None  # batched matmul with a 1-D operand: Python
    found = _float_blas(node)
    if found is None:
        return _fallback(out.type.dtype)
    info, dt = found
    t, T = ("d" if dt == "float64" else "f"), c_type(dt)
    label = "matmul" if isinstance(node.op, MatMul) else "Dot"
    fail = "{ Py_XDECREF(a); Py_XDECREF(b); goto fail; }"
    w = CWriter()
    with w.block():
        w.line(f"npy_intp kx = PyArray_DIMS(i0)[{xd - 1}], ky = PyArray_DIMS(i1)[0];")
        with w.block("if (kx != ky)"):
            w.line(f"PyErr_Format(PyExc_ValueError, \"{label}: shapes are not aligned: %ld "
                   f"(dim {xd - 1} of the first input) != %ld (dim 0 of the second)\", "
                   "(long)kx, (long)ky);", "goto fail;")
        _operands(w, (("a", "i0", xd), ("b", "i1", yd)), fail)
        shape = (["PyArray_DIMS(a)[0]"] if xd == 2 else []) + (
            ["PyArray_DIMS(b)[1]"] if yd == 2 else [])
        _new_output(w, len(shape), shape, dt, fail)
        w.line(f"{T} *c = ({T} *)PyArray_DATA(o0);",
               f"const {T} *pa = (const {T} *)PyArray_DATA(a), "
               f"*pb = (const {T} *)PyArray_DATA(b);")
        if xd == 2 and yd == 2:
            w.line("npy_intp m = PyArray_DIMS(a)[0], n = PyArray_DIMS(b)[1];")
            w.line(f"og_gemm_{t}(m, n, kx, 1, pa, ld_a, tr_a, pb, ld_b, tr_b, 0, c, "
                   "n > 1 ? n : 1);")
        elif xd == 2:
            w.line(f"og_gemv_{t}(PyArray_DIMS(a)[0], kx, 1, pa, ld_a, tr_a, pb, inc_b, 0, c, 1);")
        elif yd == 2:  # x @ B = B^T x
            w.line(f"og_gemv_{t}(PyArray_DIMS(b)[1], kx, 1, pb, ld_b, !tr_b, pa, inc_a, 0, c, 1);")
        else:
            w.line(f"c[0] = kx ? og_dot_{t}(kx, pa, inc_a, pb, inc_b) : 0;")
        w.line("Py_DECREF(a); Py_DECREF(b);")
    return _blas_node(w, info)


def _scalar(w: CWriter, name: str, src: str, T: str) -> None:
    w.line(f"const {T} {name} = *(const {T} *)PyArray_DATA({src});")


def emit_gemm(node: Any, ctx: EmitContext) -> NodeC | None:
    """Gemm ``b * z + a * x @ y`` as one BLAS call with ``alpha = a``, ``beta = b``.

    The output starts as ``z`` (``z`` itself when the Op is inplace and ``z``
    is row- or column-major; a copy otherwise); ``b == 0`` never reads ``z``,
    as in ``perform``.  A ``z`` that broadcasts against ``x @ y`` (or the
    reverse) takes NumPy's operations (``og_gemm_broadcast``).  ``a == 0``
    still forms the product (BLAS would skip it), so inf/nan in ``x``/``y``
    give nan as NumPy does.
    """
    found = _float_blas(node)
    if found is None:
        return None
    info, dt = found
    t, T = ("d" if dt == "float64" else "f"), c_type(dt)
    inplace = bool(getattr(node.op, "inplace", False))
    fail = "{ Py_XDECREF(x); Py_XDECREF(y); goto fail; }"
    w = CWriter()
    with w.block():
        _scalar(w, "alpha", "i1", T)
        _scalar(w, "beta", "i4", T)
        w.line("npy_intp m = PyArray_DIMS(i2)[0], k = PyArray_DIMS(i2)[1], "
               "n = PyArray_DIMS(i3)[1];")
        w.line("npy_intp zm = PyArray_DIMS(i0)[0], zn = PyArray_DIMS(i0)[1];")
        with w.block("if (PyArray_DIMS(i3)[0] != k || (zm != m && zm != 1 && m != 1) || "
                     "(zn != n && zn != 1 && n != 1))"):
            w.line("PyErr_Format(PyExc_ValueError, \"Gemm: shapes do not match: z %ldx%ld, "
                   "x %ldx%ld, y %ldx%ld\", (long)zm, (long)zn, (long)m, (long)k, "
                   "(long)PyArray_DIMS(i3)[0], (long)n);", "goto fail;")
        # z and x @ y of different shapes broadcast (NumPy's operations, not BLAS).
        with w.block("if (zm != m || zn != n)"):
            w.line(f"if (og_gemm_broadcast(&o0, i0, i1, i2, i3, i4, {int(inplace)}, beta == 0))"
                   " goto fail;")
        with w.block("else"):
            _operands(w, (("x", "i2", 2), ("y", "i3", 2)), fail)
            w.line("PyArrayObject *ins[3] = {i0, i2, i3};",
                   f"if (og_blas_target(&o0, i0, {int(inplace)}, beta != 0, {typenum(dt)}, "
                   "ins, 3)) " + fail)
            w.line(f"if (og_gemm_into_{t}(o0, alpha, (const {T} *)PyArray_DATA(x), ld_x, tr_x, "
                   f"(const {T} *)PyArray_DATA(y), ld_y, tr_y, beta, m, n, k)) {fail}")
            if inplace:
                _write_back(w, fail)
            w.line("Py_DECREF(x); Py_DECREF(y);")
    return _blas_node(w, info)


def _write_back(w: CWriter, fail: str) -> None:
    """An in-place node whose result went to another buffer copies it into its input 0
    and returns that input (the destroyed buffer is the output, as its destroy_map says)."""
    w.line("if (o0 != i0 && og_copy_same(i0, o0) < 0) " + fail,
           "if (o0 != i0) { Py_DECREF(o0); Py_INCREF(i0); o0 = i0; }")


def emit_gemv(node: Any, ctx: EmitContext) -> NodeC | None:
    """Gemv ``b * y + a * A @ x`` as one BLAS call (``b == 0`` never reads ``y``)."""
    found = _float_blas(node)
    if found is None:
        return None
    info, dt = found
    t, T = ("d" if dt == "float64" else "f"), c_type(dt)
    inplace = bool(getattr(node.op, "inplace", False))
    fail = "{ Py_XDECREF(A); Py_XDECREF(x); goto fail; }"
    w = CWriter()
    with w.block():
        _scalar(w, "alpha", "i1", T)
        _scalar(w, "beta", "i4", T)
        w.line("npy_intp m = PyArray_DIMS(i2)[0], k = PyArray_DIMS(i2)[1];")
        with w.block("if (PyArray_DIMS(i3)[0] != k || PyArray_DIMS(i0)[0] != m)"):
            w.line("PyErr_Format(PyExc_ValueError, \"Gemv: shapes do not match: y %ld, "
                   "A %ldx%ld, x %ld\", (long)PyArray_DIMS(i0)[0], (long)m, (long)k, "
                   "(long)PyArray_DIMS(i3)[0]);", "goto fail;")
        _operands(w, (("A", "i2", 2), ("x", "i3", 1)), fail)
        w.line("PyArrayObject *ins[3] = {i0, i2, i3};",
               f"if (og_blas_target(&o0, i0, {int(inplace)}, beta != 0, {typenum(dt)}, ins, 3)) "
               + fail)
        w.line(f"og_blasint inc_o = (og_blasint)(PyArray_STRIDES(o0)[0] / {_size(dt)});",
               f"if (og_gemv_into_{t}(({T} *)PyArray_DATA(o0), inc_o, alpha, "
               f"(const {T} *)PyArray_DATA(A), ld_A, tr_A, (const {T} *)PyArray_DATA(x), inc_x, "
               f"beta, m, k)) {fail}")
        if inplace:
            _write_back(w, fail)
        w.line("Py_DECREF(A); Py_DECREF(x);")
    return _blas_node(w, info)


def emit_dot22scalar(node: Any, ctx: EmitContext) -> NodeC | None:
    """Dot22Scalar ``a * x @ y`` as one BLAS gemm with ``alpha = a``, ``beta = 0``."""
    found = _float_blas(node)
    if found is None:
        return None
    info, dt = found
    t, T = ("d" if dt == "float64" else "f"), c_type(dt)
    fail = "{ Py_XDECREF(a); Py_XDECREF(b); goto fail; }"
    w = CWriter()
    with w.block():
        _scalar(w, "alpha", "i2", T)
        w.line("npy_intp kx = PyArray_DIMS(i0)[1], ky = PyArray_DIMS(i1)[0];")
        with w.block("if (kx != ky)"):
            w.line("PyErr_Format(PyExc_ValueError, \"Dot22Scalar: shapes are not aligned: x "
                   "%ldx%ld, y %ldx%ld\", (long)PyArray_DIMS(i0)[0], (long)kx, (long)ky, "
                   "(long)PyArray_DIMS(i1)[1]);", "goto fail;")
        _operands(w, (("a", "i0", 2), ("b", "i1", 2)), fail)
        _new_output(w, 2, ["PyArray_DIMS(a)[0]", "PyArray_DIMS(b)[1]"], dt, fail)
        w.line(f"if (og_gemm_into_{t}(o0, alpha, (const {T} *)PyArray_DATA(a), ld_a, tr_a, "
               f"(const {T} *)PyArray_DATA(b), ld_b, tr_b, 0, PyArray_DIMS(a)[0], "
               f"PyArray_DIMS(b)[1], kx)) {fail}")
        w.line("Py_DECREF(a); Py_DECREF(b);")
    return _blas_node(w, info)


def emit_ger(node: Any, ctx: EmitContext) -> NodeC | None:
    """Ger ``A + alpha * outer(x, y)``: one pass over the output (z itself when destructive).

    ``alpha * x[i]`` is formed first, as ``perform``'s ``outer(alpha * x, y)``.
    """
    found = _float_blas(node)
    if found is None:
        return None
    info, dt = found
    T = c_type(dt)
    destructive = bool(getattr(node.op, "destructive", False))
    w = CWriter()
    with w.block():
        _scalar(w, "alpha", "i1", T)
        w.line("npy_intp M = PyArray_DIMS(i0)[0], N = PyArray_DIMS(i0)[1];")
        with w.block("if (PyArray_DIMS(i2)[0] != M || PyArray_DIMS(i3)[0] != N)"):
            w.line("PyErr_Format(PyExc_ValueError, \"Ger: shapes do not match: A %ldx%ld, "
                   "x %ld, y %ld\", (long)M, (long)N, (long)PyArray_DIMS(i2)[0], "
                   "(long)PyArray_DIMS(i3)[0]);", "goto fail;")
        w.line("PyArrayObject *ins[3] = {i0, i2, i3};",
               f"if (og_blas_target(&o0, i0, {int(destructive)}, 1, {typenum(dt)}, ins, 3)) "
               "goto fail;",
               "char *po = PyArray_BYTES(o0);",
               "npy_intp so0 = PyArray_STRIDES(o0)[0], so1 = PyArray_STRIDES(o0)[1];",
               "const char *px = PyArray_BYTES(i2), *py = PyArray_BYTES(i3);",
               "npy_intp sx = PyArray_STRIDES(i2)[0], sy = PyArray_STRIDES(i3)[0];")
        with w.block("for (npy_intp i = 0; i < M; i++)"):
            w.line(f"const {T} xi = alpha * *(const {T} *)(px + i * sx);",
                   "char *row = po + i * so0;")
            with w.block("for (npy_intp j = 0; j < N; j++)"):
                w.line(f"*({T} *)(row + j * so1) += xi * *(const {T} *)(py + j * sy);")
        if destructive:
            _write_back(w, "goto fail;")
    return _blas_node(w, info)


def emit_alloc_empty(node: Any, ctx: EmitContext) -> NodeC | None:
    """AllocEmpty: an uninitialised array (the unread ``y`` of a ``beta = 0`` Gemv).

    In C so a Gemv formed from ``dot`` costs no Python call more than the dot.
    """
    dt = node.outputs[0].type.dtype
    if not supported(dt) or not all(
            isinstance(i.type, TensorType) and i.type.ndim == 0 and supported(i.type.dtype)
            for i in node.inputs):
        return None
    nd = len(node.inputs)
    w = CWriter()
    with w.block():
        w.line(f"npy_intp shp[{max(nd, 1)}] = {{0}};")
        for k, inp in enumerate(node.inputs):
            w.line(f"shp[{k}] = (npy_intp)*(const {c_type(inp.type.dtype)} *)PyArray_DATA(i{k});")
            with w.block(f"if (shp[{k}] < 0)"):
                w.line("PyErr_Format(PyExc_ValueError, \"AllocEmpty: negative length %ld for "
                       f"axis {k}\", (long)shp[{k}]);", "goto fail;")
        with w.block():
            w.line(f"PyObject *og_new_ = og_new_array({nd}, shp, {typenum(dt)}, o0, NULL, 0);",
                   "Py_XDECREF(o0);", "o0 = (PyArrayObject *)og_new_;", "if (!o0) goto fail;")
    return NodeC(w.text())


def _size(dtype: str) -> int:
    return 8 if dtype == "float64" else 4


def emit_batched_matmul(node: Any, ctx: EmitContext) -> NodeC | None:
    """matmul of >= 2-D operands: one gemm per (broadcast) batch entry.

    A batch dimension broadcasts only where its static length is 1, as in
    the Op's perform; a slice BLAS cannot take as is makes a C-ordered copy.
    """
    x, y = node.inputs
    out = node.outputs[0]
    found = _float_blas(node)
    if found is None:
        return None
    info, dt = found
    xd, yd, od = x.type.ndim, y.type.ndim, out.type.ndim
    nb = od - 2
    t, T = ("d" if dt == "float64" else "f"), c_type(dt)
    fail = "goto bad;"
    w = CWriter()
    with w.block():
        w.line("PyArrayObject *a = i0, *b = i1; Py_INCREF(a); Py_INCREF(b);",
               f"npy_intp M = PyArray_DIMS(a)[{xd - 2}], K = PyArray_DIMS(a)[{xd - 1}];",
               f"npy_intp K2 = PyArray_DIMS(b)[{yd - 2}], N = PyArray_DIMS(b)[{yd - 1}];",
               f"npy_intp shp[{od}], sa[{max(nb, 1)}], sb[{max(nb, 1)}];")
        with w.block("if (K != K2)"):
            w.line("PyErr_Format(PyExc_ValueError, \"matmul: shapes do not match: %ld (last dim "
                   "of the first input) != %ld (dim -2 of the second)\", (long)K, (long)K2);",
                   fail)
        for name, nd_ in (("a", xd), ("b", yd)):
            w.line(f"if (og_batch_operand(&{name}, {nd_})) {fail}")
        for d in range(nb):
            ax, ay = d - (nb - (xd - 2)), d - (nb - (yd - 2))
            xs = x.type.shape[ax] if ax >= 0 else 1
            ys = y.type.shape[ay] if ay >= 0 else 1
            na = f"PyArray_DIMS(a)[{ax}]" if ax >= 0 else "1"
            nbb = f"PyArray_DIMS(b)[{ay}]" if ay >= 0 else "1"
            w.line(f"sa[{d}] = {f'PyArray_STRIDES(a)[{ax}]' if xs != 1 else '0'}; "
                   f"sb[{d}] = {f'PyArray_STRIDES(b)[{ay}]' if ys != 1 else '0'};")
            if xs == 1:
                w.line(f"shp[{d}] = {nbb};")
            elif ys == 1:
                w.line(f"shp[{d}] = {na};")
            else:
                w.line(f"shp[{d}] = {na};")
                with w.block(f"if ({nbb} != shp[{d}])"):
                    w.line("PyErr_Format(PyExc_ValueError, \"matmul: batch dimension %d has "
                           f"lengths %ld and %ld\", {d}, (long)shp[{d}], (long){nbb});", fail)
        w.line(f"shp[{nb}] = M; shp[{nb + 1}] = N;", "PyArrayObject *ins[2] = {i0, i1};")
        with w.block():
            w.line(f"PyObject *og_new_ = og_new_array({od}, shp, {typenum(dt)}, o0, ins, 2);",
                   "Py_XDECREF(o0);", "o0 = (PyArrayObject *)og_new_;", f"if (!o0) {fail}")
        w.line("int tr_a, tr_b;",
               f"og_blasint ld_a = og_ld2(M, K, PyArray_STRIDES(a)[{xd - 2}], "
               f"PyArray_STRIDES(a)[{xd - 1}], {_size(dt)}, &tr_a);",
               f"og_blasint ld_b = og_ld2(K, N, PyArray_STRIDES(b)[{yd - 2}], "
               f"PyArray_STRIDES(b)[{yd - 1}], {_size(dt)}, &tr_b);",
               "npy_intp n_batch = 1;")
        for d in range(nb):
            w.line(f"n_batch *= shp[{d}];")
        w.line(f"{T} *c = ({T} *)PyArray_DATA(o0);")
        with w.block("if (M > 0 && N > 0) for (npy_intp r = 0; r < n_batch; r++)"):
            w.line("const char *pa = PyArray_BYTES(a), *pb = PyArray_BYTES(b);",
                   "npy_intp rem = r, idx; (void)rem; (void)idx;")
            for d in reversed(range(nb)):
                w.line(f"idx = rem % shp[{d}]; rem /= shp[{d}]; pa += idx * sa[{d}]; "
                       f"pb += idx * sb[{d}];")
            w.line(f"og_gemm_{t}(M, N, K, 1, (const {T} *)pa, ld_a, tr_a, (const {T} *)pb, "
                   f"ld_b, tr_b, 0, c + r * M * N, N > 1 ? N : 1);")
        w.line("Py_DECREF(a); Py_DECREF(b);")
        with w.block("if (0)"):
            w.label("bad")
            w.line("Py_XDECREF(a); Py_XDECREF(b);", "goto fail;")
    return _blas_node(w, info)


def table() -> dict[type, Any]:
    """The product Ops this module writes C for."""
    return {Dot: emit_dot, MatMul: emit_dot, Dot22: emit_dot, Gemm: emit_gemm, Gemv: emit_gemv,
            Dot22Scalar: emit_dot22scalar, Ger: emit_ger, BatchedDot: emit_batched_matmul,
            AllocEmpty: emit_alloc_empty}

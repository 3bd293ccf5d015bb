"""C for Dot (and 1-D/2-D MatMul) through a CBLAS, found at run time.

Which BLAS, in order:

1. The OpenBLAS NumPy ships with (``numpy.libs/libscipy_openblas64_*.so`` in
   wheels): already loaded in the process by NumPy, 64-bit integers, symbols
   ``scipy_cblas_dgemm64_``...  No header is needed: the prototypes are
   declared here.
2. A system CBLAS found by ``ctypes.util.find_library`` ("openblas",
   "cblas", "blas") exporting ``cblas_dgemm`` (32-bit integers).
3. None: the node calls NumPy's own ``PyArray_MatrixProduct2`` (which uses
   NumPy's BLAS itself), so results are the same, only the call is not inlined.

Integer and mixed-dtype products always take path 3.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import glob
import os
from typing import Any

import attrs

from opgraph_c.codegen.ctypes_ import c_type, supported, typenum
from opgraph_c.codegen.nodec import EmitContext, NodeC

__all__ = ["BlasInfo", "emit_batched_matmul", "emit_dot", "find_blas"]


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
    import numpy

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


def _support(info: BlasInfo) -> str:
    p, s, i = info.prefix, info.suffix, info.int_type
    return f"""
typedef {i} og_blasint;
#define OG_ROW 101
#define OG_NOTRANS 111
#define OG_TRANS 112
extern void {p}cblas_dgemm{s}(int, int, int, og_blasint, og_blasint, og_blasint, double,
    const double *, og_blasint, const double *, og_blasint, double, double *, og_blasint);
extern void {p}cblas_sgemm{s}(int, int, int, og_blasint, og_blasint, og_blasint, float,
    const float *, og_blasint, const float *, og_blasint, float, float *, og_blasint);
extern void {p}cblas_dgemv{s}(int, int, og_blasint, og_blasint, double, const double *,
    og_blasint, const double *, og_blasint, double, double *, og_blasint);
extern void {p}cblas_sgemv{s}(int, int, og_blasint, og_blasint, float, const float *,
    og_blasint, const float *, og_blasint, float, float *, og_blasint);
extern double {p}cblas_ddot{s}(og_blasint, const double *, og_blasint, const double *, og_blasint);
extern float {p}cblas_sdot{s}(og_blasint, const float *, og_blasint, const float *, og_blasint);
#define og_gemm_d {p}cblas_dgemm{s}
#define og_gemm_f {p}cblas_sgemm{s}
#define og_gemv_d {p}cblas_dgemv{s}
#define og_gemv_f {p}cblas_sgemv{s}
#define og_dot_d {p}cblas_ddot{s}
#define og_dot_f {p}cblas_sdot{s}

/* Row-major leading dimension of a 2-D array, with *trans set when it is
   column-major; 0 when BLAS cannot use it as is (then it is copied). */
static og_blasint og_ld(PyArrayObject *a, int *trans) {{
    npy_intp e = PyArray_ITEMSIZE(a), r = PyArray_DIMS(a)[0], c = PyArray_DIMS(a)[1];
    npy_intp s0 = PyArray_STRIDES(a)[0], s1 = PyArray_STRIDES(a)[1];
    if ((s1 == e || c == 1) && s0 % e == 0 && s0 / e >= (c > 1 ? c : 1)) {{
        *trans = 0; return (og_blasint)(s0 / e); }}
    if ((s0 == e || r == 1) && s1 % e == 0 && s1 / e >= (r > 1 ? r : 1)) {{
        *trans = 1; return (og_blasint)(s1 / e); }}
    return 0;
}}
"""


_FALLBACK = r"""
{
    /* NumPy returns a scalar, not a 0-d array, for two vectors: make it an array. */
    PyObject *r0 = PyArray_MatrixProduct2((PyObject *)i0, (PyObject *)i1, NULL);
    if (!r0) goto fail;
    PyObject *r = PyArray_FROM_O(r0);
    Py_DECREF(r0);
    if (!r) goto fail;
    if (PyArray_TYPE((PyArrayObject *)r) != OUT_TYPENUM) {
        PyObject *c = PyArray_Cast((PyArrayObject *)r, OUT_TYPENUM);
        Py_DECREF(r);
        if (!c) goto fail;
        r = c;
    }
    Py_XDECREF(o0);
    o0 = (PyArrayObject *)r;
}
"""


def emit_dot(node: Any, ctx: EmitContext) -> NodeC | None:
    x, y = node.inputs
    out = node.outputs[0]
    from opgraph.tensor.type import TensorType

    if not all(isinstance(v.type, TensorType) and supported(v.type.dtype) for v in (x, y, out)):
        return None
    xd, yd = x.type.ndim, y.type.ndim
    if xd >= 2 and yd >= 2 and max(xd, yd) > 2:
        return emit_batched_matmul(node, ctx)
    if xd not in (1, 2) or yd not in (1, 2):
        return None  # batched matmul with a 1-D operand: Python
    dt = out.type.dtype
    info = find_blas()
    fallback = NodeC(_FALLBACK.replace("OUT_TYPENUM", typenum(dt)))
    if info is None or dt not in ("float32", "float64") or x.type.dtype != dt \
            or y.type.dtype != dt:
        return fallback
    t = "d" if dt == "float64" else "f"
    T = c_type(dt)
    label = "Dot" if type(node.op).__name__ == "Dot" else "matmul"
    L = [
        "PyArrayObject *a = i0, *b = i1; Py_INCREF(a); Py_INCREF(b);",
        f"npy_intp kx = PyArray_DIMS(a)[{xd - 1}], ky = PyArray_DIMS(b)[0];",
        "if (kx != ky) { PyErr_Format(PyExc_ValueError, \"" + label + ": shapes are not "
        "aligned: %ld (dim " + str(xd - 1) + " of the first input) != %ld (dim 0 of the "
        "second)\", (long)kx, (long)ky); Py_DECREF(a); Py_DECREF(b); goto fail; }",
    ]
    shape = (["PyArray_DIMS(a)[0]"] if xd == 2 else []) + (["PyArray_DIMS(b)[1]"] if yd == 2
                                                             else [])
    nd = len(shape)
    L.append(f"npy_intp shp[{max(nd, 1)}] = {{{', '.join(shape) or '0'}}};")
    L.append(
        f"{{ PyObject *og_new_ = og_new_array({nd}, shp, {typenum(dt)}, o0, NULL, 0); "
        "Py_XDECREF(o0); o0 = (PyArrayObject *)og_new_; "
        "if (!o0) { Py_DECREF(a); Py_DECREF(b); goto fail; } }"
    )
    L.append(f"{T} *c = ({T} *)PyArray_DATA(o0);")
    # make each operand BLAS-compatible (unit stride somewhere), copying only if needed
    for name, nd_ in (("a", xd), ("b", yd)):
        if nd_ == 2:
            L.append(f"int tr_{name} = 0; og_blasint ld_{name} = og_ld({name}, &tr_{name});")
            L.append(
                f"if (!ld_{name}) {{ PyArrayObject *cc = (PyArrayObject *)PyArray_NewCopy("
                f"{name}, NPY_CORDER); Py_DECREF({name}); {name} = cc; if (!cc) {{ "
                "Py_XDECREF(a); Py_XDECREF(b); goto fail; } "
                f"ld_{name} = og_ld({name}, &tr_{name}); }}"
            )
        else:
            L.append(
                f"npy_intp inc_{name} = PyArray_STRIDES({name})[0] / {_size(dt)};"
                f"if (PyArray_STRIDES({name})[0] % {_size(dt)} || inc_{name} <= 0) {{ "
                f"PyArrayObject *cc = (PyArrayObject *)PyArray_NewCopy({name}, NPY_CORDER); "
                f"Py_DECREF({name}); {name} = cc; if (!cc) {{ Py_XDECREF(a); Py_XDECREF(b); "
                f"goto fail; }} inc_{name} = 1; }}"
            )
    L.append(f"const {T} *pa = (const {T} *)PyArray_DATA(a), *pb = (const {T} *)PyArray_DATA(b);")
    if xd == 2 and yd == 2:
        L += [
            "npy_intp m = PyArray_DIMS(a)[0], n = PyArray_DIMS(b)[1];",
            "if (m > 0 && n > 0) {",
            f"if (kx == 0) memset(c, 0, m * n * sizeof({T})); else",
            f"og_gemm_{t}(OG_ROW, tr_a ? OG_TRANS : OG_NOTRANS, tr_b ? OG_TRANS : OG_NOTRANS, "
            "m, n, kx, 1, pa, ld_a, pb, ld_b, 0, c, n > 1 ? n : 1);",
            "}",
        ]
    elif xd == 2 and yd == 1:
        L += [
            "npy_intp m = PyArray_DIMS(a)[0];",
            "if (m > 0) {",
            f"if (kx == 0) memset(c, 0, m * sizeof({T})); else if (!tr_a)",
            f"og_gemv_{t}(OG_ROW, OG_NOTRANS, m, kx, 1, pa, ld_a, pb, inc_b, 0, c, 1); else",
            f"og_gemv_{t}(OG_ROW, OG_TRANS, kx, m, 1, pa, ld_a, pb, inc_b, 0, c, 1);",
            "}",
        ]
    elif xd == 1 and yd == 2:
        L += [
            "npy_intp n = PyArray_DIMS(b)[1];",
            "if (n > 0) {",
            f"if (kx == 0) memset(c, 0, n * sizeof({T})); else if (!tr_b)",
            f"og_gemv_{t}(OG_ROW, OG_TRANS, kx, n, 1, pb, ld_b, pa, inc_a, 0, c, 1); else",
            f"og_gemv_{t}(OG_ROW, OG_NOTRANS, n, kx, 1, pb, ld_b, pa, inc_a, 0, c, 1);",
            "}",
        ]
    else:
        L.append(f"c[0] = kx ? og_dot_{t}(kx, pa, inc_a, pb, inc_b) : 0;")
    L.append("Py_DECREF(a); Py_DECREF(b);")
    lib_dirs = (info.lib_dir,) if info.lib_dir else ()
    return NodeC("\n".join(L), support=(_support(info),), libraries=(info.link_name,),
                 lib_dirs=lib_dirs)


def _size(dtype: str) -> int:
    return 8 if dtype == "float64" else 4


_LD2 = r"""
/* og_ld for one 2-D slice given by its dims and strides (see og_ld). */
static og_blasint og_ld2(npy_intp r, npy_intp c, npy_intp s0, npy_intp s1, npy_intp e,
                         int *trans) {
    if ((s1 == e || c == 1) && s0 % e == 0 && s0 / e >= (c > 1 ? c : 1)) {
        *trans = 0; return (og_blasint)(s0 / e); }
    if ((s0 == e || r == 1) && s1 % e == 0 && s1 / e >= (r > 1 ? r : 1)) {
        *trans = 1; return (og_blasint)(s1 / e); }
    return 0;
}
"""


def emit_batched_matmul(node: Any, ctx: EmitContext) -> NodeC | None:
    """matmul of >= 2-D operands: one gemm per (broadcast) batch entry.

    A batch dimension broadcasts only where its static length is 1, as in
    the Op's perform; a slice BLAS cannot take as is makes a C-ordered copy.
    """
    x, y = node.inputs
    out = node.outputs[0]
    dt = out.type.dtype
    info = find_blas()
    if info is None or dt not in ("float32", "float64") or x.type.dtype != dt \
            or y.type.dtype != dt:
        return None
    xd, yd, od = x.type.ndim, y.type.ndim, out.type.ndim
    nb = od - 2
    t, T = ("d" if dt == "float64" else "f"), c_type(dt)
    L = [
        "PyArrayObject *a = i0, *b = i1; Py_INCREF(a); Py_INCREF(b);",
        f"npy_intp M = PyArray_DIMS(a)[{xd - 2}], K = PyArray_DIMS(a)[{xd - 1}];",
        f"npy_intp K2 = PyArray_DIMS(b)[{yd - 2}], N = PyArray_DIMS(b)[{yd - 1}];",
        f"npy_intp shp[{od}], sa[{max(nb, 1)}], sb[{max(nb, 1)}];",
        "if (K != K2) { PyErr_Format(PyExc_ValueError, \"matmul: shapes do not match: %ld "
        "(last dim of the first input) != %ld (dim -2 of the second)\", (long)K, (long)K2); "
        "goto bad; }",
    ]
    for name, nd_ in (("a", xd), ("b", yd)):
        L.append(f"{{ int tr; if (!og_ld2(PyArray_DIMS({name})[{nd_ - 2}], "
                 f"PyArray_DIMS({name})[{nd_ - 1}], PyArray_STRIDES({name})[{nd_ - 2}], "
                 f"PyArray_STRIDES({name})[{nd_ - 1}], {_size(dt)}, &tr)) {{ "
                 f"PyArrayObject *cc = (PyArrayObject *)PyArray_NewCopy({name}, NPY_CORDER); "
                 f"Py_DECREF({name}); {name} = cc; if (!cc) goto bad; }} }}")
    for d in range(nb):
        ax, ay = d - (nb - (xd - 2)), d - (nb - (yd - 2))
        xs = x.type.shape[ax] if ax >= 0 else 1
        ys = y.type.shape[ay] if ay >= 0 else 1
        na = f"PyArray_DIMS(a)[{ax}]" if ax >= 0 else "1"
        nbb = f"PyArray_DIMS(b)[{ay}]" if ay >= 0 else "1"
        L.append(f"sa[{d}] = {f'PyArray_STRIDES(a)[{ax}]' if xs != 1 else '0'}; "
                 f"sb[{d}] = {f'PyArray_STRIDES(b)[{ay}]' if ys != 1 else '0'};")
        if xs == 1:
            L.append(f"shp[{d}] = {nbb};")
        elif ys == 1:
            L.append(f"shp[{d}] = {na};")
        else:
            L.append(f"shp[{d}] = {na}; if ({nbb} != shp[{d}]) {{ PyErr_Format("
                     "PyExc_ValueError, \"matmul: batch dimension %d has lengths %ld and %ld\", "
                     f"{d}, (long)shp[{d}], (long){nbb}); goto bad; }}")
    L += [
        f"shp[{nb}] = M; shp[{nb + 1}] = N;",
        f"{{ PyObject *og_new_ = og_new_array({od}, shp, {typenum(dt)}, o0, NULL, 0); "
        "Py_XDECREF(o0); o0 = (PyArrayObject *)og_new_; if (!o0) goto bad; }",
        "int tr_a, tr_b;",
        f"og_blasint ld_a = og_ld2(M, K, PyArray_STRIDES(a)[{xd - 2}], "
        f"PyArray_STRIDES(a)[{xd - 1}], {_size(dt)}, &tr_a);",
        f"og_blasint ld_b = og_ld2(K, N, PyArray_STRIDES(b)[{yd - 2}], "
        f"PyArray_STRIDES(b)[{yd - 1}], {_size(dt)}, &tr_b);",
        "npy_intp n_batch = 1;",
    ]
    for d in range(nb):
        L.append(f"n_batch *= shp[{d}];")
    L += [
        f"{T} *c = ({T} *)PyArray_DATA(o0);",
        "if (M > 0 && N > 0) for (npy_intp r = 0; r < n_batch; r++) {",
        "const char *pa = PyArray_BYTES(a), *pb = PyArray_BYTES(b);",
        "npy_intp rem = r, idx; (void)rem; (void)idx;",
    ]
    for d in reversed(range(nb)):
        L.append(f"idx = rem % shp[{d}]; rem /= shp[{d}]; pa += idx * sa[{d}]; "
                 f"pb += idx * sb[{d}];")
    L += [
        f"{T} *pc = c + r * M * N;",
        f"if (K == 0) memset(pc, 0, M * N * sizeof({T})); else",
        f"og_gemm_{t}(OG_ROW, tr_a ? OG_TRANS : OG_NOTRANS, tr_b ? OG_TRANS : OG_NOTRANS, "
        f"M, N, K, 1, (const {T} *)pa, ld_a, (const {T} *)pb, ld_b, 0, pc, N > 1 ? N : 1);",
        "}",
        "Py_DECREF(a); Py_DECREF(b);",
        "if (0) { bad: Py_XDECREF(a); Py_XDECREF(b); goto fail; }",
    ]
    lib_dirs = (info.lib_dir,) if info.lib_dir else ()
    return NodeC("\n".join(L), support=(_support(info), _LD2), libraries=(info.link_name,),
                 lib_dirs=lib_dirs)

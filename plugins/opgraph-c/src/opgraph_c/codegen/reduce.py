"""C for CAReduce over any set of axes (sum, prod, max, min, all, any...).

The output is iterated in C order; for each output element the reduced axes
are walked with the last reduced axis innermost.  The accumulator has the
op's ``acc_dtype``.  Max/min start from the first element (NaN propagates as
in NumPy); a reduction without identity over an empty axis raises
ValueError like NumPy.  Sums and products of contiguous runs use an OpenMP
SIMD reduction, which reassociates like NumPy's pairwise summation does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.scalar import arith, logic
from opgraph_c.codegen.ctypes_ import c_type, supported, typenum
from opgraph_c.codegen.emit import CWriter
from opgraph_c.codegen.nodec import EmitContext, NodeC
from opgraph_c.codegen.runtime_c import VIEW_SUPPORT
from opgraph_c.codegen.scalar_table import scalar_c_expr

__all__ = ["emit_careduce"]

#: scalar op class -> (starts from first element, C operator usable in an omp reduction)
_REDUCIBLE: dict[type, tuple[bool, str | None]] = {
    arith.Add: (False, "+"),
    arith.Mul: (False, "*"),
    arith.Maximum: (True, None),
    arith.Minimum: (True, None),
    logic.AND: (False, None),
    logic.OR: (False, None),
    logic.XOR: (False, None),
}


def _identity(op: Any, dtype: str) -> str | None:
    ident = getattr(op, "identity", None)
    if isinstance(op, logic.AND):
        ident = 1 if dtype == "bool" else -1
    elif isinstance(op, logic.OR | logic.XOR):
        ident = 0
    if ident is None:
        return None
    value = np.asarray(ident)
    if not np.isfinite(value).all():
        return None
    return repr(np.asarray(ident).astype(dtype).item()).replace("True", "1").replace("False", "0")


def emit_careduce(node: Any, ctx: EmitContext) -> NodeC | None:
    op = node.op
    scalar_op = op.scalar_op
    spec = next((v for k, v in _REDUCIBLE.items() if isinstance(scalar_op, k)), None)
    if spec is None:
        return None
    from_first, omp_op = spec
    x, out = node.inputs[0], node.outputs[0]
    in_dt, out_dt = x.type.dtype, out.type.dtype
    acc_dt = op.accumulate_dtype(in_dt) if hasattr(op, "accumulate_dtype") else out_dt
    if not all(map(supported, (in_dt, out_dt, acc_dt))):
        return None
    nd = x.type.ndim
    axes = tuple(range(nd)) if op.axis is None else tuple(sorted(op.axis))
    kept = [d for d in range(nd) if d not in axes]
    xcast = "((npy_bool)(xv != 0))" if acc_dt == "bool" else f"(({c_type(acc_dt)})xv)"
    step = scalar_c_expr(scalar_op, [acc_dt, acc_dt], acc_dt, ["acc", xcast])
    if step is None:
        return None
    ident = None if from_first else _identity(scalar_op, acc_dt)
    if ident is None:
        from_first = True
    A, X, O = c_type(acc_dt), c_type(in_dt), c_type(out_dt)
    label = str(op).replace('"', "'")
    w = CWriter()
    w.line(f"npy_intp shp[{max(len(kept), 1)}];")
    for j, d in enumerate(kept):
        w.line(f"shp[{j}] = PyArray_DIMS(i0)[{d}];")
    w.line("npy_intp n_red = 1;")
    for d in axes:
        w.line(f"n_red *= PyArray_DIMS(i0)[{d}];")
    if from_first:  # NumPy raises whenever the reduced part is empty, even for an empty result
        with w.block("if (n_red == 0)"):
            w.line(f"PyErr_SetString(PyExc_ValueError, \"{label}: zero-size array to reduction "
                   f"operation {scalar_op} which has no identity\");", "goto fail;")
    w.line(f"OG_SET_OUT(o0, (PyArrayObject *)og_new_array({len(kept)}, shp, {typenum(out_dt)}, "
           "o0, &i0, 1));",
           "npy_intp n_out = " + (" * ".join(f"shp[{d}]" for d in range(len(kept))) or "1")
           + ";",
           f"{O} *q = ({O} *)PyArray_DATA(o0);")
    rows = bool(axes) and bool(kept) and kept[-1] == nd - 1 and not from_first
    if rows:  # the last axis is kept: accumulate whole rows (see _emit_rows)
        cond = (f"PyArray_DIMS(i0)[{nd - 1}] > 1 && "
                f"PyArray_STRIDES(i0)[{nd - 1}] == (npy_intp)sizeof({X})")
        if ctx.outer_pragma("n_out * n_red"):
            cond += f" && n_out * n_red < {ctx.parallel_min}"
        with w.block(f"if ({cond})"):
            _emit_rows(w, nd, axes, kept, A, X, O, step, ident)
        with w.block("else"):
            _emit_general(w, ctx, axes, kept, A, X, from_first, step, ident, omp_op, acc_dt, O)
    else:
        _emit_general(w, ctx, axes, kept, A, X, from_first, step, ident, omp_op, acc_dt, O)
    return NodeC(w.text(), support=(VIEW_SUPPORT,))


def _emit_general(w: CWriter, ctx: EmitContext, axes: tuple[int, ...], kept: list[int], A: str,
                  X: str, from_first: bool, step: str, ident: str | None, omp_op: str | None,
                  acc_dt: str, O: str) -> None:
    """Each output element in turn: its reduced axes walked, the last one innermost."""
    last_red = axes[-1] if axes else None
    outer_red = list(axes[:-1])
    pragma = ctx.outer_pragma("n_out * n_red")
    if pragma:
        w.line(pragma)
    with w.block("for (npy_intp r = 0; r < n_out; r++)"):
        w.line("const char *b = PyArray_BYTES(i0);")
        if kept:
            w.line("npy_intp rem = r, idx;")
            for d in reversed(kept):
                w.line(f"idx = rem % PyArray_DIMS(i0)[{d}]; rem /= PyArray_DIMS(i0)[{d}]; "
                       f"b += idx * PyArray_STRIDES(i0)[{d}];")
        if from_first:
            w.line(f"{A} acc = n_red ? ({A})*(const {X} *)b : ({A})0;")
        else:
            w.line(f"{A} acc = ({A}){ident};")
        if last_red is None:
            if not from_first:
                w.line(f"{{ const {X} xv = *(const {X} *)b; acc = {step}; }}")
        else:
            n_outer_red = " * ".join(f"PyArray_DIMS(i0)[{d}]" for d in outer_red) or "1"
            w.line(f"const npy_intp inner = PyArray_DIMS(i0)[{last_red}];",
                   f"const npy_intp sl = PyArray_STRIDES(i0)[{last_red}];",
                   f"const npy_intp n_or = {n_outer_red};")
            with w.block("if (inner > 0) for (npy_intp s = 0; s < n_or; s++)"):
                w.line("const char *c = b;")
                if outer_red:
                    w.line("npy_intp rem2 = s, idx2;")
                    for d in reversed(outer_red):
                        w.line(f"idx2 = rem2 % PyArray_DIMS(i0)[{d}]; "
                               f"rem2 /= PyArray_DIMS(i0)[{d}]; "
                               f"c += idx2 * PyArray_STRIDES(i0)[{d}];")
                strided = (f"for (npy_intp k = 0; k < inner; k++) {{ const {X} xv = "
                           f"*(const {X} *)(c + k * sl); acc = {step}; }}")
                if omp_op is not None and acc_dt != "bool":
                    with w.block(f"if (sl == (npy_intp)sizeof({X}))"):
                        w.line(f"const {X} *p = (const {X} *)c;",
                               f"#pragma omp simd reduction({omp_op}:acc)",
                               f"for (npy_intp k = 0; k < inner; k++) {{ const {X} xv = p[k]; "
                               f"acc = {step}; }}")
                    with w.block("else"):
                        w.line(strided)
                else:
                    w.line(strided)
        w.line(f"q[r] = ({O})acc;")


#: output elements accumulated together by the row path (a C array on the stack)
ROW_CHUNK = 256


def _emit_rows(w: CWriter, nd: int, axes: tuple[int, ...], kept: list[int], A: str, X: str,
               O: str, step: str, ident: str) -> None:
    """The reduction when the input's last axis is kept and contiguous (``sum(x, axis=0)``
    of a C-ordered matrix): each reduced position adds a contiguous run of inputs into a
    run of accumulators, which vectorises, where walking each output element's strided
    column chains one add after another.  Every element still accumulates its inputs in
    the same order as the general loop, so the results are the same bits."""
    last = nd - 1
    w.line(f"const npy_intp og_L = PyArray_DIMS(i0)[{last}];",
           f"{A} og_acc[{ROW_CHUNK}];",
           "const npy_intp n_grp = n_out / og_L;")
    with w.block("for (npy_intp g = 0; g < n_grp; g++)"):
        w.line("const char *b = PyArray_BYTES(i0);")
        if len(kept) > 1:
            w.line("npy_intp rem = g, idx;")
            for d in reversed(kept[:-1]):
                w.line(f"idx = rem % PyArray_DIMS(i0)[{d}]; rem /= PyArray_DIMS(i0)[{d}]; "
                       f"b += idx * PyArray_STRIDES(i0)[{d}];")
        with w.block(f"for (npy_intp c0 = 0; c0 < og_L; c0 += {ROW_CHUNK})"):
            w.line(f"const npy_intp m = og_L - c0 < {ROW_CHUNK} ? og_L - c0 : {ROW_CHUNK};",
                   f"for (npy_intp t = 0; t < m; t++) og_acc[t] = ({A}){ident};")
            with w.block("for (npy_intp s = 0; s < n_red; s++)"):
                w.line("const char *c = b;", "npy_intp rem2 = s, idx2;")
                for d in reversed(axes):
                    w.line(f"idx2 = rem2 % PyArray_DIMS(i0)[{d}]; rem2 /= PyArray_DIMS(i0)[{d}]; "
                           f"c += idx2 * PyArray_STRIDES(i0)[{d}];")
                w.line(f"const {X} *p = (const {X} *)c + c0;",
                       f"for (npy_intp t = 0; t < m; t++) {{ {A} acc = og_acc[t]; "
                       f"const {X} xv = p[t]; acc = {step}; og_acc[t] = acc; }}")
            w.line(f"for (npy_intp t = 0; t < m; t++) q[g * og_L + c0 + t] = ({O})og_acc[t];")

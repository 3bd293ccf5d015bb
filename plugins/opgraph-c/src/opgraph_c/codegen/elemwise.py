"""C for Elemwise (and fused Composite bodies): one loop over all elements.

Broadcasting is static in opgraph: only dimensions of static length 1
broadcast, so which inputs are scalars, full arrays or broadcast along some
axes is known when generating.  Two loops are emitted: a contiguous fast
path (every full input and output C-contiguous; scalars hoisted out of the
loop) and a general strided path (any strides, including negative, and
broadcast axes with stride 0).  Outputs are written into the input named by
``inplace_pattern`` when that input is writeable and not overlapping another
input, else into the previous call's buffer when it fits, else a new array.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.graph.basic import Constant, io_toposort
from opgraph.scalar.composite import Composite
from opgraph_c.codegen.ctypes_ import c_type, supported, typenum
from opgraph_c.codegen.emit import CWriter
from opgraph_c.codegen.nodec import EmitContext, NodeC
from opgraph_c.codegen.runtime_c import runtime_file
from opgraph_c.codegen.scalar_table import scalar_c_expr

__all__ = ["emit_elemwise", "scalar_body"]


def scalar_body(
    scalar_op: Any, in_names: Sequence[str], in_dtypes: Sequence[str],
    out_dtypes: Sequence[str], ctx: EmitContext, prefix: str = "t",
) -> tuple[list[str], list[str], list[str]] | None:
    """(hoisted declarations, loop statements, output expressions) or None.

    A Composite is unrolled over its inner graph; its constants become
    parameters read once before the loop.
    """

    if isinstance(scalar_op, Composite):
        return _composite_body(scalar_op, in_names, in_dtypes, ctx, prefix)
    if len(out_dtypes) != 1:
        return None
    expr = scalar_c_expr(scalar_op, list(in_dtypes), out_dtypes[0], list(in_names), ctx)
    if expr is None:
        return None
    name = f"{prefix}0"
    return [], [f"const {c_type(out_dtypes[0])} {name} = ({c_type(out_dtypes[0])}){expr};"], [name]


def _composite_body(
    comp: Any, in_names: Sequence[str], in_dtypes: Sequence[str], ctx: EmitContext, prefix: str
) -> tuple[list[str], list[str], list[str]] | None:
    names: dict[Any, str] = {}
    for var, name, dtype in zip(comp.inner_inputs, in_names, in_dtypes):
        if var.type.dtype != dtype:
            return None
        names[var] = name
    hoisted: list[str] = []
    lines: list[str] = []
    counter = 0
    for node in io_toposort(list(comp.inner_inputs), list(comp.inner_outputs)):
        args, dts = [], []
        for var in node.inputs:
            if var not in names:
                if not isinstance(var, Constant) or not supported(var.type.dtype):
                    return None
                pname = f"{prefix}c{counter}"
                counter += 1
                hoisted.append(
                    f"const {c_type(var.type.dtype)} {pname} = "
                    f"{ctx.param(var.type.dtype, var.data)};"
                )
                names[var] = pname
            args.append(names[var])
            dts.append(var.type.dtype)
        sub = scalar_body(node.op, args, dts, [o.type.dtype for o in node.outputs], ctx,
                          prefix=f"{prefix}{counter}_")
        counter += 1
        if sub is None:
            return None
        h, body, outs = sub
        hoisted += h
        lines += body
        for var, expr in zip(node.outputs, outs):
            names[var] = expr
    outs = []
    for var in comp.inner_outputs:
        if var not in names:  # an output that is a constant
            if not isinstance(var, Constant) or not supported(var.type.dtype):
                return None
            pname = f"{prefix}c{counter}"
            counter += 1
            hoisted.append(
                f"const {c_type(var.type.dtype)} {pname} = {ctx.param(var.type.dtype, var.data)};"
            )
            names[var] = pname
        outs.append(names[var])
    return hoisted, lines, outs


def _input_kinds(node: Any) -> list[str]:
    """'scalar' (every axis static 1), 'full' (never broadcast), or 'partial'."""
    out_shape = node.outputs[0].type.shape
    kinds = []
    for var in node.inputs:
        shape = var.type.shape
        if all(s == 1 for s in shape):
            kinds.append("scalar")
        elif all(s != 1 or o == 1 for s, o in zip(shape, out_shape)):
            kinds.append("full")
        else:
            kinds.append("partial")
    return kinds


def emit_elemwise(node: Any, ctx: EmitContext) -> NodeC | None:
    op = node.op
    in_dtypes = [v.type.dtype for v in node.inputs]
    out_dtypes = [v.type.dtype for v in node.outputs]
    if not all(map(supported, in_dtypes + out_dtypes)):
        return None
    nin, nout = len(node.inputs), len(node.outputs)
    ndim = node.outputs[0].type.ndim
    xs = [f"x{i}" for i in range(nin)]
    ctx.take_required()
    prog = scalar_body(op.scalar_op, xs, in_dtypes, out_dtypes, ctx)
    extra = ctx.take_required()  # support code of third-party scalar rules
    if prog is None:
        return None
    hoisted, body, results = prog
    kinds = _input_kinds(node)
    w = CWriter()
    names = ", ".join(f"i{i}" for i in range(nin)) or "0"
    w.line(f"PyArrayObject *og_ins[{max(nin, 1)}] = {{{names}}};",
           f"npy_intp shp[{max(ndim, 1)}];")
    # output shape and the shape check
    for d in range(ndim):
        src = next((i for i, v in enumerate(node.inputs) if v.type.shape[d] != 1), None)
        w.line(f"shp[{d}] = {f'PyArray_DIMS(i{src})[{d}]' if src is not None else '1'};")
        for i, v in enumerate(node.inputs):
            if i != src and v.type.shape[d] != 1:
                w.line(f"if (PyArray_DIMS(i{i})[{d}] != shp[{d}]) {{ "
                       f"og_shape_error(og_st, {ctx.node_index}, og_ins, {nin}); goto fail; }}")
    # outputs: inplace, reuse or new
    inplace = getattr(op, "inplace_pattern", {}) or {}
    for j in range(nout):
        tn = typenum(out_dtypes[j])
        reuse = f"if (!og_reusable(o{j}, {ndim}, shp, {tn}, og_ins, {nin}))"
        alloc = (f"Py_XDECREF(o{j}); o{j} = (PyArrayObject *)og_empty({ndim}, shp, {tn}); "
                 f"if (!o{j}) goto fail;")
        if j in inplace:
            k = inplace[j]
            with w.block(f"if (og_can_inplace(i{k}, {k}, og_ins, {nin}))"):
                w.line(f"Py_INCREF(i{k}); Py_XDECREF(o{j}); o{j} = i{k};")
            with w.block("else"), w.block(reuse):
                w.line(alloc)
        else:
            with w.block(reuse):
                w.line(alloc)
    kernel = f"og_kern_{ctx.node_index}"
    support = _kernel(kernel, kinds, in_dtypes, out_dtypes, hoisted, body, results, ctx)
    conds = []
    if "partial" in kinds:
        conds.append("0")
    for i, k in enumerate(kinds):
        if k == "full" and ndim > 0:
            conds.append(f"PyArray_IS_C_CONTIGUOUS(i{i})")
    for j in range(nout):
        if ndim > 0:
            conds.append(f"PyArray_IS_C_CONTIGUOUS(o{j})")
    # the element count from the shape just computed (PyArray_SIZE is a call into NumPy)
    size = " * ".join(f"shp[{d}]" for d in range(ndim)) or "1"
    w.line(f"const npy_intp og_n = {size};",
           f"const char *og_p[{max(nin, 1)}]; char *og_q[{nout}];")
    with w.block(f"if ({' && '.join(conds) or '1'})"):
        for i in range(nin):
            w.line(f"og_p[{i}] = PyArray_BYTES(i{i});")
        for j in range(nout):
            w.line(f"og_q[{j}] = PyArray_BYTES(o{j});")
        call = f"{kernel}(og_n, og_p, og_q, og_st);"
        if extra:  # third-party support code might use the Python API
            w.line(call)
        else:  # plain C: other threads run Python (or kernels) meanwhile, as NumPy's loops
            w.line(f"if (og_n >= {GIL_FREE_MIN}) {{ Py_BEGIN_ALLOW_THREADS {call} "
                   f"Py_END_ALLOW_THREADS }} else {call}")
    if ndim > 0:
        # in a row, an input broadcast along the last axis is one value: the row loop's
        # kernel reads it as a scalar (no copies of it gathered into a buffer per row)
        row_kinds = ["scalar" if k == "partial" and v.type.shape[-1] == 1 else k
                     for k, v in zip(kinds, node.inputs)]
        row_kernel = kernel
        if row_kinds != kinds:
            row_kernel = f"{kernel}r"
            support += "\n" + _kernel(row_kernel, row_kinds, in_dtypes, out_dtypes, hoisted,
                                      body, results, ctx)
        with w.block("else"):
            _general_loop(w, node, row_kernel, row_kinds, in_dtypes, out_dtypes, ndim)
    return NodeC(w.text(), support=(ELEMWISE_SUPPORT, *extra.get("support", ()), support),
                 headers=extra.get("headers", ()), libraries=extra.get("libraries", ()),
                 lib_dirs=extra.get("lib_dirs", ()))


def _kernel(
    name: str, kinds: list[str], in_dtypes: list[str], out_dtypes: list[str],
    hoisted: list[str], body: list[str], results: list[str], ctx: EmitContext,
) -> str:
    """The element loop, written once: n elements, contiguous operands (scalars hoisted)."""
    w = CWriter()

    def loop() -> None:
        with w.block("for (npy_intp k = 0; k < n; k++)"):
            for i, k in enumerate(kinds):
                ct = c_type(in_dtypes[i])
                w.line(f"const {ct} x{i} = {f's{i}' if k == 'scalar' else f'p{i}[k]'};")
            w.line(*body)
            for j, dt in enumerate(out_dtypes):
                w.line(f"q{j}[k] = ({c_type(dt)}){results[j]};")

    with w.block(f"static void {name}(npy_intp n, const char **og_p, char **og_q, "
                 "const OGState *og_st)"):
        w.line("(void)og_st;", *hoisted)
        for i, k in enumerate(kinds):
            ct = c_type(in_dtypes[i])
            if k == "scalar":
                w.line(f"const {ct} s{i} = *(const {ct} *)og_p[{i}];")
            else:
                w.line(f"const {ct} *p{i} = (const {ct} *)og_p[{i}];")
        for j, dt in enumerate(out_dtypes):
            w.line(f"{c_type(dt)} *q{j} = ({c_type(dt)} *)og_q[{j}];")
        if ctx.openmp:  # small arrays never enter an OpenMP region (its entry costs microseconds)
            with w.block(f"if (n >= {ctx.parallel_min})"):
                w.line(ctx.loop_pragma("n"))
                loop()
            with w.block("else"):
                w.line("#pragma omp simd")
                loop()
        else:
            w.line(ctx.loop_pragma("n"))
            loop()
    return w.text()


CHUNK = 512
#: contiguous loops over at least this many elements run without the GIL
GIL_FREE_MIN = 4096


def _general_loop(
    w: CWriter, node: Any, kernel: str, kinds: list[str], in_dtypes: list[str],
    out_dtypes: list[str], ndim: int,
) -> None:
    """Any strides (negative, zero for broadcast axes): rows in chunks through the kernel.

    Operands whose last-axis stride is not the item size are gathered into (or
    scattered from) small buffers, so the kernel's body is compiled only once.
    """
    nin, nout = len(in_dtypes), len(out_dtypes)
    last = ndim - 1
    w.line("npy_intp n_outer = 1;")
    for d in range(last):
        w.line(f"n_outer *= shp[{d}];")
    w.line(f"const npy_intp inner = shp[{last}];")
    with w.block("if (og_n > 0)"):
        for i, var in enumerate(node.inputs):
            strides = ", ".join("0" if var.type.shape[d] == 1 else f"PyArray_STRIDES(i{i})[{d}]"
                                for d in range(ndim))
            w.line(f"const npy_intp si{i}[{ndim}] = {{{strides}}};")
            if kinds[i] != "scalar":
                w.line(f"{c_type(in_dtypes[i])} bi{i}[{CHUNK}];")
        for j in range(nout):
            strides = ", ".join(f"PyArray_STRIDES(o{j})[{d}]" for d in range(ndim))
            w.line(f"const npy_intp so{j}[{ndim}] = {{{strides}}};",
                   f"{c_type(out_dtypes[j])} bo{j}[{CHUNK}];")
        with w.block("for (npy_intp r = 0; r < n_outer; r++)"):
            for i in range(nin):
                w.line(f"const char *b{i} = PyArray_BYTES(i{i});")
            for j in range(nout):
                w.line(f"char *c{j} = PyArray_BYTES(o{j});")
            if last > 0:
                w.line("npy_intp rem = r, idx;")
                for d in range(last - 1, -1, -1):
                    w.line(f"idx = rem % shp[{d}]; rem /= shp[{d}];")
                    for i in range(nin):
                        w.line(f"b{i} += idx * si{i}[{d}];")
                    for j in range(nout):
                        w.line(f"c{j} += idx * so{j}[{d}];")
            with w.block(f"for (npy_intp ch = 0; ch < inner; ch += {CHUNK})"):
                w.line(f"const npy_intp m = inner - ch < {CHUNK} ? inner - ch : {CHUNK};")
                for i in range(nin):
                    ct = c_type(in_dtypes[i])
                    if kinds[i] == "scalar":
                        w.line(f"og_p[{i}] = b{i};")
                        continue
                    w.line(f"if (si{i}[{last}] == (npy_intp)sizeof({ct})) "
                           f"og_p[{i}] = b{i} + ch * sizeof({ct});")
                    with w.block("else"):
                        w.line(f"for (npy_intp t = 0; t < m; t++) bi{i}[t] = *(const {ct} *)"
                               f"(b{i} + (ch + t) * si{i}[{last}]);",
                               f"og_p[{i}] = (const char *)bi{i};")
                for j in range(nout):
                    ct = c_type(out_dtypes[j])
                    w.line(f"int direct{j} = so{j}[{last}] == (npy_intp)sizeof({ct});",
                           f"og_q[{j}] = direct{j} ? c{j} + ch * sizeof({ct}) : (char *)bo{j};")
                w.line(f"{kernel}(m, og_p, og_q, og_st);")
                for j in range(nout):
                    ct = c_type(out_dtypes[j])
                    w.line(f"if (!direct{j}) for (npy_intp t = 0; t < m; t++) "
                           f"*({ct} *)(c{j} + (ch + t) * so{j}[{last}]) = bo{j}[t];")


def _c_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")[:200]


ELEMWISE_SUPPORT = runtime_file("elemwise_support.h")
"""Shape errors and warnings of fused elementwise loops (``runtime/elemwise_support.h``)."""

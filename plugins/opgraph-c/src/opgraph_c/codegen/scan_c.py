"""The C of a Scan node: the loop and its body in generated C, no Python call per step.

The body is the inner function's compiled graph (``op.fn.maker.fgraph``: the
inner graph after the Scan's own mode rewrote it).  Each of its nodes gets its
C from the usual emitters as a static function; the Scan node's C allocates
the output buffers, then for every step makes read-only views of the rows a
step reads (sequence entries, state taps), runs the body's node functions in
order, and copies each step's results into their rows.  The row views are
made once and moved from row to row (no allocation per step); the output
buffers come from the module's buffer pool, so a loop called again reuses
pages already mapped.  Inner results are
kept between steps, so the emitters reuse their buffers as they do between
calls of a whole graph.  A matrix-vector product whose vector holds
subnormals (and nothing large) gets it scaled by a power of two and its
result scaled back
(``og_scan_tiny_in``: the CPU's slow path for subnormals costs a hundred times
the product; docs/scan.md).  A large matrix non-sequence of a long loop is
read from a copy on a transparent huge page (``og_scan_pin``: its placement on
4 KiB pages can make it collide with itself in L2).

A while loop (``until``) reads its condition after each step's stores and
stops after the step where it holds; its outputs are then the rows written
(views of the buffers' first rows, as the Python loop returns).

Untraced states that are random generators (a draw per step, e.g. PyMC's
AR or GaussianRandomWalk forward sampling) run here when every draw of the
body has C (``random_c``): the loop copies each generator once, as the Python
loop does, and the body's draws advance that copy in place.

Loops this does not cover (mit-mot outputs, other untraced states, a body
with a node without C, a non-tensor or unsupported dtype, a Scan given its
own Mode object) return None: the node then runs its Python loop.
"""

from __future__ import annotations

import re
from typing import Any

import attrs
import numpy as np

from opgraph.graph.basic import Constant
from opgraph.tensor.blas import Gemv
from opgraph.tensor.products import Dot, MatMul
from opgraph.tensor.random.type import RandomGeneratorType
from opgraph.tensor.type import TensorType
from opgraph.tensor.type_other import NoneTypeT
from opgraph_c.codegen.ctypes_ import supported, typenum
from opgraph_c.codegen.emit import CWriter
from opgraph_c.codegen.nodec import EmitContext, NodeC, node_function
from opgraph_c.codegen.random_c import RANDOM_SUPPORT
from opgraph_c.codegen.runtime_c import runtime_file

__all__ = ["SCAN_SUPPORT", "emit_scan"]

SCAN_SUPPORT = runtime_file("scan.h")
"""The C scan loop's helpers: fixed C shipped as package data (``runtime/scan.h``)."""


def _tensor_ok(v: Any) -> bool:
    return isinstance(v.type, TensorType) and supported(v.type.dtype)


def _is_rng(v: Any) -> bool:
    return isinstance(v.type, RandomGeneratorType)


def _body_var_ok(v: Any) -> bool:
    """A body variable the loop can hold: a tensor, a generator, or the None constant."""
    return _tensor_ok(v) or _is_rng(v) or isinstance(v.type, NoneTypeT)


def _tiny_operand(node: Any) -> int | None:
    """The input index of a float matrix-vector product's vector, else None.

    The loop scales that vector when it holds subnormals and nothing above
    2**-600 (``og_scan_tiny_in`` in runtime/scan.h): a gradient decaying through
    time would otherwise cost a microcode assist per multiplication.
    """
    if getattr(node.outputs[0].type, "dtype", None) not in ("float32", "float64"):
        return None
    if isinstance(node.op, Gemv):
        # y <- alpha A x + beta y: the result scales with x only when beta is a zero
        # constant (a bare product that BlasOpt made a Gemv into an empty buffer)
        beta = node.inputs[4]
        zero = isinstance(beta, Constant) and not np.any(beta.data)
        return 3 if zero and node.inputs[3].type.ndim == 1 else None
    if not isinstance(node.op, Dot | MatMul) or len(node.inputs) != 2:
        return None
    nds = [v.type.ndim for v in node.inputs]
    if sorted(nds) != [1, 2]:
        return None
    return nds.index(1)


def _constant_c(w: CWriter, var: Constant, slot: str, ctx: EmitContext, fail: str) -> None:
    """C creating a new array for an inner constant, read from the parameter buffer."""
    if isinstance(var.type, NoneTypeT):  # a draw's size=None
        w.line(f"Py_INCREF(Py_None); {slot} = Py_None;")
        return
    data = np.asarray(var.data, dtype=var.type.dtype, order="C")  # 0-d stays 0-d
    dims = ", ".join(str(s) for s in data.shape) or "0"
    first = ctx.param(var.type.dtype, data)  # every element, in order, from there on
    with w.block():
        w.line(f"npy_intp d[] = {{{dims}}};",
               f"{slot} = PyArray_EMPTY({data.ndim}, d, {typenum(var.type.dtype)}, 0);",
               f"if (!{slot}) {fail}",
               f"memcpy(PyArray_DATA((PyArrayObject *){slot}), &{first}, {data.nbytes});")


@attrs.frozen
class _Plan:
    """What the writers of one Scan node's C share: its body, slots and buffer rows."""

    node: Any
    k: int  # the node's index (names its helpers)
    order: list  # the body's nodes, in order
    f_in: list
    f_out: list
    slot: dict  # body variable -> index in ``sv``
    consts: list  # the body's constants (made once before the loop)
    tiny: dict  # body node index -> the operand scaled when subnormal
    ks: list  # rows before the first step, per state
    rows: list  # C expression: rows of each state buffer
    keep: tuple  # keep_last per state (0: every row)
    fail: str = "goto og_scan_fail;"

    @property
    def info(self) -> Any:
        return self.node.op.info


def _body(node: Any) -> tuple[list, list, list] | None:
    """(nodes, inputs, outputs) of the compiled body, or None when the loop has no C."""
    op = node.op
    info = op.info
    if info.n_mit_mot:
        return None
    if op.mode is not None and not isinstance(op.mode, str):
        return None  # a Mode object (e.g. a MonitorMode) wants its own linker to run the body
    sl = op.outer_slices()
    shared = {*node.inputs[sl["shared"]], *node.outputs[info.n_states + info.n_nit_sot:]}
    if not all(_is_rng(v) for v in shared):
        return None  # untraced states other than generators
    if not all(_tensor_ok(v) or v in shared for v in [*node.inputs, *node.outputs]):
        return None
    fg = op.fn.maker.fgraph
    order = fg.toposort()
    f_in, f_out = list(fg.inputs), list(fg.outputs)
    if len(f_in) != len(op.inner_inputs) or len(f_out) != len(op.inner_outputs):
        return None
    if any(o.owner is None for o in f_out):
        return None
    if not all(_body_var_ok(v) for n in order for v in [*n.inputs, *n.outputs]):
        return None
    if any(type(n.op) is type(op) for n in order):
        return None  # a nested loop keeps its Python loop (its helpers would share names)
    return order, f_in, f_out


def _inner_codes(order: list, k: int, ctx: EmitContext) -> list[NodeC] | None:
    """The C of each body node (through the context's emitter), helpers renamed apart."""
    codes = []
    for j, inner in enumerate(order):
        code, _ = ctx.emit_inner(inner, k)
        if code is None:
            return None
        # the emitters name helpers after the node index: keep the inner ones apart
        rename = re.compile(rf"\bog_kern_{k}\b")
        codes.append(NodeC(rename.sub(f"og_kern_{k}s{j}", code.body),
                           tuple(rename.sub(f"og_kern_{k}s{j}", s) for s in code.support),
                           code.headers, code.libraries, code.lib_dirs, code.compile_args))
    return codes


def _plan(node: Any, k: int, order: list, f_in: list, f_out: list) -> _Plan | None:
    """Slots of the body's variables (inputs, constants, node outputs) and buffer rows."""
    slot: dict[Any, int] = {v: i for i, v in enumerate(f_in)}
    consts = []
    for inner in order:
        for v in inner.inputs:
            if v not in slot:
                if not isinstance(v, Constant):
                    return None
                slot[v] = len(slot)
                consts.append(v)
        for v in inner.outputs:
            slot[v] = len(slot)
    op = node.op
    n_st = op.info.n_states
    ks = [-min(t) for t in op.info.state_taps]
    keep = op.keep_last or (0,) * n_st
    # rows of each state buffer: all (k + n), or a ring of the last ones (keep_last)
    rows = [f"({ks[m]} + n)" if not keep[m] else
            f"(({ks[m]} + n) < {max(keep[m], ks[m] + 1)} ? ({ks[m]} + n) : "
            f"{max(keep[m], ks[m] + 1)})" for m in range(n_st)]
    tiny = {j: i for j, inner in enumerate(order)
            if (i := _tiny_operand(inner)) is not None}
    return _Plan(node, k, order, f_in, f_out, slot, consts, tiny, ks, rows, keep)


def emit_scan(node: Any, ctx: EmitContext) -> NodeC | None:
    """The C of a Scan node, or None when its loop stays in Python (see module doc)."""
    body = _body(node)
    if body is None:
        return None
    order, f_in, f_out = body
    k = ctx.node_index
    codes = _inner_codes(order, k, ctx)
    if codes is None:
        return None
    plan = _plan(node, k, order, f_in, f_out)
    if plan is None:
        return None
    funcs = [node_function(f"og_scan_{k}_n{j}", inner, code)
             for j, (inner, code) in enumerate(zip(order, codes))]
    w = CWriter()
    _write_setup(w, plan, ctx)
    _write_loop(w, plan)
    _write_finish(w, plan)
    support = [SCAN_SUPPORT]
    if plan.info.n_shared_outs:
        support.insert(0, RANDOM_SUPPORT)  # og_rng_copy, before the body's functions
    if plan.info.n_non_seqs:  # the huge-page buffers of og_scan_pin, kept between calls
        support.append("".join(f"static og_pin_slot og_scan_{k}_pin{q};\n"
                               for q in range(plan.info.n_non_seqs)))
    for code in codes:
        support.extend(code.support)
    support.extend(funcs)
    return NodeC(
        body=w.text(),
        support=tuple(dict.fromkeys(support)),
        headers=tuple(dict.fromkeys(h for c in codes for h in c.headers)),
        libraries=tuple(dict.fromkeys(x for c in codes for x in c.libraries)),
        lib_dirs=tuple(dict.fromkeys(x for c in codes for x in c.lib_dirs)),
        compile_args=tuple(dict.fromkeys(x for c in codes for x in c.compile_args)),
    )


def _write_setup(w: CWriter, p: _Plan, ctx: EmitContext) -> None:
    """Step count, sequence checks, constants, pinned non-sequences, state buffers."""
    info, fail, slot, ks = p.info, p.fail, p.slot, p.ks
    sl = p.node.op.outer_slices()
    seq0, st0, ns0 = sl["seqs"].start, sl["states"].start, sl["non_seqs"].start
    n_st, n_ns = info.n_states, info.n_non_seqs
    w.line(f"PyObject *tz[{max(len(p.tiny), 1)}] = {{0}};  /* scratch of the scaled vectors */")
    w.line(f"PyObject *sv[{len(slot)}] = {{0}};", "npy_intp n = 0;",
           f"if (og_scan_steps(i0, &n)) {fail}",
           "npy_intp done = n;  /* steps run: fewer when a while loop stops */",
           "(void)done;")
    for s in range(info.n_seqs):
        with w.block(f"if (PyArray_NDIM(i{seq0 + s}) < 1 || PyArray_DIMS(i{seq0 + s})[0] < n)"):
            w.line(f"PyErr_Format(PyExc_ValueError, \"Scan: sequence {s} has fewer than "
                   f"n_steps=%zd entries\", n);", fail)
    for c in p.consts:
        _constant_c(w, c, f"sv[{slot[c]}]", ctx, fail)
    for q in range(n_ns):  # a large matrix is read from a huge-page copy (og_scan_pin)
        inner = p.f_in[len(p.f_in) - n_ns + q]
        w.line(f"sv[{slot[inner]}] = og_scan_pin(i{ns0 + q}, n, &og_scan_{p.k}_pin{q});",
               f"if (!sv[{slot[inner]}]) {fail}")
    # state buffers: the initial rows, then one row per step
    for m in range(n_st):
        x = f"i{st0 + m}"
        with w.block():
            with w.block(f"if (PyArray_NDIM({x}) < 1 || PyArray_DIMS({x})[0] < {ks[m]})"):
                w.line(f"PyErr_SetString(PyExc_ValueError, \"Scan: initial state {m} needs "
                       f"{ks[m]} rows\");", fail)
            w.line("npy_intp d[NPY_MAXDIMS];", f"d[0] = {p.rows[m]};",
                   f"for (int a = 1; a < PyArray_NDIM({x}); a++) d[a] = PyArray_DIMS({x})[a];",
                   f"Py_XDECREF(o{m});",
                   f"o{m} = (PyArrayObject *)og_empty(PyArray_NDIM({x}), d, "
                   f"{typenum(p.node.outputs[m].type.dtype)});",
                   f"if (!o{m}) {fail}")
            with w.block(f"for (npy_intp r = 0; r < {ks[m]}; r++)"):
                w.line(f"PyObject *row = og_scan_row({x}, r);", f"if (!row) {fail}",
                       f"int rc = og_scan_store(o{m}, r, row, {m});", "Py_DECREF(row);",
                       f"if (rc) {fail}")
    for q in range(info.n_nit_sot):
        w.line(f"Py_XDECREF(o{n_st + q});", f"o{n_st + q} = NULL;")
    sh0 = sl["shared"].start
    for q, inner in enumerate(_shared_inner(p)):  # the loop's own copy of each generator
        w.line(f"sv[{slot[inner]}] = og_rng_copy((PyObject *)i{sh0 + q});",
               f"if (!sv[{slot[inner]}]) {fail}")


def _shared_inner(p: _Plan) -> list:
    """The body's inputs that receive the untraced states (generators)."""
    info = p.info
    start = info.n_seqs + sum(len(t) for t in info.state_taps)
    return p.f_in[start:start + info.n_shared_outs]


def _write_loop(w: CWriter, p: _Plan) -> None:
    """The loop: views of the rows a step reads, the body's functions, the stores."""
    info, fail, slot, ks, rows, f_in, f_out = (p.info, p.fail, p.slot, p.ks, p.rows,
                                                p.f_in, p.f_out)
    seq0 = p.node.op.outer_slices()["seqs"].start
    n_st, n_nit = info.n_states, info.n_nit_sot
    with w.block("for (npy_intp t = 0; t < n; t++)"):
        pos = 0
        for s in range(info.n_seqs):
            w.line(f"if (og_scan_at(&sv[{slot[f_in[pos]]}], i{seq0 + s}, t)) {fail}")
            pos += 1
        for m in range(n_st):
            for tap in info.state_taps[m]:
                w.line(f"if (og_scan_at(&sv[{slot[f_in[pos]]}], o{m}, "
                       f"({ks[m]} + t + ({tap})) % {rows[m]})) {fail}")
                pos += 1
        for j, inner in enumerate(p.order):
            _write_body_call(w, p, j, inner)
        for m in range(n_st):
            w.line(f"if (og_scan_store(o{m}, ({ks[m]} + t) % {rows[m]}, "
                   f"sv[{slot[f_out[m]]}], {m})) {fail}")
        for q in range(n_nit):
            o = f"o{n_st + q}"
            val = f"sv[{slot[f_out[n_st + q]]}]"
            with w.block(f"if (!{o})"):
                w.line(f"PyArrayObject *v0 = (PyArrayObject *){val};",
                       "npy_intp d[NPY_MAXDIMS];", "d[0] = n;",
                       "for (int a = 0; a < PyArray_NDIM(v0); a++) d[a + 1] = "
                       "PyArray_DIMS(v0)[a];",
                       f"{o} = (PyArrayObject *)og_empty(PyArray_NDIM(v0) + 1, d, "
                       f"{typenum(p.node.outputs[n_st + q].type.dtype)});",
                       f"if (!{o}) {fail}")
            w.line(f"if (og_scan_store({o}, t, {val}, {n_st + q})) {fail}")
        # the next step's generators; one the step returned for two states is copied for
        # the later one (the Python loop's function copies one of two aliased arguments)
        nexts = [f"sv[{slot[f_out[n_st + n_nit + q]]}]" for q in range(info.n_shared_outs)]
        for q, inner in enumerate(_shared_inner(p)):
            alias = " || ".join(f"{nexts[q]} == {e}" for e in nexts[:q]) or "0"
            with w.block():
                w.line(f"PyObject *nx = {nexts[q]};",
                       f"if ({alias}) {{ nx = og_rng_copy(nx); if (!nx) {fail} }}",
                       "else Py_INCREF(nx);",
                       f"Py_XSETREF(sv[{slot[inner]}], nx);")
        if info.as_while:  # the condition is the body's output after the per-step ones
            cond = f"sv[{slot[f_out[n_st + n_nit + info.n_shared_outs]]}]"
            with w.block():
                w.line(f"int c = og_scan_cond({cond});", f"if (c < 0) {fail}")
                with w.block("if (c)"):
                    w.line("done = t + 1;", "break;")


def _write_body_call(w: CWriter, p: _Plan, j: int, inner: Any) -> None:
    """One body node's call in the loop, its results kept in their slots."""
    slot, fail = p.slot, p.fail
    ins = ", ".join(f"sv[{slot[v]}]" for v in inner.inputs) or "NULL"
    with w.block():
        w.line(f"PyObject *a[{max(len(inner.inputs), 1)}] = {{{ins}}};",
               f"PyObject *r[{len(inner.outputs)}];")
        for jj, v in enumerate(inner.outputs):
            w.line(f"r[{jj}] = sv[{slot[v]}];")
        if j in p.tiny:
            z = list(p.tiny).index(j)
            w.line("int shift;",
                   f"if (og_scan_tiny_in(&a[{p.tiny[j]}], &tz[{z}], &shift)) {fail}")
        w.line(f"int rc = og_scan_{p.k}_n{j}(og_st, a, r);")
        for jj, v in enumerate(inner.outputs):
            w.line(f"sv[{slot[v]}] = r[{jj}];")
        w.line(f"if (rc) {fail}")
        if j in p.tiny:
            w.line("if (shift) og_scan_tiny_out(r[0], shift);")


def _write_finish(w: CWriter, p: _Plan) -> None:
    """After the loop: trim a stopped while loop, unroll rings, empty outputs, cleanup."""
    info, fail, ks, rows = p.info, p.fail, p.ks, p.rows
    n_st, n_nit = info.n_states, info.n_nit_sot
    if info.as_while:  # stopped early: the rows written (a ring keeps its last rows)
        for m in range(n_st):
            with w.block(f"if ({rows[m]} > {ks[m]} + done)"):
                w.line(f"if (og_scan_trim(&o{m}, {ks[m]} + done)) {fail}")
        for q in range(n_nit):
            o = f"o{n_st + q}"
            with w.block(f"if ({o} && PyArray_DIMS({o})[0] > done)"):
                w.line(f"if (og_scan_trim(&{o}, done)) {fail}")
    # a ring holds the last rows out of order: put them oldest first
    for m in range(n_st):
        if not p.keep[m]:
            continue
        with w.block(f"if ({rows[m]} < {ks[m]} + done)"):
            w.line(f"npy_intp r = {rows[m]}, total = {ks[m]} + done;",
                   f"PyArrayObject *ring = o{m};",
                   f"o{m} = (PyArrayObject *)PyArray_NewLikeArray(ring, NPY_CORDER, NULL, 0);")
            with w.block(f"if (!o{m})"):
                w.line(f"o{m} = ring;", fail)
            with w.block("for (npy_intp j = 0; j < r; j++)"):
                w.line("PyObject *row = og_scan_row(ring, (total - r + j) % r);")
                with w.block("if (!row)"):
                    w.line("Py_DECREF(ring);", fail)
                w.line(f"int rc = og_scan_store(o{m}, j, row, {m});", "Py_DECREF(row);")
                with w.block("if (rc)"):
                    w.line("Py_DECREF(ring);", fail)
            w.line("Py_DECREF(ring);")
    # no step: empty per-step outputs (unknown row lengths are 0)
    for q in range(n_nit):
        o = f"o{n_st + q}"
        t = p.node.outputs[n_st + q].type
        dims = ", ".join(["0", *[str(0 if s is None else s) for s in t.shape[1:]]])
        with w.block(f"if (!{o})"):
            w.line(f"npy_intp d[] = {{{dims}}};",
                   f"{o} = (PyArrayObject *)PyArray_ZEROS({t.ndim}, d, {typenum(t.dtype)}, 0);",
                   f"if (!{o}) {fail}")
    for q, inner in enumerate(_shared_inner(p)):  # the generators as they ended
        o = f"o{n_st + n_nit + q}"
        w.line(f"Py_INCREF(sv[{p.slot[inner]}]);",
               f"Py_XSETREF({o}, (PyArrayObject *)sv[{p.slot[inner]}]);")
    clear = (f"for (int s = 0; s < {len(p.slot)}; s++) Py_CLEAR(sv[s]);",
             f"for (int s = 0; s < {max(len(p.tiny), 1)}; s++) Py_CLEAR(tz[s]);")
    w.line(*clear, "goto og_scan_done;")
    w.line("og_scan_fail:")
    w.line(*clear, "goto fail;")
    w.line("og_scan_done:;")

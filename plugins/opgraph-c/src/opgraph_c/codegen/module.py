"""Assemble one C extension module for a whole graph.

The module's ``bind(...)`` returns a zero-argument builtin (a C function
bound to a capsule holding the cells): calling it reads the input cells,
checks every input (dtype, ndim, static shape) before touching data, runs
every node in order (generated C, or the node's Python thunk through its
storage cells), frees intermediates after their last use and fills the
output cells.  Nothing specific to one call of ``function()`` is in the
source: input labels, constants and parameter values are passed to ``bind``,
so equal graphs (up to names and constant values) share one module.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import attrs

from opgraph.config import config
from opgraph.graph.basic import Constant, Variable
from opgraph.tensor.type import TensorType
from opgraph_c.cache import MODNAME_PLACEHOLDER
from opgraph_c.codegen.ctypes_ import supported, typenum
from opgraph_c.codegen.elide import elide_scalar_expansions
from opgraph_c.codegen.emit import CWriter
from opgraph_c.codegen.nodec import EmitContext, NodeC, node_function
from opgraph_c.codegen.runtime_c import (
    FP_ENV,
    MODULE_TAIL,
    POOL,
    POOL_MAX_BYTES,
    POOL_MIN_ELEMS,
    POOL_SLOTS,
    PRELUDE,
    PROFILE_SUPPORT,
    RUN_PY,
    profile_define,
    runtime_file,
    runtime_source,
    select_profile,
)
from opgraph_c.codegen.scalar_table import SUPPORT_CODE
from opgraph_c.codegen.vecmath import simd_declarations

__all__ = ["KEEP_SMALL_BYTES", "GraphLayout", "ModuleSource", "build_module_source"]

#: Intermediates up to this size keep their buffer for the next call (mode 3 below)
KEEP_SMALL_BYTES = 16384


@attrs.define
class GraphLayout:
    """Which slot each variable has in the generated code."""

    order: list[Any]
    index: dict[Variable, int]
    inputs: list[Variable]
    outputs: list[Variable]
    consts: list[Variable]
    node_code: list[NodeC | None]


@attrs.frozen
class ModuleSource:
    source: str
    params: bytes
    layout: GraphLayout
    libraries: tuple[str, ...]
    lib_dirs: tuple[str, ...]
    compile_args: tuple[str, ...]


def _is_tensor(var: Variable) -> bool:
    return isinstance(var.type, TensorType) and supported(var.type.dtype)


def is_checked_tensor(var: Variable) -> bool:
    """Whether a graph input's value is checked (dtype, rank, alignment) by the module."""
    return _is_tensor(var)


def _check_call(var: Variable, slot: str, label: str) -> str | None:
    if not _is_tensor(var):
        return None
    shape = ", ".join(str(-1 if s is None else s) for s in var.type.shape) or "0"
    return (
        f"{{ static const npy_intp shp[] = {{{shape}}}; "
        f"if (og_check(&{slot}, {typenum(var.type.dtype)}, {var.type.ndim}, shp, {label}, 1)) "
        "goto fail; }"
    )


def _variable_index(fgraph_inputs: list[Variable], outputs: list[Variable],
                    order: Sequence[Any]) -> tuple[dict[Variable, int], list[Variable]]:
    """Each variable's slot in ``v[]`` (inputs first), and the constants among them."""
    index: dict[Variable, int] = {}
    consts: list[Variable] = []
    for v in fgraph_inputs:
        index.setdefault(v, len(index))
    for node in order:
        for v in node.inputs:
            if v not in index:
                index[v] = len(index)
                consts.append(v)
        for v in node.outputs:
            index[v] = len(index)
    for v in outputs:
        if v not in index:
            index[v] = len(index)
            consts.append(v)
    return index, consts


class _NodeParts(NamedTuple):
    """What the nodes with C bring to the module, each item once, in order of use."""

    support: dict[str, None]
    headers: dict[str, None]
    libs: dict[str, None]
    lib_dirs: dict[str, None]
    cargs: dict[str, None]
    funcs: list[str]


def _node_parts(order: Sequence[Any], node_code: Sequence[NodeC | None]) -> _NodeParts:
    parts = _NodeParts({}, {}, {}, {}, {}, [])
    for k, (node, code) in enumerate(zip(order, node_code)):
        if code is None:
            continue
        for table, items in ((parts.support, code.support), (parts.headers, code.headers),
                             (parts.libs, code.libraries), (parts.lib_dirs, code.lib_dirs),
                             (parts.cargs, code.compile_args)):
            for item in items:
                table[item] = None
        parts.funcs.append(_node_function(k, node, code))
    return parts


def _emit_c_node(w: CWriter, k: int, node: Any, node_inputs: list[Variable],
                 index: dict[Variable, int], out_pos: dict[Variable, int],
                 profile: bool) -> None:
    """The call of node ``k``'s C function from ``og_run_graph`` (reading ``node_inputs``:
    its inputs, some replaced by the values they expand, see codegen/elide.py)."""
    w.line(f"og_node = {k};")
    ins = ", ".join(f"v[{index[v]}]" for v in node_inputs) or "NULL"
    with w.block():
        if profile:
            w.line("double og_t0 = og_clock();")
        w.line(f"PyObject *og_in[{max(len(node_inputs), 1)}] = {{{ins}}};",
               f"PyObject *og_out[{len(node.outputs)}];")
        for j, v in enumerate(node.outputs):
            w.line(f"og_out[{j}] = og_take_prev(og_st, {index[v]}, {out_pos.get(v, -1)});")
        w.line(f"int og_rc = og_node_{k}(og_st, og_in, og_out);")
        for j, v in enumerate(node.outputs):
            w.line(f"v[{index[v]}] = og_out[{j}];")
        w.line("if (og_rc) goto fail;")
        if profile:
            w.line(f"og_prof_add(og_st, {k}, og_t0);")


def _emit_run_graph(w: CWriter, layout: GraphLayout, keep_live: set[Variable],
                    profile: bool) -> _PyProgram:
    """``og_run_graph``: inputs in, each node (C calls, Python thunks from a table), outputs
    out, every intermediate released after its last reader."""
    inputs, outputs, consts, index = layout.inputs, layout.outputs, layout.consts, layout.index
    order, node_code = layout.order, layout.node_code
    out_set = set(outputs)
    # the profiling variant runs (and times) every node, as the profile lists them all
    elision = elide_scalar_expansions(order, node_code if not profile else [None] * len(order),
                                      out_set | keep_live)
    last_use: dict[Variable, int] = {}
    for k, node in enumerate(order):
        if k in elision.skip:
            continue
        for v in elision.inputs(k, node):
            last_use[v] = k
        for v in node.outputs:
            last_use.setdefault(v, k)
    n_vars = len(index)
    prog = _PyProgram()
    with w.block("static PyObject *og_run_graph(PyObject *og_cap, PyObject *og_unused)"):
        w.line("OGState *og_st = (OGState *)PyCapsule_GetPointer(og_cap, NULL);",
               f"PyObject *v[{max(n_vars, 1)}] = {{0}};",
               "int og_node = -1;",
               "(void)og_unused;")
        for i, var in enumerate(inputs):
            slot = f"v[{index[var]}]"
            w.line(f"{slot} = PyList_GET_ITEM(PyTuple_GET_ITEM(og_st->in_cells, {i}), 0);",
                   f"Py_INCREF({slot});")
            chk = _check_call(var, slot, f"PyTuple_GET_ITEM(og_st->labels, {i})")
            if chk:
                w.line(chk)
        for c, var in enumerate(consts):
            # borrowed: the state's tuple holds the constants for the module's life
            w.line(f"v[{index[var]}] = PyTuple_GET_ITEM(og_st->consts, {c});")
        out_pos = {v: j for j, v in enumerate(outputs)}
        segment: list[tuple[int, Any]] = []

        def dead_after(k: int, node: Any) -> list[int]:
            return [index[v] for v in [*elision.inputs(k, node), *node.outputs]
                    if last_use.get(v) == k and v.owner is not None and v not in out_set
                    and v not in keep_live]

        def flush_segment() -> None:
            # Python-thunk nodes run from a table (one generic C loop), so the module's
            # code grows only with the nodes that have C.
            if not segment:
                return
            start = prog.start()
            for k, node in segment:
                outs = [(index[v], prog.check_id(v, len(inputs) + k)) for v in node.outputs]
                prog.add_node(k, [index[v] for v in node.inputs], outs, dead_after(k, node))
            w.line(f"if (og_run_py(og_st, v, og_py_prog + {start}, {len(segment)}, &og_node)) "
                   "goto fail;")
            segment.clear()

        for k, (node, code) in enumerate(zip(order, node_code)):
            if k in elision.skip:
                continue
            if code is None:
                segment.append((k, node))
                continue
            flush_segment()
            _emit_c_node(w, k, node, elision.inputs(k, node), index, out_pos, profile)
            for i in dead_after(k, node):  # free what is dead after this node
                w.line(f"og_release(og_st, {i}, &v[{i}]);")
        flush_segment()
        _emit_graph_exit(w, layout, keep_live)
    return prog


def _emit_graph_exit(w: CWriter, layout: GraphLayout, keep_live: set[Variable]) -> None:
    """Outputs into their cells, what is still held released, and the error path."""
    index, consts = layout.index, layout.consts
    for j, var in enumerate(layout.outputs):
        slot = f"v[{index[var]}]"
        w.line(f"Py_INCREF({slot}); if (PyList_SetItem(PyTuple_GET_ITEM(og_st->out_cells, "
               f"{j}), 0, {slot})) goto fail;")
    # what is still held: every other variable was released after its last reader
    const_slots = {index[v] for v in consts}
    live = sorted({index[v] for v in [*layout.inputs, *layout.outputs, *keep_live]
                   if v in index})
    for k in live:
        if k not in const_slots:
            w.line(f"og_release(og_st, {k}, &v[{k}]);")
    w.line("Py_RETURN_NONE;")
    w.label("fail")
    w.line("og_note_error(og_st, og_node);",
           *(f"v[{k}] = NULL;" for k in sorted(const_slots)),
           f"for (int k = 0; k < {len(index)}; k++) Py_CLEAR(v[k]);",
           "return NULL;")


def _defines(layout: GraphLayout, n_params: int, profile: bool) -> str:
    return (
        f"#define OG_NIN {len(layout.inputs)}\n#define OG_NOUT {len(layout.outputs)}\n"
        f"#define OG_NCONST {len(layout.consts)}\n#define OG_NNODES {len(layout.order)}\n"
        f"#define OG_NVARS {len(layout.index)}\n#define OG_NPARAMS {n_params}\n"
        f"#define OG_POOL_MIN_ELEMS {POOL_MIN_ELEMS}\n#define OG_POOL_SLOTS {POOL_SLOTS}\n"
        f"#define OG_POOL_MAX_BYTES {POOL_MAX_BYTES}ULL\n#define OG_KEEP_SMALL_BYTES "
        f"{KEEP_SMALL_BYTES}\n#define OG_FLUSH_SUBNORMALS {int(bool(config.fast_math))}\n"
        f"{profile_define(profile)}"
    )


def build_module_source(
    fgraph: Any, order: Sequence[Any], node_code: Sequence[NodeC | None], ctx: EmitContext,
    keep_live: set[Variable], profile: bool = False,
) -> ModuleSource:
    """The C source (with the module name placeholder) for ``order``.

    ``node_code[k]`` is the C of node k, or None to call its Python thunk.
    ``keep_live`` are variables never freed during the call.  ``profile``
    builds the profiling variant: every node is timed on the monotonic clock
    into the float64 array passed last to ``bind`` (row 0 seconds, row 1 calls).
    """
    inputs = list(fgraph.inputs)
    outputs = list(fgraph.outputs)
    index, consts = _variable_index(inputs, outputs, order)
    layout = GraphLayout(list(order), index, inputs, outputs, consts, list(node_code))
    parts = _node_parts(order, node_code)
    w = CWriter()
    prog = _emit_run_graph(w, layout, keep_live, profile)
    header_text = "".join(
        (f"#include {h}\n" if h.startswith(("<", '"')) else f"#include <{h}>\n")
        for h in parts.headers
    )
    params = ctx.params
    source = "\n".join(
        [
            PRELUDE,
            header_text,
            simd_declarations(),
            _defines(layout, len(params), profile),
            SUPPORT_CODE,
            POOL,
            runtime_source(profile),
            PROFILE_SUPPORT if profile else "",
            _RELEASE,
            prog.tables(),
            _run_py_source(profile),
            *parts.support,
            *parts.funcs,
            w.text(), FP_ENV,
            MODULE_TAIL.replace("MODNAME", MODNAME_PLACEHOLDER),
        ]
    )
    return ModuleSource(source, params, layout, tuple(parts.libs), tuple(parts.lib_dirs),
                        tuple(parts.cargs))


_RELEASE = runtime_file("release.c")
"""Og_release: fixed C shipped as package data (``runtime/release.c``)."""


class _PyProgram:
    """The int table the generic Python-node loop (``og_run_py``) reads.

    Per node: ``k, n_in, in..., n_out, (out, check)..., n_dead, dead...``; a check
    is an index into ``og_py_chk`` (typenum, ndim, label, offset of the static
    shape in ``og_py_shp``) or -1 for non-tensor outputs.
    """

    def __init__(self) -> None:
        self.prog: list[int] = []
        self.checks: list[tuple[int, int, int, int]] = []
        self.shapes: list[int] = []

    def start(self) -> int:
        return len(self.prog)

    def check_id(self, var: Variable, label: int) -> int:
        if not _is_tensor(var):
            return -1
        self.checks.append((typenum_id(var.type.dtype), var.type.ndim, label, len(self.shapes)))
        self.shapes += [-1 if s is None else s for s in var.type.shape]
        return len(self.checks) - 1

    def add_node(self, k: int, ins: list[int], outs: list[tuple[int, int]],
                 dead: list[int]) -> None:
        self.prog += [k, len(ins), *ins, len(outs)]
        for slot, chk in outs:
            self.prog += [slot, chk]
        self.prog += [len(dead), *dead]

    def tables(self) -> str:
        def arr(ctype: str, name: str, values: list[int]) -> str:
            body = ",".join(map(str, values)) or "0"
            return f"static const {ctype} {name}[] = {{{body}}};"

        chk = [x for c in self.checks for x in c]
        return "\n".join([arr("int", "og_py_prog", self.prog), arr("int", "og_py_chk", chk),
                          arr("npy_intp", "og_py_shp", self.shapes)])


def typenum_id(dtype: str) -> int:
    """The NumPy type number of ``dtype`` (an int, for the tables)."""
    import numpy as np

    return int(np.dtype(dtype).num)


def _run_py_source(profile: bool) -> str:
    """og_run_py, timing each Python node (its thunk and output checks) when profiling."""
    return select_profile(RUN_PY, profile)


def _node_function(k: int, node: Any, code: NodeC) -> str:
    comment = f"/* node {k}: {_comment(type(node.op).__name__)} */\n"
    return comment + node_function(f"og_node_{k}", node, code)


def _comment(text: str) -> str:
    return text.replace("*/", "* /")[:120]




def constant_values(layout: GraphLayout) -> tuple[Any, ...]:
    """The constants' data, in the order the module expects them."""
    import numpy as np

    out = []
    for var in layout.consts:
        data = var.data if isinstance(var, Constant) else None
        if _is_tensor(var) and not isinstance(data, np.ndarray):
            # generated C reads tensor constants as arrays without checking them
            data = np.asarray(data, dtype=var.type.dtype)
            data.flags.writeable = False
        out.append(data)
    return tuple(out)

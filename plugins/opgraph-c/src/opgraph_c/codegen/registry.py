"""Where a node's C comes from, in order of precedence.

1. The Op's own methods (``c_code`` and friends, PyTensor's COp protocol).
2. The ``opgraph_op_impl(op, backend="c")`` hook: a package supplying C for
   someone else's Op returns an object with the same methods.
3. The built-in emitters, a table keyed by Op class (:data:`EMITTERS`).

None of them: the node runs its Python thunk inside the generated module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from opgraph.plugins import find_op_impl
from opgraph.scan.op import Scan
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.reduction import CAReduce
from opgraph_c.codegen import blas, more_ops, random_c, scan_c, shape_ops
from opgraph_c.codegen.elemwise import emit_elemwise
from opgraph_c.codegen.nodec import EmitContext, NodeC
from opgraph_c.codegen.reduce import emit_careduce

__all__ = ["EMITTERS", "c_for_node", "cop_version"]

Emitter = Callable[[Any, EmitContext], NodeC | None]


def _builtin_table() -> dict[type, Emitter]:
    table: dict[type, Emitter] = {
        Elemwise: emit_elemwise,
        DimShuffle: shape_ops.emit_dimshuffle,
    }
    table.update(shape_ops.table())
    table[Scan] = scan_c.emit_scan
    table.update(more_ops.table())
    table[CAReduce] = emit_careduce
    table.update(blas.table())
    table.update(random_c.table())
    return table


_TABLE: dict[type, Emitter] | None = None


def EMITTERS() -> dict[type, Emitter]:
    """The built-in emitter table (built on first use)."""
    global _TABLE
    if _TABLE is None:
        _TABLE = _builtin_table()
    return _TABLE


def _from_cop(provider: Any, node: Any, k: int) -> NodeC | None:
    """NodeC from an object following the c_code protocol (the Op or a hook result)."""
    inputs = [f"i{i}" for i in range(len(node.inputs))]
    outputs = [f"o{j}" for j in range(len(node.outputs))]
    sub = {"fail": "goto fail;", "id": k, "params": "og_st->params"}
    body = provider.c_code(node, f"node_{k}", inputs, outputs, sub)
    if body is None:
        return None
    # PyTensor's C declares ``dtype_<name>`` for every array variable; C code written
    # for it uses those names for the element types.
    typedefs = "".join(
        f"typedef npy_{var.type.dtype} dtype_{name};\n"
        for name, var in zip(inputs + outputs, [*node.inputs, *node.outputs])
        if isinstance(getattr(var.type, "dtype", None), str)
        and getattr(var.type, "ndim", None) is not None
    )
    body = typedefs + str(body)

    def opt(name: str, *args: Any) -> Any:
        fn = getattr(provider, name, None)
        if fn is None:
            return ()
        try:
            value = fn(*args)
        except NotImplementedError:
            return ()
        return value or ()

    support = opt("c_support_code")
    support = (support,) if isinstance(support, str) else tuple(support)
    return NodeC(
        body=str(body),
        support=support,
        headers=tuple(opt("c_headers")),
        libraries=tuple(opt("c_libraries")),
        lib_dirs=tuple(opt("c_lib_dirs")),
        compile_args=tuple(opt("c_compile_args")),
    )


def cop_version(provider: Any) -> tuple:
    fn = getattr(provider, "c_code_cache_version", None)
    return tuple(fn()) if fn is not None else ()


def c_for_node(node: Any, k: int, ctx: EmitContext) -> tuple[NodeC | None, str]:
    """The C of ``node`` and where it came from ("op", "hook", "builtin", or "python").

    It is also the context's inner-node emitter (``ctx.emit_node``), which the
    Scan emitter calls for the nodes of its loop body: so scan_c need not import
    this module, which imports it.
    """
    if ctx.emit_node is None:
        ctx.emit_node = c_for_node
    op = node.op
    if callable(getattr(op, "c_code", None)):
        try:
            code = _from_cop(op, node, k)
        except NotImplementedError:
            code = None
        if code is not None:
            return code, "op"
    provider = find_op_impl(op, "c")
    if provider is not None and callable(getattr(provider, "c_code", None)):
        code = _from_cop(provider, node, k)
        if code is not None:
            return code, "hook"
    table = EMITTERS()
    for cls in type(op).__mro__:
        emitter = table.get(cls)
        if emitter is not None:
            code = emitter(node, ctx)
            return code, "builtin" if code is not None else "python"
    return None, "python"

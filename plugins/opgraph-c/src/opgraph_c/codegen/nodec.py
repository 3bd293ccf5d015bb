"""What a C implementation of one node is, and the context emitters get.

A node's C is a block of statements (``NodeC.body``) run inside a generated
function where the inputs are ``PyArrayObject *i0, *i1...`` (borrowed,
already checked against their types) and the outputs ``PyArrayObject *o0...``
hold the previous call's value or NULL (owned: replace with
``Py_XDECREF(o0); o0 = new;``).  On error the body sets a Python exception
and runs ``sub["fail"]``.  This is the calling convention of PyTensor's
``c_code(node, name, inputs, outputs, sub)``, so Ops written for it port.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

import attrs
import numpy as np

from opgraph_c.codegen.ctypes_ import c_type
from opgraph_c.codegen.emit import CWriter

__all__ = ["EmitContext", "NodeC", "node_function"]


@attrs.frozen
class NodeC:
    """The C of one node plus what compiling it needs."""

    body: str
    support: tuple[str, ...] = ()
    headers: tuple[str, ...] = ()
    libraries: tuple[str, ...] = ()
    lib_dirs: tuple[str, ...] = ()
    compile_args: tuple[str, ...] = ()


class EmitContext:
    """Per-module state shared by the emitters.

    ``param`` turns a constant value into a read from the module's parameter
    buffer, so graphs that differ only in constant values share one module.
    ``emit_node`` (``registry.c_for_node``, which sets it on first use) gives the
    C of a node inside another node's body (a Scan loop): an emitter reaches it
    through :meth:`emit_inner`, not by importing the registry that imports it.
    """

    def __init__(
        self, openmp: bool, parallel_min: int = 100_000,
        emit_node: Callable[[Any, int, EmitContext], tuple[NodeC | None, str]] | None = None,
    ) -> None:
        self.openmp = openmp
        self.parallel_min = parallel_min
        self.emit_node = emit_node
        self._params = bytearray()
        self.node_index = 0
        self.required: dict[str, dict[str, None]] = {}

    def emit_inner(self, node: Any, k: int) -> tuple[NodeC | None, str]:
        """The C of ``node`` (a node of an inner graph) and its origin, as ``emit_node`` gives."""
        if self.emit_node is None:
            raise ValueError(
                "EmitContext.emit_node is not set: build the context with "
                "emit_node=opgraph_c.codegen.registry.c_for_node (or emit through c_for_node)"
            )
        return self.emit_node(node, k, self)

    def require(self, extra: Any) -> None:
        """Note support code/headers/libraries (attributes of ``extra``) a node needs."""
        for field in ("support", "headers", "libraries", "lib_dirs"):
            for item in getattr(extra, field, ()):
                self.required.setdefault(field, {})[item] = None

    def take_required(self) -> dict[str, tuple[str, ...]]:
        """What ``require`` noted since the last call (then forgotten)."""
        out = {k: tuple(v) for k, v in self.required.items()}
        self.required = {}
        return out

    def param(self, dtype: str, value: Any) -> str:
        """A C expression of type ``dtype`` reading ``value`` from the parameter buffer."""
        data = np.asarray(value, dtype=dtype).tobytes()
        align = 8
        pad = (-len(self._params)) % align
        self._params += b"\0" * pad
        offset = len(self._params)
        self._params += data
        return f"(*(const {c_type(dtype)} *)(og_st->params + {offset}))"

    @property
    def params(self) -> bytes:
        return bytes(self._params) + struct.pack("q", 0)

    def loop_pragma(self, n: str) -> str:
        """The pragma of an element loop of ``n`` iterations (threads only when large)."""
        if self.openmp:
            return f"#pragma omp parallel for simd if({n} >= {self.parallel_min}) schedule(static)"
        return "#pragma omp simd"

    def outer_pragma(self, n_total: str) -> str:
        if self.openmp:
            return f"#pragma omp parallel for if({n_total} >= {self.parallel_min}) schedule(static)"
        return ""


def node_function(name: str, node: Any, code: NodeC) -> str:
    """A C function ``int name(state, inputs, outputs)`` running one node's ``code``: the
    module's run loop and the scan loop call these (inputs ``i<k>``, outputs ``o<k>``)."""
    w = CWriter()
    with w.block(f"static int {name}(OGState *og_st, PyObject **og_in, PyObject **og_out)"):
        w.line("(void)og_st;", "(void)og_in;")
        for i in range(len(node.inputs)):
            w.line(f"PyArrayObject *i{i} = (PyArrayObject *)og_in[{i}];", f"(void)i{i};")
        for j in range(len(node.outputs)):
            w.line(f"PyArrayObject *o{j} = (PyArrayObject *)og_out[{j}];")
        w.line("int og_rc = -1;")
        with w.block():
            w.code(code.body)
        w.line("og_rc = 0;", "goto fail;")
        w.label("fail")
        for j in range(len(node.outputs)):
            w.line(f"og_out[{j}] = (PyObject *)o{j};")
        w.line("return og_rc;")
    return w.text()

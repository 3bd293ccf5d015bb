"""Node-specialised thunks for Elemwise: everything decidable at compile time is.

A small graph's call time is mostly Python overhead around one NumPy ufunc
call, so ``Elemwise.make_thunk`` builds, per node, a closure that reads its
input cells, runs the ufunc and stores the results, with no per-call
attribute lookups, dict or list building.  Which inputs need the runtime
broadcast check, whether ``out=`` is passed (inplace) and the output dtypes
are fixed when the node is linked.  The closure source depends only on the
node's *shape* (number of inputs/outputs, which inputs are compared, ...), so
one template is compiled per shape and reused by every node of that shape.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Apply

__all__ = ["attributed", "broadcast_check_inputs", "make_elemwise_thunk", "node_site"]


def broadcast_check_inputs(node: Apply) -> tuple[int, ...]:
    """Indices of the inputs whose runtime shapes must be compared (empty: no check).

    The check only ever fails at a dimension where a non-broadcastable input has
    length 1 while another input is longer.  It cannot fail at dimension ``d`` when
    at most one input is not of static length 1 there, or when all those inputs
    have the same static length.  Inputs of static shape all 1 can never fail it,
    so they need not be compared.
    """
    shapes = [v.type.shape for v in node.inputs]
    if len(shapes) < 2:
        return ()
    needed = False
    for entries in zip(*shapes):
        free = [s for s in entries if s != 1]
        if len(free) > 1 and (None in free or len(set(free)) > 1):
            needed = True
            break
    if not needed:
        return ()
    return tuple(i for i, shape in enumerate(shapes) if any(s != 1 for s in shape))


def _ufunc_takes_ellipsis_out() -> bool:
    """NumPy >= 2.1 returns 0-d arrays, not scalars, from ``ufunc(..., out=...)``."""
    try:
        return type(np.negative(np.array(1.0), out=...)) is np.ndarray
    except TypeError:
        return False


_ELLIPSIS_OUT = _ufunc_takes_ellipsis_out()


def _folded_ufunc(fn: Any) -> np.ufunc | None:
    """The binary ufunc a variadic op folds over its inputs (``scalar.basic._fold``), else None.

    Calling it directly saves the fold's Python loop on every call.
    """
    uf = getattr(fn, "binary_ufunc", None)
    return uf if isinstance(uf, np.ufunc) and uf.nin == 2 and uf.nout == 1 else None


def as_output_value(value: Any, dtype: np.dtype) -> Any:
    """``value`` as an array of ``dtype`` (the slow path of a thunk's result check)."""
    if not isinstance(value, np.ndarray) or value.dtype != dtype:
        value = np.asarray(value, dtype=dtype)
    return value


@functools.cache
def _template(
    n_in: int, n_out: int, compared: tuple[int, ...], out_arg: str | None,
    copy_back: tuple[int | None, ...], mark: bool, fold: bool,
) -> Callable[..., Callable[[], None]]:
    """Compile the factory of thunks of one node shape (cached: a few shapes cover all)."""
    ins = [f"a{i}" for i in range(n_in)]
    lines = [f"{a} = i{i}[0]" for i, a in enumerate(ins)]
    if compared:
        first = f"a{compared[0]}.shape"
        cond = " or ".join(f"a{i}.shape != {first}" for i in compared[1:])
        lines.append(f"if {cond}:")
        lines.append(f"    check([{', '.join(ins)}])")
    if fold:  # a variadic op: the binary ufunc applied left to right, as ``_fold`` does
        # One statement per step, not one nested call: a nested expression over
        # hundreds of inputs exceeds the parser's nesting limit.
        acc = ins[0]
        for a in ins[1:-1]:
            lines.append(f"acc = uf({acc}, {a})")
            acc = "acc"
        call = f"uf({acc}, {ins[-1]}"
    else:
        call = f"uf({', '.join(ins)}"
    call += f", out={out_arg})" if out_arg is not None else ")"
    if n_out == 1:
        lines.append(f"r0 = {call}")
    else:
        lines.append(f"{', '.join(f'r{o}' for o in range(n_out))}, = {call}")
    for o in range(n_out):
        lines.append(f"if type(r{o}) is not ndarray or r{o}.dtype is not d{o}:")
        lines.append(f"    r{o} = fix(r{o}, d{o})")
        if copy_back[o] is not None:
            lines.append(f"a{copy_back[o]}[...] = r{o}")
            lines.append(f"r{o} = a{copy_back[o]}")
    lines += [f"o{o}[0] = r{o}" for o in range(n_out)]
    if mark:
        lines += [f"m{o}[0] = True" for o in range(n_out)]
    unpack = []
    if n_in:
        unpack.append(f"{''.join(f'i{i}, ' for i in range(n_in))}= in_cells")
    unpack.append(f"{''.join(f'o{o}, ' for o in range(n_out))}= out_cells")
    unpack.append(f"{''.join(f'd{o}, ' for o in range(n_out))}= dtypes")
    if mark:
        unpack.append(f"{''.join(f'm{o}, ' for o in range(n_out))}= marks")
    body = "\n".join("        " + line for line in lines)
    head = "\n".join("    " + line for line in unpack)
    source = (
        "def factory(uf, in_cells, out_cells, dtypes, marks, check, fix, ndarray):\n"
        f"{head}\n"
        "    def elemwise_thunk():\n"
        f"{body}\n"
        "    return elemwise_thunk\n"
    )
    namespace: dict[str, Any] = {}
    exec(compile(source, f"<elemwise thunk {n_in}->{n_out}>", "exec"), namespace)
    return namespace["factory"]


def make_elemwise_thunk(
    op: Any,
    node: Apply,
    in_cells: Sequence[list],
    out_cells: Sequence[list],
    out_marks: Sequence[list] | None,
    check: Callable[[list], None],
) -> Callable[[], None]:
    """The thunk computing ``node`` (an Elemwise Apply) from ``in_cells`` into ``out_cells``.

    Same results as ``op.perform``: the ufunc's outputs, coerced to the output
    types' dtypes, written into the destroyed input when ``op`` is inplace
    (through ``out=`` for a NumPy ufunc, by copying back otherwise).
    """
    uf = op.ufunc
    n_out = len(node.outputs)
    binary = _folded_ufunc(uf)
    fold = binary is not None and len(node.inputs) >= 2 and n_out == 1
    if fold:
        uf = binary
    pattern = op.inplace_pattern
    as_ufunc = bool(pattern) and isinstance(uf, np.ufunc)
    if as_ufunc:
        outs = [f"a{pattern[o]}" if o in pattern else "None" for o in range(n_out)]
        out_arg: str | None = outs[0] if n_out == 1 else f"({', '.join(outs)},)"
    elif _ELLIPSIS_OUT and isinstance(uf, np.ufunc) and node.outputs[0].type.ndim == 0:
        out_arg = "..."  # a 0-d array instead of a NumPy scalar to convert after
    else:
        out_arg = None
    copy_back = tuple(
        None if as_ufunc else pattern.get(o) for o in range(n_out)
    )
    factory = _template(
        len(node.inputs), n_out, broadcast_check_inputs(node), out_arg, copy_back,
        out_marks is not None, fold,
    )
    dtypes = tuple(v.type.numpy_dtype for v in node.outputs)
    located = getattr(op.scalar_op, "attributed_ufunc", None)
    if located is not None and not fold:  # a fused Composite: its generated program, renamed
        uf = located(f"<opgraph node {node_site(node)}>")
    thunk = factory(
        uf, tuple(in_cells), tuple(out_cells), dtypes, tuple(out_marks or ()), check,
        as_output_value, np.ndarray,
    )
    return attributed(thunk, node)


def node_site(node: Apply) -> str:
    """``"Log(x)"``, plus ``", built at file.py:4"`` when the node's creation was traced."""
    text = str(node)
    if len(text) > 100:
        text = text[:97] + "..."
    trace = getattr(node.outputs[0].tag, "trace", None) if node.outputs else None
    if trace and trace[-1]:
        frame = trace[-1][-1]
        filename, lineno = frame[0], frame[1]
        text += f", built at {filename}:{lineno}"
    return text


def attributed(thunk: Callable[..., Any], node: Apply) -> Callable[..., Any]:
    """``thunk`` with its code's file name naming ``node`` (and the user's line).

    The code is shared by every node of one shape; a copy of the function with
    a renamed code object costs a few microseconds at link time and nothing per
    call, and makes NumPy's warnings raised inside it (``invalid value
    encountered in log``...) and tracebacks through it say which node, built
    where, instead of ``<elemwise thunk 1->1>``.
    """
    code = thunk.__code__.replace(co_filename=f"<opgraph node {node_site(node)}>")
    return types.FunctionType(code, thunk.__globals__, thunk.__name__, thunk.__defaults__,
                              thunk.__closure__)

"""Composite: a graph of scalar ops used as one scalar op (the unit of Elemwise fusion).

The inner graph is compiled once into a flat program of (op, input slots,
output slots) steps, so evaluating it never walks the graph.  The same
program runs on NumPy scalars (``impl``) or on whole arrays (``ufunc``), so a
fused Elemwise evaluates one NumPy expression per inner op.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import (
    Apply,
    Constant,
    Variable,
    clone,
    io_connection_pattern,
    io_toposort,
    orphans_between,
)
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.op import HasInnerGraph
from opgraph.scalar.basic import ScalarOp
from opgraph.scalar.gradhelpers import scalar_pullback, scalar_pushforward
from opgraph.scalar.type import ScalarType, as_scalar

__all__ = ["Composite", "ScalarInnerGraphOp"]

_NAME_LIMIT = 120

Step = tuple[Any, tuple[int, ...], tuple[int, ...]]


class ScalarInnerGraphOp(HasInnerGraph, ScalarOp):
    """Base of the scalar Ops defined by an inner scalar graph (``Composite``)."""


class Composite(ScalarInnerGraphOp):
    """``Composite(inputs, outputs)``: the scalar graph from inputs to outputs as one op.

    Equal when the inner programs are equal (same ops, wiring, constants and
    input dtypes), whatever the variable names.
    """

    def __init__(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable], name: str | None = None
    ):
        inputs, outputs = list(inputs), list(outputs)
        _check_graph(inputs, outputs)
        self._inputs, self._outputs = clone(inputs, outputs)
        self.nin = len(inputs)
        self.nout = len(outputs)
        self.output_types_preference = None
        self._build_program()
        self.name = name or _compact_name(self._inputs, self._outputs)
        self._fgraph = None

    # -- the program ------------------------------------------------------------------
    def _build_program(self) -> None:
        slot: dict[Variable, int] = {v: i for i, v in enumerate(self._inputs)}
        consts: list[tuple[int, Any]] = []
        steps: list[Step] = []
        key_steps: list[tuple] = []
        nodes = io_toposort(self._inputs, self._outputs)

        def slot_of(v: Variable) -> int:
            if v not in slot:  # only constants remain (checked in __init__)
                slot[v] = len(slot)
                consts.append((slot[v], v.data))
            return slot[v]

        for node in nodes:
            ins = tuple(slot_of(v) for v in node.inputs)
            outs = []
            for o in node.outputs:
                slot[o] = len(slot)
                outs.append(slot[o])
            steps.append((node.op, ins, tuple(outs)))
            key_steps.append((node.op, ins, tuple(outs)))
        out_slots = tuple(slot_of(o) for o in self._outputs)
        self._steps = tuple(steps)
        self._consts = tuple(consts)
        self._n_slots = len(slot)
        self._out_slots = out_slots
        self._out_dtypes = tuple(o.type.dtype for o in self._outputs)
        self._key = (
            tuple(v.type for v in self._inputs),
            tuple((s, np.asarray(d).dtype.str, np.asarray(d).tobytes()) for s, d in consts),
            tuple(key_steps),
            out_slots,
        )
        self._hash = hash(self._key)

    def _run(self, values: Sequence[Any], arrays: bool) -> list[Any]:
        regs: list[Any] = [None] * self._n_slots
        regs[: len(values)] = values
        for s, d in self._consts:
            regs[s] = d
        for op, ins, outs in self._steps:
            args = [regs[i] for i in ins]
            res = op.ufunc(*args) if arrays else op.impl(*args)
            if len(outs) == 1:
                regs[outs[0]] = res
            else:
                for s, r in zip(outs, res):
                    regs[s] = r
        return [regs[s] for s in self._out_slots]

    def impl(self, *inputs: Any) -> Any:
        results = self._run(inputs, arrays=False)
        results = [
            r if isinstance(r, np.generic) and r.dtype == d else np.asarray(r).astype(d)[()]
            for r, d in zip(results, self._out_dtypes)
        ]
        return results[0] if self.nout == 1 else tuple(results)

    @property
    def ufunc(self) -> Callable[..., Any]:
        """Evaluate the program with NumPy over whole arrays (broadcasting like Elemwise)."""
        return self._array_call

    def numpy_fn(self, *arrays: Any) -> Any:
        return self._array_call(*arrays)

    def attributed_ufunc(self, site: str) -> Callable[..., Any]:
        """:attr:`ufunc` with its generated program's code file named ``site``, so that
        warnings and tracebacks raised while it runs name the node (and the user's
        line) that uses it rather than the shared ``<Composite{...} program>``."""
        program = self.__dict__.get("_array_program")
        if program is None:
            program = self._array_program = _compile_array_program(self)
        code = program.__code__.replace(co_filename=site)
        located = types.FunctionType(code, program.__globals__, program.__name__,
                                     program.__defaults__, program.__closure__)
        return functools.partial(self._run_program, located)

    def _array_call(self, *arrays: Any) -> Any:
        program = self.__dict__.get("_array_program")
        if program is None:
            program = self._array_program = _compile_array_program(self)
        return self._run_program(program, *arrays)

    def _run_program(self, program: Callable[..., tuple], *arrays: Any) -> Any:
        arrays = [a if type(a) is np.ndarray else np.asarray(a) for a in arrays]
        results = program(*arrays)
        shape = arrays[0].shape if arrays else ()
        for a in arrays:
            if a.shape != shape:
                shape = np.broadcast_shapes(*(a.shape for a in arrays))
                break
        final = []
        for r, d in zip(results, self._out_dtypes):
            if type(r) is not np.ndarray:
                r = np.asarray(r)
            # an input passed through, or a result of fewer dimensions: a fresh full array
            if r.shape != shape or any(r is a for a in arrays):
                r = np.array(np.broadcast_to(r, shape), dtype=d)
            elif r.dtype != d:
                r = r.astype(d)
            final.append(r)
        return final[0] if self.nout == 1 else tuple(final)

    def __getstate__(self) -> dict:
        state = super().__getstate__()
        state.pop("_array_program", None)  # generated code: rebuilt on first use
        return state

    # -- identity ------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        return (
            isinstance(other, Composite)
            and type(self) is type(other)
            and self._hash == other._hash
            and self._key == other._key
        )

    def __hash__(self) -> int:
        return self._hash

    # -- inner graph ------------------------------------------------------------------------
    @property
    def inner_inputs(self) -> list[Variable]:
        return self._inputs

    @property
    def inner_outputs(self) -> list[Variable]:
        return self._outputs

    @property
    def fgraph(self) -> Any:
        """The inner graph as a FunctionGraph (built on first access)."""
        if self._fgraph is None:
            self._fgraph = FunctionGraph(self._inputs, self._outputs, clone=False)
        return self._fgraph

    def clone(self) -> Composite:
        return Composite(self._inputs, self._outputs, name=self.name)

    def inline(self, inputs: Sequence[Any]) -> list[Variable]:
        """The inner graph rebuilt on ``inputs`` (types re-inferred): outer scalar variables."""
        inputs = [as_scalar(x) for x in inputs]
        if len(inputs) != self.nin:
            raise TypeError(f"{self}: expected {self.nin} inputs, got {len(inputs)}")
        memo: dict[Variable, Variable] = dict(zip(self._inputs, inputs))
        for node in io_toposort(self._inputs, self._outputs):
            new = node.op.make_node(*[memo.get(v, v) for v in node.inputs])
            memo.update(zip(node.outputs, new.outputs))
        return [memo.get(o, o) for o in self._outputs]

    # -- building -----------------------------------------------------------------------------
    def output_types(self, types: Sequence[ScalarType]) -> list[ScalarType]:
        if list(types) == [v.type for v in self._inputs]:
            return [o.type for o in self._outputs]
        return [o.type for o in self.inline([t() for t in types])]

    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) != self.nin:
            raise TypeError(f"{self} takes {self.nin} inputs, got {len(inputs)}")
        ins = [as_scalar(x) for x in inputs]
        if [x.type for x in ins] != [v.type for v in self._inputs]:
            # Other dtypes: the same graph re-typed is another Composite.
            fresh = [x.type() for x in ins]
            return Composite(fresh, self.inline(fresh)).make_node(*ins)
        return Apply(self, ins, [o.type() for o in self._outputs])

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return io_connection_pattern(self._inputs, self._outputs)

    # -- differentiation --------------------------------------------------------------------------
    def pullback(self, inputs: list, outputs: list, cotangents: list) -> list:
        outs = self.inline(inputs)
        return scalar_pullback(outs, inputs, cotangents)

    def pushforward(self, inputs: list, outputs: list, tangents: list) -> list:
        outs = self.inline(inputs)
        return scalar_pushforward(inputs, outs, tangents)


def _compile_array_program(comp: Composite) -> Callable[..., tuple]:
    """The flat program as one generated function of the input arrays (no interpreter loop).

    Each step becomes ``r<out> = f<k>(r<in>, ...)`` with the op's array callable
    and constants bound once; it returns the output registers as a tuple.
    """
    env: dict[str, Any] = {f"r{s}": d for s, d in comp._consts}
    lines = []
    for k, (op, ins, outs) in enumerate(comp._steps):
        env[f"f{k}"] = op.ufunc
        targets = ", ".join(f"r{s}" for s in outs) + ("," if len(outs) > 1 else "")
        lines.append(f"{targets} = f{k}({', '.join(f'r{s}' for s in ins)})")
    lines.append(f"return ({''.join(f'r{s}, ' for s in comp._out_slots)})")
    params = ", ".join(f"r{i}" for i in range(comp.nin))
    body = "\n".join("        " + line for line in lines)
    source = (
        f"def factory({', '.join(env)}):\n"
        f"    def program({params}):\n{body}\n"
        "    return program\n"
    )
    namespace: dict[str, Any] = {}
    exec(compile(source, f"<{comp.name[:60]} program>", "exec"), namespace)
    return namespace["factory"](**env)


def _check_graph(inputs: list, outputs: list) -> None:
    for i, v in enumerate(inputs):
        if not isinstance(v, Variable) or not isinstance(v.type, ScalarType):
            raise TypeError(f"Composite: input {i} must be a scalar Variable, got {v!r:.60}")
        if isinstance(v, Constant):
            raise TypeError(f"Composite: input {i} ({v}) is a Constant; inputs must be variables")
    for i, v in enumerate(outputs):
        if not isinstance(v, Variable) or not isinstance(v.type, ScalarType):
            raise TypeError(
                "The fgraph of Composite must be exclusively composed of scalar operations: "
                f"output {i} must be a scalar Variable, got {v!r:.60}"
            )
    for node in io_toposort(inputs, outputs):
        if not isinstance(node.op, ScalarOp):
            raise TypeError(
                "The fgraph of Composite must be exclusively composed of scalar operations: "
                f"found {node.op} ({type(node.op).__name__})"
            )
    for v in orphans_between(inputs, outputs):
        if not isinstance(v, Constant):
            raise ValueError(
                f"Composite: the outputs depend on {v}, which is neither an input nor a constant"
            )


def _compact_name(inputs: list, outputs: list) -> str:
    """PyTensor-style ``Composite{(i0 + exp(i1))}``, shortened for large graphs."""
    text: dict[Variable, str] = {v: f"i{k}" for k, v in enumerate(inputs)}

    def show(v: Variable) -> str:
        if v in text:
            return text[v]
        if isinstance(v, Constant):
            return str(v.data)
        return "?"

    for node in io_toposort(inputs, outputs):
        args = [show(v) for v in node.inputs]
        op = node.op
        sym = getattr(op, "symbol", None)
        if sym is not None and len(args) >= 2:
            s = "(" + f" {sym} ".join(args) + ")"
        elif sym is not None and len(args) == 1:
            s = f"({sym}{args[0]})"
        else:
            s = f"{getattr(op, 'name', None) or op}({', '.join(args)})"
        if len(s) > _NAME_LIMIT:
            s = f"{getattr(op, 'name', op)}(...)"
        for k, o in enumerate(node.outputs):
            text[o] = s if len(node.outputs) == 1 else f"{s}[{k}]"
    body = ", ".join(show(o) for o in outputs)
    if len(body) > 2 * _NAME_LIMIT:
        body = f"{len(io_toposort(inputs, outputs))} scalar ops"
    return f"Composite{{{body}}}"

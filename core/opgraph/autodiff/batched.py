"""``Batched``: any Op applied row by row along a leading batch axis.

The fallback of vectorisation when an Op has no batching rule: the inputs
flagged in ``batched`` carry an extra leading axis, the others are shared by
every row.  ``perform`` loops over the rows calling the Op's own ``perform``
and stacks the results, so the batch length may be known only at run time.
Its pullback and pushforward are the Op's own, vectorised the same way, so a
``Batched`` node can be differentiated (and batched) again: jacobian of a
jacobian works for every Op.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

from opgraph.autodiff import arith
from opgraph.autodiff.forward import node_pushforward
from opgraph.autodiff.hooks import hook_caller
from opgraph.autodiff.reverse import grad, node_pullback
from opgraph.autodiff.undefined import disconnected_type, is_disconnected, is_null
from opgraph.autodiff.vectorize import dims_of, one_batch_axis, register_fallback, vectorize_graph
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op

__all__ = ["Batched", "batched_jacobian", "loop_rule", "row_type", "vectorize_graph"]


class _Unbatchable(NotImplementedError):
    """A type without a tensor shape cannot be given a batch axis."""


def row_type(var: Variable) -> Any:
    """The type of one row of a batched ``var`` (its leading axis dropped)."""
    typ = var.type
    shape = getattr(typ, "shape", None)
    if shape is None or len(shape) == 0 or not hasattr(typ, "clone"):
        raise _Unbatchable(f"{var} (type {typ}) has no leading batch axis to loop over")
    return typ.clone(shape=tuple(shape[1:]))


def _batched_type(typ: Any, length: int | None) -> Any:
    shape = getattr(typ, "shape", None)
    if shape is None or not hasattr(typ, "clone"):
        raise _Unbatchable(f"an output of type {typ} cannot be stacked along a batch axis")
    return typ.clone(shape=(length, *shape))


@attrs.frozen
class Batched(Op):
    """``op`` applied to each row of the inputs flagged in ``batched``; outputs stacked."""

    op: Op
    batched: tuple[bool, ...]

    def inner_node(self, inputs: Sequence[Variable]) -> Apply:
        """The unbatched node of one row: fresh row variables for batched inputs."""
        row_inputs = [row_type(v)() if b else v for v, b in zip(inputs, self.batched)]
        return self.op.make_node(*row_inputs)

    def make_node(self, *inputs: Any) -> Apply:
        inputs = [arith.as_tensor(i) for i in inputs]
        if len(inputs) != len(self.batched):
            raise TypeError(
                f"{self} expects {len(self.batched)} inputs (one per batched flag); "
                f"got {len(inputs)}"
            )
        if not any(self.batched):
            raise ValueError(f"{self}: at least one input must be batched")
        inner = self.inner_node(inputs)
        lengths = {v.type.shape[0] for v, b in zip(inputs, self.batched) if b}
        static = [s for s in lengths if s is not None]
        if len(set(static)) > 1:
            raise ValueError(f"{self}: batched inputs have different lengths {sorted(static)}")
        length = static[0] if static else None
        outputs = [_batched_type(o.type, length)() for o in inner.outputs]
        node = Apply(self, inputs, outputs)
        node.tag.batched_inner = inner
        return node

    def _inner(self, node: Apply) -> Apply:
        inner = getattr(node.tag, "batched_inner", None)
        if inner is None:
            inner = node.tag.batched_inner = self.inner_node(node.inputs)
        return inner

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        inner = self._inner(node)
        lengths = {len(v) for v, b in zip(inputs, self.batched) if b}
        if len(lengths) != 1:
            raise ValueError(
                f"{self}: the batched inputs must have one common leading length; got "
                f"{sorted(lengths)}"
            )
        (n,) = lengths
        destroyed = {i for ins in getattr(self.op, "destroy_map", {}).values() for i in ins}
        rows: list[list[Any]] = [[] for _ in node.outputs]
        for k in range(n):
            args = [
                (np.array(v[k]) if i in destroyed else v[k]) if b
                else (np.array(v) if i in destroyed else v)
                for i, (v, b) in enumerate(zip(inputs, self.batched))
            ]
            storage: list[list[Any]] = [[None] for _ in inner.outputs]
            self.op.perform(inner, args, storage)
            for j, cell in enumerate(storage):
                rows[j].append(cell[0])
        for j, out in enumerate(node.outputs):
            dtype = getattr(out.type, "dtype", None)
            if n == 0:
                value = np.zeros((0, *self._empty_row_shape(inner, inputs, j)), dtype=dtype)
            else:
                try:
                    value = np.stack([np.asarray(r, dtype=dtype) for r in rows[j]])
                except ValueError as exc:
                    raise ValueError(
                        f"{self}: the rows of output {j} have different shapes "
                        f"{sorted({np.shape(r) for r in rows[j]})}; they cannot be stacked"
                    ) from exc
            output_storage[j][0] = value

    def _empty_row_shape(self, inner: Apply, inputs: Sequence[Any], j: int) -> tuple[int, ...]:
        """The row shape of output ``j`` for an empty batch: the Op run once on a row of
        zeros when it accepts one, else its static shape (unknown lengths 0)."""
        args = [np.zeros(np.shape(v)[1:], dtype=np.asarray(v).dtype) if b else v
                for v, b in zip(inputs, self.batched)]
        storage: list[list[Any]] = [[None] for _ in inner.outputs]
        try:
            self.op.perform(inner, args, storage)
            return np.shape(storage[j][0])
        except Exception:  # a probe: any failure means "shape unknown"
            return tuple(0 if s is None else s for s in inner.outputs[j].type.shape)

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        inner = self._inner(node)
        return [list(row) for row in self.op.connection_pattern(inner)]

    def pullback(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable],
        cotangents: Sequence[Variable],
    ) -> list[Variable]:
        inner = self.inner_node(inputs)
        replace: dict[Variable, Variable] = {}
        row_cots = []
        for inner_out, out, cot in zip(inner.outputs, outputs, cotangents):
            replace[inner_out] = out
            if is_disconnected(cot) or is_null(cot):
                row_cots.append(cot)
                continue
            row_cot = row_type(cot)()
            replace[row_cot] = cot
            row_cots.append(row_cot)
        for inner_in, outer, b in zip(inner.inputs, inputs, self.batched):
            if b:
                replace[inner_in] = outer
        terms = node_pullback(inner, row_cots, hook_caller("opgraph_pullback"))
        return self._lift(terms, inputs, replace, sum_unbatched=True)

    def pushforward(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable],
        tangents: Sequence[Variable],
    ) -> list[Variable]:
        inner = self.inner_node(inputs)
        replace: dict[Variable, Variable] = dict(zip(inner.outputs, outputs))
        row_tangents: list[Variable | None] = []
        for inner_in, outer, t, b in zip(inner.inputs, inputs, tangents, self.batched):
            if b:
                replace[inner_in] = outer
            if t is None or is_disconnected(t):
                row_tangents.append(None)
            elif b and not is_null(t):
                row_t = row_type(t)()
                replace[row_t] = t
                row_tangents.append(row_t)
            else:
                row_tangents.append(t)
        outs = node_pushforward(inner, row_tangents, hook_caller("opgraph_pushforward"))
        lifted = self._lift(
            [disconnected_type() if t is None else t for t in outs], outputs, replace,
            sum_unbatched=False,
        )
        return lifted

    def _lift(
        self, terms: Sequence[Variable], targets: Sequence[Variable],
        replace: dict[Variable, Variable], sum_unbatched: bool,
    ) -> list[Variable]:
        """Row-level ``terms`` rebuilt over the batch; summed for unbatched ``targets``."""
        live = [i for i, t in enumerate(terms) if not (is_disconnected(t) or is_null(t))]
        batch = self._batch_length(replace)
        lifted = vectorize_graph([terms[i] for i in live], replace, batch)
        result = list(terms)
        pt = arith._pt()
        for i, value in zip(live, lifted):
            if sum_unbatched and not self.batched[i]:
                value = pt.sum(value, axis=0)
            result[i] = value
        return result

    def _batch_length(self, replace: dict[Variable, Variable]) -> Any:
        for outer in replace.values():
            shape = getattr(outer.type, "shape", None)
            if shape:
                return shape[0] if shape[0] is not None else outer.shape[0]
        raise ValueError(f"{self}: no batched variable to take the batch length from")

    def __str__(self) -> str:
        flags = "".join("b" if b else "." for b in self.batched)
        return f"Batched{{{self.op}, {flags}}}"


def loop_rule(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    """A batching rule for any Op: loop over the rows with a ``Batched`` node (one axis)."""
    flags = one_batch_axis(node, ins, extra)
    try:
        return Batched(node.op, tuple(flags))(*ins, return_list=True)
    except _Unbatchable as exc:
        raise NotImplementedError(f"cannot batch {node.op}: {exc}") from exc


register_fallback(loop_rule)  # the tensor layer puts a Blockwise first


def batched_jacobian(
    expression: Variable, wrt: Sequence[Variable], consider_constant: Any = None,
    disconnected_inputs: str = "raise",
) -> list[Variable]:
    """Rows ``d expression.flatten()[k] / d wrt`` stacked on a leading axis."""
    pt = arith._pt()
    u = expression.type()
    vjps = grad(None, list(wrt), consider_constant=consider_constant,
                disconnected_inputs=disconnected_inputs, known_grads={expression: u})
    n = expression.size if expression.type.ndim != 1 else expression.shape[0]
    units = pt.reshape(pt.eye(n, dtype=u.type.dtype), (n, *dims_of(expression)),
                       ndim=expression.type.ndim + 1)
    return vectorize_graph(vjps, {u: units}, n)

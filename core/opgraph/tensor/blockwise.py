"""Blockwise: an Op on core arrays applied over any leading batch dimensions.

``Blockwise(core_op, "(m,n),(n)->(m)")`` takes inputs with extra leading
axes, broadcasts those batch axes against each other (NumPy rules, inputs
padded on the left) and applies ``core_op`` to every batch element, as a
NumPy generalised ufunc would.  This is how matrix Ops (cholesky, solve, ...)
accept stacks of matrices.

Gradients are not written per Op: the core Op's pullback/pushforward graph is
built on core-shaped stand-ins and then *vectorised*: every node in it is
rebuilt with the batch axes (:func:`vectorize_core_graph`, rules per Op class
in the batching table, ``opgraph.graph.replace.BATCHING_RULES``; anything else
wrapped in a Blockwise of its own).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from opgraph.autodiff.batched import loop_rule
from opgraph.autodiff.vectorize import register_batching_rule
from opgraph.graph.basic import (
    Apply,
    Constant,
    Variable,
    ancestors,
    io_toposort,
    variable_depends_on,
)
from opgraph.graph.null_type import NullType
from opgraph.graph.op import Op
from opgraph.graph.replace import apply_batching_rule, batch_axes_of
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.creation import alloc
from opgraph.tensor.elemwise import DimShuffle, Elemwise, _is_disconnected, broadcast_static_shape
from opgraph.tensor.products import MatMul, matmul
from opgraph.tensor.reduction import CAReduce
from opgraph.tensor.reduction import sum as _sum
from opgraph.tensor.shape import Shape, Shape_i, shape
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable

__all__ = [
    "Blockwise",
    "BlockwiseWithCoreShape",
    "parse_gufunc_signature",
    "safe_signature",
    "vectorize_core_graph",
    "vectorize_matrix_product",
    "vectorize_node_fallback",
]

Signature = tuple[list[tuple[str, ...]], list[tuple[str, ...]]]

_DIM = r"\w+"
_CORE = rf"\((?:{_DIM}(?:,{_DIM})*)?\)"
_ARGS = rf"{_CORE}(?:,{_CORE})*"
_SIGNATURE = re.compile(rf"^{_ARGS}->{_ARGS}$")


def parse_gufunc_signature(signature: str) -> Signature:
    """``"(m,n),(n)->(m)"`` -> ``([("m","n"), ("n",)], [("m",)])``."""
    if not isinstance(signature, str):
        raise TypeError(
            f"gufunc signature must be a str like '(m,n),(n)->(m)', got "
            f"{type(signature).__name__} {signature!r}"
        )
    compact = re.sub(r"\s+", "", signature)
    if not _SIGNATURE.match(compact):
        raise ValueError(
            f"not a valid gufunc signature: {signature!r} (expected e.g. '(m,n),(n)->(m)')"
        )
    ins, outs = compact.split("->")
    return _parse_args(ins), _parse_args(outs)


def _parse_args(text: str) -> list[tuple[str, ...]]:
    return [tuple(d for d in core.split(",") if d) for core in re.findall(r"\(([^)]*)\)", text)]


def safe_signature(core_inputs_ndim: Sequence[int], core_outputs_ndim: Sequence[int]) -> str:
    """A signature with a distinct dimension name for every axis (no shared lengths):
    ``i<input><axis>`` and ``o<output><axis>``, e.g. ``(i00),(i10,i11)->(o00)``."""

    def cores(prefix: str, ndims: Sequence[int]) -> str:
        return ",".join(
            "(" + ",".join(f"{prefix}{k}{j}" for j in range(n)) + ")" for k, n in enumerate(ndims)
        )

    return f"{cores('i', core_inputs_ndim)}->{cores('o', core_outputs_ndim)}"


def _label(var: Variable, i: int) -> str:
    return f"input {i} ({var.name})" if var.name else f"input {i}"


class Blockwise(Op):
    """``core_op`` mapped over the leading (batch) axes of its inputs.

    ``signature`` is a NumPy gufunc signature; by default ``core_op.gufunc_signature``.
    """

    __props__ = ("core_op", "signature")

    def __init__(self, core_op: Op, signature: str | None = None, name: str | None = None) -> None:
        if not isinstance(core_op, Op):
            raise TypeError(f"Blockwise: core_op must be an Op, got {type(core_op).__name__}")
        if isinstance(core_op, Blockwise):
            raise TypeError("Blockwise: core_op is already a Blockwise; use it directly")
        if signature is None:
            signature = getattr(core_op, "gufunc_signature", None)
            if signature is None:
                raise ValueError(
                    f"Signature not provided nor found in core_op {core_op}: it has no "
                    "gufunc_signature attribute; pass Blockwise(core_op, signature=...)"
                )
        self.core_op = core_op
        self.signature = signature
        self.inputs_sig, self.outputs_sig = parse_gufunc_signature(signature)
        self.name = name
        self.gufunc_signature = signature

    def __str__(self) -> str:
        return self.name or f"Blockwise{{{self.core_op}, {self.signature}}}"

    @property
    def destroy_map(self) -> dict[int, list[int]]:  # type: ignore[override]
        """The core Op's: output k overwrites input i over every batch entry."""
        return dict(getattr(self.core_op, "destroy_map", None) or {})

    def inplace_on_inputs(self, allowed_inplace_inputs: list[int]) -> Op:
        """A Blockwise of the core Op's inplace version (self when it has none)."""
        core = self.core_op.inplace_on_inputs(allowed_inplace_inputs)
        if core is self.core_op or type(self) is not Blockwise:
            return self
        return Blockwise(core, signature=self.signature, name=self.name)

    @property
    def n_inputs(self) -> int:
        return len(self.inputs_sig)

    # -- building ---------------------------------------------------------------------
    def _core_inputs(self, inputs: Sequence[Variable]) -> list[Variable]:
        """Fresh core-shaped stand-ins for ``inputs`` (batch axes stripped)."""
        out = []
        for inp, sig in zip(inputs, self.inputs_sig):
            core_shape = inp.type.shape[inp.type.ndim - len(sig):] if sig else ()
            out.append(TensorType(inp.type.dtype, core_shape)())
        return out

    def _batch_ndim(self, node: Apply) -> int:
        return node.outputs[0].type.ndim - len(self.outputs_sig[0])

    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) != self.n_inputs:
            raise TypeError(
                f"{self}: expected {self.n_inputs} input(s) for signature {self.signature}, "
                f"got {len(inputs)}"
            )
        inputs = [as_tensor_variable(x) for x in inputs]
        for i, (inp, sig) in enumerate(zip(inputs, self.inputs_sig)):
            if not isinstance(inp.type, TensorType):
                raise TypeError(f"{self}: {_label(inp, i)} must be a tensor, got type {inp.type}")
            if inp.type.ndim < len(sig):
                raise ValueError(
                    f"{self}: {_label(inp, i)} must have at least {len(sig)} dimension(s) for "
                    f"its core signature ({','.join(sig)}), got {inp.type.ndim}-d type {inp.type}"
                )
        self._check_static_core_dims(inputs)
        batch_shape = self._static_batch_shape(inputs)
        core_node = self.core_op.make_node(*self._core_inputs(inputs))
        known = self._static_core_lengths(inputs)
        outputs = []
        for out, sig in zip(core_node.outputs, self.outputs_sig):
            if not isinstance(out.type, TensorType) or out.type.ndim != len(sig):
                raise TypeError(
                    f"{self}: core output {out} of type {out.type} does not match the "
                    f"signature's core dims ({','.join(sig)})"
                )
            # lengths the signature ties to an input win; else the core op's static ones
            core_shape = tuple(known.get(d, s) for s, d in zip(out.type.shape, sig))
            outputs.append(TensorType(out.type.dtype, batch_shape + core_shape)())
        if len(outputs) != len(self.outputs_sig):
            raise TypeError(
                f"{self}: core op gives {len(outputs)} output(s), the signature "
                f"{len(self.outputs_sig)}"
            )
        return Apply(self, inputs, outputs)

    def _static_core_lengths(self, inputs: Sequence[Variable]) -> dict[str, int]:
        known: dict[str, int] = {d: int(d) for sig in self.outputs_sig for d in sig if d.isdigit()}
        for inp, sig in zip(inputs, self.inputs_sig):
            core = inp.type.shape[inp.type.ndim - len(sig):] if sig else ()
            known.update((d, n) for d, n in zip(sig, core) if n is not None)
        return known

    def _check_static_core_dims(self, inputs: Sequence[Variable]) -> None:
        seen: dict[str, tuple[int, int]] = {}
        for i, (inp, sig) in enumerate(zip(inputs, self.inputs_sig)):
            core = inp.type.shape[inp.type.ndim - len(sig):] if sig else ()
            for name, length in zip(sig, core):
                if name.isdigit() and length is not None and length != int(name):
                    raise ValueError(
                        f"{self}: {_label(inp, i)} must have length {name} in its core "
                        f"dimensions ({','.join(sig)}), got static shape {inp.type.shape}"
                    )
                if length is None:
                    continue
                if name in seen and seen[name][1] != length:
                    j = seen[name][0]
                    if j == i:
                        raise ValueError(_same_input_message(self, inp, i, sig, inp.type.shape))
                    raise ValueError(
                        f"{self}: core dimension {name!r} has length {seen[name][1]} in "
                        f"{_label(inputs[j], j)} but {length} in {_label(inp, i)}"
                    )
                seen.setdefault(name, (i, length))

    def _static_batch_shape(self, inputs: Sequence[Variable]) -> tuple[int | None, ...]:
        batch = [
            inp.type.shape[: inp.type.ndim - len(sig)] for inp, sig in zip(inputs, self.inputs_sig)
        ]
        ndim = max((len(b) for b in batch), default=0)
        padded = [(1,) * (ndim - len(b)) + tuple(b) for b in batch]
        try:
            return broadcast_static_shape(
                padded, [_label(inp, i) for i, inp in enumerate(inputs)]
            )
        except ValueError as exc:
            raise ValueError(f"{self}: batch dimensions do not broadcast: {exc}") from None

    # -- computing --------------------------------------------------------------------
    def _core_node(self, node: Apply) -> Apply:
        """The core Op's node for ``node``'s types, built once per node."""
        core = getattr(node.tag, "blockwise_core_node", None)
        if core is None:
            core = self.core_op.make_node(*self._core_inputs(node.inputs))
            node.tag.blockwise_core_node = core
        return core

    def _runtime_batch_shape(self, node: Apply, inputs: Sequence[np.ndarray]) -> tuple[int, ...]:
        batches = []
        dims: dict[str, tuple[int, int]] = {}
        for i, (x, sig) in enumerate(zip(inputs, self.inputs_sig)):
            nb = x.ndim - len(sig)
            batches.append(x.shape[:nb])
            for name, length in zip(sig, x.shape[nb:]):
                if name.isdigit() and length != int(name):
                    raise ValueError(
                        f"{self}: {_label(node.inputs[i], i)} must have length {name} in its "
                        f"core dimensions ({','.join(sig)}), got shape {x.shape}"
                    )
                if name in dims and dims[name][1] != length:
                    j = dims[name][0]
                    if j == i:
                        raise ValueError(
                            _same_input_message(self, node.inputs[i], i, sig, x.shape)
                        )
                    raise ValueError(
                        f"{self}: core dimension {name!r} has length {dims[name][1]} in "
                        f"{_label(node.inputs[j], j)} (shape {inputs[j].shape}) but {length} in "
                        f"{_label(node.inputs[i], i)} (shape {x.shape})"
                    )
                dims.setdefault(name, (i, length))
        try:
            shape = tuple(np.broadcast_shapes(*batches))
        except ValueError:
            described = ", ".join(
                f"{_label(v, i)} batch shape {b}"
                for i, (v, b) in enumerate(zip(node.inputs, batches))
            )
            raise ValueError(f"{self}: batch dimensions do not broadcast: {described}") from None
        self._check_runtime_broadcast(node, batches, shape)
        return shape

    def _check_runtime_broadcast(
        self, node: Apply, batches: Sequence[tuple[int, ...]], shape: tuple[int, ...]
    ) -> None:
        """A length-1 batch axis broadcasts only if its type says so (static length 1),
        as for Elemwise: the gradient, built from the types, must sum over it."""
        nb = len(shape)
        for i, (var, batch) in enumerate(zip(node.inputs, batches)):
            offset = nb - len(batch)
            for k, length in enumerate(batch):
                if length == 1 and shape[offset + k] != 1 and var.type.shape[k] != 1:
                    raise ValueError(
                        f"{self}: runtime broadcasting not allowed: {_label(var, i)} has length "
                        f"1 on batch axis {k} where the others have {shape[offset + k]}, but "
                        f"its type {var.type} does not mark the axis broadcastable (give it "
                        f"static length 1, e.g. with specify_shape)"
                    )

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        core_node = self._core_node(node)
        batch_shape = self._runtime_batch_shape(node, inputs)
        nb = len(batch_shape)
        destroyed = {i: k for k, idxs in self.destroy_map.items() for i in idxs}
        views = [
            x if i in destroyed else np.broadcast_to(x, batch_shape + x.shape[x.ndim - len(sig):])
            for i, (x, sig) in enumerate(zip(inputs, self.inputs_sig))
        ]
        results: list[np.ndarray | None] = [None] * len(node.outputs)
        perform = self.core_op.perform
        dtypes = [o.type.numpy_dtype for o in node.outputs]
        for idx in np.ndindex(*batch_shape):
            cells: list[list[Any]] = [[None] for _ in node.outputs]
            perform(core_node, [v[idx] for v in views], cells)
            for k, cell in enumerate(cells):
                value = np.asarray(cell[0])
                if results[k] is None:
                    results[k] = np.empty(batch_shape + value.shape, dtype=dtypes[k])
                elif results[k].shape[nb:] != value.shape:  # type: ignore[union-attr]
                    raise ValueError(
                        f"{self}: core output {k} changed shape between batch elements "
                        f"({results[k].shape[nb:]} then {value.shape})"  # type: ignore[union-attr]
                    )
                results[k][idx] = value  # type: ignore[index]
        if any(r is None for r in results):  # an empty batch: no core call to learn shapes from
            for k, shp in enumerate(self._empty_core_shapes(node, inputs, core_node)):
                results[k] = np.empty(batch_shape + shp, dtype=dtypes[k])
        for i, k in destroyed.items():  # the overwritten input holds output k
            if inputs[i] is not results[k]:
                inputs[i][...] = results[k]
            results[k] = inputs[i]
        for cell, r in zip(output_storage, results):
            cell[0] = r

    def _empty_core_shapes(self, node: Apply, inputs: Sequence[np.ndarray],
                           core_node: Apply) -> list[tuple]:
        """The core output shapes of an empty batch: from the signature and static shapes,
        else from one core call on zeros (as the row loop ``Batched`` does)."""
        lengths: dict[str, int] = {d: int(d) for sig in self.outputs_sig for d in sig
                                   if d.isdigit()}
        for x, sig in zip(inputs, self.inputs_sig):
            lengths.update(zip(sig, x.shape[x.ndim - len(sig):]))
        shapes = []
        for k, sig in enumerate(self.outputs_sig):
            static = node.outputs[k].type.shape[self._batch_ndim(node):]
            try:
                shapes.append(tuple(
                    s if s is not None else lengths[d] for d, s in zip(sig, static)
                ))
            except KeyError as exc:
                probed = self._probe_core_shapes(inputs, core_node)
                if probed is None:
                    raise ValueError(
                        f"{self}: cannot tell the core length {exc} of output {k} for an "
                        "empty batch") from None
                return probed
        return shapes

    def _probe_core_shapes(self, inputs: Sequence[np.ndarray], core_node: Apply
                           ) -> list[tuple] | None:
        """The core outputs' shapes from the core Op run once on zeros (None if it fails)."""
        zeros = [np.zeros(x.shape[x.ndim - len(sig):], dtype=x.dtype) if x.ndim > len(sig)
                 else x for x, sig in zip(inputs, self.inputs_sig)]  # unbatched: as given
        cells: list[list[Any]] = [[None] for _ in core_node.outputs]
        try:
            self.core_op.perform(core_node, zeros, cells)
        except Exception:  # a probe: any failure means "shape unknown"
            return None
        return [np.shape(c[0]) for c in cells]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list:
        nb = self._batch_ndim(node)
        batch: list[Any] = []
        for axis in range(nb):
            dim = 1
            for inp, shp, sig in zip(node.inputs, input_shapes, self.inputs_sig):
                k = axis - (nb - (inp.type.ndim - len(sig)))
                if k >= 0 and inp.type.shape[k] != 1:
                    dim = shp[k]
                    break
            batch.append(dim)
        lengths: dict[str, Any] = {d: int(d) for sig in self.outputs_sig for d in sig
                                   if d.isdigit()}
        for inp, shp, sig in zip(node.inputs, input_shapes, self.inputs_sig):
            for d, s in zip(sig, list(shp)[inp.type.ndim - len(sig):]):
                lengths.setdefault(d, s)
        core_shapes = None
        out = []
        for k, (o, sig) in enumerate(zip(node.outputs, self.outputs_sig)):
            dims = []
            for j, d in enumerate(sig):
                static = o.type.shape[nb + j]
                if static is not None:
                    dims.append(static)
                elif d in lengths:
                    dims.append(lengths[d])
                else:
                    if core_shapes is None:
                        core_shapes = self._core_infer_shape(fgraph, node, input_shapes)
                    known = core_shapes[k][j] if core_shapes else None
                    # no inference for this length: read it from the output itself
                    dims.append(known if known is not None else Shape_i(nb + j)(o))
            out.append(tuple(batch) + tuple(dims))
        return out

    def _core_infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> Any:
        core_node = self._core_node(node)
        core_shapes = [
            tuple(shp)[inp.type.ndim - len(sig):] for inp, shp, sig in
            zip(node.inputs, input_shapes, self.inputs_sig)
        ]
        infer = getattr(self.core_op, "infer_shape", None)
        if infer is None:
            return []
        try:
            shapes = infer(fgraph, core_node, core_shapes)
        except Exception:  # the core op cannot say: the caller reads the output's shape
            return []
        # A length computed from the core node's own variables (its stand-in inputs or
        # outputs, e.g. a value-dependent length) is not a shape of this node: drop it.
        stand_ins = {*ancestors(core_node.inputs), *core_node.outputs}
        return [
            [None if isinstance(d, Variable) and variable_depends_on(d, stand_ins) else d
             for d in shp]
            for shp in shapes
        ]

    # -- differentiation ------------------------------------------------------------
    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        core_cp = getattr(self.core_op, "connection_pattern", None)
        if core_cp is None:
            return super().connection_pattern(node)
        return core_cp(self._core_node(node))

    def pullback(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable],
        cotangents: Sequence[Variable],
    ) -> list[Variable]:
        core_in = self._core_inputs(inputs)
        core_node = self.core_op.make_node(*core_in)
        core_cot = [
            g if _is_disconnected(g) else TensorType(g.type.dtype, o.type.shape)()
            for g, o in zip(cotangents, core_node.outputs)
        ]
        core_grads = self.core_op.pullback(core_in, core_node.outputs, core_cot)
        replace = {**dict(zip(core_in, inputs)), **dict(zip(core_node.outputs, outputs))}
        replace.update((c, g) for c, g in zip(core_cot, cotangents) if not _is_disconnected(g))
        grads = vectorize_core_graph(list(core_grads), replace, skip=_not_a_tensor)
        return [
            _sum_batch_axes(g, x, len(sig)) for g, x, sig in zip(grads, inputs, self.inputs_sig)
        ]

    def pushforward(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable],
        tangents: Sequence[Variable],
    ) -> list[Variable]:
        core_in = self._core_inputs(inputs)
        core_node = self.core_op.make_node(*core_in)
        core_tan = [
            t if t is None or _is_disconnected(t) else TensorType(t.type.dtype, c.type.shape)()
            for t, c in zip(tangents, core_in)
        ]
        core_out = self.core_op.pushforward(core_in, core_node.outputs, core_tan)
        replace = {**dict(zip(core_in, inputs)), **dict(zip(core_node.outputs, outputs))}
        replace.update(
            (c, t) for c, t in zip(core_tan, tangents) if t is not None and not _is_disconnected(t)
        )
        result = vectorize_core_graph(list(core_out), replace, skip=_not_a_tensor)
        return [
            t if _not_a_tensor(t) or t.type.ndim == o.type.ndim else alloc(t, *_dims(o))
            for t, o in zip(result, outputs)
        ]


def _same_input_message(op: Op, var: Variable, i: int, sig: Sequence[str], shape: Any) -> str:
    square = " (a square matrix)" if len(sig) == 2 and sig[0] == sig[1] else ""
    return (
        f"{op}: {_label(var, i)} must have equal lengths for its core dimensions "
        f"({','.join(sig)}){square}, got shape {tuple(shape)}"
    )


def _not_a_tensor(v: Any) -> bool:
    return v is None or not isinstance(getattr(v, "type", None), TensorType)


def _dims(var: Variable) -> list[Any]:
    return [s if s is not None else var.shape[i] for i, s in enumerate(var.type.shape)]


def _sum_batch_axes(g: Any, x: Variable, core_ndim: int) -> Any:
    """Reduce a vectorised cotangent ``g`` to the shape of input ``x`` (undo broadcasting)."""
    if _not_a_tensor(g) or isinstance(g.type, NullType):
        return g
    extra = g.type.ndim - x.type.ndim
    if extra < 0:  # the cotangent does not vary over x's batch axes
        return alloc(g, *_dims(x))
    if extra:
        g = _sum(g, axis=tuple(range(extra)))
    x_batch = x.type.ndim - core_ndim
    axes = tuple(
        i for i in range(x_batch) if x.type.shape[i] == 1 and g.type.shape[i] != 1
    )
    if axes:
        g = _sum(g, axis=axes, keepdims=True)
    if g.type.dtype != x.type.dtype and x.type.dtype.startswith(("float", "complex")):
        g = g.astype(x.type.dtype)
    return g


# --------------------------------------------------------------------------- vectorising

def _align_batch(ins: Sequence[Variable], extra: Sequence[int], core_ndim: Sequence[int]) -> list:
    """Give every batched input the same core rank, so left-padding aligns batch axes."""
    rank = max(core_ndim, default=0)
    out = []
    for v, e, c in zip(ins, extra, core_ndim):
        if e and c < rank:
            order = (*range(e), *("x",) * (rank - c), *range(e, e + c))
            v = DimShuffle(input_ndim=e + c, new_order=order)(v)
        out.append(v)
    return out


def _vec_elemwise(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    aligned = _align_batch(ins, extra, [i.type.ndim for i in node.inputs])
    return node.op.make_node(*aligned).outputs


def _vec_dimshuffle(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    e = extra[0]
    op = node.op
    order = (*range(e), *(o if o == "x" else int(o) + e for o in op.new_order))
    return [DimShuffle(input_ndim=op.input_ndim + e, new_order=order)(ins[0])]


def _align_blockwise(node: Apply, ins: Sequence[Variable], extra: Sequence[int]) -> list:
    """Insert the node's own batch axes after each input's new leading ones, where missing."""
    op = node.op
    out_batch = op._batch_ndim(node)
    aligned = []
    for v, e, old, sig in zip(ins, extra, node.inputs, op.inputs_sig):
        own = old.type.ndim - len(sig)
        if e and own < out_batch:
            order = (*range(e), *("x",) * (out_batch - own), *range(e, v.type.ndim))
            v = DimShuffle(input_ndim=v.type.ndim, new_order=order)(v)
        aligned.append(v)
    return aligned


def _vec_blockwise(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    return node.op.make_node(*_align_blockwise(node, ins, extra)).outputs


def vectorize_matrix_product(node: Apply, ins: list[Variable], extra: list[int]
                             ) -> list[Variable]:
    """Dot/MatMul of matrices (or stacks) over batched operands: one ``matmul``."""
    # matmul maps over batch axes itself; with the core batch axes padded to one rank, its
    # right-aligned broadcasting puts the new axes outermost (1-D operands would change
    # meaning, so they take the Blockwise).
    core = [i.type.ndim for i in node.inputs]
    if min(core) >= 2:
        return [matmul(*_align_batch(ins, extra, core))]
    return vectorize_node_fallback(node.op, node, *ins)


def _vec_careduce(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    """A reduction over the same core axes, shifted past the new leading ones."""
    op, e = node.op, extra[0]
    ndim = node.inputs[0].type.ndim
    axis = range(ndim) if op.axis is None else (a % ndim for a in op.axis)
    return [op._clone(tuple(a + e for a in axis))(ins[0])]


def _vec_shape(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    return [shape(ins[0])[extra[0]:]]


def _vec_shape_i(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    return [Shape_i(node.op.i + extra[0])(ins[0])]


# Per-Op-class rules in the one batching table (more in tensor.batching); an Op
# without an entry becomes a Blockwise of itself (the table's fallback, below).
# Shape and Shape_i stay unbatched: every batch entry has the same core shape.
for _cls, _rule in {
    Elemwise: _vec_elemwise,
    DimShuffle: _vec_dimshuffle,
    CAReduce: _vec_careduce,
    Blockwise: _vec_blockwise,
    MatMul: vectorize_matrix_product,
    Shape: _vec_shape,
    Shape_i: _vec_shape_i,
}.items():
    register_batching_rule(_cls, _rule)


def vectorize_node_fallback(op: Op, node: Apply, *batched_inputs: Variable) -> list[Variable]:
    """``node`` rebuilt on ``batched_inputs`` as a Blockwise of ``op`` (tensor inputs only)."""
    for i, v in enumerate(node.inputs):
        if not isinstance(v.type, TensorType):
            raise NotImplementedError(
                f"Cannot vectorize node {node} with input {v} of type {v.type} "
                f"(input {i}: only tensor inputs can get batch axes)"
            )
    if isinstance(op, Blockwise):
        return op.make_node(*batched_inputs).outputs
    signature = getattr(op, "gufunc_signature", None) or safe_signature(
        [i.type.ndim for i in node.inputs], [o.type.ndim for o in node.outputs]
    )
    return Blockwise(op, signature=signature).make_node(*batched_inputs).outputs


def _blockwise_fallback(node: Apply, ins: list[Variable], extra: list[int]) -> list[Variable]:
    """The batching table's fallback: a Blockwise of the Op, or (non-tensor inputs) the
    row loop of ``autodiff.batched``."""
    try:
        return vectorize_node_fallback(node.op, node, *ins)
    except NotImplementedError:
        return loop_rule(node, ins, extra)


register_batching_rule(object, _blockwise_fallback)  # Ops without a rule


def vectorize_core_graph(
    outputs: Sequence[Any], replace: Mapping[Variable, Variable],
    skip: Callable[[Any], bool] = _not_a_tensor,
) -> list[Any]:
    """``outputs`` rebuilt with each ``replace`` key swapped for its batched value.

    A replacement may add any number of leading batch axes (different ones
    broadcast, as in NumPy).  Entries for which ``skip`` is true (None,
    disconnected or null gradients) pass through unchanged.
    """
    new: dict[Variable, Variable] = {}
    extra: dict[Variable, int] = {}
    for old, value in replace.items():
        value = as_tensor_variable(value) if not isinstance(value, Variable) else value
        new[old] = value
        extra[old] = value.type.ndim - old.type.ndim
        if extra[old] < 0:
            raise ValueError(
                f"vectorize: replacement {value} of type {value.type} has fewer dimensions "
                f"than {old} of type {old.type}"
            )
    roots = [o for o in outputs if not skip(o)]
    for node in io_toposort(list(replace), roots):
        ins = [new.get(i, i) for i in node.inputs]
        ext = [extra.get(i, 0) for i in node.inputs]
        if not any(ext):
            if any(a is not b for a, b in zip(ins, node.inputs)):
                outs = node.op.make_node(*ins).outputs
            else:
                continue
        else:
            outs = apply_batching_rule(node, ins, ext)
        for old, o in zip(node.outputs, outs):
            new[old] = o
            extra[old] = batch_axes_of(old, o)
    return [o if skip(o) or isinstance(o, Constant) else new.get(o, o) for o in outputs]


# --------------------------------------------------------------------------- rewrite


@node_rewriter([Blockwise])
def local_useless_blockwise(fgraph: Any, node: Apply) -> Any:
    """Blockwise(op)(x) -> op(x) when no input has batch axes (a plain core node), or
    when ``op`` is an Elemwise of scalar signature (it maps over any axes itself).

    When every batch axis of every input has static length 1 (a vector ``b`` of
    ``solve`` made a one-row matrix), the core Op runs once on the inputs without
    those axes and its outputs get them back: one core call instead of the
    Blockwise loop's per-element bookkeeping.
    """
    op = node.op
    elementwise = isinstance(op.core_op, Elemwise) and not any(
        op.inputs_sig + op.outputs_sig)
    nb = op._batch_ndim(node)
    if nb != 0 and not elementwise:
        return _unit_batch_as_core(op, node, nb)
    return _as_outputs_of(op.core_op.make_node(*node.inputs).outputs, node)


def _unit_batch_as_core(op: Blockwise, node: Apply, nb: int) -> list | None:
    """The core Op on inputs whose batch axes (all of static length 1) are dropped."""
    ins = []
    for x, sig in zip(node.inputs, op.inputs_sig):
        k = x.type.ndim - len(sig)
        if any(s != 1 for s in x.type.shape[:k]):
            return None
        ins.append(x.dimshuffle(*range(k, x.type.ndim)) if k else x)
    outs = [o.dimshuffle(*(["x"] * nb), *range(o.type.ndim))
            for o in op.core_op.make_node(*ins).outputs]
    return _as_outputs_of(outs, node)


def _as_outputs_of(outs: Sequence[Variable], node: Apply) -> list | None:
    """``outs`` with the types of ``node``'s outputs (None when one cannot take it)."""
    result = []
    for new, old in zip(outs, node.outputs):
        if new.type != old.type:
            try:
                new = old.type.filter_variable(new)
            except TypeError:
                return None
        result.append(new)
    return result


class BlockwiseWithCoreShape(Blockwise):
    """PyTensor's Blockwise that also takes the core output shapes as inputs.

    PyTensor's Numba backend rewrites Blockwise nodes into this form; opgraph has
    no Numba backend and never builds it. The class exists so that code asking
    ``isinstance(op, Blockwise | BlockwiseWithCoreShape)`` runs unchanged.
    """

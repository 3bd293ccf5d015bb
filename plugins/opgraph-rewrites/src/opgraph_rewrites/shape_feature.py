"""ShapeFeature: symbolic shapes from ``infer_shape``, so shape computations skip values.

Shapes are computed on demand (iteratively, cached per variable) rather than
on every import, so attaching the feature costs nothing for graphs that
never ask for a shape. ``local_shape_to_shape_i`` then rewrites
``shape(x)`` / ``Shape_i(i)(x)`` into expressions of input shapes and
constants: ``shape(exp(x) + y)`` no longer computes ``exp(x) + y``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.features import AlreadyThere, Feature
from opgraph.graph.rewriting.basic import GraphRewriter, NodeRewriter, node_rewriter
from opgraph.tensor.shape import Shape, Shape_i, make_vector
from opgraph.tensor.variable import constant
from opgraph_rewrites.utils import _cast, keep_type

__all__ = ["ShapeFeature", "ShapeOptimizer", "shape_rewriters"]


def _const_int(value: int) -> Variable:
    return constant(np.int64(value))


class _LazyShapes(dict):
    """``shape_of[var]`` computes a shape not asked for yet (PyTensor code indexes it)."""

    def __init__(self, feature: ShapeFeature) -> None:
        super().__init__()
        self._feature = feature

    def __missing__(self, var: Variable) -> tuple[Variable, ...]:
        fgraph = self._feature.fgraph
        shape = self._feature.get_shape(var) if fgraph is not None else None
        if shape is None:
            if fgraph is not None and var in fgraph.variables:
                return None  # a variable of the graph without a shape (not a tensor)
            raise KeyError(var)
        return shape


class ShapeFeature(Feature):
    """``shape_of[var]``: a tuple of int64 scalars (Variables) for each tensor variable."""

    def __init__(self) -> None:
        self.shape_of: dict[Variable, tuple[Variable, ...]] = _LazyShapes(self)
        self.fgraph: Any = None

    def on_attach(self, fgraph: Any) -> None:
        if getattr(fgraph, "shape_feature", None) is not None:
            raise AlreadyThere("a ShapeFeature is already attached")
        self.fgraph = fgraph
        fgraph.shape_feature = self

    def on_detach(self, fgraph: Any) -> None:
        self.shape_of.clear()
        if fgraph.__dict__.get("shape_feature") is self:
            del fgraph.shape_feature
        self.fgraph = None

    def on_prune(self, fgraph: Any, node: Apply, reason: Any = None) -> None:
        for o in node.outputs:
            self.shape_of.pop(o, None)

    def clone(self) -> ShapeFeature:
        return ShapeFeature()

    def _default(self, v: Variable) -> tuple[Variable, ...]:
        return tuple(
            _const_int(s) if s is not None else Shape_i(i)(v)
            for i, s in enumerate(v.type.shape)
        )

    def get_shape(self, var: Variable) -> tuple[Variable, ...] | None:
        """The symbolic shape of ``var``, or None for non-tensors."""
        if getattr(var.type, "ndim", None) is None:
            return None
        if var in self.shape_of:
            return self.shape_of[var]
        stack = [var]
        while stack:
            v = stack[-1]
            if v in self.shape_of:
                stack.pop()
                continue
            node = v.owner
            if node is None or not hasattr(node.op, "infer_shape"):
                self.shape_of[v] = self._default(v)
                stack.pop()
                continue
            missing = [i for i in node.inputs if i not in self.shape_of
                       and getattr(i.type, "ndim", None) is not None]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            self._infer(node)
            if v not in self.shape_of:
                self.shape_of[v] = self._default(v)
        return self.shape_of[var]

    def same_shape(self, x: Variable, y: Variable, dim_x: int | None = None,
                   dim_y: int | None = None) -> bool:
        """Whether ``x`` and ``y`` are known to have the same shape (or the same length
        on axes ``dim_x``/``dim_y``): equal static lengths or the same symbolic length.
        An axis out of range raises IndexError."""
        sx, sy = self.get_shape(x), self.get_shape(y)
        if sx is None or sy is None:
            return False
        if dim_x is not None:
            sx = (sx[dim_x],)
        if dim_y is not None:
            sy = (sy[dim_y],)
        if len(sx) != len(sy):
            return False
        return all(_same_dim(a, b) for a, b in zip(sx, sy))

    def _infer(self, node: Apply) -> None:
        in_shapes = [self.shape_of.get(i) for i in node.inputs]
        try:
            outs = node.op.infer_shape(self.fgraph, node, in_shapes)
        except Exception:  # no usable shape inference: fall back to Shape_i
            outs = None
        for k, o in enumerate(node.outputs):
            if getattr(o.type, "ndim", None) is None:
                continue
            shp = outs[k] if outs is not None and k < len(outs) else None
            if shp is None or len(shp) != o.type.ndim:
                self.shape_of[o] = self._default(o)
                continue
            dims = []
            for i, d in enumerate(shp):
                static = o.type.shape[i]
                if static is not None:
                    dims.append(_const_int(static))
                elif isinstance(d, int | np.integer):
                    dims.append(_const_int(int(d)))
                else:
                    dims.append(d)
            self.shape_of[o] = tuple(dims)


def _same_dim(a: Variable, b: Variable) -> bool:
    """Two shape entries known equal: the same variable, equal constants, or the same
    ``Shape_i`` of the same variable."""
    if a is b:
        return True
    if isinstance(a, Constant) and isinstance(b, Constant):
        return bool(np.array_equal(a.data, b.data))
    na, nb = a.owner, b.owner
    return (na is not None and nb is not None and na.op == nb.op
            and len(na.inputs) == len(nb.inputs)
            and all(i is j for i, j in zip(na.inputs, nb.inputs)))


def _depends_on(dim: Variable, var: Variable) -> bool:
    """Whether ``dim`` reads ``var`` itself (the fallback Shape_i(var)); inferred
    dims are built from shapes of var's ancestors, so one level suffices."""
    node = dim.owner
    return node is not None and any(i is var for i in node.inputs)


def local_shape_to_shape_i() -> NodeRewriter:
    def add_feature(fgraph: Any) -> None:
        if getattr(fgraph, "shape_feature", None) is None:
            fgraph.attach_feature(ShapeFeature())

    @node_rewriter([Shape, Shape_i], requirements=[add_feature], name="local_shape_to_shape_i")
    def rewrite(fgraph: Any, node: Apply) -> Any:
        """shape(f(x)) -> shapes of f's inputs (infer_shape), never f(x) itself."""
        feature = getattr(fgraph, "shape_feature", None)
        (x,) = node.inputs
        if feature is None or x.owner is None:
            return False
        shp = feature.get_shape(x)
        if shp is None:
            return False
        dims = [shp[node.op.i]] if isinstance(node.op, Shape_i) else list(shp)
        if any(_depends_on(d, x) for d in dims):
            return False
        dims = [d if d.type.dtype == "int64" else _cast64(d) for d in dims]
        if isinstance(node.op, Shape_i):
            new = dims[0]
        else:
            new = make_vector(*dims, dtype="int64") if dims else None
            if new is None:
                return False
        if new.type != node.outputs[0].type:
            new = keep_type(node.outputs[0], new)
        return [new] if new is not None else False

    return rewrite


def _cast64(d: Variable) -> Variable:
    return _cast(d, "int64")


class ShapeOptimizer(GraphRewriter):
    """Attaches a ShapeFeature (PyTensor's name for that step); rewrites nothing."""

    def add_requirements(self, fgraph: Any) -> None:
        if getattr(fgraph, "shape_feature", None) is None:
            fgraph.attach_feature(ShapeFeature())

    def apply(self, fgraph: Any) -> None:
        self.add_requirements(fgraph)


def shape_rewriters() -> list[tuple[str, NodeRewriter, tuple[str, ...]]]:
    return [("local_shape_to_shape_i", local_shape_to_shape_i(), ("shape",))]

"""``JAXOp`` and ``wrap_jax``: a JAX function as an Op of the graph (PyTensor 3's ``link.jax.ops``).

``JAXOp(input_types, output_types, jax_function)`` runs ``jax_function`` (it
must return a tuple, one value per output) in every mode: under the JAX
linker it is traced into the compiled function; elsewhere ``perform`` calls
it on NumPy values.  Its gradient is another JAXOp computing ``jax.vjp``.

``wrap_jax(f)`` turns ``f`` into a function of graph variables: arguments
may be pytrees holding variables (and other, static, values); the output
types come from ``jax.eval_shape`` on the inputs' static shapes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from opgraph.autodiff.undefined import is_disconnected
from opgraph.compile.function import function
from opgraph.compile.sharedvalue import SharedVariable
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.op import Op
from opgraph.graph.traversal import graph_inputs
from opgraph.tensor.basic import infer_static_shape
from opgraph.tensor.creation import zeros_like
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable
from opgraph_jax.link.dispatch.basic import jax_funcify

__all__ = ["JAXOp", "wrap_jax"]


class JAXOp(Op):
    """An Op computed by a JAX function of its inputs returning a tuple of outputs."""

    __props__ = ("input_types", "output_types", "jax_function", "name")

    def __init__(self, input_types: Sequence[Any], output_types: Sequence[Any],
                 jax_function: Callable[..., Any], name: str | None = None) -> None:
        if not callable(jax_function):
            raise TypeError(f"JAXOp: jax_function must be callable, got {jax_function!r}")
        for what, types in (("input_types", input_types), ("output_types", output_types)):
            if not all(isinstance(t, TensorType) for t in types):
                raise TypeError(f"JAXOp: {what} must be TensorTypes, got {list(types)!r}")
        self.input_types = tuple(input_types)
        self.output_types = tuple(output_types)
        self.jax_function = jax_function
        self.name = name or getattr(jax_function, "__name__", "jax_function")
        self.num_inputs, self.num_outputs = len(self.input_types), len(self.output_types)

    def __str__(self) -> str:
        return f"JAXOp{{{self.name}}}"

    __repr__ = __str__

    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) != self.num_inputs:
            raise TypeError(f"{self}: expected {self.num_inputs} inputs, got {len(inputs)}")
        vars_ = []
        for k, (inp, t) in enumerate(zip(inputs, self.input_types)):
            v = as_tensor_variable(inp)
            if v.type.ndim != t.ndim:
                raise TypeError(f"{self}: input {k} must have {t.ndim} dimension(s) ({t}), "
                                f"got {v.type}")
            if v.type.dtype != t.dtype:
                v = v.astype(t.dtype)
            vars_.append(v)
        self._check_returns_tuple()
        return Apply(self, vars_, [t() for t in self.output_types])

    def _check_returns_tuple(self) -> None:
        """With every input shape known, trace the function once to check what it returns."""
        if not all(None not in t.shape for t in self.input_types):
            return
        specs = [jax.ShapeDtypeStruct(t.shape, t.dtype) for t in self.input_types]
        out = jax.eval_shape(self.jax_function, *specs)
        if not isinstance(out, tuple | list):
            raise TypeError(f"{self}: the JAX function must return a tuple of outputs (one per "
                            f"output type), got {type(out).__name__}")

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        outs = _call(self, inputs)
        for cell, value, var in zip(output_storage, outs, node.outputs):
            cell[0] = np.asarray(value, dtype=var.type.dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        if all(None not in t.shape for t in self.output_types):
            return [tuple(t.shape) for t in self.output_types]
        raise NotImplementedError(f"{self}: output shapes are not static")

    def pullback(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 cotangents: Sequence[Variable]) -> list[Variable]:
        cots = [zeros_like(o) if g is None or is_disconnected(g) else g
                for g, o in zip(cotangents, outputs)]
        vjp_op = _vjp_op(self, [i.type for i in inputs], [c.type for c in cots])
        grads = vjp_op(*inputs, *cots, return_list=True)
        return [g if _is_float(i) else zeros_like(i, dtype=g.type.dtype)
                for g, i in zip(grads, inputs)]


def _is_float(var: Variable) -> bool:
    return var.type.dtype.startswith(("float", "complex"))


def _call(op: JAXOp, values: Sequence[Any]) -> list[Any]:
    out = op.jax_function(*values)
    if not isinstance(out, tuple | list):
        raise TypeError(f"{op}: the JAX function must return a tuple of outputs, "
                        f"got {type(out).__name__}")
    if len(out) != op.num_outputs:
        raise ValueError(f"{op}: the JAX function returned {len(out)} outputs for "
                         f"{op.num_outputs} output types")
    return list(out)


def _vjp_op(op: JAXOp, in_types: list[Any], cot_types: list[Any]) -> JAXOp:
    n_in = op.num_inputs
    out_dtypes = [t.dtype for t in op.output_types]
    fn = op.jax_function

    def vjp(*args: Any) -> tuple[Any, ...]:
        primals, cots = args[:n_in], args[n_in:]
        _, pull = jax.vjp(lambda *xs: tuple(fn(*xs)), *primals)
        grads = pull(tuple(jnp.asarray(c, dtype=d) for c, d in zip(cots, out_dtypes)))
        return tuple(
            jnp.zeros(jnp.shape(p), dtype=_grad_dtype(t)) if g.dtype == jax.dtypes.float0
            else g.astype(_grad_dtype(t))
            for g, p, t in zip(grads, primals, in_types)
        )

    grad_types = [TensorType(_grad_dtype(t), shape=t.shape) for t in in_types]
    return JAXOp([*in_types, *cot_types], grad_types, vjp, name=f"vjp_{op.name}")


def _grad_dtype(t: Any) -> str:
    return t.dtype if t.dtype.startswith(("float", "complex")) else "float64"


@jax_funcify.register(JAXOp)
def _funcify_jax_op(op: JAXOp, node: Apply | None = None, **kwargs: Any) -> Callable:
    def jax_op(*values: Any) -> Any:
        return _call(op, values)

    return jax_op


# -- wrap_jax -------------------------------------------------------------------------------


def _static_shape(var: Variable, allow_eval: bool) -> tuple[tuple[int | None, ...], bool]:
    """``var``'s shape, and whether it was fully known from its type."""
    shape = tuple(var.type.shape)
    if None not in shape:
        return shape, True
    _, inferred = infer_static_shape(var.shape) if var.type.ndim else ([], ())
    if None not in inferred:
        return tuple(inferred), True
    roots = graph_inputs([var])
    if allow_eval and all(isinstance(r, Constant | SharedVariable) for r in roots):
        values = function([], var.shape, mode="FAST_COMPILE")()
        return tuple(int(s) for s in values), False
    raise ValueError(
        f"wrap_jax: the shape of input {var} is not fully known ({var.type}). Please provide "
        "inputs with static shapes (pt.specify_shape), or pass values wrap_jax may evaluate "
        "(shared variables, constants) with allow_eval=True"
    )


def _is_variable(x: Any) -> bool:
    return isinstance(x, Variable)


def wrap_jax(jax_function: Callable[..., Any] | None = None, *,
             allow_eval: bool = True) -> Any:
    """``jax_function`` as a function of graph variables (usable as a decorator)."""
    if jax_function is None:
        return functools.partial(wrap_jax, allow_eval=allow_eval)
    if not callable(jax_function):
        raise TypeError(f"wrap_jax: expected a callable, got {jax_function!r}")

    @functools.wraps(jax_function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        leaves, treedef = jax.tree_util.tree_flatten((args, kwargs), is_leaf=_is_variable)
        var_pos = [k for k, leaf in enumerate(leaves) if isinstance(leaf, Variable)]
        variables = [as_tensor_variable(leaves[k]) for k in var_pos]
        shapes, known = [], True
        for v in variables:
            s, k = _static_shape(v, allow_eval)
            shapes.append(s)
            known = known and k
        out_info: dict[str, Any] = {}

        def flat_function(*values: Any) -> tuple[Any, ...]:
            full = list(leaves)
            for k, val in zip(var_pos, values):
                full[k] = val
            a, kw = jax.tree_util.tree_unflatten(treedef, full)
            out = jax_function(*a, **kw)
            out_leaves, out_def = jax.tree_util.tree_flatten(out)
            arrays = [k for k, leaf in enumerate(out_leaves) if _is_array(leaf)]
            out_info.update(treedef=out_def, leaves=out_leaves, arrays=arrays)
            return tuple(out_leaves[k] for k in arrays)

        specs = [jax.ShapeDtypeStruct(s, v.type.dtype) for s, v in zip(shapes, variables)]
        out_specs = jax.eval_shape(flat_function, *specs)
        if not out_info["arrays"]:
            return jax.tree_util.tree_unflatten(out_info["treedef"], out_info["leaves"])
        out_types = [TensorType(str(s.dtype), shape=s.shape if known else (None,) * len(s.shape))
                     for s in out_specs]
        op = JAXOp([v.type for v in variables], out_types, flat_function,
                   name=getattr(jax_function, "__name__", None))
        outs = op(*variables, return_list=True)
        full = list(out_info["leaves"])
        for k, o in zip(out_info["arrays"], outs):
            full[k] = o
        return jax.tree_util.tree_unflatten(out_info["treedef"], full)

    return wrapper


def _is_array(x: Any) -> bool:
    return isinstance(x, jax.Array | jax.ShapeDtypeStruct | np.ndarray) or \
        isinstance(x, jax.core.Tracer)

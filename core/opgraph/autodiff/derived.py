"""Derivatives built from the drivers: jacobian, hessian, hessian-vector products."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.autodiff import arith
from opgraph.autodiff.batched import batched_jacobian
from opgraph.autodiff.forward import Rop
from opgraph.autodiff.reverse import _as_var_list, grad
from opgraph.graph.basic import Variable

#: Largest static size whose jacobian is built as one ``grad`` per element; larger
#: (or run-time) sizes vectorise one pullback graph instead of growing the graph.
UNROLL_LIMIT = 16

__all__ = ["hessian", "hessian_vector_product", "jacobian", "subgraph_grad"]


def _static_size(var: Variable) -> int | None:
    shape = getattr(var.type, "shape", None)
    if shape is None or any(s is None for s in shape):
        return None
    size = 1
    for s in shape:
        size *= int(s)
    return size


def jacobian(
    expression: Variable,
    wrt: Variable | Sequence[Variable],
    consider_constant: Sequence[Variable] | None = None,
    disconnected_inputs: str = "raise",
    vectorize: bool = False,
) -> Any:
    """d expression / d wrt, shaped ``expression.shape + wrt.shape`` for each ``wrt``.

    A scalar expression is one ``grad``.  Otherwise the rows are the gradients
    of each element: with ``vectorize``, or when the expression's size is not
    known statically or exceeds ``UNROLL_LIMIT``, one reverse pass with a batch
    of unit cotangents (Ops without a batching rule loop over the rows, see
    ``Batched``); else one ``grad`` per element.
    """
    if not isinstance(expression, Variable):
        raise TypeError(
            f"jacobian: expression must be a symbolic Variable; got {type(expression).__name__}"
        )
    wrt_list, wrt_is_list = _as_var_list("wrt", wrt)
    kw = {"consider_constant": consider_constant, "disconnected_inputs": disconnected_inputs}
    if expression.type.ndim == 0:
        result = grad(expression, wrt_list, **kw)
        return _like(wrt, result, wrt_is_list)

    pt = arith._pt()
    size = _static_size(expression)
    rows = None
    if vectorize or size is None or size == 0 or size > UNROLL_LIMIT:
        rows = batched_jacobian(expression, wrt_list, **kw)
    if rows is None:
        flat = expression.flatten() if hasattr(expression, "flatten") else pt.flatten(expression)
        per_elem = [grad(flat[k], wrt_list, **kw) for k in range(size)]
        rows = [pt.stack([g[i] for g in per_elem]) for i in range(len(wrt_list))]
    result = []
    for w, r in zip(wrt_list, rows):
        result.append(pt.reshape(r, (*_shape_tuple(expression), *_shape_tuple(w)),
                                 ndim=expression.type.ndim + w.type.ndim))
    return _like(wrt, result, wrt_is_list)


def _like(wrt: Any, result: list[Any], is_list: bool) -> Any:
    """``result`` in the structure of ``wrt``: a tuple, a list or one item."""
    if not is_list:
        return result[0]
    return tuple(result) if isinstance(wrt, tuple) else result


def _shape_tuple(var: Variable) -> tuple[Any, ...]:
    """The shape of ``var`` with static sizes as ints, symbolic sizes otherwise."""
    static = getattr(var.type, "shape", (None,) * var.type.ndim)
    sym = var.shape
    return tuple(int(s) if s is not None else sym[i] for i, s in enumerate(static))


def hessian(
    cost: Variable,
    wrt: Variable | Sequence[Variable],
    consider_constant: Sequence[Variable] | None = None,
    disconnected_inputs: str = "raise",
    vectorize: bool = False,
) -> Any:
    """Second derivatives of the scalar ``cost``: one ``wrt.shape * 2`` matrix per ``wrt``."""
    wrt_list, wrt_is_list = _as_var_list("wrt", wrt)
    result = []
    for w in wrt_list:
        g = grad(cost, w, consider_constant=consider_constant,
                 disconnected_inputs=disconnected_inputs)
        result.append(jacobian(g, w, consider_constant=consider_constant,
                               disconnected_inputs="ignore", vectorize=vectorize))
    return _like(wrt, result, wrt_is_list)


def hessian_vector_product(
    cost: Variable,
    wrt: Variable | Sequence[Variable],
    p: Variable | Sequence[Variable],
    use_rop: bool = True,
    **grad_kwargs: Any,
) -> Any:
    """H p without forming H: the Rop of the gradient (``use_rop``), or grad(grad . p)."""
    wrt_list, wrt_is_list = _as_var_list("wrt", wrt)
    p_list = list(p) if isinstance(p, (list, tuple)) else [p]
    if len(p_list) != len(wrt_list):
        raise ValueError(f"hessian_vector_product needs one p per wrt: {len(wrt_list)} wrt, "
                         f"{len(p_list)} p")
    p_list = [arith.as_tensor(v) for v in p_list]
    grads = grad(cost, wrt_list, **grad_kwargs)
    if use_rop:
        result = Rop(grads, wrt_list, p_list, disconnected_outputs="ignore")
    else:
        pt = arith._pt()
        dot = arith.add_terms([pt.sum(g * v) for g, v in zip(grads, p_list)])
        result = grad(dot, wrt_list, disconnected_inputs="ignore")
    return _like(wrt, result, wrt_is_list)


def subgraph_grad(
    wrt: Sequence[Variable],
    end: Sequence[Variable],
    start: dict[Variable, Variable] | None = None,
    cost: Variable | None = None,
    details: bool = False,
) -> Any:
    """Gradients of ``wrt`` and of ``end`` from one piece of a graph differentiated alone.

    The gradient flowing back from ``cost`` and from the known gradients
    ``start`` stops at the ``end`` variables; their gradients are returned so
    the caller can seed the next piece (``start=dict(zip(end, end_grads))``).
    Returns ``(wrt_grads, end_grads)``, plus the separate contributions of
    ``start`` and ``cost`` (over ``wrt + end``) when ``details``.
    """
    if cost is None and start is None:
        raise ValueError("subgraph_grad needs a cost, a start dict of known gradients, or both")
    if not isinstance(wrt, (list, tuple)) or not isinstance(end, (list, tuple)):
        raise TypeError(f"subgraph_grad: wrt and end must be lists; got {type(wrt).__name__} "
                        f"and {type(end).__name__}")
    if start is not None and not isinstance(start, dict):
        raise TypeError(f"subgraph_grad: start must be a dict; got {type(start).__name__}")
    params = list(dict.fromkeys([*wrt, *end]))
    kw: dict[str, Any] = {"consider_constant": list(end), "disconnected_inputs": "ignore"}
    start_grads = grad(None, params, known_grads=start, **kw) if start is not None else None
    cost_grads = grad(cost, params, **kw) if cost is not None else None
    if start_grads is None:
        totals = list(cost_grads or [])
    elif cost_grads is None:
        totals = list(start_grads)
    else:
        totals = [a + b for a, b in zip(start_grads, cost_grads)]
    by_param = dict(zip(params, totals))
    wrt_grads = [by_param[v] for v in wrt]
    end_grads = [by_param[v] for v in end]
    if details:
        return wrt_grads, end_grads, start_grads, cost_grads
    return wrt_grads, end_grads

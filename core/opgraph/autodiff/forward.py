"""Forward accumulation: ``Rop`` / ``pushforward``.

Walks the nodes between ``wrt`` and ``f`` in topological order, asking each
for its pushforward (a plugin's first, then the Op's).  Ops written the old
way (``R_op`` returning None for a disconnected output) keep working.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from opgraph.autodiff import arith
from opgraph.autodiff.hooks import hook_caller
from opgraph.autodiff.reverse import (
    _DISCONNECTED_INPUTS,
    _RETURN_DISCONNECTED,
    _as_var_list,
    _check_choice,
    apply_nodes_above,
    connected_to,
    connection_pattern,
    disconnected_result,
    grad,
)
from opgraph.autodiff.undefined import (
    NullTypeGradError,
    disconnected_type,
    is_disconnected,
    is_null,
)
from opgraph.graph.basic import Apply, Variable, clone_replace
from opgraph.graph.op import Op

__all__ = ["Rop", "pushforward", "pushforward_through_pullback"]


def _input_tangent(inp: Variable, t: Variable | None) -> Variable:
    """What a pushforward receives for an input that is not differentiated.

    A DisconnectedType, as documented: zeros would be wrong where the partial
    derivative is not finite (0 * nan), e.g. d(x ** c)/dc at negative x.
    """
    return disconnected_type() if t is None else t


def node_pushforward(
    node: Apply, tangents: list[Variable | None], hook: Any
) -> list[Variable | None]:
    """Output tangents of ``node`` (None: disconnected) from a plugin or from its Op."""
    op = node.op
    result = None
    if hook is not None:
        full = [_input_tangent(i, t) for i, t in zip(node.inputs, tangents)]
        result = hook(op=op, inputs=node.inputs, outputs=node.outputs, tangents=full)
    if result is None:
        cls = type(op)
        legacy = cls.pushforward is Op.pushforward and cls.R_op is not Op.R_op
        try:
            if legacy:
                # The documented R_op contract: None marks an input not differentiated.
                warnings.warn(
                    f"{cls.__name__} implements the deprecated R_op(); implement "
                    "pushforward() instead",
                    DeprecationWarning,
                    stacklevel=4,
                )
                result = op.R_op(node.inputs, list(tangents))
            else:
                full = [_input_tangent(i, t) for i, t in zip(node.inputs, tangents)]
                result = op.pushforward(node.inputs, node.outputs, full)
        except NotImplementedError as exc:
            raise NotImplementedError(
                f"{op} has no pushforward (R operator), needed for forward-mode "
                f"differentiation through {node}: {exc}"
            ) from exc
    result = list(result)
    if len(result) != len(node.outputs):
        raise ValueError(
            f"{op}.pushforward returned {len(result)} tangents for {len(node.outputs)} outputs"
        )
    return [None if (t is None or is_disconnected(t)) else t for t in result]


def Rop(
    f: Variable | Sequence[Variable],
    wrt: Variable | Sequence[Variable],
    eval_points: Variable | Sequence[Variable],
    disconnected_outputs: str = "raise",
    return_disconnected: str = "zero",
    use_op_rop_implementation: bool = True,
) -> Any:
    """Jacobian-vector product ``d f / d wrt . eval_points`` (forward mode).

    With ``use_op_rop_implementation=False`` it is computed as two reverse
    passes instead (the Lop of a Lop), for Ops without a pushforward.
    """
    _check_choice("disconnected_outputs", disconnected_outputs, _DISCONNECTED_INPUTS)
    _check_choice("return_disconnected", return_disconnected, _RETURN_DISCONNECTED)
    wrt_list, _ = _as_var_list("wrt", wrt)
    points = list(eval_points) if isinstance(eval_points, (list, tuple)) else [eval_points]
    if len(points) != len(wrt_list):
        raise ValueError(
            f"Rop needs one eval_point per wrt variable: {len(wrt_list)} wrt, "
            f"{len(points)} eval_points"
        )
    points = [arith.as_tensor(p) for p in points]
    for i, (w, p) in enumerate(zip(wrt_list, points)):
        wn, pn = getattr(w.type, "ndim", None), getattr(p.type, "ndim", None)
        if wn != pn:
            raise ValueError(
                f"eval_points[{i}] must have the dimensions of wrt[{i}] ({w}: {wn}); got {pn}"
            )

    f_list, f_is_list = _as_var_list("f", f)
    if use_op_rop_implementation:
        tangents = _forward(f_list, wrt_list, points)
    else:
        tangents = _rop_by_double_lop(f_list, wrt_list, points)

    out: list[Any] = []
    for i, (y, t) in enumerate(zip(f_list, tangents)):
        if t is None:
            message = (
                f"Rop was asked to differentiate f[{i}] ({y}), which does not depend on any "
                "wrt variable, or only through a non-differentiable operator"
            )
            out.append(
                disconnected_result(
                    y, message, "disconnected_outputs", disconnected_outputs,
                    return_disconnected, stacklevel=3,
                )
            )
        elif is_null(t):
            raise NullTypeGradError(f"Rop: the tangent of f[{i}] ({y}) is undefined. "
                                    f"{t.type.why_null}")
        else:
            out.append(t)
    return out if f_is_list else out[0]


def _forward(
    f: Sequence[Variable], wrt: Sequence[Variable], points: Sequence[Variable]
) -> list[Variable | None]:
    tangent: dict[Variable, Variable | None] = {}
    for w, p in zip(wrt, points):
        tangent[w] = arith.cast_like(p, w) if arith.is_tensor(w) else p
    hook = hook_caller("opgraph_pushforward")
    patterns: dict[Apply, list[list[bool]]] = {}
    for node in apply_nodes_above(f, set(wrt)):
        ins = [tangent.get(i) for i in node.inputs]
        live = [t is not None for t in ins]
        if not any(live):
            continue
        pattern = connection_pattern(node, patterns)
        reached = [any(pattern[i][j] for i in range(len(ins)) if live[i])
                   for j in range(len(node.outputs))]
        if not any(reached):
            continue
        nulls = [t for t in ins if t is not None and is_null(t)]
        if nulls:
            outs: list[Variable | None] = [nulls[0] if r else None for r in reached]
        else:
            outs = node_pushforward(node, ins, hook)
        for j, out in enumerate(node.outputs):
            t = outs[j] if reached[j] else None
            if t is not None and arith.is_discrete(out):
                t = None  # integer outputs are piecewise constant
            if t is not None and out not in tangent:
                tangent[out] = t
    return [tangent.get(y) for y in f]


def _rop_by_double_lop(
    f: Sequence[Variable], wrt: Sequence[Variable], points: Sequence[Variable]
) -> list[Variable | None]:
    """J v as d/du (u^T J) v: two reverse passes, for Ops lacking a pushforward.

    The first pass differentiates the scalar ``sum_i sum(u_i * f_i)``, so an
    output that is also a ``wrt`` (or feeds another output) keeps every
    contribution.  An output connected to ``wrt`` whose product comes out
    disconnected (e.g. through ``zero_grad``) has a zero tangent.
    """
    pt = arith._pt()
    order = apply_nodes_above(f, set(wrt))
    reached = connected_to(wrt, order, set(), {})
    us = [y.type() if arith.is_tensor(y) else None for y in f]
    pairs = [(y, u) for y, u in zip(f, us) if u is not None and y in reached
             and not arith.is_discrete(y)]
    if not pairs:
        return [None for _ in f]
    seed = arith.add_terms([pt.sum(arith.cast_like(y, u) * u) for y, u in pairs])
    vjps = grad(seed, list(wrt), disconnected_inputs="ignore", return_disconnected="none",
                add_names=False)
    live = [(g, p) for g, p in zip(vjps, points) if g is not None and not is_null(g)]
    if live:
        inner = arith.add_terms([pt.sum(g * p) for g, p in live])
        jvps = grad(inner, [u for _, u in pairs], disconnected_inputs="ignore",
                    return_disconnected="none", add_names=False)
    else:
        jvps = [None for _ in pairs]
    by_output = {y: j for (y, _), j in zip(pairs, jvps)}
    # The result is linear in u, so its value does not depend on u; shape-only uses
    # (fills) may still mention it: give u a concrete value.
    replace = {u: arith.zeros_like(y, dtype=u.type.dtype) for y, u in pairs}
    out: list[Variable | None] = []
    for y in f:
        if y not in reached:
            out.append(None)
            continue
        j = by_output.get(y)
        if j is None:
            out.append(arith.filled_like(y, 0))
        else:
            out.append(clone_replace([j], replace)[0])
    return out


def pushforward(
    f: Variable | Sequence[Variable],
    wrt: Variable | Sequence[Variable],
    tangents: Variable | Sequence[Variable],
    disconnected_outputs: str = "raise",
    return_disconnected: str = "zero",
    use_op_pushforward: bool = False,
) -> Any:
    """Jacobian-vector product ``d f / d wrt . tangents``; ``Rop`` under its current name.

    With ``use_op_pushforward`` every Op's own pushforward is used; otherwise
    (the default, as in PyTensor) it is computed as two reverse passes.  The
    result has the structure of ``f``: a tuple for a tuple, a list for a list.
    """
    result = Rop(f, wrt, tangents, disconnected_outputs=disconnected_outputs,
                 return_disconnected=return_disconnected,
                 use_op_rop_implementation=use_op_pushforward)
    return tuple(result) if isinstance(f, tuple) else result


def pushforward_through_pullback(
    f: Variable | Sequence[Variable],
    wrt: Variable | Sequence[Variable],
    tangents: Variable | Sequence[Variable],
    disconnected_outputs: str = "raise",
    return_disconnected: str = "zero",
) -> Any:
    """``pushforward`` computed as the pullback of a pullback (no Op pushforward needed)."""
    return pushforward(f, wrt, tangents, disconnected_outputs=disconnected_outputs,
                       return_disconnected=return_disconnected, use_op_pushforward=False)

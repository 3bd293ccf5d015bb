"""``scan``: build a Scan node from a Python step function (PyTensor's documented API).

The step function is called once, on placeholders, to trace the body; the
body becomes the Scan's inner graph.  Everything is checked here, so a
mistake (wrong number or type of outputs, taps that do not match, a bad
``n_steps`` or ``until``) is an error naming the argument while the graph
is built, not a failure inside the loop.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.graph.basic import Constant, Variable, clone, clone_replace, graph_inputs
from opgraph.graph.utils import MissingInputError
from opgraph.link.sharedvalue import SharedVariable
from opgraph.scan.helpers import get_updates_and_outputs
from opgraph.scan.op import Scan, ScanInfo
from opgraph.scan.utils import until
from opgraph.tensor.basic_more import AllocEmpty
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable

__all__ = ["get_updates_and_outputs", "scan"]

_SIGNATURE_WARNING = (
    "Scan return signature will change. Updates dict will not be returned, only the "
    "outputs; pass return_updates=False to get the new behaviour (shared variables updated "
    "in the loop then go in outputs_info)")


def resolve_return_updates(value: bool | None, stacklevel: int = 3) -> bool:
    """``return_updates`` as a bool; left unset, it is True with PyTensor's warning."""
    if value is None:
        warnings.warn(_SIGNATURE_WARNING, DeprecationWarning, stacklevel=stacklevel)
        return True
    return bool(value)


def check_no_updates(updates: Mapping) -> None:
    """With ``return_updates=False`` a loop may not update shared variables."""
    if updates:
        raise ValueError("scan: return_updates=False but Scan produced updates (of "
                         f"{', '.join(str(v.name or v) for v in updates)}); pass those "
                         "shared variables in outputs_info instead, or use "
                         "return_updates=True")


def _as_list(x: Any) -> list:
    if x is None:
        return []
    if isinstance(x, list | tuple):
        return list(x)
    return [x]


def _tensor(x: Any, what: str) -> Variable:
    if isinstance(x, Variable):
        return x
    try:
        return as_tensor_variable(x)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"scan: {what} must be a tensor (or convertible); got "
                        f"{type(x).__name__} {x!r:.60}: {exc}") from None


def _check_taps(what: str, taps: Any, negative_only: bool) -> list[int]:
    # ``taps=range(-2, 0)`` means the taps -2 and -1, as in PyTensor (and NumPy int arrays).
    taps = list(taps) if isinstance(taps, range | np.ndarray) else _as_list(taps)
    taps = [int(t) if isinstance(t, np.integer) else t for t in taps]
    if not taps or not all(isinstance(t, int) and not isinstance(t, bool) for t in taps):
        raise ValueError(f"scan: {what} taps must be a non-empty list of integers; got {taps!r}")
    if len(set(taps)) != len(taps):
        raise ValueError(f"scan: {what} taps {taps} repeat a tap")
    if negative_only and any(t >= 0 for t in taps):
        raise ValueError(f"scan: {what} taps must all be negative (a step reads earlier "
                         f"values of an output); got {taps}")
    return taps


Taps = list[int] | tuple[int, ...]


def _state_specs(outputs_info: Any) -> tuple[list[tuple[Taps | None, Any]], set[int]]:
    """``(taps or None, initial value)`` per output, and the outputs that are not tensors
    (random generators: fed back, no history). Taps ``(-1,)`` is a one-tap mit-sot, the
    list ``[-1]`` a sit-sot."""
    outs_info = _as_list(outputs_info)
    specs: list[tuple[Taps | None, Any]] = []
    untraced: set[int] = set()
    for i, spec in enumerate(outs_info):
        if spec is None:
            specs.append((None, None))
            continue
        if isinstance(spec, Mapping):
            init = spec.get("initial")
            if init is None:
                if spec.get("taps"):
                    raise ValueError(f"scan: outputs_info[{i}] gives taps {spec['taps']} but "
                                     "no initial value; taps need an initial state")
                specs.append((None, None))
                continue
            raw = spec.get("taps", [-1])
            taps: Taps = _check_taps(f"outputs_info[{i}]", raw, True)
            if taps == [-1] and isinstance(raw, range | tuple):
                # As in PyTensor, only the list [-1] (or no taps) feeds the state itself
                # back; range(-1, 0) or (-1,) is one tap of an initial value with a
                # leading axis of rows (PyMC's AR(1) is built so).
                taps = (-1,)
        else:
            init, taps = spec, [-1]
        if isinstance(init, Variable) and not isinstance(init.type, TensorType):
            if taps != [-1]:
                raise ValueError(f"scan: outputs_info[{i}] ({init.type}) is not a tensor, so "
                                 f"it can only be fed back with tap -1; got taps {taps}")
            untraced.add(i)
            specs.append((taps, init))
            continue
        x = _tensor(init, f"outputs_info[{i}]")
        if taps != [-1] and x.type.ndim < 1:
            raise ValueError(f"scan: outputs_info[{i}] has taps {taps}, so its initial value "
                             f"needs a leading axis of {-min(taps)} rows; got {x.type}")
        rows = x.type.shape[0] if x.type.ndim and taps != [-1] else None
        if rows is not None and rows < -min(taps):
            raise ValueError(f"scan: outputs_info[{i}] has taps {taps}, so its initial value "
                             f"needs {-min(taps)} rows; it has {rows} ({x.type})")
        specs.append((taps, x))
    return specs, untraced


def _row_type(x: Variable) -> TensorType:
    return TensorType(x.type.dtype, shape=x.type.shape[1:])


def _split_result(result: Any) -> tuple[list[Any], dict, Any]:
    """Outputs, updates and the until condition from what the step function returned."""
    def pairs(v: Any) -> bool:  # updates given as [(shared, new_value), ...]
        return (isinstance(v, list | tuple) and len(v) > 0
                and all(isinstance(p, tuple) and len(p) == 2
                        and isinstance(p[0], SharedVariable) for p in v))

    def special(v: Any) -> bool:
        return isinstance(v, Mapping | until) or pairs(v)

    items = list(result) if isinstance(result, list | tuple) else [result]
    if not any(special(v) for v in items):
        return [v for v in items if v is not None], {}, None
    outs: list[Any] = []
    updates: dict = {}
    cond = None
    for v in items:
        if isinstance(v, Mapping):
            updates.update(v)
        elif pairs(v):
            updates.update(dict(v))
        elif isinstance(v, until):
            if cond is not None:
                raise ValueError("scan: the step function returned more than one until()")
            cond = v
        elif isinstance(v, list | tuple):
            outs.extend(v)
        elif v is not None:
            outs.append(v)
    return outs, updates, cond


def tap_buffer(init: Variable, rows: int, n_steps: Variable | None = None) -> Variable:
    """The outer input of a recurrent output, in PyTensor's layout: ``empty[:rows] = init``.

    As in PyTensor, the buffer has room for the whole history, ``n_steps + rows``
    rows, and the initial rows are written at its start; code written against
    PyTensor (PyMC's measurable-scan rewrites, tests reading buffer lengths) finds
    the initial values as the value of that ``set_subtensor`` of an ``AllocEmpty``
    and the history's length as the buffer's.  opgraph's Scan reads the initial
    ``rows`` of it; ``scan_save_mem`` shrinks it with the rows the loop keeps.
    Without ``n_steps`` the buffer has just the ``rows`` rows.
    """
    rest = [init.shape[d] if n is None else n for d, n in enumerate(init.type.shape) if d > 0]
    length = rows if n_steps is None else n_steps + rows
    empty = AllocEmpty(init.type.dtype)(length, *rest)
    return pt.set_subtensor(empty[:rows], init)


@dataclass
class _Body:
    """What tracing the step function collects: the outer inputs, the inner
    placeholders that stand for them and the arguments ``fn`` is called with."""

    seq_outer: list[Variable] = field(default_factory=list)
    seq_ph: list[Variable] = field(default_factory=list)
    state_ph: list[list[Variable]] = field(default_factory=list)
    ns_outer: list[Variable] = field(default_factory=list)
    ns_ph: list[Variable] = field(default_factory=list)
    ns_free: set[Variable] = field(default_factory=set)  # shared non-sequences
    fn_args: list[Variable] = field(default_factory=list)
    shared_vars: list[SharedVariable] = field(default_factory=list)
    shared_ph: list[Variable] = field(default_factory=list)


def _check_scan_args(fn: Any, truncate_gradient: Any) -> None:
    if not callable(fn):
        raise TypeError(f"scan: fn must be callable; got {type(fn).__name__}")
    if not isinstance(truncate_gradient, int) or truncate_gradient == 0 or \
            truncate_gradient < -1:
        raise ValueError(f"scan: truncate_gradient must be -1 (no truncation) or a positive "
                         f"number of steps; got {truncate_gradient!r}")


def _steps_arg(n_steps: Any, go_backwards: bool) -> tuple[Variable | None, bool]:
    """``n_steps`` as a scalar integer (None when not given); a negative constant
    runs the loop backwards."""
    if n_steps is None:
        return None, go_backwards
    steps_var = _tensor(n_steps, "n_steps")
    if steps_var.type.ndim != 0 or not steps_var.type.dtype.startswith(("int", "uint")):
        raise TypeError(f"scan: n_steps must be a scalar integer; got {steps_var.type}")
    if isinstance(steps_var, Constant) and int(steps_var.data) < 0:
        return pt.as_tensor_variable(-int(steps_var.data)), not go_backwards
    return steps_var, go_backwards


def _add_sequences(body: _Body, sequences: Any, go_backwards: bool) -> None:
    """One outer slice and one placeholder per tap of each sequence."""
    for s, seq in enumerate(_as_list(sequences)):
        taps = [0]
        if isinstance(seq, Mapping):
            taps = _check_taps(f"sequences[{s}]", seq.get("taps", [0]), False)
            seq = seq.get("input")
        x = _tensor(seq, f"sequences[{s}]")
        if x.type.ndim < 1:
            raise TypeError(f"scan: sequences[{s}] must have at least one dimension to loop "
                            f"over; got {x.type}")
        if go_backwards:
            x = x[::-1]
        # step t reads x[t + tap]; t runs over the positions where every tap and the
        # current entry (tap 0) exist
        lo, hi = min(*taps, 0), max(*taps, 0)
        for t in taps:
            stop = t - hi
            outer = x[t - lo:stop if stop else None]
            ph = _row_type(x)()
            ph.name = None if x.name is None else f"{x.name}[t{t:+d}]" if t else f"{x.name}[t]"
            body.seq_outer.append(outer)
            body.seq_ph.append(ph)
            body.fn_args.append(ph)


def _default_steps(seq_outer: list[Variable]) -> Variable:
    """Without ``n_steps`` the loop runs over the shortest sequence."""
    if not seq_outer:
        raise ValueError("scan: n_steps must be given when there are no sequences")
    steps_var = seq_outer[0].shape[0]
    for o in seq_outer[1:]:
        steps_var = pt.minimum(steps_var, o.shape[0])
    return steps_var


def _add_states(body: _Body, specs: list[tuple[Taps | None, Any]]) -> None:
    """One placeholder per tap of each recurrent output."""
    for taps, init in specs:
        if taps is None:
            body.state_ph.append([])
            continue
        row = init.type if taps == [-1] else _row_type(init)
        group = []
        for t in taps:
            ph = row()
            ph.name = None if init.name is None else f"{init.name}[t{t:+d}]"
            group.append(ph)
            body.fn_args.append(ph)
        body.state_ph.append(group)


def _add_non_sequences(body: _Body, non_sequences: Any) -> None:
    for q, v in enumerate(_as_list(non_sequences)):
        x = _tensor(v, f"non_sequences[{q}]")
        if isinstance(x, SharedVariable | Constant):
            body.fn_args.append(x)  # read as a free variable later
            body.ns_free.add(x)
            continue
        # fn sees the variable itself (so grad(y, x) inside the step works, as in
        # PyTensor); it is swapped for a placeholder once the body is traced.
        ph = x.type()
        ph.name = x.name
        body.ns_outer.append(x)
        body.ns_ph.append(ph)
        body.fn_args.append(x)


def _trace(fn: Callable[..., Any], fn_args: list[Variable]) -> tuple[list[Variable], dict, Any]:
    """Call the step function once; its outputs as tensors, its updates and until."""
    outs, updates, cond = _split_result(fn(*fn_args))
    for k, o in enumerate(outs):
        if not isinstance(o, Variable):
            try:
                outs[k] = as_tensor_variable(o)
            except (TypeError, ValueError):
                raise TypeError(f"scan: the step function fn returned {type(o).__name__} "
                                f"{o!r:.60} as output {k}; outputs must be symbolic "
                                "tensors") from None
    return outs, updates, cond


def _check_outputs(specs: list[tuple[Taps | None, Any]], body: _Body,
                   outs: list[Variable], untraced: set[int]) -> None:
    """Each output fed back must fit its initial state."""
    if len(outs) != len(specs):
        raise ValueError(f"scan: the step function fn returned {len(outs)} output(s) but "
                         f"outputs_info has {len(specs)} entries; give one entry per output "
                         "(None for an output that is not fed back)")
    for i, ((taps, _init), o) in enumerate(zip(specs, outs)):
        if taps is None:
            continue
        want = body.state_ph[i][0].type
        if i in untraced:
            if o.type != want:
                raise TypeError(f"scan: output {i} of the step function fn has type {o.type}, "
                                f"but its initial state outputs_info[{i}] has type {want}")
            continue
        if o.type.ndim != want.ndim or o.type.dtype != want.dtype:
            raise TypeError(
                f"scan: output {i} of the step function fn has type {o.type}, but its "
                f"initial state outputs_info[{i}] gives {want} for each step; they must have "
                "the same dtype and number of dimensions (cast one of them)")


def _shared_updates(body: _Body, outs: list[Variable], conds: list[Variable],
                    updates: dict) -> list[Variable]:
    """Record the shared variables the loop updates; their new values.

    A shared variable the body reads and that has a default update (a random
    generator of RandomStream) advances at every step, as in PyTensor: its
    default update becomes an update of the loop.
    """
    for v in graph_inputs(outs + list(updates.values()) + conds, blockers=body.ns_outer):
        if isinstance(v, SharedVariable) and v not in updates and \
                getattr(v, "default_update", None) is not None:
            updates[v] = v.default_update
    shared_new: list[Variable] = []
    for var, new in updates.items():
        if not isinstance(var, SharedVariable):
            raise TypeError(f"scan: updates keys must be shared variables; got {var!r:.60}")
        new = _tensor(new, f"the update of {var}")
        try:
            new = var.type.filter_variable(new, allow_convert=True)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"scan: the update of shared variable {var.name or var} has type "
                            f"{new.type}, which does not fit its type {var.type}: {exc}"
                            ) from None
        body.shared_vars.append(var)
        shared_new.append(new)
    for v in body.shared_vars:
        ph = v.type()
        ph.name = v.name
        body.shared_ph.append(ph)
    return shared_new


def _bind_free_inputs(body: _Body, roots: list[Variable], traced: list[Variable],
                      strict: bool) -> list[Variable]:
    """``roots`` with every outer variable they read replaced by an inner
    placeholder; free variables become (implicit) non-sequences."""
    known = set(body.seq_ph) | {v for g in body.state_ph for v in g} | set(body.ns_ph)
    replace: dict[Variable, Variable] = dict(zip(body.shared_vars, body.shared_ph))
    replace.update(zip(body.ns_outer, body.ns_ph))
    blockers = list(known) + body.ns_outer
    computed = set(graph_inputs(traced, blockers=blockers))
    for v in graph_inputs(roots, blockers=blockers):
        if v in known or v in replace or isinstance(v, Constant):
            continue
        if strict and v not in body.ns_free and isinstance(v, SharedVariable):  # as PyTensor
            raise MissingInputError(
                f"scan: strict=True, but the step function reads the shared variable {v} "
                f"(type {v.type}), which is not among non_sequences; pass it in "
                "non_sequences", variable=v)
        if v not in computed and not isinstance(v, SharedVariable):
            raise MissingInputError(
                f"scan: the update of a shared variable reads {v} (type {v.type}), which is "
                "neither a shared variable nor among sequences, outputs_info or "
                "non_sequences; pass it in non_sequences", variable=v)
        ph = v.type()
        ph.name = v.name
        replace[v] = ph
        body.ns_outer.append(v)
        body.ns_ph.append(ph)
    return clone_replace(roots, replace) if replace else roots


def _state_kinds(specs: list[tuple[Taps | None, Any]],
                 untraced: set[int]) -> tuple[list[int], list[int], list[int], list[int]]:
    """The user's outputs by kind, in the Scan's order: mit-sot, sit-sot, nit-sot, untraced."""
    mit = [i for i, (taps, _) in enumerate(specs) if taps is not None and taps != [-1]]
    sit = [i for i, (taps, _) in enumerate(specs) if taps == [-1] and i not in untraced]
    nit = [i for i, (taps, _) in enumerate(specs) if taps is None]
    return mit, sit, nit, sorted(untraced)


def _scan_results(body: _Body, specs: list[tuple[Taps | None, Any]], untraced: set[int],
                  roots: list[Variable], steps_var: Variable, as_while: bool,
                  op_kwargs: dict) -> tuple[list[Variable], list[Variable]]:
    """Build the Scan node; the user's outputs (in their order) and the new values of
    the shared variables."""
    mit, sit, nit, unt = _state_kinds(specs, untraced)
    n_out, n_sh = len(specs), len(body.shared_vars)
    inner_outs = ([roots[i] for i in mit + sit + nit + unt]
                  + roots[n_out:n_out + n_sh] + roots[n_out + n_sh:])
    inner_ins = (body.seq_ph + [v for i in mit + sit + unt for v in body.state_ph[i]]
                 + body.shared_ph + body.ns_ph)
    inner_ins, inner_outs = clone(inner_ins, inner_outs)
    info = ScanInfo(
        n_seqs=len(body.seq_ph),
        mit_sot_in_slices=tuple(tuple(specs[i][0]) for i in mit),
        sit_sot_in_slices=((-1,),) * len(sit),
        n_nit_sot=len(nit),
        n_untraced_sit_sot=len(unt) + n_sh,
        n_non_seqs=len(body.ns_ph),
        as_while=as_while,
    )
    op = Scan(inner_ins, inner_outs, info, **op_kwargs)
    steps = pt.cast(steps_var, "int64")
    inits = [tap_buffer(specs[i][1][:-min(specs[i][0])], -min(specs[i][0]), steps)
             for i in mit]
    inits += [tap_buffer(pt.shape_padleft(specs[i][1]), 1, steps) for i in sit]
    outer = [steps, *body.seq_outer, *inits, *[specs[i][1] for i in unt], *body.shared_vars,
             *([steps] * len(nit)), *body.ns_outer]
    results = op(*outer, return_list=True)
    by_user: dict[int, Variable] = {}
    for pos, i in enumerate(mit + sit):
        by_user[i] = results[pos][-min(specs[i][0]):]
    for pos, i in enumerate(nit + unt):
        by_user[i] = results[len(mit) + len(sit) + pos]
    return [by_user[i] for i in range(n_out)], results[n_out:]


def scan(
    fn: Callable[..., Any],
    sequences: Any = None,
    outputs_info: Any = None,
    non_sequences: Any = None,
    n_steps: Any = None,
    truncate_gradient: int = -1,
    go_backwards: bool = False,
    mode: Any = None,
    name: str | None = None,
    profile: Any = False,
    allow_gc: bool | None = None,
    strict: bool = False,
    return_list: bool = False,
    return_updates: bool | None = None,
) -> Any:
    """Loop ``fn`` over ``sequences`` and recurrent ``outputs_info`` (see docs/scan.md).

    Returns ``(outputs, updates)``, or only ``outputs`` with
    ``return_updates=False`` (PyTensor 3's coming signature; leaving it unset
    warns, as PyTensor does); ``outputs`` is a single variable when there is
    one output and ``return_list`` is false, None when there is none.
    """
    return_updates = resolve_return_updates(return_updates)
    _check_scan_args(fn, truncate_gradient)
    steps_var, go_backwards = _steps_arg(n_steps, go_backwards)
    body = _Body()
    _add_sequences(body, sequences, go_backwards)
    if steps_var is None:
        steps_var = _default_steps(body.seq_outer)
    specs, untraced = _state_specs(outputs_info)
    _add_states(body, specs)
    _add_non_sequences(body, non_sequences)

    outs, updates, cond = _trace(fn, body.fn_args)
    if not specs:
        specs = [(None, None)] * len(outs)
        body.state_ph = [[] for _ in outs]
    _check_outputs(specs, body, outs, untraced)
    conds = [cond.condition] if cond is not None else []
    shared_new = _shared_updates(body, outs, conds, updates)
    roots = _bind_free_inputs(body, outs + shared_new + conds, outs + conds, strict)

    outputs, shared_results = _scan_results(
        body, specs, untraced, roots, steps_var, cond is not None,
        dict(mode=mode, truncate_gradient=truncate_gradient, name=name, profile=profile,
             allow_gc=allow_gc, strict=strict))
    for i, o in enumerate(outputs):
        if name is not None and o.name is None:
            o.name = f"{name}[{i}]"
    new_updates = dict(zip(body.shared_vars, shared_results))
    if not return_list and len(outputs) == 1:
        result: Any = outputs[0]
    elif not return_list and not outputs:
        result = None
    else:
        result = outputs
    if return_updates:
        return result, new_updates
    check_no_updates(new_updates)
    return result

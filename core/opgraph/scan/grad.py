"""Differentiating a Scan: pullback through time and pushforward, both built as Scans.

Why this shape: the reverse pass of a loop is itself a loop running the
steps backwards, so it is expressed with the same Op (and gets every
backend and rewrite the forward loop gets).  Functions here receive the Scan
Op and build new ones with ``type(op)``, so this module does not import op.py.

Reverse pass, for a recurrent output with taps ``tau`` (all negative) and
``k = -min(tau)`` initial rows: the cotangent of the value written at step
``j`` is its direct cotangent plus, for each tap, the cotangent the later
step ``j - tau`` sends back through that tap.  Those later contributions are
the backward loop's own recurrent outputs (one per tap, read with the same
tap), so taps of any depth need no special casing.  ``truncate_gradient=T``
runs only the last ``T`` steps backwards.
"""

from __future__ import annotations

from typing import Any

import attrs

import opgraph.tensor as pt
from opgraph.autodiff import arith
from opgraph.autodiff.forward import Rop
from opgraph.autodiff.reverse import grad
from opgraph.autodiff.undefined import is_disconnected
from opgraph.graph.basic import Variable, clone_replace, io_toposort
from opgraph.graph.null_type import DisconnectedType
from opgraph.graph.traversal import graph_inputs
from opgraph.scan.draws import Replayed, replay_draws
from opgraph.tensor.constant_value import get_underlying_scalar_constant_value
from opgraph.tensor.exceptions import NotScalarConstantError
from opgraph.tensor.type import TensorType

__all__ = ["connection_pattern", "pullback", "pushforward"]


# -- connection pattern ------------------------------------------------------------------
def _inner_pattern(ins: list[Variable], outs: list[Variable]) -> list[int]:
    """For each inner output, a bit mask of the inner inputs it depends on differentiably."""
    reach: dict[Variable, int] = {v: 1 << i for i, v in enumerate(ins)}
    for node in io_toposort(list(ins), list(outs)):
        masks = [reach.get(x, 0) for x in node.inputs]
        if not any(masks):
            continue
        try:
            pattern = node.op.connection_pattern(node)
        except Exception:  # a broken pattern: assume everything connected
            pattern = [[True] * len(node.outputs) for _ in node.inputs]
        for j, o in enumerate(node.outputs):
            m = 0
            for i, mask in enumerate(masks):
                if mask and pattern[i][j]:
                    m |= mask
            reach[o] = m
    return [reach.get(o, 0) for o in outs]


def connection_pattern(op: Any) -> list[list[bool]]:
    """``pattern[i][j]``: outer output j depends on outer input i, across all steps."""
    info = op.info
    if info.n_mit_mot:  # hand-built mit-mot loops: every output may depend on every input
        return [[True] * info.n_outer_outputs for _ in range(info.n_outer_inputs)]
    ins = op.inner_inputs_
    n_out = info.n_outer_outputs
    masks = _inner_pattern(ins, op.inner_outputs_[:n_out])
    index = {v: i for i, v in enumerate(ins)}
    # inner inputs each recurrent/shared inner output feeds at the next step
    feedback: dict[int, list[int]] = {}
    for m, group in enumerate(op.inner_state_inputs()):
        feedback[m] = [index[v] for v in group]
    n_st, n_nit = info.n_states, info.n_nit_sot
    shared_start = info.n_seqs + sum(len(t) for t in info.state_taps)
    for p in range(info.n_shared_outs):
        feedback[n_st + n_nit + p] = [shared_start + p]
    sl = op.outer_slices()
    rows: list[list[bool]] = []
    for i in range(info.n_outer_inputs):
        start_inner: list[int] = []
        direct: set[int] = set()
        if sl["seqs"].start <= i < sl["seqs"].stop:
            start_inner = [i - 1]
        elif sl["states"].start <= i < sl["states"].stop:
            # the initial rows also sit at the head of the output buffer, but scan()
            # returns the buffer without them: only what the steps compute counts
            start_inner = feedback[i - sl["states"].start]
        elif sl["shared"].start <= i < sl["shared"].stop:
            p = i - sl["shared"].start
            start_inner, direct = [shared_start + p], {n_st + n_nit + p}
        elif sl["non_seqs"].start <= i < sl["non_seqs"].stop:
            start_inner = [shared_start + info.n_shared_outs + i - sl["non_seqs"].start]
        reached = 0
        for j in start_inner:
            reached |= 1 << j
        outs: set[int] = set()
        changed = True
        while changed:
            changed = False
            for j, mask in enumerate(masks):
                if j not in outs and mask & reached:
                    outs.add(j)
                    changed = True
                    for f in feedback.get(j, []):
                        reached |= 1 << f
        rows.append([(j in outs) or (j in direct) for j in range(n_out)])
    return rows


# -- helpers -------------------------------------------------------------------------------
def _fresh(v: Variable, name: str | None = None) -> Variable:
    new = v.type()
    new.name = name
    return new


def _is_float(v: Variable) -> bool:
    return arith.is_tensor(v) and not arith.is_discrete(v)


def _disconnected() -> Variable:
    return DisconnectedType()()


def _zero(value: Variable) -> bool:
    """Whether ``value`` is known to be all zeros (the cotangent of an unused output)."""
    try:
        return bool(get_underlying_scalar_constant_value(value) == 0)
    except NotScalarConstantError:
        return False


def _live(value: Any) -> bool:
    return value is not None and not is_disconnected(value)


def _cast_to(value: Variable, like: Variable) -> Variable:
    return value if value.type.dtype == like.type.dtype else pt.cast(value, like.type.dtype)


def _new_scan(op: Any, ins: list[Variable], outs: list[Variable], info: Any,
              outer: list[Variable], suffix: str, truncate: int = -1) -> list[Variable]:
    name = f"{op.name or 'scan'}_{suffix}"
    new = type(op)(ins, outs, info, mode=op.mode, truncate_gradient=truncate, name=name)
    return new(*outer, return_list=True)


def _steps_done(op: Any, inputs: list[Variable], outputs: list[Variable]) -> Variable:
    """How many steps the node ran (fewer than n_steps when an ``until`` stopped it)."""
    info = op.info
    if info.n_states:
        return outputs[0].shape[0] - (-min(info.state_taps[0]))
    if info.n_nit_sot:
        return outputs[info.n_states].shape[0]
    return pt.cast(inputs[0], "int64")


def _trajectory(op: Any, inputs: list[Variable]) -> tuple[Any, list[Variable], list[Variable]]:
    """The same loop with its shared outputs turned into sit-sot ones (whole history kept).

    Returns the new Op, its outer inputs and its outputs.
    """
    info = op.info
    n_st, n_nit, n_sh = info.n_states, info.n_nit_sot, info.n_shared_outs
    outs = op.inner_outputs_
    for o in outs[n_st + n_nit:n_st + n_nit + n_sh]:
        if not arith.is_tensor(o):
            raise NotImplementedError(
                f"Scan {op.name or ''}: differentiating a loop that carries a non-tensor "
                f"state ({o.type}) is not implemented yet")
    new_outs = (outs[:n_st] + outs[n_st + n_nit:n_st + n_nit + n_sh]
                + outs[n_st:n_st + n_nit] + outs[n_st + n_nit + n_sh:])
    new_info = attrs.evolve(info, sit_sot_in_slices=tuple(info.sit_sot_in_slices)
                            + ((-1,),) * n_sh, n_untraced_sit_sot=0)
    sl = op.outer_slices()
    outer = list(inputs)
    for i in range(sl["shared"].start, sl["shared"].stop):
        outer[i] = pt.shape_padleft(inputs[i])
    new_op = type(op)(list(op.inner_inputs_), new_outs, new_info, mode=op.mode,
                      truncate_gradient=op.truncate_gradient, name=op.name)
    return new_op, outer, new_op(*outer, return_list=True)


@attrs.frozen
class _Reduced(Replayed):
    """A loop without its generator states (the maps as :class:`Replayed`'s) and the old
    outer output indices no longer computed."""

    dropped: list


def _without_generators(op: Any, inputs: list[Variable], what: str) -> _Reduced | None:
    """The loop without its non-tensor untraced states (random generators) and their draws.

    Draws have no derivative; what they feed is dropped too.  A recurrent
    output or the ``until`` condition fed by a draw cannot be dropped: that is
    an error naming the loop.
    """
    info = op.info
    n_st, n_nit, n_sh = info.n_states, info.n_nit_sot, info.n_shared_outs
    ins, outs = op.inner_inputs_, op.inner_outputs_
    sh0 = info.n_seqs + info.n_mit_mot_inner_inputs + sum(len(t) for t in info.state_taps)
    drop_sh = {p for p in range(n_sh) if not arith.is_tensor(outs[n_st + n_nit + p])}
    if not drop_sh:
        return None
    drop_nit: set[int] = set()
    while True:
        gone = {ins[sh0 + p] for p in drop_sh}
        grew = False
        for j, o in enumerate(outs):
            if not gone & set(graph_inputs([o])):
                continue
            if j < n_st or j >= n_st + n_nit + n_sh:
                fed = "the until condition" if j >= n_st + n_nit + n_sh else \
                    f"recurrent output {j}"
                raise NotImplementedError(
                    f"Scan {op.name or ''} {what}: random draws feed {fed}; differentiating "
                    "through draws inside a loop is not implemented")
            if j < n_st + n_nit and j - n_st not in drop_nit:
                drop_nit.add(j - n_st)
                grew = True
            elif j >= n_st + n_nit and j - n_st - n_nit not in drop_sh:
                drop_sh.add(j - n_st - n_nit)
                grew = True
        if not grew:
            break
    keep_sh = [p for p in range(n_sh) if p not in drop_sh]
    keep_nit = [q for q in range(n_nit) if q not in drop_nit]
    new_ins = ins[:sh0] + [ins[sh0 + p] for p in keep_sh] + ins[sh0 + n_sh:]
    new_outs = (outs[:n_st] + [outs[n_st + q] for q in keep_nit]
                + [outs[n_st + n_nit + p] for p in keep_sh] + outs[n_st + n_nit + n_sh:])
    new_info = attrs.evolve(info, n_nit_sot=len(keep_nit), n_untraced_sit_sot=len(keep_sh))
    sl = op.outer_slices()
    old_in = (list(range(sl["shared"].start)) + [sl["shared"].start + p for p in keep_sh]
              + [sl["nit_lens"].start + q for q in keep_nit]
              + list(range(sl["non_seqs"].start, len(inputs))))
    kept = (list(range(n_st)) + [n_st + q for q in keep_nit]
            + [n_st + n_nit + p for p in keep_sh])
    dropped = [n_st + q for q in sorted(drop_nit)] + [n_st + n_nit + p for p in sorted(drop_sh)]
    new_op = type(op)(new_ins, new_outs, new_info, mode=op.mode,
                      truncate_gradient=op.truncate_gradient, name=op.name)
    new_inputs = [inputs[i] for i in old_in]
    return _Reduced(new_op, new_inputs, new_op(*new_inputs, return_list=True),
                    {o: k for k, o in enumerate(old_in)}, kept, dropped)


# -- pullback ----------------------------------------------------------------------------
def pullback(op: Any, inputs: list[Variable], outputs: list[Variable],
             cotangents: list[Variable]) -> list[Variable]:
    """Cotangents of the outer inputs (reverse mode through time)."""
    rep = replay_draws(op, inputs, cotangents,
                       lambda j: _live(cotangents[j]) and _is_float(outputs[j])
                       and not _zero(cotangents[j]))
    if isinstance(rep, list):  # the draws' own derivatives would be needed
        return [_disconnected() if g is None else g for g in rep]
    if rep is not None:  # draws feed what the gradient needs: replay the recorded ones
        g = pullback(rep.op, rep.inputs, rep.outputs, [cotangents[j] for j in rep.kept])
        result: list[Any] = [_disconnected() for _ in inputs]
        for old, new in rep.in_map.items():
            result[old] = g[new]
        return result
    red = _without_generators(op, inputs, "pullback")
    if red is not None:
        for j in red.dropped:
            if _live(cotangents[j]) and _is_float(outputs[j]) and not _zero(cotangents[j]):
                raise NotImplementedError(
                    f"Scan {op.name or ''} pullback: output {j} depends on random draws made "
                    "inside the loop; differentiating through them is not implemented")
        g = pullback(red.op, red.inputs, red.outputs, [cotangents[j] for j in red.kept])
        result = [_disconnected() for _ in inputs]
        for old, new in red.in_map.items():
            result[old] = g[new]
        return result
    info = op.info
    if info.n_mit_mot:
        raise NotImplementedError(f"Scan {op.name or ''}: the gradient of a loop with mit-mot "
                                  "outputs is not implemented")
    if not info.n_shared_outs:
        return _pullback(op, inputs, outputs, cotangents)
    n_st, n_nit, n_sh = info.n_states, info.n_nit_sot, info.n_shared_outs
    new_op, outer, new_outputs = _trajectory(op, inputs)
    cots = list(cotangents[:n_st])
    for p in range(n_sh):
        c = cotangents[n_st + n_nit + p]
        buf = new_outputs[n_st + p]
        if _live(c) and _is_float(buf):
            cots.append(pt.set_subtensor(pt.zeros_like(buf)[-1], c))
        else:
            cots.append(None)
    cots += cotangents[n_st:n_st + n_nit]
    grads = _pullback(new_op, outer, new_outputs, cots)
    sl = op.outer_slices()
    for i in range(sl["shared"].start, sl["shared"].stop):
        g = grads[i]
        if _live(g):
            grads[i] = g[0]
    return grads


@attrs.define
class _Backward:
    """The pieces of the backward loop: its sequences (placeholders and their outer
    values), the inner variables they replace, and the per-tap cotangent states."""

    seq_ph: list[Variable] = attrs.field(factory=list)
    seq_val: list[Variable] = attrs.field(factory=list)
    mapping: dict = attrs.field(factory=dict)
    direct: dict = attrs.field(factory=dict)  # output -> its per-step outer cotangent
    w_ph: list[Variable] = attrs.field(factory=list)
    # (state, tap, placeholder, the forward inner input it is the cotangent of)
    tap_ph: list[tuple[int, int, Variable, Variable]] = attrs.field(factory=list)


def _zero_result(inputs: list[Variable], sl: dict) -> list[Any]:
    """Zero cotangents for the tensor inputs the loop reads, disconnected for the rest."""
    result: list[Any] = [_disconnected() for _ in inputs]
    for i in (list(range(sl["seqs"].start, sl["seqs"].stop))
              + list(range(sl["states"].start, sl["states"].stop))
              + list(range(sl["non_seqs"].start, sl["non_seqs"].stop))):
        if isinstance(inputs[i].type, TensorType):  # a generator has no gradient
            result[i] = arith.zeros_like(inputs[i])
    return result


def _step_vjp(op: Any, live: list[int], float_states: list[int]
              ) -> tuple[dict[int, Variable], dict[Variable, Variable]]:
    """The step's vector-Jacobian product: a cotangent placeholder per output that
    needs one, and the gradient of the inner inputs against them."""
    info = op.info
    ins, outs = op.inner_inputs_, op.inner_outputs_
    n_st, n_w = info.n_states, info.n_non_seqs
    state_in = op.inner_state_inputs()
    # Every float state gets a cotangent (later steps send cotangents back through it
    # even when nothing outside reads it), and every nit-sot output read outside.
    c_ph = {j: _fresh(outs[j], "g_out") for j in float_states + [j for j in live if j >= n_st]}
    # A scalar whose gradient is the VJP.  (Seeding known_grads instead would lose the
    # paths where one output feeds another.)
    cost = None
    for j, c in c_ph.items():
        term = (outs[j] * c).sum()
        cost = term if cost is None else cost + term
    for m in float_states:
        want = state_in[m][0].type
        if outs[m].type.broadcastable != want.broadcastable:
            raise TypeError(
                f"Scan {op.name or ''}: output {m} has type {outs[m].type}, but the state it "
                f"feeds back has type {want}; their broadcastable dimensions differ, so the "
                "gradient through the recurrence is not defined. Give the initial state the "
                "output's shape pattern (e.g. with pt.specify_shape or unbroadcast)")
    wrt = [v for v in ins[:info.n_seqs] if _is_float(v)]
    wrt += [v for m in float_states for v in state_in[m]]
    wrt += [v for v in (ins[len(ins) - n_w:] if n_w else []) if _is_float(v)]
    g_list = grad(cost, wrt, disconnected_inputs="ignore", return_disconnected="zero",
                  add_names=False)
    return c_ph, dict(zip(wrt, g_list))


def _backward_sequences(op: Any, inputs: list[Variable], outputs: list[Variable],
                        cotangents: list[Any], live: list[int], n: Any) -> _Backward:
    """The backward loop's sequences: the forward sequences, state taps, forward
    values and outer cotangents, each read last step first."""
    info = op.info
    ins, outs = op.inner_inputs_, op.inner_outputs_
    n_st, n_nit, n_w = info.n_states, info.n_nit_sot, info.n_non_seqs
    ks = [-min(t) for t in info.state_taps]
    seq_outer = inputs[op.outer_slices()["seqs"]]
    back = _Backward()

    def add(v: Variable, name: str | None, value: Variable) -> Variable:
        ph = _fresh(v, name)
        back.seq_ph.append(ph)
        back.seq_val.append(value[::-1])
        return ph

    for s, x in enumerate(ins[:info.n_seqs]):
        back.mapping[x] = add(x, x.name, seq_outer[s][:n])
    for m, state_in in enumerate(op.inner_state_inputs()):
        k = ks[m]
        for t, v in zip(info.state_taps[m], state_in):
            back.mapping[v] = add(v, v.name, outputs[m][k + t:k + t + n])
    # The forward values a step's gradient reads (tanh's output, say) come from the
    # forward buffers, so the backward loop does not compute the forward step again.
    for j in range(n_st + n_nit):
        o = outs[j]
        if o.owner is None or o in back.mapping:
            continue
        start = ks[j] if j < n_st else 0
        back.mapping[o] = add(o, o.name, outputs[j][start:start + n])
    for j in live:
        start = ks[j] if j < n_st else 0
        back.direct[j] = add(outs[j], "g_step", cotangents[j][start:start + n])
    for w in ins[len(ins) - n_w:] if n_w else []:
        ph = _fresh(w, w.name)
        back.w_ph.append(ph)
        back.mapping[w] = ph
    return back


def _feed_cotangents(op: Any, back: _Backward, c_ph: dict[int, Variable],
                     float_states: list[int]) -> None:
    """Map each step-output cotangent placeholder to what the backward step has: a
    state's is the sum of what later steps send back through its taps and its own
    outer cotangent; a nit-sot output's is its outer cotangent."""
    info, outs = op.info, op.inner_outputs_
    state_in = op.inner_state_inputs()
    for m in float_states:
        for t, v in zip(info.state_taps[m], state_in[m]):
            back.tap_ph.append((m, t, _fresh(v, "g_tap"), v))
    for m in float_states:
        terms = [ph for (mm, _t, ph, _v) in back.tap_ph if mm == m]
        if m in back.direct:
            terms.append(back.direct[m])
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        back.mapping[c_ph[m]] = _cast_to(total, outs[m])
    for j in c_ph:
        if j >= info.n_states:
            back.mapping[c_ph[j]] = back.direct[j]


def _backward_loop(op: Any, back: _Backward, g_of: dict[Variable, Variable],
                   inputs: list[Variable], outputs: list[Variable], steps: Any
                   ) -> tuple[list[Variable], list[int], list[int]]:
    """Run the backward loop; its outputs, the float non-sequences it accumulates and
    the float sequences it returns per-step gradients of."""
    info = op.info
    ins = op.inner_inputs_
    n_w = info.n_non_seqs
    x_in = ins[:info.n_seqs]
    w_in = ins[len(ins) - n_w:] if n_w else []
    w_outer = inputs[op.outer_slices()["non_seqs"]]
    acc_w = [q for q, w in enumerate(w_in) if _is_float(w)]
    acc_ph = [_fresh(w_in[q], "g_acc") for q in acc_w]
    gx_idx = [s for s, x in enumerate(x_in) if _is_float(x)]
    raw_outs = ([_cast_to(g_of[v], v) for (_m, _t, _ph, v) in back.tap_ph]
                + [_cast_to(ph + g_of[w_in[q]], w_in[q]) for ph, q in zip(acc_ph, acc_w)]
                + [_cast_to(g_of[x_in[s]], x_in[s]) for s in gx_idx])
    inner_outs = clone_replace(raw_outs, back.mapping) if raw_outs else []
    inner_ins = back.seq_ph + [ph for (_m, _t, ph, _v) in back.tap_ph] + acc_ph + back.w_ph
    back_info = type(info)(
        n_seqs=len(back.seq_ph),
        mit_sot_in_slices=tuple((t,) for (_m, t, _ph, _v) in back.tap_ph),
        sit_sot_in_slices=((-1,),) * len(acc_ph),
        n_nit_sot=len(gx_idx),
        n_untraced_sit_sot=0,
        n_non_seqs=len(back.w_ph),
        as_while=False,
    )
    steps_i = pt.cast(steps, "int64")
    outer = ([steps_i] + back.seq_val
             + [pt.zeros_like(outputs[m][:-t]) for (m, t, _ph, _v) in back.tap_ph]
             + [pt.shape_padleft(pt.zeros_like(w_outer[q])) for q in acc_w]
             + [steps_i] * len(gx_idx) + list(w_outer))
    return _new_scan(op, inner_ins, inner_outs, back_info, outer, "grad"), acc_w, gx_idx


def _state_gradients(op: Any, back: _Backward, results: list[Variable],
                     inputs: list[Variable], outputs: list[Variable], cotangents: list[Any],
                     float_states: list[int], n: Any, steps: Any) -> dict[int, Variable]:
    """The cotangent of each float state's initial rows, from its outer cotangent and
    what the backward loop sent back through each tap past the first step."""
    ks = [-min(t) for t in op.info.state_taps]
    init_outer = inputs[op.outer_slices()["states"]]
    g_init = {m: pt.zeros_like(init_outer[m]) for m in float_states}
    for m in float_states:
        if m in back.direct:
            g_init[m] = pt.inc_subtensor(g_init[m][:ks[m]], cotangents[m][:ks[m]])
    for buf, (m, t, _ph, _v) in zip(results, back.tap_ph):
        vf = buf[-t:][::-1]  # forward order: steps n-T .. n-1
        rest = [outputs[m].shape[i] for i in range(1, outputs[m].type.ndim)]
        padded = pt.concatenate([pt.zeros((n - steps, *rest), dtype=buf.type.dtype), vf,
                                 pt.zeros((-t, *rest), dtype=buf.type.dtype)])
        k = ks[m]
        g_init[m] = pt.inc_subtensor(g_init[m][k + t:k], padded[:-t])
    return g_init


def _pullback(op: Any, inputs: list[Variable], outputs: list[Variable],
              cotangents: list[Any]) -> list[Variable]:
    info = op.info
    sl = op.outer_slices()
    outs = op.inner_outputs_
    n_st = info.n_states
    result = _zero_result(inputs, sl)
    # Outputs with a cotangent from outside the loop.
    live = [j for j in range(n_st + info.n_nit_sot)
            if _live(cotangents[j]) and _is_float(outs[j])]
    if not live:
        return result
    float_states = [m for m in range(n_st) if _is_float(outs[m])]
    c_ph, g_of = _step_vjp(op, live, float_states)
    n = _steps_done(op, inputs, outputs)
    trunc = op.truncate_gradient
    steps = n if trunc < 0 else pt.minimum(n, trunc)
    back = _backward_sequences(op, inputs, outputs, cotangents, live, n)
    _feed_cotangents(op, back, c_ph, float_states)
    results, acc_w, gx_idx = _backward_loop(op, back, g_of, inputs, outputs, steps)
    n_taps = len(back.tap_ph)
    g_init = _state_gradients(op, back, results[:n_taps], inputs, outputs, cotangents,
                              float_states, n, steps)
    for m in float_states:
        result[sl["states"].start + m] = g_init[m]
    for q, buf in zip(acc_w, results[n_taps:n_taps + len(acc_w)]):
        result[sl["non_seqs"].start + q] = buf[-1]
    seq_outer = inputs[sl["seqs"]]
    for s, buf in zip(gx_idx, results[n_taps + len(acc_w):]):
        result[sl["seqs"].start + s] = _sequence_gradient(seq_outer[s], buf, n, steps)
    return result


def _sequence_gradient(seq: Variable, stacked: Variable, n: Any, steps: Any) -> Variable:
    """The gradient of sequence ``seq`` from the backward loop's per-step output
    ``stacked`` (last step first), reshaped to the sequence's rows: a loop that runs
    no step cannot know the shape of what its steps return (unknown lengths are 0)."""
    rows = stacked[::-1].reshape((steps, *[seq.shape[d] for d in range(1, seq.type.ndim)]),
                                 ndim=seq.type.ndim)
    return pt.set_subtensor(pt.zeros_like(seq)[n - steps:n], rows)


# -- pushforward -------------------------------------------------------------------------
def pushforward(op: Any, inputs: list[Variable], outputs: list[Variable],
                tangents: list[Any]) -> list[Variable]:
    """Tangents of the outer outputs (forward mode: the loop carries them beside its states)."""
    red = _without_generators(op, inputs, "pushforward")
    if red is not None:
        res = pushforward(red.op, red.inputs, red.outputs,
                          [tangents[i] for i in sorted(red.in_map, key=red.in_map.get)])
        out: list[Any] = [_disconnected() for _ in outputs]
        for new, old in enumerate(red.kept):
            out[old] = res[new]
        return out
    info = op.info
    if info.n_mit_mot:
        raise NotImplementedError(f"Scan {op.name or ''}: the pushforward of a loop with "
                                  "mit-mot outputs is not implemented")
    if not info.n_shared_outs:
        return _pushforward(op, inputs, tangents)
    n_st, n_sh = info.n_states, info.n_shared_outs
    new_op, outer, _ = _trajectory(op, inputs)
    sl = op.outer_slices()
    tans = list(tangents)
    for i in range(sl["shared"].start, sl["shared"].stop):
        if _live(tans[i]):
            tans[i] = pt.shape_padleft(tans[i])
    res = _pushforward(new_op, outer, tans)
    shared = [r[-1] if _live(r) else r for r in res[n_st:n_st + n_sh]]
    return res[:n_st] + res[n_st + n_sh:] + shared


def _pushforward(op: Any, inputs: list[Variable], tangents: list[Any]) -> list[Variable]:
    info = op.info
    sl = op.outer_slices()
    ins, outs = op.inner_inputs_, op.inner_outputs_
    n_st, n_nit, n_w = info.n_states, info.n_nit_sot, info.n_non_seqs
    n_mit = info.n_mit_sot
    state_in = op.inner_state_inputs()
    x_in = ins[:info.n_seqs]
    w_in = ins[len(ins) - n_w:] if n_w else []

    def tangent_of(i: int) -> Variable:
        t = tangents[i]
        return t if _live(t) else pt.zeros_like(inputs[i])

    fx = [s for s, x in enumerate(x_in) if _is_float(x)]
    fst = [m for m in range(n_st) if _is_float(outs[m])]
    fw = [q for q, w in enumerate(w_in) if _is_float(w)]
    fnit = [q for q in range(n_nit) if _is_float(outs[n_st + q])]
    tx = {s: _fresh(x_in[s], "t_seq") for s in fx}
    tst = {m: [_fresh(v, "t_state") for v in state_in[m]] for m in fst}
    tw = {q: _fresh(w_in[q], "t_w") for q in fw}
    wrt = [x_in[s] for s in fx] + [v for m in fst for v in state_in[m]] + [w_in[q] for q in fw]
    evals = [tx[s] for s in fx] + [t for m in fst for t in tst[m]] + [tw[q] for q in fw]
    targets = [outs[m] for m in fst] + [outs[n_st + q] for q in fnit]
    if wrt and targets:
        tans = Rop(targets, wrt, evals, disconnected_outputs="ignore",
                   return_disconnected="zero")
    else:
        tans = [pt.zeros_like(o) for o in targets]
    t_out = [_cast_to(t, o) for t, o in zip(tans, targets)]
    t_state_out = dict(zip(fst, t_out[:len(fst)]))
    t_nit_out = t_out[len(fst):]

    mit_f = [m for m in fst if m < n_mit]
    sit_f = [m for m in fst if m >= n_mit]
    taps = info.state_taps
    new_ins = (list(x_in) + [tx[s] for s in fx]
               + [v for m in range(n_mit) for v in state_in[m]]
               + [t for m in mit_f for t in tst[m]]
               + [v for m in range(n_mit, n_st) for v in state_in[m]]
               + [t for m in sit_f for t in tst[m]]
               + list(w_in) + [tw[q] for q in fw])
    cond = outs[n_st + n_nit:]
    new_outs = (outs[:n_mit] + [t_state_out[m] for m in mit_f] + outs[n_mit:n_st]
                + [t_state_out[m] for m in sit_f] + outs[n_st:n_st + n_nit] + t_nit_out + cond)
    new_info = type(info)(
        n_seqs=len(x_in) + len(fx),
        mit_sot_in_slices=tuple(taps[:n_mit]) + tuple(taps[m] for m in mit_f),
        sit_sot_in_slices=tuple(taps[n_mit:]) + tuple(taps[m] for m in sit_f),
        n_nit_sot=n_nit + len(fnit),
        n_untraced_sit_sot=0,
        n_non_seqs=n_w + len(fw),
        as_while=info.as_while,
    )
    seqs = inputs[sl["seqs"]]
    inits = inputs[sl["states"]]
    outer = ([inputs[0]] + list(seqs) + [tangent_of(sl["seqs"].start + s) for s in fx]
             + list(inits[:n_mit]) + [tangent_of(sl["states"].start + m) for m in mit_f]
             + list(inits[n_mit:]) + [tangent_of(sl["states"].start + m) for m in sit_f]
             + list(inputs[sl["nit_lens"]]) + [inputs[sl["nit_lens"]][0] if n_nit
                                               else inputs[0]] * len(fnit)
             + list(inputs[sl["non_seqs"]]) + [tangent_of(sl["non_seqs"].start + q) for q in fw])
    res = _new_scan(op, new_ins, new_outs, new_info, outer, "rop", op.truncate_gradient)
    n_mf = len(mit_f)
    t_mit = res[n_mit:n_mit + n_mf]
    t_sit = res[n_mit + n_mf + (n_st - n_mit):n_st + len(fst)]
    t_nit = res[n_st + len(fst) + n_nit:]
    tan_state = dict(zip(mit_f + sit_f, list(t_mit) + list(t_sit)))
    tan_nit = dict(zip(fnit, t_nit))
    result: list[Variable] = []
    for m in range(n_st):
        result.append(tan_state.get(m, _disconnected()))
    for q in range(n_nit):
        result.append(tan_nit.get(q, _disconnected()))
    return result

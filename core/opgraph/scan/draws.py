"""The gradient of a loop through the random draws it makes: record the draws, then replay them.

Why: a draw has no derivative, but what it feeds has one (noise added to a
recurrent state, a dropout mask...), and the backward pass must see the very
draws the forward pass made.  The loop is run once more with each step's
draws as extra per-step outputs (the same generator inputs give the same
draws), and the gradient is taken of a loop without generators that reads
those draws as sequences.  Functions here get the Scan Op and build new ones
with ``type(op)``, as grad.py does.
"""

from __future__ import annotations

from typing import Any

import attrs

from opgraph.autodiff import arith
from opgraph.autodiff.undefined import grad_undefined
from opgraph.graph.basic import Variable, clone_replace, io_toposort
from opgraph.graph.traversal import graph_inputs

__all__ = ["Replayed", "replay_draws"]


@attrs.frozen
class Replayed:
    """The loop reading recorded draws: its Op, outer inputs and outputs, and the maps back."""

    op: Any
    inputs: list
    outputs: list
    in_map: dict  # old outer input index -> new one
    kept: list  # old outer output index of each new output


def _draws(op: Any, gens: set) -> tuple[list[Variable], set]:
    """The inner tensors drawn from generator inputs ``gens``, and everything they feed."""
    ins, outs = op.inner_inputs_, op.inner_outputs_
    gen_vars, draws, fed = set(gens), [], set()
    for node in io_toposort(list(ins), list(outs)):
        if any(v in gen_vars for v in node.inputs):
            for o in node.outputs:
                if arith.is_tensor(o):
                    draws.append(o)
                    fed.add(o)
                else:
                    gen_vars.add(o)
        elif any(v in fed for v in node.inputs):
            fed.update(node.outputs)
    return draws, fed


def replay_draws(op: Any, inputs: list[Variable], cotangents: list[Any],
                 live: Any) -> Replayed | list | None:
    """The loop with its draws recorded and read back, or None when no gradient needs them.

    ``live(j)``: whether outer output j has a cotangent to send back.  A draw
    whose parameters depend on the loop's float inputs would need the draw's
    own derivative, which random variables do not have: then the result is
    the outer inputs' gradients, undefined (NullType) for the float ones (an
    error only where one is needed) and None for the others.
    """
    info = op.info
    n_st, n_nit, n_sh = info.n_states, info.n_nit_sot, info.n_shared_outs
    ins, outs = op.inner_inputs_, op.inner_outputs_
    sh0 = info.n_seqs + info.n_mit_mot_inner_inputs + sum(len(t) for t in info.state_taps)
    gens = [p for p in range(n_sh) if not arith.is_tensor(outs[n_st + n_nit + p])]
    if not gens:
        return None
    draws, fed = _draws(op, {ins[sh0 + p] for p in gens})
    n_out = n_st + n_nit + n_sh
    needed = any(o in fed and (j < n_st or j >= n_out or live(j)) for j, o in enumerate(outs))
    if not draws or not needed:
        return None
    float_ins = {v for v in ins if arith.is_tensor(v) and not arith.is_discrete(v)}
    for d in draws:
        params = [v for v in d.owner.inputs if arith.is_tensor(v)]
        if set(graph_inputs(params)) & float_ins:
            # the draw's own derivative would be needed: random variables have none
            reason = (f"a random draw inside Scan {op.name or ''} has parameters that depend "
                      "on the loop's inputs; random variables have no gradient with respect "
                      "to their parameters")
            return [grad_undefined(op, i, x, reason) if arith.is_tensor(x)
                    and not arith.is_discrete(x) else None for i, x in enumerate(inputs)]
    sl = op.outer_slices()
    n_steps = inputs[0]
    # 1. the loop once more, each step's draws as extra per-step outputs
    rec_info = attrs.evolve(info, n_nit_sot=n_nit + len(draws))
    rec_op = type(op)(list(ins), outs[:n_st + n_nit] + draws + outs[n_st + n_nit:], rec_info,
                      mode=op.mode, truncate_gradient=op.truncate_gradient, name=op.name)
    rec = rec_op(*inputs[:sl["nit_lens"].stop], *[n_steps] * len(draws),
                 *inputs[sl["non_seqs"]], return_list=True)
    recorded = rec[n_st + n_nit:n_st + n_nit + len(draws)]
    if info.as_while:  # the steps the recording ran, not the most allowed
        n_steps = recorded[0].shape[0]
    # 2. the loop reading them as sequences, without generators
    seq_in = [d.type() for d in draws]
    keep_sh = [p for p in range(n_sh) if p not in gens]
    kept = list(range(n_st + n_nit)) + [n_st + n_nit + p for p in keep_sh]
    new_outs = clone_replace([outs[j] for j in kept] + outs[n_out:],
                             replace=dict(zip(draws, seq_in)))
    new_ins = (ins[:info.n_seqs] + seq_in + ins[info.n_seqs:sh0]
               + [ins[sh0 + p] for p in keep_sh] + ins[sh0 + n_sh:])
    new_info = attrs.evolve(info, n_seqs=info.n_seqs + len(draws),
                            n_untraced_sit_sot=len(keep_sh))
    new_op = type(op)(new_ins, new_outs, new_info, mode=op.mode,
                      truncate_gradient=op.truncate_gradient, name=op.name)
    nit_lens = [n_steps] * n_nit if info.as_while else inputs[sl["nit_lens"]]
    groups = [([0], [n_steps]), (range(sl["seqs"].start, sl["seqs"].stop), None),
              ([None] * len(draws), recorded),
              (range(sl["mit_mot"].start, sl["shared"].start), None),
              ([sl["shared"].start + p for p in keep_sh], None),
              (range(sl["nit_lens"].start, sl["nit_lens"].stop), nit_lens),
              (range(sl["non_seqs"].start, sl["non_seqs"].stop), None)]
    outer, in_map = [], {}
    for olds, values in groups:
        olds = list(olds)
        for k, i in enumerate(olds):
            if i is not None:
                in_map[i] = len(outer)
            outer.append(inputs[i] if values is None else values[k])
    return Replayed(new_op, outer, new_op(*outer, return_list=True), in_map, kept)

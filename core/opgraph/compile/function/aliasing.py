"""Which inputs of a function could receive one array and be overwritten, and the copy
that keeps them apart at call time (PyTensor's ``_potential_aliased_input_groups``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.link.sharedvalue import SharedVariable

__all__ = ["aliasable_groups", "argument_pairs", "could_alias", "unalias"]


def could_alias(a: Any, b: Any) -> bool:
    """Whether values of types ``a`` and ``b`` could be one array (dtype, rank, shapes)."""
    if type(a) is not type(b) or getattr(a, "dtype", None) != getattr(b, "dtype", None):
        return False
    sa, sb = getattr(a, "shape", None), getattr(b, "shape", None)
    if sa is None or sb is None:
        return a == b
    if len(sa) != len(sb):
        return False
    return all(x is None or y is None or x == y for x, y in zip(sa, sb))


def aliasable_groups(maker: Any) -> tuple[tuple[int, ...], ...]:
    """Input positions that may be overwritten and could receive the same array.

    Candidates are mutable inputs and updated shared variables; two
    candidates group together when their types could hold one array.
    """
    updated = set(maker.spec.update_targets)
    cands = [k for k, item in enumerate(maker.inputs)
             if item.mutable or (k in updated and isinstance(item.variable, SharedVariable))]
    groups: list[list[int]] = []
    for k in cands:
        t = maker.inputs[k].variable.type
        joined = [g for g in groups
                  if any(could_alias(t, maker.inputs[j].variable.type) for j in g)]
        merged = sorted({k, *(j for g in joined for j in g)})
        groups = [g for g in groups if g not in joined] + [merged]
    return tuple(tuple(g) for g in groups if len(g) > 1)


def argument_pairs(groups: tuple[tuple[int, ...], ...],
                    slots: list[Any]) -> list[tuple[int, int]]:
    """Pairs of argument indices (explicit inputs) that must not share memory."""
    arg_of = {slot.position: n for n, slot in enumerate(slots)}
    pairs = []
    for group in groups:
        args = [arg_of[k] for k in group if k in arg_of]
        pairs += [(a, b) for i, a in enumerate(args) for b in args[i + 1:]]
    return pairs


def unalias(args: tuple[Any, ...], pairs: list[tuple[int, int]]) -> tuple[Any, ...]:
    """Copy an argument that shares memory with an earlier one it may be overwritten by."""
    out = list(args)
    for a, b in pairs:
        if a < len(out) and b < len(out):
            va, vb = out[a], out[b]
            if hasattr(va, "__array_interface__") and hasattr(vb, "__array_interface__"):
                if np.may_share_memory(va, vb):
                    out[b] = np.array(vb, copy=True)
    return tuple(out)

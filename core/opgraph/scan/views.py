"""``map``, ``reduce``, ``foldl``, ``foldr`` and ``filter``: common loop shapes, via ``scan``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import opgraph.tensor as pt
from opgraph.scan.basic import check_no_updates, resolve_return_updates, scan
from opgraph.tensor.variable import as_tensor_variable

__all__ = ["filter", "foldl", "foldr", "map", "reduce"]


def map(
    fn: Callable[..., Any],
    sequences: Any,
    non_sequences: Any = None,
    truncate_gradient: int = -1,
    go_backwards: bool = False,
    mode: Any = None,
    name: str | None = None,
    return_updates: bool | None = None,
) -> Any:
    """Apply ``fn`` to each entry of ``sequences`` (no recurrence)."""
    return scan(fn, sequences=sequences, outputs_info=None, non_sequences=non_sequences,
                truncate_gradient=truncate_gradient, go_backwards=go_backwards, mode=mode,
                name=name, return_updates=resolve_return_updates(return_updates))


def reduce(
    fn: Callable[..., Any],
    sequences: Any,
    outputs_info: Any,
    non_sequences: Any = None,
    go_backwards: bool = False,
    mode: Any = None,
    name: str | None = None,
    return_updates: bool | None = None,
) -> Any:
    """Fold ``fn`` over ``sequences``; only the final value of each output is returned."""
    return_updates = resolve_return_updates(return_updates)
    outs, updates = scan(fn, sequences=sequences, outputs_info=outputs_info,
                         non_sequences=non_sequences, go_backwards=go_backwards, mode=mode,
                         name=name, return_list=True, return_updates=True)
    last = [o[-1] for o in outs]
    value: Any = last[0] if len(last) == 1 else last
    if return_updates:
        return value, updates
    check_no_updates(updates)
    return value


def foldl(fn: Callable[..., Any], sequences: Any, outputs_info: Any, non_sequences: Any = None,
          mode: Any = None, name: str | None = None, return_updates: bool | None = None) -> Any:
    """``reduce`` from the first entry to the last."""
    return reduce(fn, sequences, outputs_info, non_sequences, go_backwards=False, mode=mode,
                  name=name, return_updates=resolve_return_updates(return_updates))


def foldr(fn: Callable[..., Any], sequences: Any, outputs_info: Any, non_sequences: Any = None,
          mode: Any = None, name: str | None = None, return_updates: bool | None = None) -> Any:
    """``reduce`` from the last entry to the first."""
    return reduce(fn, sequences, outputs_info, non_sequences, go_backwards=True, mode=mode,
                  name=name, return_updates=resolve_return_updates(return_updates))


def filter(
    fn: Callable[..., Any],
    sequences: Any,
    non_sequences: Any = None,
    go_backwards: bool = False,
    mode: Any = None,
    name: str | None = None,
) -> Any:
    """The entries of each sequence for which ``fn`` (one mask per sequence) is true."""
    seqs = list(sequences) if isinstance(sequences, list | tuple) else [sequences]
    seqs = [as_tensor_variable(s) for s in seqs]
    masks = scan(fn, sequences=seqs, non_sequences=non_sequences, go_backwards=go_backwards,
                 mode=mode, name=name, return_list=True, return_updates=False)
    if len(masks) != len(seqs):
        raise ValueError(f"filter: fn must return one mask per sequence ({len(seqs)}); got "
                         f"{len(masks)}")
    out = []
    for s, m in zip(seqs, masks):
        if go_backwards:
            s = s[::-1]
        out.append(s[pt.nonzero(m)])
    return out[0] if not isinstance(sequences, list | tuple) else out

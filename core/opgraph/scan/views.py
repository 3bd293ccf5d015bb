"""``map``, ``reduce``, ``foldl`` and ``foldr``: the common loop shapes, written with ``scan``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from opgraph.scan.basic import scan

__all__ = ["foldl", "foldr", "map", "reduce"]


def map(
    fn: Callable[..., Any],
    sequences: Any,
    non_sequences: Any = None,
    truncate_gradient: int = -1,
    go_backwards: bool = False,
    mode: Any = None,
    name: str | None = None,
    return_updates: bool = True,
) -> Any:
    """Apply ``fn`` to each entry of ``sequences`` (no recurrence)."""
    return scan(fn, sequences=sequences, outputs_info=None, non_sequences=non_sequences,
                truncate_gradient=truncate_gradient, go_backwards=go_backwards, mode=mode,
                name=name, return_updates=return_updates)


def reduce(
    fn: Callable[..., Any],
    sequences: Any,
    outputs_info: Any,
    non_sequences: Any = None,
    go_backwards: bool = False,
    mode: Any = None,
    name: str | None = None,
    return_updates: bool = True,
) -> Any:
    """Fold ``fn`` over ``sequences``; only the final value of each output is returned."""
    res = scan(fn, sequences=sequences, outputs_info=outputs_info, non_sequences=non_sequences,
               go_backwards=go_backwards, mode=mode, name=name, return_list=True,
               return_updates=True)
    outs, updates = res
    last = [o[-1] for o in outs]
    single = not isinstance(outputs_info, list | tuple) and len(last) == 1
    value: Any = last[0] if single else last
    return (value, updates) if return_updates else value


def foldl(fn: Callable[..., Any], sequences: Any, outputs_info: Any, non_sequences: Any = None,
          mode: Any = None, name: str | None = None, return_updates: bool = True) -> Any:
    """``reduce`` from the first entry to the last."""
    return reduce(fn, sequences, outputs_info, non_sequences, go_backwards=False, mode=mode,
                  name=name, return_updates=return_updates)


def foldr(fn: Callable[..., Any], sequences: Any, outputs_info: Any, non_sequences: Any = None,
          mode: Any = None, name: str | None = None, return_updates: bool = True) -> Any:
    """``reduce`` from the last entry to the first."""
    return reduce(fn, sequences, outputs_info, non_sequences, go_backwards=True, mode=mode,
                  name=name, return_updates=return_updates)

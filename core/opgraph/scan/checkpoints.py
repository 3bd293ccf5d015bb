"""``scan_checkpoints``: a scan that keeps one state every ``save_every_N`` steps.

Why: the gradient of a plain scan stores every step's state; here an outer
loop over blocks stores only block boundaries and the backward pass recomputes
the steps inside a block, trading time for memory.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import opgraph.tensor as pt
from opgraph.scan.basic import check_no_updates, resolve_return_updates, scan

__all__ = ["scan_checkpoints"]


def scan_checkpoints(
    fn: Callable[..., Any],
    sequences: Any = None,
    outputs_info: Any = None,
    non_sequences: Any = None,
    name: str = "checkpointscan_fn",
    n_steps: Any = None,
    save_every_N: int = 10,
    padding: bool = True,
    return_updates: bool | None = None,
) -> Any:
    """Like ``scan`` with sit-sot outputs only; returns the state at the end of each block."""
    return_updates = resolve_return_updates(return_updates)
    seqs = list(sequences or []) if isinstance(sequences, list | tuple) else \
        ([] if sequences is None else [sequences])
    outs_info = list(outputs_info) if isinstance(outputs_info, list | tuple) else [outputs_info]
    non_seqs = list(non_sequences or []) if isinstance(non_sequences, list | tuple) else \
        ([] if non_sequences is None else [non_sequences])
    if not isinstance(save_every_N, int) or save_every_N < 1:
        raise ValueError(f"scan_checkpoints: save_every_N must be a positive int; got "
                         f"{save_every_N!r}")
    for i, o in enumerate(outs_info):
        if o is None or isinstance(o, dict):
            raise RuntimeError(f"scan_checkpoints: outputs_info[{i}] must be an initial value "
                             "(only outputs fed back with tap -1 are supported)")
    seqs = [pt.as_tensor_variable(s) for s in seqs]
    if n_steps is None:
        if not seqs:
            raise ValueError("scan_checkpoints: n_steps must be given when there are no "
                             "sequences")
        n_steps = seqs[0].shape[0]
    n = pt.cast(pt.as_tensor_variable(n_steps), "int64")
    size = save_every_N
    n_blocks = (n + size - 1) // size
    blocked = []
    for s in seqs:
        s = s[:n]
        if padding:
            pad = pt.zeros((n_blocks * size - n, *[s.shape[i] for i in range(1, s.type.ndim)]),
                           dtype=s.type.dtype)
            s = pt.concatenate([s, pad])
        blocked.append(s.reshape((n_blocks, size, *[s.shape[i] for i in
                                                     range(1, s.type.ndim)]),
                                 ndim=s.type.ndim + 1))
    n_seq, n_out = len(blocked), len(outs_info)

    def block(i: Any, *args: Any) -> list[Any]:
        inner_seqs = list(args[:n_seq])
        states = list(args[n_seq:n_seq + n_out])
        rest = list(args[n_seq + n_out:-1])
        total = args[-1]
        steps = pt.minimum(size, total - i * size)
        res = scan(fn, sequences=inner_seqs, outputs_info=states, non_sequences=rest,
                   n_steps=steps, return_list=True, return_updates=False)
        return [r[-1] for r in res]

    index = pt.arange(n_blocks, dtype="int64")
    results, updates = scan(block, sequences=[index, *blocked], outputs_info=outs_info,
                            non_sequences=[*non_seqs, n], name=name, return_list=True,
                            return_updates=True)
    value: Any = results[0] if len(results) == 1 else results
    if return_updates:
        return value, updates
    check_no_updates(updates)
    return value

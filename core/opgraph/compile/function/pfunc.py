"""``pfunc``: PyTensor's parameter-level entry point, the same pipeline as ``function``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.compile.function.types import Function, function

__all__ = ["pfunc"]


def pfunc(
    params: Sequence[Any],
    outputs: Any = None,
    mode: Any = None,
    updates: Any = None,
    givens: Any = None,
    no_default_updates: bool | Sequence[Any] = False,
    accept_inplace: bool = False,
    name: str | None = None,
    rebuild_strict: bool = True,
    allow_input_downcast: bool | None = None,
    profile: Any = None,
    on_unused_input: str | None = None,
    output_keys: Any = None,
    fgraph: Any = None,
    trust_input: bool = False,
) -> Function:
    """Compile ``outputs`` from ``params`` (Variables or ``In``): see :func:`function`.

    ``output_keys`` (names for a dict result) and a prebuilt ``fgraph`` are
    PyTensor internals this entry point does not take.
    """
    if fgraph is not None:
        raise NotImplementedError("pfunc(fgraph=...): compile the graph's outputs instead")
    if output_keys is not None:
        if not isinstance(outputs, list | tuple) or len(output_keys) != len(outputs):
            raise ValueError("pfunc: output_keys must name each output of a list of outputs")
        outputs = dict(zip(output_keys, outputs))
    return function(
        params, outputs, mode=mode, updates=updates, givens=givens,
        no_default_updates=no_default_updates, accept_inplace=accept_inplace, name=name,
        rebuild_strict=rebuild_strict, allow_input_downcast=allow_input_downcast,
        profile=profile, on_unused_input=on_unused_input, trust_input=trust_input,
    )

"""NanGuardMode: stop at the first node that reads or produces NaN, Inf or huge values.

Each node's inputs are checked before it runs and its outputs after, so the
error names the node where the bad value first appears, with the line of
user code that built it (when the graph recorded it).
"""

from __future__ import annotations

import logging
import pdb
import warnings
from collections.abc import ValuesView
from typing import Any

import numpy as np

from opgraph.compile.debug.callback import CallbackLinker
from opgraph.compile.flags import flag
from opgraph.compile.moderecord import Mode
from opgraph.link.basic import node_description
from opgraph.utils import flatten as utils_flatten

__all__ = ["BIG_VALUE", "NanGuardMode", "contains_inf", "contains_nan"]

_logger = logging.getLogger("opgraph.compile.nanguardmode")
logger = _logger  # PyTensor's name: where NanGuardMode's "warn" action writes


def flatten(nested: Any) -> list[Any]:
    """Nested lists/tuples (or a dict's ``.values()``) as one flat list."""
    return utils_flatten(list(nested) if isinstance(nested, ValuesView) else nested)

BIG_VALUE = 1e10
"""Absolute values above this count as "big" (``big_is_error``)."""


def _float_array(value: Any) -> np.ndarray | None:
    if isinstance(value, np.ndarray | np.generic | float | complex):
        arr = np.asarray(value)
        if arr.dtype.kind in "fc" and arr.size:
            return arr
    return None


def contains_nan(value: Any) -> bool:
    """Whether a float/complex value holds a NaN (other values never do)."""
    arr = _float_array(value)
    return arr is not None and bool(np.isnan(arr).any())


def contains_inf(value: Any) -> bool:
    """Whether a float/complex value holds +-Inf."""
    arr = _float_array(value)
    return arr is not None and bool(np.isinf(arr).any())


def _is_big(value: Any) -> bool:
    arr = _float_array(value)
    if arr is None:
        return False
    finite = arr[np.isfinite(arr)]
    return bool(finite.size) and bool(np.abs(finite).max() > BIG_VALUE)


class NanGuardMode(Mode):
    """A Mode raising ``AssertionError`` at the first node with a NaN / Inf / big value.

    ``nan_is_error``, ``inf_is_error``, ``big_is_error`` (abs > 1e10) choose
    what counts; ``action`` is "raise" (default), "warn" or "pdb".  Defaults
    come from the ``NanGuardMode__*`` flags.
    """

    def __init__(self, nan_is_error: bool | None = None, inf_is_error: bool | None = None,
                 big_is_error: bool | None = None, optimizer: Any = "default",
                 linker: Any = None, action: str | None = None) -> None:
        self.nan_is_error = bool(flag("NanGuardMode__nan_is_error")
                                 if nan_is_error is None else nan_is_error)
        self.inf_is_error = bool(flag("NanGuardMode__inf_is_error")
                                 if inf_is_error is None else inf_is_error)
        self.big_is_error = bool(flag("NanGuardMode__big_is_error")
                                 if big_is_error is None else big_is_error)
        self.action = flag("NanGuardMode__action") if action is None else action
        if self.action not in ("raise", "warn", "pdb"):
            raise ValueError(
                f"NanGuardMode: action must be 'raise', 'warn' or 'pdb', got {self.action!r}"
            )
        if linker is not None and not isinstance(linker, CallbackLinker):
            raise ValueError("NanGuardMode runs its own linker; pass optimizer= only")
        hooks = CallbackLinker(pre_func=self._check_inputs, post_func=self._check_outputs)
        super().__init__(linker=linker or hooks, optimizer=optimizer, name="NanGuardMode")

    # -- checks ----------------------------------------------------------------------------
    def _problem(self, value: Any) -> str | None:
        if self.nan_is_error and contains_nan(value):
            return "NaN"
        if self.inf_is_error and contains_inf(value):
            return "Inf"
        if self.big_is_error and _is_big(value):
            return f"a big value (abs > {BIG_VALUE:g})"
        return None

    def _check_inputs(self, fgraph: Any, i: int, node: Any, fn: Any) -> None:
        for k, (var, cell) in enumerate(zip(node.inputs, fn.inputs)):
            problem = self._problem(cell[0])
            if problem is not None:
                where = "graph input" if var.owner is None else f"output of {var.owner.op}"
                self._report(f"NanGuardMode: {problem} found in input {k} ({var}, a {where}) "
                             f"of node {i}, {node.op}", node, fn)

    def _check_outputs(self, fgraph: Any, i: int, node: Any, fn: Any) -> None:
        for k, cell in enumerate(fn.outputs):
            problem = self._problem(cell[0])
            if problem is not None:
                self._report(f"NanGuardMode: {problem} produced by output {k} of node {i}, "
                             f"{node.op}", node, fn)

    def _report(self, message: str, node: Any, fn: Any) -> None:
        text = f"{message}\n{node_description(node)}"
        _logger.error(text)
        if self.action == "raise":
            raise AssertionError(text)
        if self.action == "warn":
            warnings.warn(text, RuntimeWarning, stacklevel=2)
            return
        pdb.set_trace()  # action="pdb": the user asked for a debugger here

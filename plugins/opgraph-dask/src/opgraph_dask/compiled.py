"""Compiled functions for chunk tasks: one per (kernel, thread), built where the task runs.

A task carries a small graph (a chunk node, a row region's tile graph), never
compiled code: it is compiled on first use in each thread of each process,
with FAST_RUN (the C linker's kernels when opgraph-c is installed, else the
Python VM).  One per thread, because a compiled function's storage must not
be shared by concurrent calls; the C module itself is cached, so the second
thread's compile is a cache hit.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.compile.function import function
from opgraph.graph.basic import Variable
from opgraph.plugins import linker_records

__all__ = ["compiled", "fast_mode"]

_COMPILED: collections.OrderedDict[tuple[str, int], Any] = collections.OrderedDict()
_COMPILED_MAX = 512
_LOCK = threading.Lock()


def fast_mode() -> str:
    """FAST_RUN (C kernels) where the C linker is installed, else the Python VM."""
    return "FAST_RUN" if "c" in linker_records() else "FAST_COMPILE"


def aligned(values: Sequence[Any]) -> list[Any]:
    """``values`` with unaligned arrays copied: a chunk unpickled on a cluster worker may
    start at any byte of its message, and compiled functions refuse unaligned data (as
    PyTensor's do)."""
    return [np.require(v, requirements="A") if isinstance(v, np.ndarray)
            and not v.flags.aligned else v for v in values]


def compiled(token: str, inputs: Sequence[Variable], outputs: Sequence[Variable]) -> Any:
    """This thread's compiled ``inputs -> outputs`` for the kernel named ``token``."""
    key = (token, threading.get_ident())
    with _LOCK:
        fn = _COMPILED.get(key)
    if fn is None:
        fn = function(list(inputs), list(outputs), mode=fast_mode(), on_unused_input="ignore")
        with _LOCK:
            _COMPILED[key] = fn
            while len(_COMPILED) > _COMPILED_MAX:
                _COMPILED.popitem(last=False)
    return fn

"""The deprecated flat paths ``opgraph.tensor.nlinalg`` / ``slinalg``: each name is
forwarded to ``opgraph.tensor.linalg`` with a ``DeprecationWarning``, as in PyTensor 3."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any

from opgraph_linalg import _WHERE

__all__ = ["make_getattr"]


def make_getattr(path: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` for the old path ``path``."""

    def forward(name: str) -> Any:
        module = _WHERE.get(name)
        if module is None:
            raise AttributeError(f"module {path!r} has no attribute {name!r}")
        warnings.warn(
            f"{path} is deprecated: import {name} from opgraph.tensor.linalg",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(f"opgraph_linalg.{module}"), name)

    return forward

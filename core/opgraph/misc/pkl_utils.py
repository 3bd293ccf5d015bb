"""Pickling graphs without their creation traces (PyTensor's ``misc.pkl_utils``)."""

from __future__ import annotations

import pickle
from typing import IO, Any

from opgraph.graph.utils import Scratchpad
from opgraph.tensor.elemwise import Elemwise

__all__ = ["Pickler", "StripPickler", "min_recursion"]

Pickler = pickle.Pickler

min_recursion = 3000
"""The recursion limit deep graphs need to pickle (PyTensor's value)."""


class StripPickler(pickle._Pickler):
    """A pickler that drops ``tag.trace`` (and ``extra_tag_to_remove``) from the variables
    and nodes it writes, and the per-instance docstrings of Elemwise Ops: smaller files
    that do not depend on where the graph was built."""

    def __init__(self, file: IO[bytes], protocol: int = 0,
                 extra_tag_to_remove: list[str] | None = None) -> None:
        super().__init__(file, protocol)
        self.tag_to_remove = ["trace", *(extra_tag_to_remove or [])]

    def save(self, obj: Any, save_persistent_id: bool = True) -> None:
        if isinstance(obj, Scratchpad):
            for tag in self.tag_to_remove:
                obj.__dict__.pop(tag, None)
        elif isinstance(obj, Elemwise):
            obj.__dict__.pop("__doc__", None)
        super().save(obj, save_persistent_id)

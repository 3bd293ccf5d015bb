"""The lowering rewrites of ``xtensor.indexing``'s Ops, under PyTensor's names, and
``to_basic_idx``: one symbolic index as what basic tensor indexing takes."""

from __future__ import annotations

from typing import Any

from opgraph.graph.basic import Constant, Variable
from opgraph.tensor.type_other import NoneTypeT, SliceType
from opgraph_xtensor.xtensor.indexing import Index, IndexUpdate
from opgraph_xtensor.xtensor.rewriting.basic import lowering_rewrite
from opgraph_xtensor.xtensor.type import XTensorType

__all__ = ["lower_index", "lower_index_update", "to_basic_idx"]

lower_index = lowering_rewrite(Index, "lower_index")
lower_index_update = lowering_rewrite(IndexUpdate, "lower_index_update")


def to_basic_idx(idx: Variable) -> Any:
    """A slice variable as a Python ``slice`` (None parts as None), a 0-d integer xtensor as
    its tensor; anything else is a TypeError."""
    if isinstance(idx.type, SliceType):
        if isinstance(idx, Constant):
            return idx.data
        if idx.owner is not None:
            return slice(*[None if isinstance(i.type, NoneTypeT) else i
                           for i in idx.owner.inputs])
        return idx
    if isinstance(idx.type, XTensorType) and idx.type.ndim == 0 and idx.type.dtype != "bool":
        return idx.values
    raise TypeError(f"to_basic_idx: {idx} of type {idx.type} is not a slice or a 0-d integer "
                    "xtensor")

"""Position-independent text for graphs: ``var_descriptor`` writes how a variable is
computed with no memory address in it, so two equal graphs built apart read the same;
``hex_digest`` fingerprints an array (contents, strides, shape)."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from opgraph.graph.basic import Variable
from opgraph.printing_util import char_from_number

__all__ = ["hex_digest", "position_independent_str", "var_descriptor"]


def hex_digest(x: np.ndarray) -> str:
    """A sha256 of ``x``'s bytes, with its strides and shape (equal bytes laid out
    differently are different arrays)."""
    if not isinstance(x, np.ndarray):
        raise TypeError(f"hex_digest expects a NumPy array, got {type(x).__name__}")
    strides = ",".join(str(s) for s in x.strides)
    shape = ",".join(str(s) for s in x.shape)
    return f"{hashlib.sha256(x.tobytes()).hexdigest()}|strides=[{strides}]|shape=[{shape}]"


def position_independent_str(obj: Any) -> str:
    """A variable written by its Type only (no name, no address)."""
    if not isinstance(obj, Variable):
        raise NotImplementedError(f"position_independent_str: {type(obj).__name__} is not a "
                                  "Variable")
    return f"opgraph_var{{type={obj.type}}}"


def var_descriptor(obj: Any, _prev_obs: dict | None = None, _tag_generator: Any = None) -> str:
    """One line saying how ``obj`` is computed: ``A=op(B=x,C=<ndarray:...>)``; a subgraph seen
    before is written ``<tag>``.  Nothing in it depends on memory addresses."""
    seen = {} if _prev_obs is None else _prev_obs
    if id(obj) in seen:
        return f"<{seen[id(obj)]}>"
    counter = [0] if _tag_generator is None else _tag_generator
    tag = char_from_number(counter[0])
    counter[0] += 1
    seen[id(obj)] = tag
    if hasattr(obj, "__array__") and not isinstance(obj, Variable):
        arr = np.asarray(obj)
        strides = ",".join(str(s) for s in arr.strides)
        name = f"<ndarray:strides=[{strides}],digest={hashlib.sha256(arr).hexdigest()}>"
    elif getattr(obj, "owner", None) is not None:
        args = ",".join(var_descriptor(i, seen, counter) for i in obj.owner.inputs)
        name = f"{obj.owner.op}({args})"
    elif getattr(obj, "name", None) is not None:
        name = obj.name  # only a root's name: naming an inner node must not change this
    else:
        name = str(obj)
        if " at 0x" in name:
            name = position_independent_str(obj)
    return f"{tag}={name}"

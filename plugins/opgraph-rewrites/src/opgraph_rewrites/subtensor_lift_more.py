"""More of PyTensor's ``subtensor_lift`` rewrites, under PyTensor's names: basic indexing
moved before a squeeze, a join, an advanced index or a dot, so less is computed.

- ``x.squeeze(0)[i] -> x[:, i].squeeze(0)`` (``local_subtensor_of_squeeze``);
- ``join(1, x, y)[0] -> join(0, x[0], y[0])``, and an index on the join axis stays
  outside (``local_subtensor_of_join``); the components share every other length,
  so each raises exactly when the join would;
- ``x[:, idx][i] -> x[i][idx]`` for one integer array (``local_subtensor_of_adv_subtensor``,
  run only when asked for by name, as in PyTensor);
- ``dot(a, b)[i] -> dot(a[i], b)`` (``local_subtensor_of_dot``): a smaller product sums
  the same terms, but BLAS may group them differently, so only under
  ``config.fast_math``.

Pure indexing reads the same elements, so values are exact and index errors stay.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.config import config
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.tensor.advanced import AdvancedSubtensor
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.indexing import ARRAY, SliceSpec, split_inputs
from opgraph.tensor.join import Join, join
from opgraph.tensor.math import Dot, dot
from opgraph.tensor.subtensor import Subtensor, get_item
from opgraph_rewrites.subtensor_alloc import local_subtensor_of_alloc
from opgraph_rewrites.subtensor_index_entries import basic_index
from opgraph_rewrites.utils import keep_type

__all__ = [
    "local_subtensor_of_adv_subtensor",
    "local_subtensor_of_dot",
    "local_subtensor_of_join",
    "local_subtensor_of_squeeze",
    "subtensor_lift_more_rewriters",
]


def _fixed(node: Apply, new: Variable) -> Any:
    out = keep_type(node.outputs[0], new)
    return [out] if out is not None else None


def _single_client(fgraph: Any, var: Variable) -> bool:
    return fgraph is None or len(fgraph.clients.get(var, ())) == 1


def _is_full(entry: Any) -> bool:
    return isinstance(entry, slice) and entry == slice(None)


def _trimmed(index: list[Any]) -> tuple[Any, ...]:
    """``index`` without trailing whole slices (``x[0, :]`` is spelled ``x[0]``)."""
    index = list(index)
    while index and _is_full(index[-1]):
        index.pop()
    return tuple(index)


def _index(x: Variable, index: list[Any]) -> Variable:
    trimmed = _trimmed(index)
    return get_item(x, trimmed) if trimmed else x


@node_rewriter([Subtensor], name="local_subtensor_of_squeeze")
def local_subtensor_of_squeeze(fgraph: Any, node: Apply) -> Any:
    """x.squeeze(0)[i] -> x[:, i].squeeze(0): index x, then drop its length-1 axes."""
    ds = node.inputs[0].owner
    if ds is None or not isinstance(ds.op, DimShuffle) or ds.op.augment or not ds.op.drop:
        return None
    if list(ds.op.shuffle) != sorted(ds.op.shuffle):
        return None  # a transpose too
    x = ds.inputs[0]
    index = basic_index(node)
    x_index: list[Any] = [slice(None)] * x.type.ndim
    for axis, entry in zip(ds.op.shuffle, index):
        x_index[axis] = entry
    indexed = _index(x, x_index)
    # the axes of `indexed`: x's axes not taken by an integer, in order
    left = [a for a in range(x.type.ndim) if isinstance(x_index[a], slice)]
    order = tuple(k for k, a in enumerate(left) if a not in ds.op.drop)
    new = DimShuffle(input_ndim=indexed.type.ndim, new_order=order)(indexed)
    return _fixed(node, new)


def _join_axis(node: Apply) -> int | None:
    axis = node.inputs[0]
    if not isinstance(axis, Constant):
        return None
    nd = node.outputs[0].type.ndim
    value = int(np.asarray(axis.data))
    return value % nd if -nd <= value < nd else None


@node_rewriter([Subtensor], name="local_subtensor_of_join")
def local_subtensor_of_join(fgraph: Any, node: Apply) -> Any:
    """join(1, x, y)[0] -> join(0, x[0], y[0]); join(1, x, y)[0, 1:] ->
    join(0, x[0], y[0])[1:] (the join axis's own index applied to the result)."""
    jvar = node.inputs[0]
    jn = jvar.owner
    if jn is None or not isinstance(jn.op, Join) or not _single_client(fgraph, jvar):
        return None
    axis = _join_axis(jn)
    if axis is None:
        return None
    index = basic_index(node)
    index += [slice(None)] * (jvar.type.ndim - len(index))
    lifted = [slice(None) if k == axis else e for k, e in enumerate(index)]
    if all(_is_full(e) for e in lifted):
        return None  # only the join axis is indexed: nothing to lift
    parts = [_index(c, lifted) for c in jn.inputs[1:]]
    new_axis = axis - sum(1 for e in index[:axis] if not isinstance(e, slice))
    new = join(new_axis, *parts)
    if not _is_full(index[axis]):
        new = get_item(new, (*[slice(None)] * new_axis, index[axis]))
    return _fixed(node, new)


@node_rewriter([Subtensor], name="local_subtensor_of_adv_subtensor")
def local_subtensor_of_adv_subtensor(fgraph: Any, node: Apply) -> Any:
    """x[:, idx][i] -> x[i][idx]: basic indices left of consecutive integer arrays go
    first."""
    adv = node.inputs[0]
    an = adv.owner
    if an is None or not isinstance(an.op, AdvancedSubtensor) or not _single_client(fgraph, adv):
        return None
    spec = an.op.idx_spec
    parts = split_inputs(spec, an.inputs[1:])
    arrays = [k for k, e in enumerate(spec) if e == ARRAY]
    if not arrays or arrays != list(range(arrays[0], arrays[0] + len(arrays))):
        return None  # non-consecutive arrays move their axes first (not tried, as PyTensor)
    first = arrays[0]
    arrs = [parts[k] for k in arrays]
    if any(a.type.dtype == "bool" for a in arrs):
        return None
    for k, (e, p) in enumerate(zip(spec, parts)):
        if k not in arrays and (not isinstance(e, SliceSpec) or any(q is not None for q in p)):
            return None  # only whole slices around the arrays
    index = basic_index(node)
    lifted, kept = index[:first], index[first:]
    lifted += [slice(None)] * (first - len(lifted))
    if all(_is_full(e) for e in lifted):
        return None
    x = an.inputs[0]
    x_indexed = _index(x, lifted)
    n_left = sum(1 for e in lifted if isinstance(e, slice))
    taken = get_item(x_indexed, (*[slice(None)] * n_left, *arrs))
    new = _index(taken, [slice(None)] * n_left + kept)
    return _fixed(node, new)


@node_rewriter([Subtensor], name="local_subtensor_of_dot")
def local_subtensor_of_dot(fgraph: Any, node: Apply) -> Any:
    """dot(a, b)[i, j] -> dot(a[i], b[:, j]) (``config.fast_math`` only: see above)."""
    if not config.fast_math:
        return None
    dvar = node.inputs[0]
    dn = dvar.owner
    if dn is None or not isinstance(dn.op, Dot) or not _single_client(fgraph, dvar):
        return None
    a, b = dn.inputs
    if a.type.ndim != 2 or b.type.ndim not in (1, 2):
        return None
    index = basic_index(node)
    if not index:
        return None
    a_sub = _index(a, index[:1])
    b_sub = _index(b, [slice(None), *index[1:]]) if b.type.ndim == 2 else b
    return _fixed(node, dot(a_sub, b_sub))


def subtensor_lift_more_rewriters() -> dict[str, list[tuple[str, Any, tuple[str, ...]]]]:
    """phase -> (name, rewriter, extra tags), as PyTensor registers them."""
    both = [
        ("local_subtensor_of_squeeze", local_subtensor_of_squeeze, ()),
        ("local_subtensor_of_join", local_subtensor_of_join, ()),
        ("local_subtensor_of_dot", local_subtensor_of_dot, ()),
    ]
    alloc = [("local_subtensor_of_alloc", local_subtensor_of_alloc, ())]
    return {"canonicalize": [*both, *alloc],
            "stabilize": [("local_subtensor_of_dot", local_subtensor_of_dot, ())],
            "specialize": [*both, *alloc]}


def register_by_name_only(db: Any) -> None:
    """``local_subtensor_of_adv_subtensor`` runs only when a mode names it (PyTensor
    registers it without its database tags)."""
    for phase in ("canonicalize", "specialize"):
        db[phase].register("local_subtensor_of_adv_subtensor", local_subtensor_of_adv_subtensor,
                           use_db_name_as_tag=False)

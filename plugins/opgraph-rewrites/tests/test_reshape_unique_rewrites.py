"""join_dims/split_dims lowered to reshapes, and the lifts through ``unique``: each
rewritten graph computes what the unrewritten one does, on contiguous and transposed
(non-contiguous) inputs."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import compile_pair
from opgraph.tensor.rewriting.reshape import (
    local_join_dims_to_reshape,
    local_split_dims_to_reshape,
)

import opgraph.tensor as pt
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.utils import rewrite_graph
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.extra_ops import Unique
from opgraph.tensor.reshape import JoinDims, SplitDims, join_dims, split_dims
from opgraph.tensor.shape import Reshape, SpecifyShape

rng = np.random.default_rng(20261124)


def _ops(outs: list) -> list:
    return [node.op for node in FunctionGraph(outputs=outs, clone=False).toposort()]


def _canonical(out: object) -> object:
    return rewrite_graph(out, include=("canonicalize",))


def _check_values(inputs: list, out: object, *values: np.ndarray) -> None:
    fast, ref = compile_pair(inputs, out)
    for v in values:
        strided = np.repeat(v, 2, axis=0)[::2]  # same values, not contiguous
        assert not strided.flags.c_contiguous or v.shape[0] == 1
        for arg in (v, np.asfortranarray(v), strided):
            np.testing.assert_array_equal(fast(arg), ref(arg))


@pytest.mark.parametrize("static", [True, False])
@pytest.mark.parametrize("start, n_axes", [(0, 2), (1, 2), (0, 3), (1, 0), (2, 1)])
def test_join_dims_becomes_a_reshape_or_less(static, start, n_axes):
    x = pt.tensor("x", shape=(2, 3, 4) if static else (None, None, None))
    out = join_dims(x, start_axis=start, n_axes=n_axes)
    new = _canonical(out)
    ops = _ops([new])
    assert not any(isinstance(op, JoinDims) for op in ops)
    assert new.type == out.type
    if n_axes == 1:
        assert new is x
    elif n_axes == 0:
        assert [type(op) for op in ops] == [DimShuffle]
    else:
        assert sum(isinstance(op, Reshape) for op in ops) == 1
    value = rng.normal(size=(2, 3, 4))
    transposed = np.ascontiguousarray(value.transpose(0, 2, 1)).transpose(0, 2, 1)
    _check_values([x], out, value, transposed)


@pytest.mark.parametrize("static", [True, False])
@pytest.mark.parametrize("axis, parts", [(1, (2, 3)), (0, (1, 2, 1)), (2, (2, 2)), (1, (6,))])
def test_split_dims_becomes_a_reshape_or_less(static, axis, parts):
    full = [2, 6, 4]
    x = pt.tensor("x", shape=tuple(full) if static else (None, None, None))
    out = split_dims(x, parts, axis=axis)
    new = _canonical(out)
    ops = _ops([new])
    assert not any(isinstance(op, SplitDims) for op in ops)
    assert new.type == out.type
    if len(parts) == 1:
        assert any(isinstance(op, SpecifyShape) for op in ops) or new is x
    else:  # one reshape (a static one that only adds length-1 axes becomes a DimShuffle)
        assert sum(isinstance(op, Reshape) for op in ops) <= 1
    value = rng.normal(size=full)
    _check_values([x], out, value)
    # a transposed, non-contiguous input of the same shape
    _check_values([x], out, rng.normal(size=full[::-1]).T)


def test_split_dims_to_empty_shape_is_a_squeeze_and_keeps_the_length_check():
    x = pt.tensor("x", shape=(2, None, 3))
    out = split_dims(x, (), axis=1)
    new = _canonical(out)
    assert not any(isinstance(op, SplitDims) for op in _ops([new]))
    fast, ref = compile_pair([x], out)
    value = rng.normal(size=(2, 1, 3))
    np.testing.assert_array_equal(fast(value), ref(value))
    with pytest.raises(ValueError):
        fast(rng.normal(size=(2, 2, 3)))


def test_split_dims_length_mismatch_still_raises():
    x = pt.tensor("x", shape=(None, None))
    out = split_dims(x, (2, 3), axis=1)
    fast, _ = compile_pair([x], out)
    assert not any(isinstance(n.op, SplitDims) for n in fast.maker.fgraph.apply_nodes)
    with pytest.raises(ValueError):
        fast(rng.normal(size=(2, 5)))


def test_reshape_rewrites_are_registered_under_their_names():
    x = pt.tensor("x", shape=(2, 3, 4))
    out = join_dims(x, start_axis=0, n_axes=2)
    kept = rewrite_graph(out, include=("canonicalize",), exclude=(local_join_dims_to_reshape.name,))
    assert isinstance(kept.owner.op, JoinDims)
    s = split_dims(x, (3, 1), axis=1)
    kept = rewrite_graph(s, include=("canonicalize",),
                         exclude=(local_split_dims_to_reshape.name,))
    assert isinstance(kept.owner.op, SplitDims)


def _unique_cases() -> list:
    x = pt.matrix("x", dtype="int64")
    s = pt.scalar("s", dtype="int64")
    return [
        ("local_Unique_scalar", [s], pt.unique(s), [np.array(-4)]),
        ("local_Unique_Alloc_lift", [x], pt.unique(pt.alloc(x, 2, 3, 2)),
         [np.array([[1, 3], [1, 0], [5, 3]])]),
        ("local_Unique_Repeat_lift", [x], pt.unique(pt.repeat(x, np.array([1, 3]), axis=0)),
         [np.array([[1, 3], [1, 0]])]),
        ("local_Unique_second_lift", [x], pt.unique(pt.second(np.ones((2, 3, 2)), x)),
         [np.array([[1, 3], [1, 0], [5, 3]])]),
    ]


@pytest.mark.parametrize("case", range(4))
def test_unique_lifts_remove_the_broadcast_and_keep_the_values(case):
    name, inputs, out, values = _unique_cases()[case]
    fgraph = FunctionGraph(inputs, [out], clone=True)
    rewrite_graph(fgraph, include=("canonicalize", name))
    ops = [n.op for n in fgraph.toposort()]
    # only the unique itself (and a DimShuffle of x) is left
    assert all(isinstance(op, Unique | DimShuffle) for op in ops), ops
    kept = FunctionGraph(inputs, [out], clone=True)
    rewrite_graph(kept, include=("canonicalize",), exclude=(name,))
    assert len(kept.apply_nodes) > 1 or name == "local_Unique_scalar"
    fast, ref = compile_pair(inputs, out)
    for v in values:
        for arg in (v, np.asfortranarray(v) if v.ndim else v):
            np.testing.assert_array_equal(fast(arg), ref(arg))


@pytest.mark.parametrize("lengths", [(0, 3), (2, 0)])
def test_unique_of_an_empty_broadcast_stays_empty(lengths):
    x = pt.vector("x", dtype="int64")
    n = pt.scalar("n", dtype="int64")
    for out, ins in ((pt.unique(pt.alloc(x, *lengths[:1], 3)), [x]),
                     (pt.unique(pt.alloc(x, n, 3)), [x, n]),
                     (pt.unique(pt.repeat(x, np.array([0, 2, 1]))), [x])):
        fast, ref = compile_pair(ins, out)
        args = [np.array([4, 1, 4])] + ([np.int64(0)] if len(ins) == 2 else [])
        np.testing.assert_array_equal(fast(*args), ref(*args))


def test_unique_with_extra_outputs_is_not_lifted():
    x = pt.vector("x", dtype="int64")
    values, counts = pt.unique(pt.alloc(x, 2, 3), return_counts=True)
    fgraph = FunctionGraph([x], [values, counts], clone=False)
    rewrite_graph(fgraph, include=("canonicalize", "local_Unique_Alloc_lift"))
    fast, ref = compile_pair([x], [values, counts])
    arg = np.array([4, 1, 4])
    for a, b in zip(fast(arg), ref(arg)):
        np.testing.assert_array_equal(a, b)
    assert [int(c) for c in fast(arg)[1]] == [2, 4]

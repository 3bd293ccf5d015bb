"""local_blockwise_batched_update: a Blockwise of an index update or an Alloc becomes one node.

vectorize_graph gives IncSubtensor/AdvancedIncSubtensor with a batched index
(and Alloc with a batched length) as a Blockwise, as PyTensor does; FAST_RUN
must leave no Blockwise loop and compute what the loop computes, gradients too.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import compile_pair

import opgraph
import opgraph.tensor as pt
from opgraph.graph.replace import vectorize_graph
from opgraph.graph.rewriting.utils import rewrite_graph
from opgraph.tensor.blockwise import Blockwise


def _blockwise_nodes(fn):
    return [n for n in fn.maker.fgraph.apply_nodes if isinstance(n.op, Blockwise)]


@pytest.mark.parametrize("basic", [True, False], ids=["basic_idx", "adv_idx"])
def test_batched_index_update_has_no_loop_and_the_loops_values(basic):
    x = pt.dmatrix("x")
    y = pt.dscalar("y")
    i, v = pt.lscalar("i"), pt.lvector("v")
    core = pt.inc_subtensor(x[(slice(None, 3), i) if basic else (i, v)], y)
    X = pt.tensor("X", dtype="float64", shape=(4, 1, 6, 6))
    Y = pt.dvector("Y")
    replace = {x: X, y: Y, i: pt.constant(np.array([0, -1]))}
    if not basic:
        replace[v] = pt.constant(np.array([[0, 2, 4], [1, 3, 5]]))
    out = vectorize_graph(core, replace)
    assert isinstance(out.owner.op, Blockwise)
    cost = (out * pt.arange(out.size).reshape(out.shape)).sum()
    fast, ref = compile_pair([X, Y], [out, *opgraph.grad(cost, [X, Y])])
    assert not _blockwise_nodes(fast) and _blockwise_nodes(ref)
    xv = np.random.default_rng(0).normal(size=(4, 1, 6, 6))
    yv = np.array([3.0, 5.0])
    for got, want in zip(fast(xv, yv), ref(xv, yv)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_batched_alloc_lengths_equal_over_the_batch_become_one_alloc():
    x, n = pt.dscalar("x"), pt.iscalar("n")
    out = vectorize_graph(pt.alloc(x, n), {x: pt.dvector("X"), n: pt.alloc(n, 5)})
    assert isinstance(out.owner.op, Blockwise)
    rewritten = rewrite_graph(out, include=("canonicalize", "specialize"))
    nodes = opgraph.graph.basic.io_toposort([], [rewritten])
    assert not [nd for nd in nodes if isinstance(nd.op, Blockwise)]
    X = out.owner.inputs[0]
    xv = np.arange(5.0)
    got = opgraph.function([X, n], rewritten)(xv, 3)
    np.testing.assert_array_equal(got, np.repeat(xv[:, None], 3, axis=1))

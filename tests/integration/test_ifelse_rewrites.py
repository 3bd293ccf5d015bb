"""PyTensor's IfElse rewrites at ``opgraph.ifelse``: each applied to a small graph, the
rewritten graph checked for its form and for the same values as the original."""

from __future__ import annotations

import numpy as np

import opgraph
import opgraph.tensor as pt
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.basic import GraphRewriter, dfs_rewriter
from opgraph.ifelse import (
    CondMerge,
    IfElse,
    acceptable_ops,
    cond_make_inplace,
    cond_merge_ifs_false,
    cond_merge_ifs_true,
    cond_merge_random_op,
    cond_remove_identical,
    ifelse,
    ifelse_lift_single_if_through_acceptable_ops,
)

C = pt.scalar("c", dtype="bool")
X, Y, Z = pt.vector("x"), pt.vector("y"), pt.vector("z")
VALS = [np.array([1.0, 2.0]), np.array([3.0, 4.0]), np.array([5.0, 6.0])]


def _apply(rewriter, outs):
    fg = FunctionGraph([C, X, Y, Z], outs, clone=True)
    graph_rewriter = rewriter if isinstance(rewriter, GraphRewriter) else dfs_rewriter(rewriter)
    graph_rewriter.rewrite(fg)
    return fg


def _same_values(fg, outs):
    ref = opgraph.function([C, X, Y, Z], outs, on_unused_input="ignore")
    new = opgraph.function(fg.inputs, fg.outputs, on_unused_input="ignore")
    for c in (True, False):
        for a, b in zip(ref(c, *VALS), new(c, *VALS)):
            np.testing.assert_allclose(a, b)


def _ifelses(fg):
    return [n for n in fg.apply_nodes if isinstance(n.op, IfElse)]


def test_merge_ifs_on_the_same_condition():
    out = ifelse(C, ifelse(C, X, Y), Z)
    fg = _apply(cond_merge_ifs_true, [out])
    assert len(_ifelses(fg)) == 1
    _same_values(fg, [out])
    out2 = ifelse(C, Z, ifelse(C, X, Y))
    fg2 = _apply(cond_merge_ifs_false, [out2])
    assert len(_ifelses(fg2)) == 1
    _same_values(fg2, [out2])


def test_remove_identical_outputs():
    a, b, d = ifelse(C, [X, X, Y], [Z, Z, X])
    fg = _apply(cond_remove_identical, [a, b, d])
    (node,) = _ifelses(fg)
    assert node.op.n_outs == 2 and fg.outputs[0] is fg.outputs[1]
    _same_values(fg, [a, b, d])


def test_cond_merge_and_merge_random_op():
    p, q = ifelse(C, X, Y), ifelse(C, Y, Z)
    fg = _apply(CondMerge(), [p * 2, q + 1])
    assert len(_ifelses(fg)) == 1
    _same_values(fg, [p * 2, q + 1])
    fg2 = _apply(cond_merge_random_op, [p + q])
    assert len(_ifelses(fg2)) == 1
    _same_values(fg2, [p + q])


def test_lift_through_acceptable_ops_and_make_inplace():
    out = pt.exp(ifelse(C, X, Y)) + Z
    fg = _apply(ifelse_lift_single_if_through_acceptable_ops, [out])
    assert fg.outputs[0].owner is not None
    _same_values(fg, [out])
    assert pt.elemwise.Elemwise in acceptable_ops
    fg2 = _apply(cond_make_inplace, [ifelse(C, X, Y)])
    (node,) = _ifelses(fg2)
    assert node.op.as_view

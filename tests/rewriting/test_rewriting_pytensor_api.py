"""The rewriting API at PyTensor's names: OpPattern, pre-rewriters, tracker, lazy exports."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "graph"))

from toys import Elemwise2, Unary, add, dbl, mul, neg, tfloat, var

import opgraph.graph.rewriting.basic as rb
import opgraph.tensor as pt
from opgraph.graph.basic import Constant, equal_computations
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.op import Op
from opgraph.graph.rewriting.basic import (
    EquilibriumGraphRewriter,
    MergeOptimizer,
    NodeProcessingGraphRewriter,
    OpToRewriterTracker,
    PatternNodeRewriter,
    WalkingGraphRewriter,
    node_rewriter,
    pre_constant_merge,
    pre_greedy_node_rewriter,
)
from opgraph.graph.rewriting.unify import LiteralString, OpPattern
from opgraph.graph.rewriting.utils import is_same_graph


def test_drivers_and_patterns_are_exported_from_basic():
    from opgraph.graph.rewriting import pattern, walking

    assert rb.WalkingGraphRewriter is walking.WalkingGraphRewriter
    assert rb.PatternNodeRewriter is pattern.PatternNodeRewriter
    assert issubclass(EquilibriumGraphRewriter, NodeProcessingGraphRewriter)
    assert issubclass(WalkingGraphRewriter, NodeProcessingGraphRewriter)
    assert rb.logging.getLogger is not None  # PyTensor's tests import logging from here
    assert NodeProcessingGraphRewriter.warn_ignore(ValueError("x")) is None
    with pytest.raises(AttributeError):
        rb.NotAName  # noqa: B018


def test_op_pattern_matches_class_and_parameters():
    p = OpPattern(Elemwise2, fn=LiteralString("add"))
    assert p.match_op(add) and not p.match_op(mul) and not p.match_op(neg)
    assert OpPattern(Elemwise2, fn="f").match(mul, {}) == {"f": "mul"}  # a bare string binds
    assert OpPattern(Elemwise2, fn="f").match_op(add)
    assert OpPattern(add).match_op(add) and not OpPattern(add).match_op(mul)
    assert OpPattern(Unary, fn="f").match(neg, {"f": "dbl"}) is None  # bound: must agree
    assert OpPattern(Elemwise2, {"fn": LiteralString("add")}) == p and hash(p)
    assert OpPattern(Unary, fn=LiteralString("neg")).match_op(neg)
    with pytest.raises(TypeError, match="Op class or instance"):
        OpPattern(int)
    with pytest.raises(ValueError, match="given twice"):
        OpPattern(Elemwise2, {"fn": "add"}, fn="mul")


def test_op_pattern_in_tracks_and_patterns():
    hits = []

    @node_rewriter([OpPattern(Elemwise2, fn=LiteralString("mul"))])
    def only_mul(fgraph, node):
        hits.append(node.op)

    x, y = var("x"), var("y")
    fg = FunctionGraph([x, y], [add(mul(x, y), y)], clone=False)
    WalkingGraphRewriter(only_mul).rewrite(fg)
    assert hits == [mul]
    tracker = OpToRewriterTracker()
    tracker.add_tracker(only_mul)
    assert tracker.get_trackers(mul) == (only_mul,) and tracker.get_trackers(add) == ()

    # (add x y) -> (mul x y), with the op parameter bound and used by a callable
    rewrite = PatternNodeRewriter(
        (OpPattern(Elemwise2, fn="f"), "a", "b"),
        lambda fgraph, node, subs: mul(subs["a"], subs["b"]) if subs["f"] == "add" else False,
    )
    fg = FunctionGraph([x, y], [add(x, y)], clone=False)
    WalkingGraphRewriter(rewrite).rewrite(fg)
    assert fg.outputs[0].owner.op == mul


def test_pattern_with_constants_values_eq_approx_and_plain_values():
    x = var("x")
    two, other_two = Constant(tfloat, 2.0), Constant(tfloat, 2.0)
    fg = FunctionGraph([x], [add(x, two)], clone=False)

    def approx(a, b):
        return True

    rw = PatternNodeRewriter((add, "v", other_two), (mul, "v", other_two),
                             values_eq_approx=approx)
    WalkingGraphRewriter(rw).rewrite(fg)
    out = fg.outputs[0]
    assert out.owner.op == mul and out.tag.values_eq_approx is approx
    fg = FunctionGraph([x], [neg(x)], clone=False)
    WalkingGraphRewriter(PatternNodeRewriter((neg, "v"), 1.0)).rewrite(fg)
    assert fg.outputs[0].owner.op == neg  # a plain value is no replacement


def test_node_rewriter_checks_tracks_and_reports_them():
    with pytest.raises(ValueError):
        node_rewriter([])
    with pytest.raises(TypeError, match="Op instance, an Op class or an OpPattern"):
        node_rewriter([None])

    @node_rewriter([add, Unary])
    def rw(fgraph, node):
        return node.outputs

    x, y = var("x"), var("y")
    assert rw.transform(None, add(x, y).owner)
    assert rw.transform(None, neg(x).owner)
    assert rw.transform(None, mul(x, y).owner) is False  # not tracked
    assert str(rw) == "rw" and repr(rw).startswith("FromFunctionNodeRewriter(rw")
    tracker = OpToRewriterTracker()
    tracker.add(rw)
    assert tracker.tracked_instances == {add: [rw]}
    assert tracker.tracked_types == {Unary: [rw]}
    assert tracker.untracked_rewrites == []


def test_pre_constant_merge():
    x, y = var("x"), var("y")
    c1, c2 = Constant(tfloat, 1.0, "c1"), Constant(tfloat, 1.0, "c2")
    o1 = add(c1, x)
    o2 = add(add(o1, y), c2)
    assert pre_constant_merge(FunctionGraph([], [], clone=False), [o2]) == [o2]
    assert o2.owner.inputs[1] is c1
    o3 = add(o1, c2)
    fg = FunctionGraph([x], [o3], clone=False)
    assert pre_constant_merge(fg, [o3]) == [o3] and o3.owner.inputs[1] is c2  # in fg: kept


def test_pre_greedy_node_rewriter():
    x = var("x")

    @node_rewriter([Unary])
    def double_negation(fgraph, node):
        inner = node.inputs[0].owner
        if node.op == neg and inner is not None and inner.op == neg:
            return [inner.inputs[0]]
        return False

    nn = neg(neg(x))
    out = add(nn, dbl(nn))
    new = pre_greedy_node_rewriter(FunctionGraph([], [], clone=False), [double_negation], out)
    assert equal_computations([new], [add(x, dbl(x))])
    fg = FunctionGraph([x], [nn], clone=False)  # nodes of fg are left alone
    new = pre_greedy_node_rewriter(fg, [double_negation], add(nn, x))
    assert new.owner.inputs[0] is nn


def test_merge_keeps_the_more_specific_type():
    for reverse in (False, True):
        x1, x2 = pt.vector("x1", shape=(None,)), pt.vector("x2", shape=(5,))
        y1, y2 = pt.exp(x1), pt.exp(x2)
        fg = FunctionGraph([x1, x2], [y2, y1] if reverse else [y1, y2], clone=False)
        fg.replace(x1, x2)
        MergeOptimizer().rewrite(fg)
        assert fg.outputs == [y2, y2]


def test_is_same_graph_applies_givens_to_both():
    x, y = pt.vectors("x", "y")
    assert is_same_graph(x, y, givens={y: x}) and is_same_graph(y, x, givens={y: x})
    assert not is_same_graph(x, y)
    assert is_same_graph(x * 2, y * 2, givens={x: y})


def test_ops_without_perform_cannot_be_made():
    class Abstract(Op):
        def make_node(self, x):
            raise AssertionError("never reached")

    with pytest.raises(TypeError, match="defines no perform"):
        Abstract()


def test_refused_replacements_reach_a_five_argument_failure_callback():
    from opgraph.graph.features import Feature
    from opgraph.graph.utils import InconsistencyError

    seen = []

    def watch(exc, nav, pairs, rewriter, node):
        seen.append((type(exc), len(pairs), node.op))

    class RefuseAll(Feature):
        def on_validate(self, fgraph):
            if fgraph.outputs[0].owner.op == dbl:
                raise InconsistencyError("no dbl here")

    x = var("x")
    fg = FunctionGraph([x], [neg(x)], clone=False)
    fg.attach_feature(RefuseAll())

    @node_rewriter([neg])
    def to_dbl(fgraph, node):
        return [dbl(node.inputs[0])]

    WalkingGraphRewriter(to_dbl, ignore_newtrees=True, failure_callback=watch).rewrite(fg)
    assert seen == [(InconsistencyError, 1, neg)] and fg.outputs[0].owner.op == neg
    # the default policy drops refused replacements quietly
    WalkingGraphRewriter(to_dbl, ignore_newtrees=True).rewrite(fg)
    assert fg.outputs[0].owner.op == neg

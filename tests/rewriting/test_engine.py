"""Engine behaviour on toy ops: node rewriters, walkers, equilibrium, stats."""

from __future__ import annotations

import math
import sys
import warnings

import pytest
from rewriting_toy import Fn, add, div, evaluate, exp, f, g, log, mul, neg, num, op_names, sin

from opgraph.config import change_flags as _change_flags
from opgraph.graph.basic import Constant
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting import (
    EquilibriumGraphRewriter,
    GraphRewriter,
    NodeRewriter,
    SequentialGraphRewriter,
    SequentialNodeRewriter,
    WalkingGraphRewriter,
    graph_rewriter,
    in2out,
    node_rewriter,
    out2in,
)
from opgraph.graph.rewriting.basic import OpToRewriterTracker, RewriteFailure


@node_rewriter([log])
def log_of_exp(fgraph, node):
    """log(exp(x)) -> x"""
    (x,) = node.inputs
    if x.owner is not None and x.owner.op == exp:
        return [x.owner.inputs[0]]
    return False


@node_rewriter([neg])
def double_neg(fgraph, node):
    """--x -> x"""
    (x,) = node.inputs
    if x.owner is not None and x.owner.op == neg:
        return {node.outputs[0]: x.owner.inputs[0]}
    return None


@node_rewriter([f])
def f_to_g(fgraph, node):
    return [g(node.inputs[0])]


@node_rewriter([g])
def g_to_f(fgraph, node):
    return [f(node.inputs[0])]


def test_node_rewriter_decorator_keeps_tracks_and_name():
    assert log_of_exp.tracks() == [log]
    assert log_of_exp.name == "log_of_exp"
    assert isinstance(log_of_exp, NodeRewriter)
    with pytest.raises(TypeError, match="tracks"):
        node_rewriter(log)
    with pytest.raises(ValueError, match="None"):
        node_rewriter([])


def test_in2out_rewrites_chain_and_keeps_values():
    x = num("x")
    y = log(exp(neg(neg(log(exp(x))))))
    fg = FunctionGraph([x], [y])
    before = evaluate(fg, [0.7])
    in2out(log_of_exp, double_neg).rewrite(fg)
    assert fg.apply_nodes == set()
    assert fg.outputs[0] is fg.inputs[0]
    assert evaluate(fg, [0.7]) == pytest.approx(before)


def test_out2in_order_and_list_or_dict_results():
    x = num("x")
    y = neg(neg(neg(neg(x))))
    fg = FunctionGraph([x], [y])
    out2in(double_neg).rewrite(fg)
    assert fg.apply_nodes == set()


def test_walker_dispatches_only_tracked_ops():
    seen = []

    @node_rewriter([sin])
    def spy(fgraph, node):
        seen.append(node.op)
        return False

    x = num("x")
    fg = FunctionGraph([x], [sin(add(exp(x), sin(x)))])
    in2out(spy).rewrite(fg)
    assert seen == [sin, sin]


def test_tracker_matches_instances_and_classes():
    by_class = node_rewriter([Fn])(lambda fg, n: False)
    by_inst = node_rewriter([exp])(lambda fg, n: False)
    every = node_rewriter(None)(lambda fg, n: False)
    t = OpToRewriterTracker()
    for r in (by_class, by_inst, every):
        t.add(r)
    assert t.get_trackers(exp) == (by_class, by_inst, every)
    assert t.get_trackers(log) == (by_class, every)
    assert t.get_trackers(Fn("exp", 1)) == (by_class, by_inst, every)


def test_equilibrium_reaches_fixed_point_across_rewriters():
    x = num("x")
    y = neg(log(exp(neg(log(exp(x))))))
    fg = FunctionGraph([x], [y])
    eq = EquilibriumGraphRewriter([log_of_exp, double_neg])
    stats = eq.rewrite(fg)
    assert fg.outputs[0] is fg.inputs[0]
    assert stats.applied["log_of_exp"] == 2
    assert stats.applied["double_neg"] == 1
    assert "log_of_exp" in stats.summary()


def test_equilibrium_terminates_on_cyclic_rewrites():
    x = num("x")
    fg = FunctionGraph([x], [add(f(x), f(sin(x)))])
    eq = EquilibriumGraphRewriter([f_to_g, g_to_f], max_use_ratio=3)
    with pytest.warns(RuntimeWarning, match="undoing each other"):
        eq.rewrite(fg)
    assert eq.stopped_early
    fg.check_integrity()
    assert evaluate(fg, [0.5]) == pytest.approx([0.5 + 1 + math.sin(0.5) + 1])


def test_equilibrium_terminates_on_self_growing_rewrite():
    @node_rewriter([sin])
    def grow(fgraph, node):
        return [sin(add(node.inputs[0], 0.0))]

    x = num("x")
    fg = FunctionGraph([x], [sin(x)])
    with pytest.warns(RuntimeWarning):
        EquilibriumGraphRewriter([grow], max_use_ratio=2).rewrite(fg)
    fg.check_integrity()


def test_global_and_final_rewriters_run_each_round():
    calls = []

    @graph_rewriter
    def count(fgraph):
        calls.append(len(fgraph.apply_nodes))

    x = num("x")
    fg = FunctionGraph([x], [neg(neg(x))])
    EquilibriumGraphRewriter([double_neg, count], final_rewriters=[count]).rewrite(fg)
    assert len(calls) >= 2


def test_failing_rewriter_is_reported_per_config():
    @node_rewriter([sin])
    def broken(fgraph, node):
        raise ZeroDivisionError("boom")

    from opgraph.config import change_flags

    x = num("x")
    fg = FunctionGraph([x], [sin(x)])
    with change_flags(on_opt_error="warn"), pytest.warns(RuntimeWarning, match="boom"):
        in2out(broken).rewrite(fg)
    with change_flags(on_opt_error="raise"), pytest.raises(RewriteFailure, match="broken"):
        in2out(broken).rewrite(fg)
    with change_flags(on_opt_error="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        in2out(broken).rewrite(fg)
    assert op_names(fg) == ["sin"]


def test_wrong_replacement_type_is_refused():
    from rewriting_toy import Num

    other = Num("other")

    @node_rewriter([sin])
    def bad(fgraph, node):
        return [other()]

    x = num("x")
    fg = FunctionGraph([x], [sin(x)])
    from opgraph.config import change_flags

    with change_flags(on_opt_error="raise"), pytest.raises(RewriteFailure, match="incompatible"):
        in2out(bad).rewrite(fg)


def test_wrong_number_of_replacements_is_an_error():
    @node_rewriter([sin])
    def two(fgraph, node):
        return [node.inputs[0], node.inputs[0]]

    from opgraph.config import change_flags

    x = num("x")
    fg = FunctionGraph([x], [sin(x)])
    with change_flags(on_opt_error="raise"), pytest.raises(RewriteFailure, match="2 replacements"):
        in2out(two).rewrite(fg)


def test_sequential_graph_rewriter_collects_stats():
    x = num("x")
    fg = FunctionGraph([x], [neg(neg(log(exp(x))))])
    seq = SequentialGraphRewriter(in2out(log_of_exp), in2out(double_neg))
    stats = seq.rewrite(fg)
    assert fg.apply_nodes == set()
    assert stats.applied["log_of_exp"] == 1 and stats.applied["double_neg"] == 1
    assert stats.total_time >= 0


def test_sequential_node_rewriter_first_change_wins():
    snr = SequentialNodeRewriter(log_of_exp, double_neg)
    assert set(snr.tracks()) == {log, neg}
    x = num("x")
    fg = FunctionGraph([x], [log(exp(x))])
    WalkingGraphRewriter(snr).rewrite(fg)
    assert fg.outputs[0] is fg.inputs[0]


def test_walker_handles_very_deep_graphs_without_recursion():
    x = num("x")
    y = x
    n = sys.getrecursionlimit() * 3
    for _ in range(n // 2):
        y = neg(neg(y))
    fg = FunctionGraph([x], [sin(y)])
    EquilibriumGraphRewriter([double_neg]).rewrite(fg)
    assert op_names(fg) == ["sin"]


def test_graph_rewriter_base_requires_apply():
    class Nothing(GraphRewriter):
        pass

    x = num("x")
    with pytest.raises(NotImplementedError):
        Nothing().rewrite(FunctionGraph([x], [sin(x)]))


def test_rewrite_of_unused_multi_use_keeps_constants():
    x = num("x")
    fg = FunctionGraph([x], [mul(div(x, 2.0), Constant(num, 2.0))])
    assert evaluate(fg, [3.0]) == [3.0]


def test_sequential_node_rewriter_reports_what_it_replaced(capsys):
    x = num("x")
    out = log(exp(x))
    fg = FunctionGraph([x], [out], clone=False)
    seq = SequentialNodeRewriter(double_neg, log_of_exp)
    with _change_flags(optimizer_verbose=True):
        assert seq.transform(fg, out.owner) == [x]
    assert f"rewriting: rewrite log_of_exp replaces node {out.owner} with [x]" in (
        capsys.readouterr().out
    )
    with _change_flags(optimizer_verbose=False):
        seq.transform(fg, out.owner)
    assert capsys.readouterr().out == ""


def test_equilibrium_use_limit_counts_small_graphs_exactly():
    # 2 nodes and ratio 1/2: each rewrite may be applied once; the second
    # application of f_to_g stops the loop (no floor on the limit).
    x = num("x")
    fg = FunctionGraph([x], [g(f(x))], clone=False)
    eq = EquilibriumGraphRewriter([f_to_g, g_to_f], max_use_ratio=0.5)
    with pytest.warns(RuntimeWarning, match="applied more than 1 times"):
        eq.rewrite(fg)
    assert eq.stopped_early

"""PyTensor's Scan rewrite names and helpers at their paths, doing their jobs."""

from __future__ import annotations

import numpy as np
import pytest
from opgraph.graph.rewriting.db import RewriteDatabaseQuery
from opgraph.scan.rewriting import db, io, merge, push_out, trace

import opgraph
import opgraph.tensor as pt
from opgraph.graph.fg import FunctionGraph
from opgraph.scan.op import Scan
from opgraph.scan.utils import ScanArgs, until


def _loop(seq_len: int = 4):
    a, x0 = pt.dvector("a"), pt.dvector("x0")
    xs = opgraph.scan(lambda x, a: x + pt.exp(a), outputs_info=[x0], non_sequences=[a],
                      n_steps=seq_len, return_updates=False)
    return a, x0, xs


def test_scan_seqopt1_runs_the_push_outs_in_order() -> None:
    a, x0, xs = _loop()
    fg = FunctionGraph([a, x0], [xs], clone=True)
    db.scan_seqopt1.query(RewriteDatabaseQuery(include=["fast_run"])).rewrite(fg)
    # exp(a) left the loop; the values are those of the loop
    assert any(getattr(getattr(n.op, "scalar_op", None), "name", "") == "exp"
               for n in fg.apply_nodes)
    got = opgraph.function(fg.inputs, fg.outputs[0], mode="FAST_COMPILE")(np.zeros(2),
                                                                          np.ones(2))
    np.testing.assert_allclose(got, np.arange(2, 6)[:, None] * np.ones(2))


def test_scan_equilibrium_rewriter_leaves_graphs_without_scan() -> None:
    x = pt.dvector("x")
    fg = FunctionGraph([x], [pt.exp(x) + 0], clone=True)
    before = [n.op for n in fg.toposort()]
    rewriter = db.ScanEquilibriumGraphRewriter([push_out.scan_push_out_non_seq])
    rewriter.apply(fg)
    assert [n.op for n in fg.toposort()] == before


def test_pytensor_names_point_at_the_rewrites_doing_the_job() -> None:
    assert io.scan_merge_duplicate_inputs is io.scan_remove_unused
    assert io.scan_inline_invariant_constants is io.scan_remove_unused
    assert push_out.scan_push_out_seq is push_out.scan_push_out_seq_products
    assert push_out.scan_push_out_add is push_out.scan_push_out_outer_sum
    assert trace.scan_reduce_trace_no_prealloc is trace.scan_reduce_trace_prealloc


def test_scan_reduce_trace_rewrite_keeps_last_rows() -> None:
    a, x0, xs = _loop(6)
    fg = FunctionGraph([a, x0], [xs[-1]], clone=True)
    node = next(n for n in fg.apply_nodes if isinstance(n.op, Scan))
    new = trace.scan_reduce_trace_rewrite(fg, node, True)
    assert new  # the history of x is not needed: a shorter buffer is kept
    fg.replace_all_validate(list(zip(node.outputs, new, strict=False))
                            if isinstance(new, list) else list(new.items()))
    f = opgraph.function(fg.inputs, fg.outputs[0], mode="FAST_COMPILE")
    np.testing.assert_allclose(f(np.zeros(2), np.ones(2)), [7.0, 7.0])


def test_merge_helpers() -> None:
    assert merge.has_duplicates([1, 2, 1]) and not merge.has_duplicates([1, 2, 3])
    outer = ["a", "b", "a", "c", "b"]
    inner = ["i0", "i1", "i2", "i3", "i4"]
    assert merge.make_equiv(outer, inner) == (["i2", "i4"], ["a", "b"])
    with pytest.raises(ValueError):
        merge.make_equiv(["a"], ["i0", "i1"])


def test_push_out_helpers_read_the_loop() -> None:
    a, x0, xs = _loop()
    fg = FunctionGraph([a, x0], [xs[-1]], clone=True)
    node = next(n for n in fg.apply_nodes if isinstance(n.op, Scan))
    args = ScanArgs.from_node(node)
    (state,) = args.inner_in_sit_sot
    (nonseq,) = args.inner_in_non_seqs
    (new_state,) = args.inner_out_sit_sot
    assert push_out.get_outer_ndim(state, args) == 2
    assert push_out.get_outer_ndim(nonseq, args) == 1
    assert push_out.inner_sitsot_only_last_step_used(fg, new_state, args)
    # the whole history read: not only the last step
    fg2 = FunctionGraph([a, x0], [xs], clone=True)
    node2 = next(n for n in fg2.apply_nodes if isinstance(n.op, Scan))
    args2 = ScanArgs.from_node(node2)
    assert not push_out.inner_sitsot_only_last_step_used(fg2, args2.inner_out_sit_sot[0], args2)


def test_while_loops_over_sequences_of_one_static_length_merge() -> None:
    """Two while loops over different sequences of static length 5, one condition: one loop."""
    c = pt.dscalar("c")
    x, y, z = (pt.tensor(n, shape=(5,), dtype="float64") for n in "xyz")
    sx = opgraph.scan(lambda s1, s2, k: (s1 + 1, until(s2 > k)), sequences=[x, z],
                      non_sequences=[c], return_updates=False)
    sy = opgraph.scan(lambda s1, s2, k: (s1 - 1, until(s2 > k)), sequences=[y, z],
                      non_sequences=[c], return_updates=False)
    f = opgraph.function([x, y, z, c], [sx, sy])
    assert sum(isinstance(n.op, Scan) for n in f.maker.fgraph.apply_nodes) == 1
    got = f(np.zeros(5), np.zeros(5), np.arange(5.0), 1.0)
    np.testing.assert_array_equal(got[0], [1, 1, 1])
    np.testing.assert_array_equal(got[1], [-1, -1, -1])

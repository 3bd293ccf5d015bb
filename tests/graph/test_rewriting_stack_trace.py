"""copy_stack_trace and merge_dict at PyTensor's path (graph.rewriting.basic)."""

from __future__ import annotations

import opgraph.tensor as pt
from opgraph.graph.rewriting.basic import copy_stack_trace, merge_dict, walking_rewriter


def test_copy_stack_trace_concatenates_sources_before_the_targets_own() -> None:
    a, b, c = pt.dscalar("a"), pt.dscalar("b"), pt.dscalar("c")
    a.tag.trace = [[("a.py", 1, "f", "a = 1")]]
    b.tag.trace = [[("b.py", 2, "g", "b = 2")]]
    c.tag.trace = [[("c.py", 3, "h", "c = 3")]]
    copy_stack_trace([a, b], c)
    assert [t[0][0] for t in c.tag.trace] == ["a.py", "b.py", "c.py"]
    d = pt.dscalar("d")
    copy_stack_trace(a, [d])
    assert d.tag.trace == a.tag.trace and d.tag.trace is not a.tag.trace


def test_merge_dict_adds_values_of_shared_keys() -> None:
    assert merge_dict({"x": 1, "y": [1]}, {"x": 2, "y": [2], "z": 0}) == {
        "x": 3, "y": [1, 2], "z": 0}


def test_walking_rewriter_is_the_walking_module_driver() -> None:
    from opgraph.graph.rewriting import walking

    assert walking_rewriter is walking.walking_rewriter

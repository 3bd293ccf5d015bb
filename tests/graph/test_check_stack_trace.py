"""check_stack_trace: which nodes it inspects and what it reports."""

from __future__ import annotations

import pytest
from toys import Elemwise2, Unary, add, neg, var

from opgraph.config import config
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.basic import check_stack_trace


def _graph():
    """A graph built without creation traces (``traceback__limit=0``): the tests add them."""
    old = config.traceback__limit
    config.traceback__limit = 0
    try:
        x, y = var("x"), var("y")
        s = add(x, y)
        out = neg(s)
    finally:
        config.traceback__limit = old
    return FunctionGraph([x, y], [out], clone=False), s, out


def test_nodes_built_by_user_code_pass_by_default():
    x, y = var("x"), var("y")
    fg = FunctionGraph([x, y], [neg(add(x, y))], clone=False)
    assert check_stack_trace(fg, ops_to_check="all")


def test_last_checks_only_output_nodes():
    fg, s, out = _graph()
    assert not check_stack_trace(fg)
    out.tag.trace = [[("user.py", 3, "f", "y = -x")]]
    assert check_stack_trace(fg)
    assert not check_stack_trace(fg, ops_to_check="all")
    s.tag.trace = [[("user.py", 2, "f", "x = a + b")]]
    assert check_stack_trace(fg, ops_to_check="all")


def test_select_by_class_instance_list_and_predicate():
    fg, s, _out = _graph()
    s.tag.trace = [[("user.py", 2, "f", "x = a + b")]]
    assert check_stack_trace(fg, ops_to_check=Elemwise2)
    assert check_stack_trace(fg, ops_to_check=add)
    assert not check_stack_trace(fg, ops_to_check=Unary)
    assert not check_stack_trace(fg, ops_to_check=[Elemwise2, neg])
    assert check_stack_trace(fg, ops_to_check=lambda op: op is add)


def test_no_matching_node_follows_bug_print():
    fg, _, _ = _graph()
    with pytest.raises(ValueError, match="ops_to_check"):
        check_stack_trace(fg, ops_to_check=Elemwise2("sub"))
    with pytest.warns(UserWarning):
        assert check_stack_trace(fg, ops_to_check=Elemwise2("sub"), bug_print="warn")
    assert check_stack_trace(fg, ops_to_check=Elemwise2("sub"), bug_print="ignore")


def test_rejects_non_graph():
    with pytest.raises(TypeError, match="FunctionGraph"):
        check_stack_trace(42)

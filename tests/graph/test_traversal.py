"""opgraph.graph.traversal: walks, inputs, cuts and topological orders."""

import pytest
from toys import add, mul, neg, tfloat, two_out, var

from opgraph.graph import basic
from opgraph.graph.basic import Constant
from opgraph.graph.traversal import (
    ancestors,
    apply_ancestors,
    apply_depends_on,
    applys_between,
    explicit_graph_inputs,
    general_toposort,
    get_var_by_name,
    graph_inputs,
    io_toposort,
    orphans_between,
    toposort,
    toposort_with_orderings,
    truncated_graph_inputs,
    variable_depends_on,
    vars_between,
    walk,
)


def chain():
    r1, r2, r3 = var("r1"), var("r2"), var("r3")
    o1 = add(r1, r2)
    o1.name = "o1"
    o2 = add(r3, o1)
    o2.name = "o2"
    return r1, r2, r3, o1, o2


def inputs_of(v):
    return v.owner.inputs if v.owner else None


def test_walk_orders():
    r1, r2, r3, o1, o2 = chain()
    assert list(walk([o2], inputs_of, bfs=True)) == [o2, r3, o1, r1, r2]
    # depth first takes the last child first (a stack)
    assert list(walk([o2], inputs_of, bfs=False)) == [o2, o1, r2, r1, r3]
    pairs = list(walk([o2], inputs_of, return_children=True))
    assert pairs[0] == (o2, [r3, o1]) and pairs[1] == (r3, None)


def test_ancestors_graph_inputs_and_blockers():
    r1, r2, r3, o1, o2 = chain()
    assert list(ancestors([o2])) == [o2, o1, r2, r1, r3]
    assert list(ancestors([o2], blockers=[o1])) == [o2, o1, r3]
    assert graph_inputs([o2]) == [r2, r1, r3]
    assert graph_inputs([o2], blockers=[o1]) == [o1, r3]
    assert list(apply_ancestors([o2])) == [o2.owner, o1.owner]
    # a single variable is accepted where a list is expected
    assert list(ancestors(o1)) == [o1, r2, r1]


def test_between_cuts():
    r1, r2, r3, o1, o2 = chain()
    assert list(vars_between([r1, r2], [o2])) == [o2, o1, r2, r1, r3]
    assert list(orphans_between([r1, r2], [o2])) == [r3]
    assert list(applys_between([o1], [o2])) == [o2.owner]


def test_depends_on():
    r1, _r2, r3, o1, o2 = chain()
    o3 = add(r1, o1)
    assert apply_depends_on(o2.owner, o1.owner)
    assert apply_depends_on(o2.owner, o2.owner)
    assert apply_depends_on(o3.owner, [o1.owner, o2.owner])
    assert not apply_depends_on(o1.owner, o2.owner)
    assert variable_depends_on(o2, r1) and variable_depends_on(o2, [r3])
    assert not variable_depends_on(o1, [r3])
    assert variable_depends_on(r3, r3)
    assert not variable_depends_on(o2, [r1], stop_search_at=[o1])


def test_explicit_graph_inputs_leave_out_constants_and_shared():
    import opgraph
    import opgraph.tensor as pt

    x = pt.fscalar("x")
    z = opgraph.shared(1.0)
    a = pt.sum(x + pt.constant(2.0) + z)
    assert list(explicit_graph_inputs([a])) == [x]
    assert list(explicit_graph_inputs(a)) == [x]


def test_truncated_graph_inputs():
    x, y, z = var("x"), var("y"), var("z")
    x2 = neg(x)
    y2 = add(y, x2)
    o = neg(y2)
    o2 = neg(o)
    assert truncated_graph_inputs([o]) == [o]
    assert truncated_graph_inputs([o2], [y2]) == [y2]
    # an included variable below another included one is returned too
    assert truncated_graph_inputs([o], [y2, o]) == [o, y2]
    assert truncated_graph_inputs([o2], [y2, o]) == [o, y2]
    # the nearest independent variables complete the cut
    assert truncated_graph_inputs([o], [y]) == [x2, y]
    assert truncated_graph_inputs([o2], [y2, z]) == [y2]
    assert truncated_graph_inputs([o2, z], [y2]) == [z, y2]
    # repeated inputs are returned once
    t1, t2 = add(x, y), mul(x, y)
    both = add(t1, t2)
    rep = add(both, both)
    assert truncated_graph_inputs([rep], [t1]) == [t2, t1]
    assert truncated_graph_inputs([add(t1, t1)], [t1]) == [t1]


def test_general_toposort_deps_may_return_none_and_cycles_raise():
    r1, r2, r5 = var("r1"), var("r2"), var("r5")
    o = add(r1, r2)
    o2 = add(o, r5)

    def prenode(obj):
        if isinstance(obj, basic.Variable):
            return [obj.owner] if obj.owner else None
        return obj.inputs

    assert general_toposort([o2], prenode) == [r5, r2, r1, o.owner, o, o2.owner, o2]

    def cyclic(obj):
        return [o2, *prenode(obj)] if obj is o else prenode(obj)

    with pytest.raises(ValueError, match="graph contains cycles"):
        general_toposort([o2], cyclic)
    with pytest.raises(ValueError, match="no longer supported"):
        general_toposort([o2], prenode, deps_cache={})


def test_toposorts_agree_and_honour_orderings():
    _r1, _r2, r3, o1, o2 = chain()
    side = neg(r3)
    assert list(toposort([o2])) == io_toposort([], [o2]) == [o1.owner, o2.owner]
    assert list(toposort([o2], blockers=[o1])) == [o2.owner]
    order = list(toposort_with_orderings([o2, side], orderings={o1.owner: [side.owner]}))
    assert order.index(side.owner) < order.index(o1.owner)


def test_multi_output_nodes_not_needed_past_inputs():
    x = var("x")
    a, b = two_out.make_node(x).outputs
    out = add(b, neg(a))
    assert set(io_toposort([], [out])) == {a.owner, out.owner.inputs[1].owner, out.owner}
    assert set(io_toposort([a, b], [out])) == {out.owner.inputs[1].owner, out.owner}


def test_get_var_by_name_sees_names_and_auto_names():
    _r1, _r2, r3, o1, o2 = chain()
    assert get_var_by_name([o2], "nothing") == ()
    assert get_var_by_name([o2], "o1") == (o1,)
    assert get_var_by_name([o2], r3.auto_name) == (r3,)


def test_deep_chain_does_not_recurse():
    x = var("x")
    out = x
    for _ in range(10_000):  # 10x Python's default recursion limit
        out = neg(out)
    assert len(io_toposort([x], [out])) == 10_000
    assert graph_inputs([out]) == [x]
    assert truncated_graph_inputs([out], [x]) == [x]
    assert general_toposort([out], lambda v: [v.owner.inputs[0]] if v.owner else None)[0] is x


def test_basic_reexports_the_traversals():
    for name in ("walk", "ancestors", "graph_inputs", "io_toposort", "general_toposort",
                 "vars_between", "orphans_between", "applys_between", "variable_depends_on"):
        assert getattr(basic, name) is getattr(__import__("opgraph.graph.traversal",
                                                          fromlist=[name]), name)
    c = Constant(tfloat, 1.0)
    assert next(iter(explicit_graph_inputs([add(c, var("y"))]))).name == "y"

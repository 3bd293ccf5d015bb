"""FunctionGraph: every method, the exact callback sequences, and bad input."""

from __future__ import annotations

import pytest
from toys import ToyType, add, dbl, mul, neg, tfloat, tother, two_out, var

from opgraph.graph.basic import Apply, Constant
from opgraph.graph.features import AlreadyThere, Feature, ReplaceValidate
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.utils import InconsistencyError, MissingInputError


class Recorder(Feature):
    """Records every callback as a tuple of readable strings."""

    def __init__(self) -> None:
        self.events: list[tuple] = []

    def on_attach(self, fgraph):
        self.events.append(("attach",))

    def on_detach(self, fgraph):
        self.events.append(("detach",))

    def on_import(self, fgraph, node, reason):
        self.events.append(("import", str(node), reason))

    def on_prune(self, fgraph, node, reason):
        self.events.append(("prune", str(node), reason))

    def on_change_input(self, fgraph, node, i, var, new_var, reason=None):
        self.events.append(("change", str(node), i, str(var), str(new_var), reason))


def small():
    x, y = var("x"), var("y")
    a = neg(x)
    a.name = "a"
    b = mul(x, y)
    b.name = "b"
    z = add(a, b)
    z.name = "z"
    return x, y, a, b, z


def clients_of(fg, v):
    return sorted((("output" if c == "output" else str(c)), i) for c, i in fg.clients[v])


def test_constructor_clones_by_default_and_tracks_everything():
    x, y, a, _b, z = small()
    fg = FunctionGraph([x, y], [z])
    assert fg.inputs[0] is not x and fg.outputs[0] is not z
    assert z.owner.inputs[0] is a  # the caller's graph is untouched
    assert len(fg.apply_nodes) == 3
    assert len(fg.variables) == 5
    fx, _fy = fg.inputs
    assert clients_of(fg, fx) == [("mul(x, y)", 0), ("neg(x)", 0)]
    assert clients_of(fg, fg.outputs[0]) == [("output", 0)]
    fg.check_integrity()


def test_constructor_without_clone_adopts_variables():
    x, y, a, _b, z = small()
    fg = FunctionGraph([x, y], [z], clone=False, update_mapping={0: 1})
    assert fg.inputs == [x, y] and fg.outputs == [z]
    assert fg.update_mapping == {0: 1}
    assert fg.get_clients(a) == [(z.owner, 0)]
    assert a in fg and z.owner in fg and var() not in fg
    with pytest.raises(TypeError, match="Variable or an Apply"):
        _ = 3 in fg


def test_constructor_infers_inputs_and_keeps_unused_inputs():
    x, _y, a, _b, _z = small()
    fg = FunctionGraph(outputs=[a], clone=False)
    assert fg.inputs == [x]
    w = var("w")
    fg = FunctionGraph([x, w], [a], clone=False)
    assert w in fg.variables and fg.clients[w] == []
    fg.check_integrity()


def test_constructor_bad_input():
    x, y, a, _b, z = small()
    with pytest.raises(MissingInputError, match=r"Input y .* needed by mul\(x, y\)") as info:
        FunctionGraph([x], [z], clone=False)
    assert info.value.variable is y
    with pytest.raises(ValueError, match="is the output of"):
        FunctionGraph([a], [z], clone=False)
    with pytest.raises(TypeError, match="output 0 must be a Variable, got int"):
        FunctionGraph([x], [3])
    with pytest.raises(TypeError, match="list of Variables"):
        FunctionGraph([x], z)
    twice = FunctionGraph([x, x], [a], clone=False)  # accepted, as in PyTensor
    assert twice.inputs == [x, x]
    twice.check_integrity()


def test_constants_are_not_inputs():
    x = var("x")
    c = Constant(tfloat, 2.0)
    out = add(x, c)
    fg = FunctionGraph([x], [out], clone=False)
    assert c in fg.variables and fg.clients[c] == [(out.owner, 1)]
    fg.check_integrity()


def test_import_var_and_node_with_missing_inputs():
    x, _y, a, _b, _z = small()
    fg = FunctionGraph([x], [a], clone=False)
    w = var("w")
    new = add(a, w)
    before = (set(fg.apply_nodes), set(fg.variables))
    with pytest.raises(MissingInputError, match=r"Input w .* needed by add\(a, w\)"):
        fg.import_var(new)
    assert (set(fg.apply_nodes), set(fg.variables)) == before  # unchanged
    with pytest.raises(MissingInputError):
        fg.import_node(new.owner)
    fg.import_node(new.owner, import_missing=True, reason="test")
    assert w in fg.inputs and new.owner in fg.apply_nodes
    assert fg.clients[new] == []  # imported, not yet used
    fg.add_output(new)
    fg.check_integrity()
    fg.import_node(new.owner)  # already there: nothing happens
    with pytest.raises(TypeError, match="expected an Apply"):
        fg.import_node(new)
    with pytest.raises(TypeError, match="expected a Variable"):
        fg.import_var(new.owner)


def test_recorded_callbacks_for_import_replace_change_and_prune():
    x, y, a, _b, z = small()
    fg = FunctionGraph([x, y], [z], clone=False)
    rec = Recorder()
    fg.attach_feature(rec)
    assert rec.events == [("attach",)]
    rec.events.clear()

    # import: nodes are announced producers first
    d = dbl(neg(y))
    fg.import_var(d, reason="imp")
    assert rec.events == [("import", "neg(y)", "imp"), ("import", "dbl(neg.0)", "imp")]
    assert d in fg.variables
    rec.events.clear()

    # replace a (= neg(x)) by d: import nothing new, prune neg(x), then the change
    fg.replace(a, d, reason="r1")
    assert rec.events == [
        ("prune", "neg(x)", "r1"),
        ("change", "add(dbl.0, b)", 0, "a", "dbl.0", "r1"),
    ]
    rec.events.clear()

    # change_node_input with a fresh variable: import then prune then change
    e = neg(x)
    fg.change_node_input(z.owner, 1, e, reason="r2")
    assert rec.events == [
        ("import", "neg(x)", "r2"),
        ("prune", "mul(x, y)", "r2"),
        ("change", "add(dbl.0, neg.0)", 1, "b", "neg.0", "r2"),
    ]
    rec.events.clear()

    # replacing an output: the pseudo-node "output" changes; everything upstream is pruned
    fg.replace(z, x, reason="r3")
    assert rec.events == [
        ("prune", "add(dbl.0, neg.0)", "r3"),
        ("prune", "neg(x)", "r3"),
        ("prune", "dbl(neg.0)", "r3"),
        ("prune", "neg(y)", "r3"),
        ("change", "output", 0, "z", "x", "r3"),
    ]
    assert fg.apply_nodes == set() and fg.outputs == [x]
    fg.check_integrity()
    fg.remove_feature(rec)
    assert rec.events[-1] == ("detach",)


def test_replace_type_checks_and_leaves_graph_unchanged():
    x, y, a, _b, z = small()
    fg = FunctionGraph([x, y], [z], clone=False)
    snapshot = {v: list(cl) for v, cl in fg.clients.items()}
    bad = var("q", tother)
    with pytest.raises(TypeError, match=r"Toy\(other\).*Toy\(float\)"):
        fg.replace(a, bad)
    with pytest.raises(TypeError, match="must be a Variable, got int"):
        fg.replace(a, 3)
    with pytest.raises(MissingInputError):
        fg.replace(a, neg(var("w")))
    assert {v: list(cl) for v, cl in fg.clients.items()} == snapshot
    fg.check_integrity()


def test_change_node_input_type_check_and_history_bypass():
    x, y, _a, _b, z = small()
    fg = FunctionGraph([x, y], [z], clone=False)
    exact = ToyType("float", exact=True)
    narrowed = exact("n")
    fg.add_input(narrowed)
    fg.change_node_input(z.owner, 0, narrowed)  # loose <- exact is allowed
    assert z.owner.inputs[0] is narrowed
    n2 = neg(narrowed)
    fg.change_node_input("output", 0, n2)  # outputs are "output" clients
    assert fg.outputs == [n2]
    # put a loose variable where the exact one was: refused unless check=False
    node = n2.owner
    with pytest.raises(TypeError, match="must be compatible"):
        fg.change_node_input(node, 0, x)
    fg.change_node_input(node, 0, x, check=False)
    assert node.inputs[0] is x
    fg.check_integrity()
    with pytest.raises(ValueError, match="not in this FunctionGraph"):
        fg.change_node_input(neg(x).owner, 0, y)


def test_replace_of_absent_variable_is_a_no_op_and_replace_all():
    x, y, a, b, z = small()
    fg = FunctionGraph([x, y], [z], clone=False)
    fg.replace(neg(y), neg(x))  # not in the graph: nothing happens
    assert len(fg.apply_nodes) == 3
    na, nb = dbl(x), dbl(y)
    fg.replace_all([(a, na), (b, nb)], reason="both")
    assert z.owner.inputs == [na, nb]
    assert a not in fg.variables and b not in fg.variables
    fg.check_integrity()


def test_replace_with_dependent_variable_keeps_the_old_one():
    x, y, a, _b, z = small()
    fg = FunctionGraph([x, y], [z], clone=False)
    wrapped = dbl(a)
    fg.replace(a, wrapped)
    assert z.owner.inputs[0] is wrapped and a in fg.variables
    assert fg.clients[a] == [(wrapped.owner, 0)]
    fg.check_integrity()


def test_replace_verbose_prints(capsys):
    x, y, a, _b, z = small()
    fg = FunctionGraph([x, y], [z], clone=False)
    fg.replace(a, dbl(x), reason="why", verbose=True)
    assert "why" in capsys.readouterr().out


def test_add_client_remove_client_recursive_pruning():
    x, y, _a, _b, z = small()
    fg = FunctionGraph([x, y], [z], clone=False)
    fg.outputs[0] = x  # simulate an output change by hand, then drop z's client
    fg.clients[x].append(("output", 0))
    fg.remove_client(z, ("output", 0), reason="manual", remove_if_empty=True)
    assert fg.apply_nodes == set()
    assert fg.variables == {x, y}
    assert fg.clients[z] == [] and z not in fg.clients
    fg.check_integrity()
    with pytest.raises(TypeError, match="pair"):
        fg.add_client(x, "output")
    with pytest.raises(KeyError, match="not a variable"):
        fg.add_client(z, ("output", 0))
    fg.remove_client(z, ("output", 0))  # unknown variable: nothing to do


def test_remove_node_removes_downstream_and_orphans():
    x, y, a, _b, z = small()
    other = neg(y)
    fg = FunctionGraph([x, y], [z, other, a], clone=False)
    rec = Recorder()
    fg.attach_feature(rec)
    fg.remove_node(a.owner, reason="rm")
    # z and a (outputs 0 and 2) depend on neg(x): gone; "other" shifts to output 0
    assert fg.outputs == [other]
    assert fg.apply_nodes == {other.owner}
    assert fg.clients[other] == [("output", 0)]
    pruned = [e[1] for e in rec.events if e[0] == "prune"]
    assert sorted(pruned) == sorted(["add(a, b)", "neg(x)", "mul(x, y)"])
    fg.check_integrity()
    fg.remove_node(a.owner)  # already gone: no-op


def test_remove_node_on_a_long_chain_is_iterative():
    x = var("x")
    v = x
    for _ in range(5000):
        v = neg(v)
    fg = FunctionGraph([x], [v], clone=False)
    first = fg.clients[x][0][0]
    fg.remove_node(first)
    assert fg.apply_nodes == set() and fg.outputs == []
    fg.check_integrity()


def test_add_remove_inputs_and_outputs():
    x, y, a, b, z = small()
    fg = FunctionGraph([x, y], [z, b], clone=False)
    w = var("w")
    fg.add_input(w)
    fg.add_input(w)  # check=True: already there
    assert fg.inputs == [x, y, w]
    fg.add_output(add(w, x), reason="more")
    assert len(fg.outputs) == 3 and fg.clients[fg.outputs[2]] == [("output", 2)]
    fg.remove_output(0, reason="less")  # z goes, its exclusive ancestors too
    assert fg.outputs[0] is b and fg.clients[b] == [("output", 0)]
    assert a not in fg.variables and z.owner not in fg.apply_nodes
    assert fg.clients[fg.outputs[1]] == [("output", 1)]
    fg.check_integrity()
    fg.remove_input(1, reason="drop y")  # b = mul(x, y) and output 0 go
    assert fg.inputs == [x, w] and len(fg.outputs) == 1
    assert y not in fg.variables and b.owner not in fg.apply_nodes
    fg.check_integrity()
    with pytest.raises(TypeError, match="expected a Variable"):
        fg.add_output("z")
    with pytest.raises(MissingInputError):
        fg.add_output(neg(var("u")))
    assert len(fg.outputs) == 1


def test_same_output_twice_then_remove_one():
    x = var("x")
    a = neg(x)
    fg = FunctionGraph([x], [a, a, x], clone=False)
    assert sorted(fg.clients[a], key=lambda c: c[1]) == [("output", 0), ("output", 1)]
    fg.remove_output(0)
    assert fg.clients[a] == [("output", 0)] and fg.clients[x][-1] == ("output", 1)
    fg.check_integrity()


def test_toposort_respects_orderings_and_cache():
    x, y = var("x"), var("y")
    p, q = neg(x), neg(y)
    out = add(p, q)
    fg = FunctionGraph([x, y], [out], clone=False)
    assert fg.toposort() == [q.owner, p.owner, out.owner]  # PyTensor's order: last input first
    order = fg.toposort()
    order.clear()  # a copy: the cache is not damaged
    assert len(fg.toposort()) == 3

    class PFirst(Feature):  # against the default order
        def orderings(self, fgraph):
            return {q.owner: [p.owner]}

    fg.attach_feature(PFirst())
    assert fg.orderings() == {q.owner: [p.owner]}
    assert fg.toposort() == [p.owner, q.owner, out.owner]

    class Bad(Feature):
        def orderings(self, fgraph):
            return [1]

    fg.attach_feature(Bad())
    with pytest.raises(TypeError, match="orderings must return a dict"):
        fg.toposort()


def test_toposort_cache_is_invalidated_by_changes():
    x, y, a, b, z = small()
    fg = FunctionGraph([x, y], [z], clone=False)
    assert len(fg.toposort()) == 3
    n = dbl(b)
    fg.replace(a, n)
    order = fg.toposort()
    assert set(order) == fg.apply_nodes
    assert order.index(b.owner) < order.index(n.owner) < order.index(z.owner)


def test_check_integrity_catches_corruption():
    x, y, a, _b, z = small()
    fg = FunctionGraph([x, y], [z], clone=False)
    fg.check_integrity()
    fg.clients[x].append((z.owner, 0))  # a client that does not exist
    with pytest.raises(InconsistencyError, match=r"does not use it|more entries"):
        fg.check_integrity()
    fg.clients[x].pop()
    fg.clients[a].clear()
    with pytest.raises(InconsistencyError, match="wrong clients for a"):
        fg.check_integrity()
    fg.clients[a].append((z.owner, 0))
    fg.apply_nodes.add(neg(y).owner)
    with pytest.raises(InconsistencyError, match="apply_nodes"):
        fg.check_integrity()
    fg = FunctionGraph([x, y], [z], clone=False)
    fg.variables.add(var("ghost"))
    with pytest.raises(InconsistencyError, match="variables"):
        fg.check_integrity()
    fg = FunctionGraph([x, y], [z], clone=False)
    z.owner.inputs[1] = var("stray")  # edited behind the graph's back
    with pytest.raises(InconsistencyError, match="apply_nodes"):
        fg.check_integrity()


def test_check_integrity_on_a_variable_with_thousands_of_clients():
    """High fan-out takes the set-based path of the check: it must still catch a bad entry."""
    x, y = var("x"), var("y")
    outs = [add(x, y) for _ in range(5000)]
    fg = FunctionGraph([x, y], outs, clone=False)
    fg.check_integrity()
    assert len(fg.clients[x]) == 5000
    fg.clients[x].append(fg.clients[x][0])  # a duplicate entry among thousands
    with pytest.raises(InconsistencyError):
        fg.check_integrity()
    fg.clients[x].pop()
    fg.clients[x][1234] = (fg.clients[x][1234][0], 1)  # points at the wrong input slot
    with pytest.raises(InconsistencyError):
        fg.check_integrity()


def test_clone_get_equiv_maps_everything_and_clones_features():
    x, y, a, b, z = small()
    fg = FunctionGraph([x, y], [z], clone=False)
    rec = Recorder()
    fg.attach_feature(rec)
    new, equiv = fg.clone_get_equiv()
    for old in [*fg.variables, *fg.apply_nodes]:
        assert old in equiv and equiv[old] is not old
    assert equiv[z.owner].inputs == [equiv[a], equiv[b]]
    assert new.inputs == [equiv[x], equiv[y]] and new.outputs == [equiv[z]]
    assert rec in new._features  # Feature.clone() returns self by default
    new.check_integrity()
    new2, _ = fg.clone_get_equiv(attach_feature=False)
    assert [type(f) for f in new2._features] == [ReplaceValidate]  # only the default one
    assert str(fg.clone()) == str(fg)


def test_attach_feature_twice_and_refusal():
    x, y, _a, _b, z = small()
    fg = FunctionGraph([x, y], [z], clone=False)
    rec = Recorder()
    assert fg.attach_feature(rec) is True
    with pytest.raises(AlreadyThere, match="already attached"):
        fg.attach_feature(rec)
    assert fg._features[1:] == [rec]  # after the default ReplaceValidate

    class Refuses(Feature):
        def on_attach(self, fgraph):
            raise AlreadyThere("an equivalent feature is there")

    assert fg.attach_feature(Refuses()) is False
    assert fg._features[1:] == [rec]
    fg.remove_feature(Refuses())  # not attached: no-op
    assert fg.features[1:] == [rec]


def test_execute_and_collect_callbacks():
    x, y, _a, _b, z = small()
    fg = FunctionGraph([x, y], [z], clone=False)

    class Custom(Feature):
        def ping(self, fgraph, value, k=0):
            self.got = (fgraph, value, k)
            return value + 1

    f = Custom()
    fg.attach_feature(f)
    fg.attach_feature(object())  # any object may be a feature; it just has no callbacks
    fg.execute_callbacks("ping", 41, k=2)
    assert f.got == (fg, 41, 2)
    assert fg.collect_callbacks("ping", fg, 1) == {f: 2}  # PyTensor: args as given


def test_str_is_readable():
    x, y, _a, _b, z = small()
    fg = FunctionGraph([x, y], [z, neg(z)], clone=False)
    # as in PyTensor: names of computed values are not shown, their expressions are
    assert str(fg) == "FunctionGraph(*1 -> add(neg(x), mul(x, y)), neg(*1))"
    u, v = var("u"), var("v")
    s = add(u, v)
    fg = FunctionGraph([u, v], [mul(s, s)], clone=False)
    assert str(fg) == "FunctionGraph(mul(*1 -> add(u, v), *1))"
    big = u
    for _ in range(300):
        big = neg(big)
    assert str(FunctionGraph([u], [big], clone=False)) == (
        "FunctionGraph(1 inputs, 1 outputs, 300 nodes)"
    )


def test_multi_output_nodes():
    x = var("x")
    out = two_out(x)
    node = out.owner
    fg = FunctionGraph([x], [out], clone=False)
    assert node.outputs[0] in fg.variables and fg.clients[node.outputs[0]] == []
    fg.replace(node.outputs[0], neg(x))  # an unused output: no client to change
    fg.replace(out, neg(x))
    assert node not in fg.apply_nodes
    fg.check_integrity()


def test_setup_node_rejects_malformed_maps():
    from opgraph.graph.op import Op

    class BadView(Op):
        view_map = {0: 0}

        def make_node(self, x):
            return Apply(self, [x], [x.type()])

        def perform(self, node, inputs, output_storage):
            output_storage[0][0] = inputs[0]

    x = var("x")
    with pytest.raises(TypeError, match="list of input indices"):
        FunctionGraph([x], [BadView()(x)], clone=False)


def test_setup_var_override_is_used():
    seen = []

    class MyFG(FunctionGraph):
        def setup_var(self, var):
            seen.append(var)
            super().setup_var(var)

    x, y, a, b, z = small()
    MyFG([x, y], [z], clone=False)
    assert {a, b, z} <= set(seen)


def test_deep_chain_construction_clone_and_toposort():
    x = var("x")
    v = x
    for _ in range(20_000):  # 20x Python's default recursion limit
        v = neg(v)
    fg = FunctionGraph([x], [v])
    order = fg.toposort()
    assert len(order) == 20_000 and order[-1] is fg.outputs[0].owner
    fg2 = fg.clone()
    assert len(fg2.apply_nodes) == 20_000
    fg.check_integrity()


def test_ops_from_the_fixture_are_usable():
    x, y = var("x"), var("y")
    out = add(mul(x, y), neg(x))
    fg = FunctionGraph([x, y], [out])
    assert [str(n.op) for n in fg.toposort()] == ["neg", "mul", "add"]

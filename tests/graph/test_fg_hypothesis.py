"""Random DAGs under random replace/remove/import keep clients exact."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from toys import add, mul, neg, var

from opgraph.graph.fg import FunctionGraph


def expected_clients(fg):
    exp = {v: Counter() for v in fg.inputs}
    for node in fg.apply_nodes:
        for o in node.outputs:
            exp.setdefault(o, Counter())
        for i, x in enumerate(node.inputs):
            exp.setdefault(x, Counter())[(node, i)] += 1
    for j, o in enumerate(fg.outputs):
        exp.setdefault(o, Counter())[("output", j)] += 1
    return exp


def assert_exact(fg):
    fg.check_integrity()
    exp = expected_clients(fg)
    assert set(exp) == fg.variables == set(fg.clients)
    for v, c in exp.items():
        assert Counter(fg.clients[v]) == c


def build(draw_ints):
    ins = [var(f"x{i}") for i in range(3)]
    vs = list(ins)
    for kind, a, b in draw_ints:
        xa, xb = vs[a % len(vs)], vs[b % len(vs)]
        vs.append(neg(xa) if kind == 2 else (add, mul)[kind](xa, xb))
    return ins, vs


steps = st.lists(
    st.tuples(st.integers(0, 2), st.integers(0, 10**6), st.integers(0, 10**6)),
    min_size=1,
    max_size=25,
)
actions = st.lists(
    st.tuples(st.sampled_from(["replace", "remove_node", "import", "remove_output",
                               "add_output", "change"]),
              st.integers(0, 10**6), st.integers(0, 10**6)),
    max_size=15,
)


@settings(max_examples=40, deadline=None)
@given(steps, actions)
def test_random_edits_keep_integrity(plan, acts):
    ins, vs = build(plan)
    outs = vs[-3:]
    fg = FunctionGraph(ins, outs, clone=False)
    assert_exact(fg)
    for act, p, q in acts:
        live = sorted(fg.variables, key=lambda v: v._uid)
        nodes = sorted(fg.apply_nodes, key=lambda n: n.outputs[0]._uid)
        if act == "replace" and live:
            old = live[p % len(live)]
            # a replacement built from inputs only can never create a cycle
            new = neg(fg.inputs[q % len(fg.inputs)])
            fg.replace(old, new, reason="h")
        elif act == "change" and nodes:
            node = nodes[p % len(nodes)]
            fg.change_node_input(node, q % node.nin, add(fg.inputs[0], fg.inputs[-1]))
        elif act == "remove_node" and nodes:
            fg.remove_node(nodes[p % len(nodes)], reason="h")
        elif act == "import" and live:
            new = add(live[p % len(live)], live[q % len(live)])
            fg.import_var(new)
            fg.add_output(new)
        elif act == "remove_output" and fg.outputs:
            fg.remove_output(p % len(fg.outputs))
        elif act == "add_output" and live:
            fg.add_output(live[p % len(live)])
        assert_exact(fg)
    order = fg.toposort()
    assert set(order) == fg.apply_nodes
    pos = {n: k for k, n in enumerate(order)}
    for n in order:
        for x in n.inputs:
            if x.owner is not None:
                assert pos[x.owner] < pos[n]
    clone, _equiv = fg.clone_get_equiv()
    assert_exact(clone)
    assert len(clone.apply_nodes) == len(fg.apply_nodes)

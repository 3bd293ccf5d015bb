"""NominalVariable, FrozenApply, FrozenFunctionGraph, as_string and the other basic additions."""

import itertools
import pickle

import pytest
from toys import ToyType, add, mul, neg, tfloat, var

import opgraph.printing  # noqa: F401  (installs Variable.dprint / FunctionGraph.dprint)
import opgraph.tensor as pt
from opgraph.graph.basic import (
    Apply,
    AtomicVariable,
    Constant,
    FrozenApply,
    NominalVariable,
    Variable,
    as_string,
    clone,
    clone_get_equiv,
    equal_computations,
)
from opgraph.graph.fg import FrozenFunctionGraph, FunctionGraph, Output
from opgraph.printing import debugprint


def test_nominal_variables_are_interned_by_type_and_id():
    a = NominalVariable(1, ToyType("k"))
    assert a is NominalVariable(1, ToyType("k"))  # equal types: the same object
    assert a is not NominalVariable(2, ToyType("k"))
    assert a is not NominalVariable(1, ToyType("j"))
    assert isinstance(a, AtomicVariable) and a.owner is None and a.index is None
    assert a.signature() == (ToyType("k"), 1) and a.equals(NominalVariable(1, ToyType("k")))
    assert pickle.loads(pickle.dumps(a)) is a and a.clone() is a
    assert repr(a) == f"NominalVariable(1, {ToyType('k')!r})"
    with pytest.raises(ValueError, match="cannot have an owner"):
        a.owner = add(var(), var()).owner


def test_nominal_variable_has_the_type_s_variable_class():
    t = pt.TensorType("float64", (None, None))
    n = NominalVariable(0, t)
    assert isinstance(n, pt.TensorVariable) and isinstance(n, NominalVariable)
    assert n.ndim == 2 and n.dtype == "float64"
    assert type(NominalVariable(1, t)) is type(n)


def test_frozen_apply_is_interned_and_immutable():
    x, y = NominalVariable(0, tfloat), NominalVariable(1, tfloat)
    a = FrozenApply(add, (x, y), (tfloat,))
    assert a is FrozenApply(add, [x, y], [tfloat])
    assert a is not FrozenApply(mul, (x, y), (tfloat,))
    assert a is not FrozenApply(add, (y, x), (tfloat,))
    assert isinstance(a, Apply) and a.outputs[0].owner is a and a.clone() is a
    assert isinstance(a.inputs, tuple)
    # equal constants intern together
    c1, c2 = Constant(tfloat, 2.0), Constant(tfloat, 2.0)
    assert FrozenApply(add, (x, c1), (tfloat,)) is FrozenApply(add, (x, c2), (tfloat,))
    # a mutable copy on new inputs leaves the frozen node alone
    z = var("z")
    plain = a.clone_with_new_inputs([z, y])
    assert type(plain) is Apply and plain.inputs == [z, y] and a.inputs == (x, y)
    assert pickle.loads(pickle.dumps(a)) is a
    assert pickle.loads(pickle.dumps(a.outputs[0])) is a.outputs[0]


def build(x, y):
    return mul(add(x, y), y)


def test_frozen_function_graph_equality_hash_and_pickle():
    x, y = var("x"), var("y")
    f1 = FunctionGraph([x, y], [build(x, y)]).freeze()
    f2 = FrozenFunctionGraph([x, y], [build(x, y)])
    assert f1 == f2 and hash(f1) == hash(f2) and len({f1, f2}) == 1
    assert all(a is b for a, b in zip(f1.outputs, f2.outputs))
    assert f1 != FrozenFunctionGraph([x, y], [add(build(x, y), y)])
    assert f1 != FrozenFunctionGraph([x, y, var("w")], [build(x, y)])  # arity counts
    assert [i.id for i in f1.inputs] == [0, 1]
    back = pickle.loads(pickle.dumps(f1))
    assert back == f1 and hash(back) == hash(f1)
    assert f1.unfreeze().freeze() == f1


def test_frozen_function_graph_structure():
    x, y = var("x"), var("y")
    out = build(x, y)
    f = FrozenFunctionGraph([x, y], [out])
    assert f.apply_nodes == frozenset(f.toposort()) and len(f.toposort()) == 2
    for node in f.toposort():
        assert all(i in f.variables for i in node.inputs)
    (client, idx), = [c for c in f.clients[f.outputs[0]] if isinstance(c[0].op, Output)]
    assert client.op == Output(0) and idx == 0
    ident = FrozenFunctionGraph([x], [x])
    assert ident.apply_nodes == frozenset() and isinstance(ident.outputs[0], NominalVariable)
    c1, c2 = Constant(tfloat, 3.0), Constant(tfloat, 3.0)
    assert FrozenFunctionGraph([], [c1]).outputs == FrozenFunctionGraph([], [c2]).outputs


def test_frozen_function_graph_errors():
    x, orphan = var("x"), var("orphan")
    with pytest.raises(ValueError, match=r"Orphan.*orphan"):
        FrozenFunctionGraph([x], [add(x, orphan)])
    with pytest.raises(ValueError, match="could not be mapped"):
        FrozenFunctionGraph([x], [var("elsewhere")])


def test_bind_rebuilds_on_new_inputs():
    x, y = var("x"), var("y")
    f = FrozenFunctionGraph([x, y], [build(x, y)])
    a, b = var("a"), var("b")
    (out,) = f.bind([a, b])
    assert equal_computations([out], [build(a, b)])
    with pytest.raises(ValueError, match="2 inputs"):
        f.bind([a])


def test_as_string():
    r1, r2 = var("r1"), var("r2")
    node = add.make_node(r1, r2)
    fmt = {"leaf_formatter": lambda v: v.name, "node_formatter":
           lambda n, args: f"{n.op}({', '.join(args)})"}
    assert as_string([r1, r2], node.outputs, **fmt) == ["add(r1, r2)"]
    twice = add(node.outputs[0], node.outputs[0])
    assert as_string([r1, r2], [twice], **fmt) == ["add(*1 -> add(r1, r2), *1)"]
    node.outputs[0].name = "s"
    assert as_string(node.outputs, [twice], **fmt) == ["add(s, s)"]


def test_clone_keeps_constants_and_honours_memo():
    c = pt.constant(1.5)
    i, o = clone([c], [c])
    assert i[0] is c and o[0] is c
    x, y, z = pt.vector("x"), pt.vector("y"), pt.vector("z")
    a = x * y
    b = a + 1.0
    memo = {a: z}
    clone_get_equiv([x, y], [b], copy_inputs=False, copy_orphans=False, memo=memo)
    assert a.owner not in memo and memo[a] is z
    assert equal_computations([memo[b]], [z + 1.0])


def test_equal_computations_lengths_and_values():
    x = var("x")
    with pytest.raises(ValueError, match="same length"):
        equal_computations([x], [x, x])
    c = pt.constant([1.0, 2.0])
    assert equal_computations([c], [[1.0, 2.0]])
    assert not equal_computations([c], [[1.0, 3.0]])
    assert not equal_computations([pt.vector()], [[1.0]])


def test_auto_names_count_from_the_class_counter():
    start = next(Variable.__count__)
    Variable.__count__ = itertools.count(start)
    a, b = var(), var()
    assert (a.auto_name, b.auto_name) == (f"auto_{start}", f"auto_{start + 1}")
    assert a.clone().auto_name == f"auto_{start + 2}"


def test_dprint_methods():
    x, y = var("x"), var("y")
    out = add(x, neg(y))
    assert out.dprint(file="str") == debugprint(out, file="str")
    fg = FunctionGraph([x, y], [out], clone=False)
    assert fg.dprint(file="str") == debugprint(fg, file="str")

"""basic.py contracts: nodes, traversals, cloning, equality of computations."""

from __future__ import annotations

import pytest
from toys import Elemwise2, ToyType, add, mul, neg, tfloat, two_out, var

from opgraph.graph.basic import (
    Apply,
    Constant,
    ancestors,
    applys_between,
    clone,
    clone_get_equiv,
    clone_replace,
    equal_computations,
    graph_inputs,
    io_toposort,
    orphans_between,
    vars_between,
)


def test_apply_rejects_non_variables_naming_them():
    x = var("x")
    with pytest.raises(TypeError, match=r"input 1 must be a Variable, got int"):
        Apply(add, [x, 3], [tfloat()])
    with pytest.raises(TypeError, match="must be a list or tuple"):
        Apply(add, x, [tfloat()])
    with pytest.raises(ValueError, match="already belongs"):
        Apply(neg, [x], [neg(x)])


def test_default_output_and_props():
    x = var("x")
    out = two_out(x)
    node = out.owner
    assert out is node.outputs[1] is node.default_output() is node.out
    assert node.nin == 1 and node.nout == 2
    assert two_out(x, return_list=True)[0].index == 0
    a = add(x, x)
    assert a.owner.default_output() is a


def test_clone_with_new_inputs_and_remake():
    x, y = var("x"), var("y")
    node = add(x, y).owner
    z = var("z")
    new = node.clone_with_new_inputs([z, y])
    assert new.inputs == [z, y] and new.op is node.op and new.outputs[0] is not node.outputs[0]
    exact = ToyType("float", exact=True)("e")
    remade = node.clone_with_new_inputs([exact, y], strict=False)
    assert remade.inputs[0] is exact
    with pytest.raises(ValueError, match="expected 2 inputs, got 1"):
        node.clone_with_new_inputs([x])


def test_traversals_and_deep_chains():
    x = var("x")
    v = x
    for _ in range(20_000):  # 20x Python's default recursion limit
        v = neg(v)
    assert graph_inputs([v]) == [x]
    assert sum(1 for _ in ancestors([v])) == 20_001
    assert len(io_toposort([x], [v])) == 20_000
    eq = clone_get_equiv([x], [v])
    assert len(eq) == 40_001
    assert equal_computations([v], [eq[v]], [x], [eq[x]])


def test_between_helpers():
    x, y = var("x"), var("y")
    c = Constant(tfloat, 1.0)
    a = add(x, c)
    out = mul(a, y)
    assert set(vars_between([x, y], [out])) == {x, y, c, a, out}
    assert set(applys_between([x, y], [out])) == {a.owner, out.owner}
    assert list(orphans_between([x, y], [out])) == [c]


def test_io_toposort_with_orderings():
    x, y = var("x"), var("y")
    p, q = neg(x), neg(y)
    out = add(p, q)
    # PyTensor's order: a node's inputs are sorted last to first
    assert io_toposort([x, y], [out]) == [q.owner, p.owner, out.owner]
    assert io_toposort([x, y], [out], {q.owner: [p.owner]}) == [p.owner, q.owner, out.owner]


def test_clone_and_clone_replace():
    x, y = var("x"), var("y")
    out = add(neg(x), y)
    (nx, ny), (nout,) = clone([x, y], [out])
    assert nx is not x and equal_computations([out], [nout], [x, y], [nx, ny])
    (sx, _), _ = clone([x, y], [out], copy_inputs=False)
    assert sx is x
    z = var("z")
    rep = clone_replace(out, {x: z})
    assert rep.owner.inputs[1] is y and rep.owner.inputs[0].owner.inputs[0] is z
    assert out.owner.inputs[0].owner.inputs[0] is x  # original untouched
    assert clone_replace([out], [(y, z)])[0].owner.inputs[1] is z
    with pytest.raises(TypeError, match="must be Variables"):
        clone_replace(out, {x: 1.0})


def test_equal_computations():
    x, y = var("x"), var("y")
    assert equal_computations([add(x, y)], [add(x, y)])
    assert not equal_computations([add(x, y)], [mul(x, y)])
    assert not equal_computations([add(x, y)], [add(y, x)])
    assert equal_computations([add(x, y)], [add(y, x)], [x, y], [y, x])
    c1, c2 = Constant(tfloat, 2.0), Constant(tfloat, 2.0)
    assert equal_computations([add(x, c1)], [add(x, c2)])
    with pytest.raises(ValueError, match="same length"):
        equal_computations([x], [x, y])


def test_constant_is_read_only_with_signature():
    import numpy as np

    c = Constant(tfloat, 3)
    assert c.data == 3.0 and c.owner is None
    with pytest.raises(AttributeError, match="read-only"):
        c.data = 4.0
    assert c.signature() == Constant(tfloat, 3.0).signature()
    assert c.equals(Constant(tfloat, 3.0)) and not c.equals(Constant(tfloat, 4.0))
    assert c.clone() is c  # immutable: cloning shares it, as in PyTensor
    cl = c.clone(name="c2")
    assert cl is not c and cl.data == c.data and cl.name == "c2"
    from opgraph.graph.basic import _freeze

    arr = np.arange(3.0)
    frozen = _freeze(arr)
    assert not frozen.flags.writeable and arr.flags.writeable


def test_variable_basics():
    x = var("x")
    assert str(x) == "x" and x.clone().name == "x" and x.clone() is not x
    x.tag.note = 1
    assert x.clone().tag.note == 1
    assert var().auto_name.startswith("auto_")
    assert str(add(x, x)) == "add.0"
    assert isinstance(Elemwise2("sub")(x, x).owner, Apply)


def test_graph_utils_pytensor_helpers():
    from opgraph.graph.utils import AssocList, MetaObject, get_variable_trace_string

    table = AssocList()
    table[[1, 2]] = "list key"
    table["k"] = "hashable"
    assert table[[1, 2]] == "list key" and table["k"] == "hashable" and table[[3]] is None
    del table[[1, 2]]
    assert table.get([1, 2], "gone") == "gone"
    with pytest.raises(KeyError):
        del table[[9]]

    class Pair(MetaObject):
        __props__ = ("a", "b")

        def __init__(self, a, b):
            self.a, self.b = a, b

    assert Pair(1, 2) == Pair(1, 2) and Pair(1, 2) != Pair(1, 3)
    assert hash(Pair(1, 2)) == hash(Pair(1, 2)) and str(Pair(1, 2)) == "Pair{a=1, b=2}"
    v = var("v")
    v.tag.trace = [("f.py", 3, "build", "x = 1")]
    assert "f.py" in get_variable_trace_string(v) and "build" in get_variable_trace_string(v)
    v.tag.trace = []
    assert get_variable_trace_string(v) == ""

"""Features: History, Validator, ReplaceValidate rollback, NodeFinder, listeners."""

from __future__ import annotations

import io

import pytest
from toys import Elemwise2, Unary, add, dbl, mul, neg, var

from opgraph.graph.features import (
    AlreadyThere,
    Bookkeeper,
    Feature,
    History,
    NodeFinder,
    NoOutputFromInplace,
    PreserveVariableAttributes,
    PrintListener,
    ReplacementDidNotRemoveError,
    ReplaceValidate,
    Validator,
)
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.utils import InconsistencyError


def graph():
    x, y = var("x"), var("y")
    a = neg(x)
    a.name = "a"
    z = add(a, mul(x, y))
    z.name = "z"
    fg = FunctionGraph([x, y], [z], clone=False)
    for f in fg.features:  # every graph starts with a ReplaceValidate; these tests add their own
        fg.remove_feature(f)
    return fg, x, y, a, z


def snapshot(fg):
    return (
        set(fg.apply_nodes),
        set(fg.variables),
        {v: sorted(map(repr, cl)) for v, cl in fg.clients.items()},
        list(fg.outputs),
    )


def test_feature_defaults_do_nothing():
    f = Feature()
    fg, *_ = graph()
    assert f.orderings(fg) == {} and f.clone() is f
    for name in ("on_attach", "on_detach"):
        assert getattr(f, name)(fg) is None
    assert f.on_import(fg, None, None) is None and f.on_prune(fg, None, None) is None
    assert f.on_change_input(fg, None, 0, None, None) is None


def test_history_checkpoint_and_revert():
    fg, x, y, a, z = graph()
    h = History()
    fg.attach_feature(h)
    before = snapshot(fg)
    chk = fg.checkpoint()
    fg.replace(a, dbl(y))
    fg.replace(z, neg(x))
    assert snapshot(fg) != before
    fg.revert(chk)
    assert snapshot(fg) == before
    fg.check_integrity()
    assert fg.checkpoint() == chk
    with pytest.raises(ValueError, match="checkpoint must be between"):
        fg.revert(5)
    assert fg.attach_feature(History()) is False  # refused: one History per graph
    fg.remove_feature(h)
    assert not hasattr(fg, "checkpoint") and not hasattr(fg, "revert")


def test_history_reverts_type_narrowing_without_type_check():
    from toys import ToyType

    fg, _x, _y, a, z = graph()
    fg.attach_feature(History())
    exact = ToyType("float", exact=True)("e")
    fg.add_input(exact)
    chk = fg.checkpoint()
    fg.replace(a, exact)  # narrows: loose <- exact
    fg.revert(chk)  # exact <- loose needs check=False
    assert z.owner.inputs[0] is a
    fg.check_integrity()


class Forbid(Feature):
    """Validation fails while a node applying ``op`` is in the graph."""

    def __init__(self, op):
        self.op = op

    def validate(self, fgraph):
        if any(n.op == self.op for n in fgraph.apply_nodes):
            raise InconsistencyError(f"{self.op} is forbidden")
        return True


def test_validator_validate_and_consistent():
    fg, _x, _y, _a, _z = graph()
    fg.attach_feature(Validator())
    assert fg.validate() is True and fg.consistent() is True
    fg.attach_feature(Forbid(mul))
    with pytest.raises(InconsistencyError, match="forbidden"):
        fg.validate()
    assert fg.consistent() is False
    assert fg.attach_feature(Validator()) is False


def test_replace_validate_rolls_back_on_failed_validation():
    fg, x, y, a, z = graph()
    fg.attach_feature(ReplaceValidate())
    fg.attach_feature(Forbid(Unary("dbl")))
    before = snapshot(fg)
    with pytest.raises(InconsistencyError, match="forbidden"):
        fg.replace_all_validate([(a, neg(y)), (z, dbl(x))], reason="bad")
    assert snapshot(fg) == before
    fg.check_integrity()
    with pytest.raises(InconsistencyError):
        fg.replace_validate(a, dbl(y))
    assert snapshot(fg) == before
    fg.replace_validate(a, neg(y), reason="good")
    assert z.owner.inputs[0].owner.inputs == [y]
    fg.check_integrity()


def test_replace_validate_rolls_back_when_a_replace_raises():
    from toys import tother

    fg, _x, y, a, z = graph()
    fg.attach_feature(ReplaceValidate())
    before = snapshot(fg)
    with pytest.raises(TypeError, match="Cannot convert"):
        fg.replace_all_validate([(a, neg(y)), (z, tother("bad"))])
    assert snapshot(fg) == before


def test_replace_all_validate_remove():
    fg, x, _y, a, z = graph()
    fg.attach_feature(ReplaceValidate())
    before = snapshot(fg)
    keep = z.owner.inputs[1]
    with pytest.warns(UserWarning, match="did not remove"):
        with pytest.raises(ReplacementDidNotRemoveError):
            fg.replace_all_validate_remove([(a, dbl(x))], remove=[keep.owner], reason="r")
    assert snapshot(fg) == before
    fg.replace_all_validate_remove([(a, dbl(x))], remove=[a.owner])
    assert a.owner not in fg.apply_nodes
    assert fg.attach_feature(ReplaceValidate()) is False


def test_bookkeeper_replays_nodes():
    fg, *_ = graph()
    seen = []

    class Keeper(Bookkeeper):
        def on_import(self, fgraph, node, reason):
            seen.append(("import", str(node.op), reason))

        def on_prune(self, fgraph, node, reason):
            seen.append(("prune", str(node.op), reason))

    k = Keeper()
    fg.attach_feature(k)
    assert seen == [("import", "mul", "on_attach"), ("import", "neg", "on_attach"),
                    ("import", "add", "on_attach")]  # toposort: PyTensor's order
    seen.clear()
    fg.remove_feature(k)
    assert [s[0] for s in seen] == ["prune"] * 3


def test_node_finder_by_op_and_class():
    fg, x, _y, a, _z = graph()
    nf = NodeFinder()
    fg.attach_feature(nf)
    assert fg.get_nodes(neg) == [a.owner]
    assert fg.get_nodes(Elemwise2) and {n.op for n in fg.get_nodes(Elemwise2)} == {add, mul}
    fg.replace(a, dbl(x))
    assert fg.get_nodes(neg) == [] and len(fg.get_nodes(Unary)) == 1
    assert fg.attach_feature(NodeFinder()) is False
    fg.remove_feature(nf)
    assert not hasattr(fg, "get_nodes")


def test_print_listener_and_preserve_names():
    fg, x, _y, a, _z = graph()
    out = io.StringIO()
    fg.attach_feature(PrintListener(file=out))
    fg.attach_feature(PreserveVariableAttributes())
    new = dbl(x)
    fg.replace(a, new, reason="rn")
    text = out.getvalue()
    assert "attaching" in text and "importing: dbl(x)" in text and "pruning: neg(x)" in text
    assert "changing" in text and "reason: rn" in text
    assert new.name == "a"


def test_no_output_from_inplace():
    from toys import add_inplace

    x, y = var("x"), var("y")
    fg = FunctionGraph([x, y], [add(x, y)], clone=False)
    fg.attach_feature(Validator())
    fg.attach_feature(NoOutputFromInplace())
    fg.validate()
    fg.replace(fg.outputs[0], add_inplace(x, y))
    with pytest.raises(InconsistencyError, match="computed in place"):
        fg.validate()


def test_already_there_is_an_exception_with_a_message():
    fg, *_ = graph()
    h = History()
    fg.attach_feature(h)
    with pytest.raises(AlreadyThere, match=r"History instance .* already attached"):
        fg.attach_feature(h)


def test_clone_of_graph_clones_stateful_features():
    fg, _x, _y, _a, _z = graph()
    rv = ReplaceValidate()
    fg.attach_feature(rv)
    new = fg.clone()
    assert hasattr(new, "replace_all_validate")
    assert not any(f is rv for f in new._features)
    new.replace_validate(new.outputs[0].owner.inputs[0], neg(new.inputs[1]))
    fg.check_integrity()
    new.check_integrity()

"""DestroyHandler: refuses unsafe in-place graphs, orders destroyers last."""

from __future__ import annotations

import pytest
from toys import ToleratingInplaceAdd, add, add_inplace, neg, tfloat, var, view

from opgraph.graph.basic import Constant
from opgraph.graph.destroyhandler import DestroyHandler
from opgraph.graph.features import ReplaceValidate
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.utils import InconsistencyError


def make(inputs, outputs, mutable=()):
    fg = FunctionGraph(inputs, outputs, clone=False)
    dh = DestroyHandler(mutable_inputs=mutable)
    fg.attach_feature(dh)
    fg.attach_feature(ReplaceValidate())
    return fg, dh


def test_safe_inplace_on_intermediate_is_accepted():
    x, y = var("x"), var("y")
    t = neg(x)
    out = add_inplace(t, y)
    fg, _dh = make([x, y], [out])
    fg.validate()
    assert fg.destroyers(t) == [out.owner]
    assert fg.has_destroyers([t]) and not fg.has_destroyers([x])


def test_destroyer_is_ordered_after_other_readers():
    x, y = var("x"), var("y")
    t = neg(x)
    reader = add(t, y)  # reads t before it is overwritten
    v = view(t)
    reader2 = neg(v)  # reads t through a view
    d = add_inplace(t, y)
    fg, _dh = make([x, y], [d, reader, reader2])
    fg.validate()
    assert set(fg.orderings()[d.owner]) == {reader.owner, v.owner, reader2.owner}
    order = fg.toposort()
    assert order.index(d.owner) > max(
        order.index(reader.owner), order.index(reader2.owner), order.index(v.owner)
    )


def test_protected_input_is_refused_unless_mutable():
    x, y = var("x"), var("y")
    out = add_inplace(x, y)
    fg, dh = make([x, y], [out])
    with pytest.raises(InconsistencyError, match="protected graph input x"):
        fg.validate()
    assert dh.is_protected(x)
    dh.mark_mutable(x)
    fg.validate()
    fg2, _ = make([x, y], [add_inplace(x, y)], mutable=[x])
    fg2.validate()


def test_plain_handler_lets_inputs_be_destroyed_as_in_pytensor():
    x, y = var("x"), var("y")
    fg = FunctionGraph([x, y], [add_inplace(x, y)], clone=False)
    dh = DestroyHandler()
    fg.attach_feature(dh)
    assert fg.validate() and not dh.is_protected(x)
    assert dh.clone().protect_inputs is False
    # still refused: the destroyed input is also read after the destroyer
    fg2 = FunctionGraph([x, y], [add_inplace(x, y), neg(x)], clone=False)
    fg2.attach_feature(DestroyHandler())
    fg2.validate()  # the reader is ordered first
    guarded = DestroyHandler(protect_inputs=True)
    fg3 = FunctionGraph([x, y], [add_inplace(x, y)], clone=False)
    fg3.attach_feature(guarded)
    with pytest.raises(InconsistencyError, match="protected graph input x"):
        fg3.validate()
    assert guarded.clone().protect_inputs is True


def test_protected_through_a_view_and_constants():
    x, y = var("x"), var("y")
    fg, _ = make([x, y], [add_inplace(view(x), y)])
    with pytest.raises(InconsistencyError, match="protected graph input x"):
        fg.validate()
    c = Constant(tfloat, 1.0)
    fg, _ = make([y], [add_inplace(c, y)])
    with pytest.raises(InconsistencyError, match="constant"):
        fg.validate()
    t = neg(x)
    t.tag.indestructible = True
    fg, _ = make([x, y], [add_inplace(t, y)])
    with pytest.raises(InconsistencyError, match="indestructible"):
        fg.validate()


def test_value_needed_later_is_refused():
    x, y = var("x"), var("y")
    t = neg(x)
    d = add_inplace(t, y)
    later = add(t, d)  # needs the old t and the destroyed result: impossible
    fg, _ = make([x, y], [later])
    with pytest.raises(InconsistencyError, match=r"cycles|aliasing"):
        fg.validate()
    with pytest.raises(InconsistencyError):
        fg.toposort()


def test_cycle_through_a_later_reader_is_refused():
    x, y = var("x"), var("y")
    t = neg(x)
    d = add_inplace(t, y)
    later = add(neg(d), t)  # t read after d was computed from it
    fg, _ = make([x, y], [later])
    with pytest.raises(InconsistencyError, match="cycles"):
        fg.validate()


def test_two_destroyers_and_aliasing_and_outputs():
    x, y = var("x"), var("y")
    t = neg(x)
    fg, _ = make([x, y], [add(add_inplace(t, y), add_inplace(view(t), y))])
    with pytest.raises(InconsistencyError, match="Multiple destroyers"):
        fg.validate()
    fg, _ = make([x, y], [add_inplace(t, view(t))])
    with pytest.raises(InconsistencyError, match="Input aliasing"):
        fg.validate()
    fg, _ = make([x], [ToleratingInplaceAdd()(t, t)])
    fg.validate()
    fg, _ = make([x, y], [t, add_inplace(t, y)])
    with pytest.raises(InconsistencyError, match="graph output 0"):
        fg.validate()


def test_replace_validate_refuses_unsafe_inplace_and_rolls_back():
    x, y = var("x"), var("y")
    t = neg(x)
    safe = add(t, y)
    fg, _dh = make([x, y], [safe, neg(t)])
    before = (set(fg.apply_nodes), list(fg.outputs))
    # overwriting t while neg(t) still reads it is fine (ordering) ...
    fg.replace_validate(safe, add_inplace(t, y), reason="inplace")
    fg.validate()
    # ... but overwriting the graph input x is not
    with pytest.raises(InconsistencyError, match="protected"):
        fg.replace_validate(t, add_inplace(x, y), reason="unsafe")
    assert fg.outputs[1].owner.inputs[0] is t
    fg.check_integrity()
    assert before[1][1] is fg.outputs[1]


def test_incremental_updates_after_prune_and_change():
    x, y = var("x"), var("y")
    t = neg(x)
    d = add_inplace(t, y)
    fg, dh = make([x, y], [d])
    assert list(dh.destroyer_nodes) == [d.owner]
    fg.replace(d, add(t, y))
    assert dh.destroyer_nodes == {}
    fg.validate()
    assert fg.orderings() == {}
    fg.remove_feature(dh)
    assert not hasattr(fg, "destroyers")


def test_attach_twice_and_clone():
    x, y = var("x"), var("y")
    fg, dh = make([x, y], [add_inplace(neg(x), y)])
    assert fg.attach_feature(DestroyHandler()) is False
    new = fg.clone()
    assert new.destroy_handler is not dh
    new.validate()
    other = FunctionGraph([x], [neg(x)], clone=False)
    with pytest.raises(ValueError, match="one FunctionGraph"):
        other.attach_feature(dh)


def test_no_destroyers_means_free_validation():
    x, y = var("x"), var("y")
    fg, dh = make([x, y], [add(x, y)])
    fg.validate()
    assert dh.root_destroyer == {} and dh.get_roots(view(x)) == [x]

"""Containers, ``_finder``, shared state between functions, pickling and deep copies."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from compile_toys import TinyLinker, plus, twice

from opgraph.compile.function import function
from opgraph.compile.io import In
from opgraph.compile.maker import FunctionMaker, orig_function
from opgraph.compile.maker import function as maker_function
from opgraph.compile.mode import Mode
from opgraph.compile.prepare import UnusedInputError
from opgraph.compile.sharedvalue import shared
from opgraph.link.basic import Container
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import constant

dscal = TensorType("float64", ())


def tiny() -> Mode:
    return Mode(TinyLinker(), None)


def test_pytensor3_module_layout() -> None:
    from opgraph.compile.executor import Function
    from opgraph.compile.function import pfunc, types

    assert maker_function is function and types.Function is Function
    assert types.FunctionMaker is FunctionMaker
    x = dscal("x")
    assert pfunc([x], twice(x), mode=tiny())(2.0) == 4.0
    assert orig_function([In(x)], twice(x), mode=tiny())(3.0) == 6.0


def test_container_value_is_shared_between_functions() -> None:
    x, s = dscal("x"), dscal("s")
    cont = Container(s, storage=[np.array(0.0)])
    inc = function([x, In(s, value=cont, update=plus(s, x))], [], mode=tiny())
    read = function([In(s, value=inc._finder[s])], twice(s), mode=tiny())
    inc(2.0)
    assert cont.value == 2.0 and inc._finder["s"].value == 2.0
    assert read() == 4.0
    read._finder[0].value = 5.0  # set through the other function's container
    assert inc._finder[s].value == 5.0
    assert s in inc._finder and "nope" not in inc._finder
    with pytest.raises(KeyError):
        inc._finder["nope"]


def test_copy_has_its_own_cells() -> None:
    x, a = dscal("x"), dscal("a")
    f = function([x, In(a, name="a")], plus(x, a), mode=tiny())
    g = f.copy()
    assert g._finder[a].storage is not f._finder[a].storage
    assert g._finder[a].value is None and f.unpack_single == g.unpack_single
    assert f(1.0, 2.0) == g(1.0, 2.0) == 3.0


def test_pickle_and_deepcopy_recompile_with_state() -> None:
    x, s = dscal("x"), dscal("s")
    f = function([x, In(s, value=np.array(1.0), update=plus(s, x))], plus(s, x), mode=tiny())
    f(1.0)  # s: 1 -> 2
    for g in (pickle.loads(pickle.dumps(f)), copy.deepcopy(f)):
        assert s not in g._finder  # the copy has its own variables
        assert g._finder["s"].value == 2.0
        assert g(1.0) == 3.0 and g._finder["s"].value == 3.0
        assert f._finder[s].value == 2.0  # the original is untouched


def test_pickled_functions_keep_sharing_a_shared_variable() -> None:
    x = dscal("x")
    w = shared(np.array(1.0), "w")
    bump = function([x], plus(w, x), updates={w: plus(w, x)}, mode=tiny())
    read = function([], twice(w), mode=tiny())
    bump2, read2 = pickle.loads(pickle.dumps((bump, read)))
    bump2(2.0)
    assert read2() == 6.0 and read() == 2.0


def test_input_errors_follow_pytensor() -> None:
    x = dscal("x")
    w = shared(np.array(1.0), "w")
    with pytest.raises(UnusedInputError, match="is used twice in inputs"):
        function([x, x], twice(x), mode=tiny())
    with pytest.raises(TypeError, match=r"^Cannot use a shared variable \(w\) as explicit"):
        function([w], twice(w), mode=tiny())
    with pytest.raises(TypeError, match=r"In\(update=\.\.\.\)"):
        function([In(w, update=twice(w))], [], mode=tiny())
    with pytest.raises(RuntimeError, match="explicit input"):
        function([x], twice(x), givens={x: twice(x)}, mode=tiny())
    with pytest.raises(TypeError, match="no_default_updates"):
        function([x], twice(x), no_default_updates=1, mode=tiny())


def test_givens_apply_to_default_updates() -> None:
    a = shared(np.array(1.0), "a")
    a.default_update = plus(a, constant(3.0))
    f = function([], plus(a, constant(10.0)), givens={a: plus(a, constant(10.0))}, mode=tiny())
    assert f() == 21.0  # (1 + 10) + 10; then a <- (1 + 10) + 3
    assert f() == 34.0


def test_mutable_inputs_that_could_alias_are_grouped_and_copied_apart() -> None:
    vec = TensorType("float64", (None,))
    three = TensorType("float64", (3,))
    one = TensorType("float64", (1,))
    x1, x2, x3 = vec("x1"), three("x2"), one("x3")
    f = function([In(x1, mutable=True), In(x2, mutable=True)], [twice(x1), twice(x2)],
                 mode=tiny())
    assert f._potential_aliased_input_groups == ((0, 1),)
    g = function([In(x2, mutable=True), In(x3, mutable=True)], [twice(x2), twice(x3)],
                 mode=tiny())
    assert g._potential_aliased_input_groups == ()
    plain = function([x1, x2], [twice(x1), twice(x2)], mode=tiny())
    assert plain._potential_aliased_input_groups == ()
    value = np.ones(3)
    out1, out2 = f(value, value)  # the second argument is copied apart, results unchanged
    np.testing.assert_array_equal(out1, 2 * np.ones(3))
    np.testing.assert_array_equal(out2, 2 * np.ones(3))


def test_update_values_never_alias_other_state() -> None:
    mat = TensorType("float64", (None, None))
    a = shared(np.zeros((2, 2)) + 0.5, "a")
    b = shared(np.zeros((2, 2)) - 0.5, "b")
    function([], [], updates=[(a, b)], mode=tiny())()
    assert not np.may_share_memory(a.get_value(borrow=True), b.get_value(borrow=True))
    c = mat("c")
    z = np.zeros((2, 2))
    function([c], [], updates=[(a, b), (b, c)], mode=tiny())(z)
    assert not np.may_share_memory(z, b.get_value(borrow=True))
    np.testing.assert_array_equal(a.get_value(), np.zeros((2, 2)) - 0.5)


def test_unused_input_is_reported_before_a_missing_one() -> None:
    x, s = dscal("x"), dscal("s")
    with pytest.raises(UnusedInputError):
        function([s], twice(x), mode=tiny())


def test_swapping_shared_variables_needs_no_copy() -> None:
    a = shared(np.zeros((2, 2)) + 0.5, "a")
    b = shared(np.zeros((2, 2)) - 0.5, "b")
    old_a, old_b = a.get_value(borrow=True), b.get_value(borrow=True)
    function([], [], updates=[(a, b), (b, a)], mode=tiny())()
    new_a, new_b = a.get_value(borrow=True), b.get_value(borrow=True)
    assert new_a is old_b and new_b is old_a  # swapped, not copied
    assert new_a[0, 0] == -0.5 and new_b[0, 0] == 0.5


def test_two_updates_from_one_value_get_separate_arrays() -> None:
    mat = TensorType("float64", (None, None))
    a = shared(np.zeros((2, 2)), "a")
    b = shared(np.zeros((2, 2)), "b")
    d = mat("d")
    function([d], [], updates=[(a, d), (b, d)], mode=tiny())(np.ones((2, 2)))
    assert not np.may_share_memory(a.get_value(borrow=True), b.get_value(borrow=True))


def test_vm_handle_shows_storage_and_runs_the_graph() -> None:
    x = dscal("x")
    w = shared(np.array(2.0), "w")
    f = function([x], plus(twice(x), w), mode=tiny())
    assert f.vm.storage_map is f.storage_map and f.vm.allow_gc is True
    assert len(f.vm.nodes) == 2
    cells = [cell for var, cell in f.vm.storage_map.items() if var.name == "w"]
    assert cells and cells[0] is w.container.storage
    f.input_storage[0][0] = np.array(3.0)
    f.vm()  # runs the graph on the cells as they are
    assert f.output_storage[0][0] == 8.0


def test_functions_pickle_after_their_ops_have_run() -> None:
    x, a = dscal("x"), dscal("a")
    f = function([x, a], x + a + x, mode=tiny())
    assert f(1.0, 2.0) == 4.0  # running caches per-op state that must not be pickled
    g = pickle.loads(pickle.dumps(f))
    assert g(1.0, 2.0) == 4.0


def test_rebuild_strict_false_lets_givens_change_types() -> None:
    w = TensorType("int32", (None, None))("w")
    x, y = TensorType("int32", (None,))("x"), TensorType("int32", (None,))("y")
    z = x * y
    with pytest.raises(TypeError, match="does not fit"):
        function([w, y], z, givens=[(x, w)], mode=tiny())
    f = function([w, y], z, givens=[(x, w)], rebuild_strict=False, mode=tiny())
    out = f(np.ones((3, 5), dtype="int32"), np.arange(5, dtype="int32"))
    assert out.ndim == 2
    np.testing.assert_array_equal(out, np.ones((3, 5)) * np.arange(5))


def test_setting_vm_allow_gc_relinks_and_keeps_intermediates() -> None:
    x = dscal("x")
    w = shared(np.array(1.0), "w")
    f = function([x], plus(twice(x), w), updates={w: plus(w, x)}, mode=tiny())
    f.vm.allow_gc = False
    assert f.vm.allow_gc is False
    assert f(2.0) == 5.0 and w.get_value() == 3.0  # state and updates survive relinking
    inner = [cell for var, cell in f.vm.storage_map.items()
             if var.owner is not None and var not in f.maker.fgraph.outputs]
    assert inner and all(cell[0] is not None for cell in inner)
    f.free()
    assert all(cell[0] is None for cell in inner)
    assert f(1.0) == 5.0


def test_in_update_must_fit_the_input_type() -> None:
    vec = TensorType("float64", (None,))
    with pytest.raises(TypeError, match="does not fit the input's type"):
        In(dscal("a"), update=vec("b"))
    assert In(dscal("a"), update=twice(dscal("c"))).update is not None

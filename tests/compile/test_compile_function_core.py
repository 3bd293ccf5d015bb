"""function(), In/Out and shared variables in the core alone (a test linker, no plugin)."""

from __future__ import annotations

import numpy as np
import pytest
from compile_toys import TinyLinker, plus, twice

from opgraph.compile.function import Function, function
from opgraph.compile.io import In, Out
from opgraph.compile.mode import Mode
from opgraph.compile.sharedvalue import SharedVariable, generic_type, shared
from opgraph.graph.basic import Variable
from opgraph.tensor.type import TensorType

dvec = TensorType("float64", (None,))


def tiny() -> Mode:
    return Mode(TinyLinker(), None)


def test_in_out_wrappers() -> None:
    x = dvec("x")
    i = In(x, name="a", value=np.ones(2))
    assert i.name == "a" and not i.mutable and not i.borrow and i.has_default
    assert In(x).name == "x" and not In(x).has_default
    assert In(x, mutable=True).borrow
    with pytest.raises(ValueError, match="mutable=True requires borrow=True"):
        In(x, mutable=True, borrow=False)
    with pytest.raises(TypeError, match="symbolic Variable"):
        In(3)
    assert Out(x, borrow=True).borrow
    with pytest.raises(TypeError, match="symbolic Variable"):
        Out("y")


def test_function_in_core_with_test_linker() -> None:
    x, y = dvec("x"), dvec("y")
    f = function([x, In(y, value=np.array([1.0, 1.0]))], [plus(x, y), twice(x)], mode=tiny())
    assert isinstance(f, Function)
    a, b = f([1.0, 2.0])
    assert a.tolist() == [2.0, 3.0] and b.tolist() == [2.0, 4.0]
    assert f(y=[0.0, 0.0], x=[1.0, 1.0])[0].tolist() == [1.0, 1.0]
    assert [v.name for v in f.maker.fgraph.inputs] == ["x", "y"]
    assert len(f.maker.fgraph.outputs) == 2


def test_function_bad_dtype_and_rank_name_the_input() -> None:
    x = dvec("x")
    f = function([x], twice(x), mode=tiny())
    with pytest.raises(TypeError, match=r"input 0 \('x'\).*dimensions"):
        f(np.ones((2, 2)))
    with pytest.raises(TypeError, match=r"input 0 \('x'\)"):
        f(np.array([1, 2], dtype=np.complex128))
    with pytest.raises(TypeError, match=r"input 0 \('x'\)"):
        f([[1.0], [1.0, 2.0]])
    assert f([1.0]).tolist() == [2.0]


def test_shared_constructors() -> None:
    s = shared(np.arange(3.0), "s")
    assert s.type == dvec and s.name == "s" and s.tag.is_shared
    n = shared(2.5)
    assert n.type == TensorType("float64", ()) and n.get_value() == 2.5
    i = shared(np.int64(3))
    assert i.type.dtype == "int64"
    g = shared({"a": 1})
    assert g.type is generic_type and g.get_value() == {"a": 1}
    with pytest.raises(TypeError, match="symbolic Variable"):
        shared(dvec("x"))
    b = shared(np.ones(2), shape=(2,))
    assert b.type.shape == (2,)


def test_shared_set_value_bad_value_leaves_value() -> None:
    s = shared(np.arange(3.0), "s")
    with pytest.raises(TypeError, match="'s'"):
        s.set_value(np.ones((2, 2)))
    with pytest.raises(TypeError, match="'s'"):
        s.set_value(["a", "b"])
    assert s.get_value().tolist() == [0.0, 1.0, 2.0]
    s.set_value([5, 6])  # ints convert safely to float64
    assert s.get_value().dtype == np.float64 and s.get_value().tolist() == [5.0, 6.0]
    s.zero()
    assert s.get_value().tolist() == [0.0, 0.0]


def test_shared_update_in_core() -> None:
    x = dvec("x")
    s = shared(np.zeros(2), "s")
    f = function([x], s, updates={s: plus(s, x)}, mode=tiny())
    assert f([1.0, 2.0]).tolist() == [0.0, 0.0]
    assert s.get_value().tolist() == [1.0, 2.0]
    assert f.get_shared() == [s]
    assert isinstance(f.maker.fgraph.inputs[1], SharedVariable)
    assert f.maker.fgraph.inputs[1].container is s.container


def test_shared_as_explicit_input_is_refused() -> None:
    s = shared(np.zeros(2), "s")
    with pytest.raises(TypeError, match="implicit"):
        function([s], twice(s), mode=tiny())


def test_update_type_mismatch_is_a_type_error_naming_the_variable() -> None:
    s = shared(np.zeros(2), "s")
    m = TensorType("float64", (None, None))("m")
    with pytest.raises(TypeError, match="update of shared variable s"):
        function([m], m, updates={s: m}, mode=tiny())
    assert s.get_value().tolist() == [0.0, 0.0]


def test_eval_uses_function_and_caches() -> None:
    x = dvec("x")
    y = twice(x)
    assert isinstance(y, Variable)
    mode = tiny()  # the default mode needs a plugin linker; give eval an explicit one
    assert y.eval({x: [1.0]}, mode=mode).tolist() == [2.0]
    assert y.eval({x: [3.0]}, mode=mode).tolist() == [6.0]
    assert len(y._fn_cache) == 1

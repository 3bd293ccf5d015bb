"""wrap_py / as_op, ViewOp, DeepCopyOp and the compile lock."""

from __future__ import annotations

import os
import pickle
import threading

import filelock
import numpy as np
import pytest
from compile_toys import TinyLinker

from opgraph.compile.compilelock import force_unlock, local_mem, lock_ctx
from opgraph.compile.function import function
from opgraph.compile.mode import Mode
from opgraph.compile.ops import FromFunctionOp, as_op, deep_copy_op, view_op, wrap_py
from opgraph.tensor.type import dmatrix, dvector


def tiny() -> Mode:
    return Mode(TinyLinker(), None)


@wrap_py([dmatrix, dmatrix], dmatrix)
def module_level_mul(a, b):
    return a * b


def test_wrap_py_computes_like_numpy() -> None:
    x, y = dmatrix("x"), dvector("y")

    @wrap_py([dmatrix, dvector], dvector)
    def cumprod_plus(a, b):
        return np.cumprod(a) + b

    assert isinstance(cumprod_plus, FromFunctionOp)
    xv, yv = np.array([[1.5, 5.0], [2.0, 2.0]]), np.array([1.0, 100.0, 2.0, 200.0])
    out = function([x, y], cumprod_plus(x, y), mode=tiny())(xv, yv)
    np.testing.assert_allclose(out, np.cumprod(xv) + yv)


def test_wrap_py_checks_types_and_arity() -> None:
    with pytest.raises(TypeError, match="itypes must be Types"):
        wrap_py([3], dvector)
    with pytest.raises(TypeError, match="expected 2 input"):
        module_level_mul(dmatrix("x"))
    with pytest.raises(TypeError, match="input 0 must be"):
        module_level_mul(dvector("v"), dmatrix("m"))


def test_wrap_py_infer_shape_and_pickle() -> None:
    def shapes(fgraph, node, input_shapes):
        return [input_shapes[1]]

    op = wrap_py([dmatrix, dvector], dvector, shapes)(lambda a, b: b)
    node = op(dmatrix("a"), dvector("b")).owner
    assert op.infer_shape(None, node, [("m", "n"), ("k",)]) == [("k",)]
    with pytest.raises(NotImplementedError, match="no infer_shape"):
        module_level_mul.infer_shape(None, node, [])
    m = module_level_mul(dmatrix("x"), dmatrix("y"))
    assert pickle.loads(pickle.dumps(m)).owner.op == m.owner.op


def test_as_op_is_deprecated_but_works() -> None:
    with pytest.warns(FutureWarning, match="wrap_py"):
        op = as_op(dvector, dvector)(lambda v: v * 2)
    v = dvector("v")
    np.testing.assert_array_equal(function([v], op(v), mode=tiny())([1.0, 2.0]), [2.0, 4.0])


def test_view_and_deep_copy_ops() -> None:
    value = np.arange(3.0)
    cell = [[None]]
    view_op.perform(None, [value], cell)
    assert cell[0][0] is value and view_op.view_map == {0: [0]}
    deep_copy_op.perform(None, [value], cell)
    assert cell[0][0] is not value and np.array_equal(cell[0][0], value)
    with pytest.raises(TypeError, match="symbolic Variable"):
        view_op(3)


def test_lock_nests_in_a_thread_and_excludes_other_threads(tmp_path) -> None:
    key = f"{tmp_path}-{os.getpid()}"
    other: list[str] = []

    def try_lock() -> None:
        try:
            with lock_ctx(tmp_path, timeout=0.1):
                other.append("got it")
        except filelock.Timeout:
            other.append("timeout")

    with lock_ctx(tmp_path):
        assert local_mem._locks[key]
        with lock_ctx(tmp_path, timeout=0.1):  # re-entrant in the same thread
            pass
        t = threading.Thread(target=try_lock)
        t.start()
        t.join()
    assert other == ["timeout"]
    t = threading.Thread(target=try_lock)
    t.start()
    t.join()
    assert other == ["timeout", "got it"]
    force_unlock(tmp_path)
    assert key not in local_mem._locks


def test_an_output_that_is_an_input_is_a_deep_copy_node() -> None:
    """PyTensor's graph shape: fn.maker.fgraph holds a DeepCopyOp per output that is an
    input or a constant (PyMC counts the nodes); the value is a copy, computed once."""
    from opgraph.compile.ops import DeepCopyOp
    from opgraph.tensor.basic import constant

    x, y = dvector("x"), dvector("y")
    f = function([x, y], [x, x + y, constant(np.ones(2))], mode=tiny())
    ops = sorted(type(n.op).__name__ for n in f.maker.fgraph.apply_nodes)
    assert ops == ["DeepCopyOp", "DeepCopyOp", "Elemwise"]
    a = np.array([1.0, 2.0])
    out = f(a, a)
    assert out[0] is not a and np.shares_memory(out[0], a) is False
    np.testing.assert_array_equal(out[0], a)
    np.testing.assert_array_equal(out[2], [1.0, 1.0])
    out[2][0] = 5.0
    np.testing.assert_array_equal(f(a, a)[2], [1.0, 1.0])
    g = function([x], x + 1, mode=tiny())
    assert not any(isinstance(n.op, DeepCopyOp) for n in g.maker.fgraph.apply_nodes)

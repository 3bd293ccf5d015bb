"""function(mode="DASK") end to end: inputs, lazy results, gradients, updates, fallback, errors."""

from __future__ import annotations

import warnings

import dask.array as da
import numpy as np
import pytest
from dask_helpers import assert_same, compile_both
from opgraph_dask import dask_options
from opgraph_dask.linker import DaskLinker
from opgraph_dask.translate import DaskFallbackWarning

import opgraph.tensor as pt
from opgraph import function, grad, shared
from opgraph.compile.mode import Mode
from opgraph.graph.basic import Apply
from opgraph.graph.op import Op
from opgraph.plugins import OpImpl, get_plugin_manager, hookimpl

x = pt.matrix("x")
v = pt.vector("v")


def test_numpy_inputs_give_numpy_outputs_with_default_chunks():
    ref, fd = compile_both([x], [pt.tanh(x).sum(axis=0), x[2:] * 3])
    a = np.random.default_rng(1).normal(size=(40, 9))
    assert_same(ref(a), fd(a))
    with dask_options(chunks=(7, 4)):
        assert_same(ref(a), fd(a))


def test_chunks_option_sets_the_chunking_of_numpy_inputs():
    fd = function([x], x * 2, mode="DASK")
    with dask_options(chunks=(3, 5), lazy=True):
        out = fd(np.ones((7, 5)))
    assert isinstance(out, da.Array)
    assert out.chunks == ((3, 3, 1), (5,))
    np.testing.assert_allclose(out.compute(), 2 * np.ones((7, 5)))


def test_lazy_linker_option_returns_dask_arrays():
    fd = function([x], [x.sum(), x + 1], mode=Mode(linker=DaskLinker(lazy=True)))
    total, plus = fd(np.ones((4, 3)))
    assert isinstance(total, da.Array) and isinstance(plus, da.Array)
    assert float(total.compute()) == 12.0
    with dask_options(lazy=False):
        total, plus = fd(np.ones((4, 3)))
    assert isinstance(total, np.ndarray) and total.shape == () and total == 12.0


def test_memory_mapped_input(tmp_path):
    a = np.arange(60.0).reshape(12, 5)
    path = tmp_path / "a.npy"
    np.save(path, a)
    mm = np.load(path, mmap_mode="r")
    ref, fd = compile_both([x], [(x**2).sum(axis=1), x.T[::2]])
    with dask_options(chunks=(5, 5)):
        assert_same(ref(a), fd(mm))


def test_dask_array_input_values():
    ref, fd = compile_both([x], [x.max(axis=1) - x.min(axis=1)])
    a = np.random.default_rng(2).normal(size=(9, 4))
    # through the input check (converted to NumPy) and past it (kept as is)
    assert_same(ref(a), fd(da.from_array(a, chunks=(2, 3))))
    fd.trust_input = True
    assert_same(ref(a), fd(da.from_array(a, chunks=(2, 3))))


def test_dask_array_of_wrong_dtype_is_named_in_the_error():
    fd = function([x], x + 1, mode="DASK")
    fd.trust_input = True
    with pytest.raises(TypeError, match=r"input 0 \('x'\).*dtype int32"):
        fd(da.ones((2, 2), dtype="int32"))


def test_non_array_input_gets_the_same_error_as_other_modes():
    ref, fd = compile_both([x], x + 1)
    with pytest.raises(TypeError) as expected:
        ref("not an array")
    with pytest.raises(TypeError) as got:
        fd("not an array")
    assert str(got.value) == str(expected.value)


def test_gradient_graph():
    w = pt.vector("w")
    cost = pt.log1p(pt.exp(-pt.dot(x, w))).mean() + (w**2).sum() * 0.01
    gw = grad(cost, w)
    ref, fd = compile_both([x, w], [cost, gw])
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(23, 6)), rng.normal(size=6)
    with dask_options(chunks=(5, 4)):
        got = fd(a, b)
    assert_same(ref(a, b), got)
    eps = 1e-6
    num = [(ref(a, b + eps * e)[0] - ref(a, b - eps * e)[0]) / (2 * eps) for e in np.eye(6)]
    np.testing.assert_allclose(got[1], num, rtol=1e-5, atol=1e-8)


def test_shared_variable_update_is_applied_after_the_call():
    acc = shared(np.zeros(4), name="acc")
    fd = function([x], x.sum(), updates=[(acc, acc + x.sum(axis=0))], mode="DASK")
    a = np.arange(12.0).reshape(3, 4)
    with dask_options(lazy=True, chunks=2):
        total = fd(a)
        fd(a)
    assert isinstance(total, da.Array)
    value = acc.get_value()
    assert isinstance(value, np.ndarray)  # state is never left lazy
    np.testing.assert_allclose(value, 2 * a.sum(axis=0))


class Cumulative(Op):
    """A test Op with no dask translation: cumulative sum along axis 0."""

    __props__ = ()

    def make_node(self, a):
        a = pt.as_tensor_variable(a)
        return Apply(self, [a], [a.type()])

    def perform(self, node, inputs, out):
        out[0][0] = np.cumsum(inputs[0], axis=0)


def test_op_without_translation_runs_whole_with_one_warning():
    out = Cumulative()(x * 2) + 1
    ref, fd = compile_both([x], [out, Cumulative()(x)])
    a = np.arange(20.0).reshape(5, 4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with dask_options(chunks=2):
            got = fd(a)
            fd(a)
    fallbacks = [w for w in caught if issubclass(w.category, DaskFallbackWarning)]
    assert len(fallbacks) == 1
    assert "Cumulative" in str(fallbacks[0].message)
    assert_same(ref(a), got)
    with dask_options(chunks=2, lazy=True):
        lazy = fd(a)[0]
    assert lazy.chunks == ((2, 2, 1), (2, 2))  # cut again after the whole-array node


class Chunky:
    """A third-party dask translation for Cumulative, given through the hook."""

    calls = 0

    @hookimpl
    def opgraph_op_impl(self, op, backend):
        if backend == "dask" and isinstance(op, Cumulative):
            def translate(node, values, ctx):
                Chunky.calls += 1
                return [da.cumsum(values[0], axis=0)]
            return OpImpl("dask", translate)
        return None


def test_third_party_translation_through_the_hook():
    pm = get_plugin_manager()
    plugin = Chunky()
    pm.register(plugin, name="test-dask-cumulative")
    try:
        ref, fd = compile_both([x], Cumulative()(x))
        a = np.arange(20.0).reshape(5, 4)
        with warnings.catch_warnings():
            warnings.simplefilter("error", DaskFallbackWarning)
            with dask_options(chunks=2):
                assert_same(ref(a), fd(a))
        assert Chunky.calls == 1
    finally:
        pm.unregister(plugin)


def test_node_errors_name_the_node():
    fd = function([x, v], pt.dot(x, v), mode="DASK")
    with pytest.raises(ValueError, match="not aligned") as info:
        fd(np.ones((3, 4)), np.ones(5))
    assert any("Apply node that caused the error" in n for n in info.value.__notes__)


def test_bad_options_are_rejected():
    with pytest.raises(TypeError, match="lazy must be a bool"):
        DaskLinker(lazy="yes")
    with pytest.raises(TypeError, match="lazy must be a bool"):
        with dask_options(lazy=1):
            pass


def test_chunks_per_input_by_name_and_by_rank():
    w = pt.vector("w")
    fd = function([x, w], [x * 2, w + 1], mode="DASK")
    a, b = np.ones((6, 4)), np.ones(5)
    with dask_options(chunks={"x": (4, 1), "w": 2}, lazy=True):
        ox, ow = fd(a, b)
    assert ox.chunks == ((4, 2), (1, 1, 1, 1)) and ow.chunks == ((2, 2, 1),)
    with dask_options(chunks=(3, 2), lazy=True):
        ox, ow = fd(a, b)
    assert ox.chunks == ((3, 3), (2, 2)) and ow.chunks == ((3, 2),)


def test_alloc_from_concrete_values_is_built_in_chunks():
    ref, fd = compile_both([x], [pt.alloc(0.5, x.shape[0], 6), pt.alloc(x[0], 4, x.shape[1])])
    a = np.arange(12.0).reshape(3, 4)
    with dask_options(chunks=2):
        assert_same(ref(a), fd(a))
    with dask_options(chunks=(2, 4), lazy=True):
        filled, rows = fd(a)
    assert filled.chunks == ((2, 1), (4, 2)) and rows.chunks == ((2, 2), (4,))


class Boom(Cumulative):
    """Translated (through the hook) into chunks that fail when computed."""


def _boom(block):
    raise RuntimeError("the branch that was not chosen was computed")


class BoomPlugin:
    @hookimpl
    def opgraph_op_impl(self, op, backend):
        if backend == "dask" and isinstance(op, Boom):
            return OpImpl("dask", lambda node, values, ctx: [
                da.map_blocks(_boom, values[0], dtype="float64")])
        return None


def test_ifelse_computes_only_the_chosen_branch():
    from opgraph.ifelse import ifelse

    pm = get_plugin_manager()
    plugin = BoomPlugin()
    pm.register(plugin, name="test-dask-boom")
    try:
        fd = function([x], ifelse(x.sum() > 0, Boom()(x) * 2, x - 1), mode="DASK")
        a = np.arange(12.0).reshape(3, 4) + 1
        with dask_options(chunks=2):
            np.testing.assert_allclose(fd(-a), -a - 1)
            with pytest.raises(RuntimeError, match="not chosen was computed"):
                fd(a)
    finally:
        pm.unregister(plugin)

"""Random fused graphs (hypothesis) and C supplied by third parties (Op methods, the hook)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode, get_mode
from opgraph.graph.basic import Apply
from opgraph.graph.op import Op
from opgraph.plugins import OpImpl, hookimpl
from opgraph.tensor.type import TensorType

UNARY = [pt.exp, pt.tanh, pt.sin, lambda v: v * v, lambda v: -v, abs, lambda v: v + 1.5]
BINARY = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a - b, pt.maximum, pt.minimum,
          lambda a, b: pt.switch(pt.lt(a, b), a, b)]


@st.composite
def graphs(draw):
    dtype = draw(st.sampled_from(["float64", "float32"]))
    x, y = pt.matrix("x", dtype=dtype), pt.matrix("y", dtype=dtype)
    pool = [x, y]
    for _ in range(draw(st.integers(2, 8))):
        if draw(st.booleans()):
            pool.append(draw(st.sampled_from(UNARY))(draw(st.sampled_from(pool))))
        else:
            a, b = draw(st.sampled_from(pool)), draw(st.sampled_from(pool))
            pool.append(draw(st.sampled_from(BINARY))(a, b))
    layout = draw(st.sampled_from(["c", "t", "neg", "step", "empty"]))
    return dtype, [x, y], pool[-1], layout


@settings(max_examples=15, deadline=None)  # each example compiles a C module
@given(graphs())
def test_random_fused_graphs_match_python(case):
    dtype, inputs, out, layout = case
    fast_run = get_mode("FAST_RUN")
    c = function(inputs, out, mode=Mode(linker="c", optimizer=fast_run.optimizer),
                 on_unused_input="ignore")
    py = function(inputs, out, mode=Mode(linker="py", optimizer=None), on_unused_input="ignore")
    rng = np.random.default_rng(1)
    a, b = (rng.uniform(-2, 2, (6, 8)).astype(dtype) for _ in range(2))
    a, b = {"c": (a, b), "t": (a.T.copy().T, b[:, :]), "neg": (a[::-1], b[:, ::-1]),
            "step": (a[::2, ::3], b[1::2, ::3]), "empty": (a[:0], b[:0])}[layout]
    with np.errstate(all="ignore"):
        got, want = c(a, b), py(a, b)
    tol = 1e-4 if dtype == "float32" else 1e-11
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True)


class TimesTwo(Op):
    """A third-party Op with its own C (PyTensor's c_code protocol)."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [TensorType("float64", x.type.shape)()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0] * 2.0

    def c_support_code(self):
        return "static double times_two(double v) { return 2.0 * v; }"

    def c_code(self, node, name, inputs, outputs, sub):
        (x,), (z,) = inputs, outputs
        return f"""
        Py_XDECREF({z});
        {z} = (PyArrayObject *)PyArray_NewLikeArray({x}, NPY_CORDER, NULL, 0);
        if (!{z}) {sub['fail']}
        {{ npy_intp n = PyArray_SIZE({x});
           PyArrayObject *src = (PyArrayObject *)PyArray_GETCONTIGUOUS({x});
           if (!src) {sub['fail']}
           const double *a = (const double *)PyArray_DATA(src);
           double *b = (double *)PyArray_DATA({z});
           for (npy_intp i = 0; i < n; i++) b[i] = times_two(a[i]);
           Py_DECREF(src); }}
        """

    def c_code_cache_version(self):
        return (1,)


class PlusOne(Op):
    """Someone else's Op with no C at all."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0] + 1.0


class PlusOneC:
    """C for PlusOne, given by another package through opgraph_op_impl."""

    def c_code(self, node, name, inputs, outputs, sub):
        (x,), (z,) = inputs, outputs
        return f"""
        Py_XDECREF({z});
        {z} = (PyArrayObject *)PyArray_NewCopy({x}, NPY_CORDER);
        if (!{z}) {sub['fail']}
        {{ double *b = (double *)PyArray_DATA({z});
           for (npy_intp i = 0; i < PyArray_SIZE({z}); i++) b[i] += 1.0; }}
        """


class PlusOnePlugin:
    @hookimpl
    def opgraph_op_impl(self, op, backend):
        if backend == "c" and isinstance(op, PlusOne):
            return OpImpl("c", PlusOneC())
        return None


def _origins(fn):
    from opgraph_c.codegen.nodec import EmitContext
    from opgraph_c.codegen.registry import c_for_node

    order = fn.maker.fgraph.toposort()
    return [c_for_node(n, k, EmitContext(False))[1] for k, n in enumerate(order)]


def _origin_of(fn, op_type):
    """Where the C of the (one) node of ``op_type`` comes from, whatever the node order."""
    order = fn.maker.fgraph.toposort()
    (k,) = [k for k, n in enumerate(order) if isinstance(n.op, op_type)]
    return _origins(fn)[k]


def test_op_with_c_code_method():
    x = pt.dvector("x")
    f = function([x], TimesTwo()(x[::-1]), mode=Mode(linker="c", optimizer=None))
    assert "op" in _origins(f)
    np.testing.assert_allclose(f(np.arange(4.0)), [6, 4, 2, 0])


def test_package_gives_c_for_someone_elses_op_through_the_hook():
    from opgraph.plugins import get_plugin_manager

    pm = get_plugin_manager()
    plugin = PlusOnePlugin()
    pm.register(plugin, name="test-plus-one-c")
    try:
        x = pt.dvector("x")
        f = function([x], PlusOne()(x) * 3, mode=Mode(linker="c", optimizer=None))
        assert _origin_of(f, PlusOne) == "hook"
        np.testing.assert_allclose(f(np.arange(3.0)), [3, 6, 9])
    finally:
        pm.unregister(plugin)
    g = function([x], PlusOne()(x) * 3, mode=Mode(linker="c", optimizer=None))
    assert _origin_of(g, PlusOne) == "python"
    np.testing.assert_allclose(g(np.arange(3.0)), [3, 6, 9])


def test_cvm_linker_matches():
    x, y = pt.dvector("x"), pt.dvector("y")
    out = pt.concatenate([pt.exp(x) * y, x]).sum()
    f = function([x, y], out, mode="CVM")
    a, b = np.arange(3.0), np.ones(3)
    np.testing.assert_allclose(f(a, b), (np.exp(a) * b).sum() + a.sum())


class CountingPlusOnePlugin(PlusOnePlugin):
    def __init__(self):
        self.calls = 0

    @hookimpl
    def opgraph_op_impl(self, op, backend):
        self.calls += 1
        return super().opgraph_op_impl(op, backend)


def test_two_modes_with_different_plugin_sets_compile_side_by_side():
    import opgraph_c.plugin as c_plugin
    import opgraph_numpy.plugin as numpy_plugin

    from opgraph.plugins import make_plugin_manager

    counting = CountingPlusOnePlugin()
    with_c_for_plus_one = make_plugin_manager(
        plugins=[("opgraph-c", c_plugin), ("opgraph-numpy", numpy_plugin),
                 ("plus-one-c", counting)], strict=True)
    without = make_plugin_manager(
        plugins=[("opgraph-c", c_plugin), ("opgraph-numpy", numpy_plugin)], strict=True)
    x = pt.dvector("x")
    fa = function([x], PlusOne()(x) * 3,
                  mode=Mode(linker="c", optimizer=None, plugin_manager=with_c_for_plus_one))
    assert counting.calls > 0  # the C linker asked this mode's manager
    seen = counting.calls
    fb = function([x], PlusOne()(x) * 3,
                  mode=Mode(linker="c", optimizer=None, plugin_manager=without))
    assert counting.calls == seen  # ... and the other mode never reached this plugin
    for f in (fa, fb):
        np.testing.assert_allclose(f(np.arange(3.0)), [3, 6, 9])


class AddOneTyped(Op):
    """C written against PyTensor's ``dtype_<name>`` element typedefs."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0] + 1

    def c_code(self, node, name, inputs, outputs, sub):
        (x,), (z,) = inputs, outputs
        return f"""
        Py_XDECREF({z});
        {z} = (PyArrayObject *)PyArray_NewCopy({x}, NPY_CORDER);
        if (!{z}) {sub['fail']}
        {{ dtype_{z} *b = (dtype_{z} *)PyArray_DATA({z});
           for (npy_intp i = 0; i < PyArray_SIZE({z}); i++) b[i] += (dtype_{x})1; }}
        """

    def c_code_cache_version(self):
        return (1,)


@pytest.mark.parametrize("dtype", ["float32", "int16"])
def test_c_code_can_use_dtype_typedefs_of_its_variables(dtype):
    x = pt.vector("x", dtype=dtype)
    f = function([x], AddOneTyped()(x), mode=Mode(linker="c", optimizer=None))
    assert "op" in _origins(f)
    got = f(np.arange(3).astype(dtype))
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, [1, 2, 3])

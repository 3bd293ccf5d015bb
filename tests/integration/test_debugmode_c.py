"""DebugMode against the C linker: each node's C must agree with its perform."""

from __future__ import annotations

import numpy as np
import pytest

from opgraph.compile.debug.debugmode import BadDestroyMap, BadThunkOutput, BadViewMap, DebugMode
from opgraph.compile.function import function
from opgraph.compile.mode import LinkerUnavailableError, resolve_linker
from opgraph.graph.basic import Apply
from opgraph.link.c.op import COp
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable

try:
    resolve_linker("c")
    HAVE_C = True
except LinkerUnavailableError:
    HAVE_C = False

pytestmark = pytest.mark.skipif(not HAVE_C, reason="needs the C linker and a compiler")

dvec = TensorType("float64", (None,))
dmat = TensorType("float64", (None, None))


class AddC(COp):
    """a + b (+ 0.5 in perform when ``py_offset``); the C always adds 0.5."""

    __props__ = ("py_offset",)

    def __init__(self, py_offset: bool) -> None:
        self.py_offset = py_offset

    def make_node(self, a, b):
        a, b = as_tensor_variable(a), as_tensor_variable(b)
        return Apply(self, [a, b], [a.type()])

    def perform(self, node, inputs, out):
        z = inputs[0] + inputs[1]
        out[0][0] = z + 0.5 if self.py_offset else z

    def c_code_cache_version(self):
        return (1,)

    def c_code(self, node, name, inputs, outputs, sub):
        a, b = inputs
        (z,) = outputs
        return f"""
        if (!{z} || PyArray_DIMS({z})[0] != PyArray_DIMS({b})[0]) {{
            Py_XDECREF({z});
            {z} = (PyArrayObject*) PyArray_SimpleNew(1, PyArray_DIMS({b}), NPY_DOUBLE);
        }}
        for (npy_intp m = 0; m < PyArray_DIMS({z})[0]; ++m)
            *(double*)PyArray_GETPTR1({z}, m) = 0.5 + *(double*)PyArray_GETPTR1({a}, m)
                                               + *(double*)PyArray_GETPTR1({b}, m);
        """


class DoubleInPlaceC(COp):
    """Doubles its input in place in C without declaring destroy_map (broken on purpose)."""

    __props__ = ()

    def make_node(self, a):
        a = as_tensor_variable(a)
        return Apply(self, [a], [a.type()])

    def perform(self, node, inputs, out):
        raise NotImplementedError("C only")

    def c_code_cache_version(self):
        return (1,)

    def c_code(self, node, name, inputs, outputs, sub):
        (a,), (z,) = inputs, outputs
        return f"""
        Py_XDECREF({z}); Py_INCREF({a}); {z} = {a};
        for (npy_intp m = 0; m < PyArray_DIMS({a})[0]; ++m)
            *(double*)PyArray_GETPTR1({a}, m) *= 2;
        """


class AddSquareC(COp):
    """a + b for square matrices; the C assumes a C-contiguous output buffer it reuses."""

    __props__ = ()

    def make_node(self, a, b):
        a, b = as_tensor_variable(a), as_tensor_variable(b)
        return Apply(self, [a, b], [a.type()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0] + inputs[1]

    def c_code_cache_version(self):
        return (1,)

    def c_code(self, node, name, inputs, outputs, sub):
        a, b = inputs
        (z,) = outputs
        return f"""
        if (!{z} || PyArray_DIMS({z})[0] != PyArray_DIMS({b})[0]
                 || PyArray_DIMS({z})[1] != PyArray_DIMS({b})[1]) {{
            Py_XDECREF({z});
            {z} = (PyArrayObject*) PyArray_SimpleNew(2, PyArray_DIMS({b}), NPY_DOUBLE);
        }}
        double* out = (double*)PyArray_DATA({z});
        for (npy_intp i = 0; i < PyArray_DIMS({b})[0]; i++)
            for (npy_intp j = 0; j < PyArray_DIMS({b})[1]; j++)
                *out++ = *(double*)PyArray_GETPTR2({a}, i, j)
                         + *(double*)PyArray_GETPTR2({b}, i, j);
        """


def test_c_and_python_agree_for_a_good_op() -> None:
    a, b = dvec("a"), dvec("b")
    f = function([a, b], AddC(True)(a, b), mode=DebugMode(check_c_code=True))
    np.testing.assert_array_equal(f([1.0, 2.0], [2.0, 3.0]), [3.5, 5.5])


def test_c_disagreeing_with_perform_is_bad_thunk_output() -> None:
    a, b = dvec("a"), dvec("b")
    op = AddC(False)
    f = function([a, b], op(a, b), mode=DebugMode(check_c_code=True))
    with pytest.raises(BadThunkOutput) as info:
        f([1.0, 2.0], [2.0, 3.0])
    assert info.value.r.owner.op is op
    np.testing.assert_array_equal(info.value.val1, [3.0, 5.0])
    np.testing.assert_array_equal(info.value.val2, [3.5, 5.5])


def test_c_only_checks_still_see_destroyed_inputs() -> None:
    x = dvec("x")
    f = function([x], DoubleInPlaceC()(x), mode=DebugMode(check_py_code=False))
    with pytest.raises((BadDestroyMap, BadViewMap)):
        f([1.0, 2.0])


def test_preallocated_fortran_output_exposes_layout_bug() -> None:
    a, b = dmat("a"), dmat("b")
    out = AddSquareC()(a, b)
    av, bv = np.arange(9.0).reshape(3, 3), np.ones((3, 3))
    ok = function([a, b], out, mode=DebugMode(check_preallocated_output=["c_contiguous"]))
    np.testing.assert_array_equal(ok(av, bv), av + bv)
    bad = function([a, b], out, mode=DebugMode(check_preallocated_output=["f_contiguous"]))
    with pytest.raises(BadThunkOutput, match="f_contiguous"):
        bad(av, bv)


def test_standard_graph_passes_debugmode_with_c() -> None:
    x = dvec("x")
    f = function([x], ((2.0 * x) + 7) / 2.0, mode="DebugMode")
    np.testing.assert_allclose(f([1.0, 2.0]), [4.5, 5.5])


class UncompilableC(AddC):
    """C that does not compile: DebugMode says so and still checks perform."""

    def c_code(self, node, name, inputs, outputs, sub):
        return "this is not C;"


def test_node_whose_c_does_not_compile_warns_and_checks_python() -> None:
    a, b = dvec("a"), dvec("b")
    with pytest.warns(UserWarning, match="cannot build node .* only its Python"):
        f = function([a, b], UncompilableC(False)(a, b), mode=DebugMode())
    np.testing.assert_array_equal(f([1.0], [2.0]), [3.0])

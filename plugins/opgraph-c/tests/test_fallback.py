"""A graph whose C does not build: FAST_RUN falls back with one warning, "c" raises."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode
from opgraph.graph.basic import Apply
from opgraph.graph.op import Op
from opgraph.link.basic import BackendCompileError


class BrokenC(Op):
    """An Op whose C does not compile (its Python perform is fine)."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0] + 10.0

    def c_code(self, node, name, inputs, outputs, sub):
        return "this is not C at all;"


class UndefinedSymbolC(BrokenC):
    """Compiles and links, but the module cannot load (an undefined symbol)."""

    def c_support_code(self):
        return "extern double og_no_such_function_anywhere(double);"

    def c_code(self, node, name, inputs, outputs, sub):
        (x,), (z,) = inputs, outputs
        return (f"Py_XDECREF({z}); {z} = (PyArrayObject *)PyArray_NewCopy({x}, NPY_CORDER);"
                f"if (!{z}) {sub['fail']} ((double *)PyArray_DATA({z}))[0] = "
                f"og_no_such_function_anywhere(1.0);")


def _fallback_warnings(record):
    return [w for w in record if "could not build this graph" in str(w.message)]


@pytest.mark.parametrize("op_class", [BrokenC, UndefinedSymbolC])
def test_fast_run_falls_back_with_one_warning_naming_the_log(op_class):
    x = pt.dvector("x")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        f = function([x], op_class()(pt.exp(x)) * 2, mode="FAST_RUN")
    found = _fallback_warnings(record)
    assert len(found) == 1, [str(w.message) for w in record]
    text = str(found[0].message)
    assert "linker 'c'" in text and "'vm'" in text
    log = text.split("full ")[-1].split(": ", 1)[-1].split()[0].rstrip(".)")
    assert log.endswith(".log") and os.path.exists(log), text
    with open(log, encoding="utf-8") as fh:
        assert "og_" in fh.read()  # the compiler's output and the source are kept
    assert f.linker.name == "vm"
    np.testing.assert_allclose(f(np.arange(3.0)), (np.exp(np.arange(3.0)) + 10) * 2)


@pytest.mark.parametrize("mode", ["c", "C", Mode(linker="c")])
def test_c_asked_for_explicitly_raises_the_compiler_message(mode):
    x = pt.dvector("x")
    with pytest.raises(BackendCompileError) as info:
        function([x], BrokenC()(x), mode=mode)
    assert "this is not C" in str(info.value) or "error" in str(info.value)
    assert info.value.log_path and os.path.exists(info.value.log_path)


def test_compiler_failing_on_one_graph_after_the_probe_passed(monkeypatch):
    """CC=/bin/false for the graph build (the probe passed earlier): fall back, or raise."""
    from opgraph_c import compiler, linker

    false = compiler.Compiler(("/bin/false",), "/bin/false", "false|test")
    monkeypatch.setattr(linker.compiler, "find_compiler", lambda cxx=None: false)
    x = pt.dvector("x")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        f = function([x], pt.sinh(x) * 3.25, mode="FAST_RUN")
    found = _fallback_warnings(record)
    assert len(found) == 1 and "/bin/false" in str(found[0].message)
    np.testing.assert_allclose(f(np.ones(2)), np.sinh(1.0) * 3.25 * np.ones(2))
    with pytest.raises(compiler.CompileError, match="/bin/false"):
        function([x], pt.sinh(x) * 3.25, mode="c")

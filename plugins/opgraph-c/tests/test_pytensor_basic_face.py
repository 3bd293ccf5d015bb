"""``opgraph.link.c.basic``: CLinker, OpWiseCLinker and DualLinker under PyTensor's path."""

from __future__ import annotations

import numpy as np
import pytest
from opgraph.link.c.basic import CLinker, DualLinker, OpWiseCLinker
from opgraph_c.cvm import CVMLinker
from opgraph_c.linker import CLinker as OurCLinker

import opgraph.tensor as pt
from opgraph.graph.fg import FunctionGraph


def _run(linker, values):
    res = linker.make_thunk()
    for cell, v in zip(res.input_storage, values, strict=True):
        cell[0] = v
    res.fn()
    return [c[0] for c in res.output_storage]


def test_names_are_the_plugin_linkers():
    assert CLinker is OurCLinker
    assert issubclass(OpWiseCLinker, CVMLinker)


def test_dual_linker_agrees_and_returns_python_results():
    x, y = pt.dscalars("x", "y")
    d, r = divmod(x, y)
    out = _run(DualLinker().accept(FunctionGraph([x, y], [d, r])), [7.0, -2.0])
    assert [float(v) for v in out] == [float(v) for v in divmod(7.0, -2.0)]


def test_dual_linker_reports_a_disagreement():
    x = pt.dvector("x")
    linker = DualLinker(checker=lambda a, b: False).accept(FunctionGraph([x], [x + 1]))
    with pytest.raises(AssertionError, match="differs between the Python linker"):
        _run(linker, [np.ones(3)])


def test_dual_linker_rejects_a_non_callable_checker():
    with pytest.raises(TypeError, match="checker must be callable"):
        DualLinker(checker=3)


def test_cvm_linker_is_a_vm_linker_with_cloop():
    """PyTensor's CVM mode is ``VMLinker(use_cloop=True)``; PyMC checks exactly that."""
    from opgraph.compile.mode import get_mode
    from opgraph.link.vm import VMLinker

    linker = get_mode("CVM").linker
    assert isinstance(linker, CVMLinker) and isinstance(linker, VMLinker)
    assert linker.use_cloop is True
    assert type(linker.clone()) is CVMLinker
    x = pt.dvector("x")
    from opgraph.compile.function import function

    f = function([x], pt.exp(x) + 1, mode="CVM")
    np.testing.assert_allclose(f(np.array([0.0, 1.0])), [2.0, np.e + 1])

"""Names PyTensor code reaches at these paths (issue 30 part 4): each is the working
object, checked by its values, not only by its presence."""

from __future__ import annotations

import numpy as np

import opgraph
import opgraph.tensor as pt
from opgraph.graph.basic import Constant
from opgraph.tensor import math as ptm
from opgraph.tensor import type as ptt

from .helpers import evaluate


def test_comparison_names_of_tensor_math() -> None:
    x, y = pt.dvector("x"), pt.dvector("y")
    a, b = np.array([0.5, 2.0, 1.0]), np.array([0.5, 1.0, 3.0])
    for name, ufunc in (("equal", np.equal), ("not_equal", np.not_equal), ("less", np.less),
                        ("less_equal", np.less_equal), ("greater", np.greater),
                        ("greater_equal", np.greater_equal)):
        np.testing.assert_array_equal(evaluate(getattr(ptm, name)(x, y), {x: a, y: b}),
                                      ufunc(a, b))


def test_conjugate_is_conj() -> None:
    z = pt.zvector("z")
    v = np.array([1 + 2j, -3j])
    np.testing.assert_array_equal(evaluate(ptm.conjugate(z), {z: v}), np.conjugate(v))
    assert pt.conjugate is ptm.conjugate


def test_tensor_namespace_helpers() -> None:
    x = pt.dmatrix("x")
    v = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(evaluate(pt.flip(x, axis=1), {x: v}), np.flip(v, axis=1))
    assert pt.slice_at_axis(slice(1, None), 1) == (slice(None), slice(1, None), Ellipsis)
    xs = pt.dvector("xs")
    got = evaluate(pt.interp(xs, pt.as_tensor([0.0, 1.0]), pt.as_tensor([0.0, 10.0])),
                   {xs: np.array([0.25, 0.5])})
    np.testing.assert_allclose(got, np.interp([0.25, 0.5], [0.0, 1.0], [0.0, 10.0]))
    assert pt.Constant is Constant and isinstance(pt.constant(1.0), pt.Constant)


def test_six_and_seven_dimensional_constructors_and_type_tuples() -> None:
    a, b = ptt.dtensor6s("a", "b")
    assert a.type == ptt.dtensor6 and b.name == "b"
    (c,) = [ptt.ltensor7s("c")]
    assert c.type.ndim == 7 and c.type.dtype == "int64"
    assert len(ptt.tensor7s(3)) == 3
    assert pt.dmatrix().type in ptt.float_matrix_types
    assert pt.ivector().type in ptt.int_vector_types
    assert pt.zscalar().type in ptt.complex_types
    assert pt.fvector().type not in ptt.float_matrix_types


def test_top_level_names() -> None:
    assert opgraph.get_mode("FAST_RUN").optimizer is not None
    x = pt.dscalar("x")
    (g,) = opgraph.pullback([x**2], [x], [pt.constant(1.0)])
    np.testing.assert_allclose(evaluate(g, {x: 3.0}), 6.0)
    (t,) = opgraph.pushforward([x**2], [x], [pt.constant(1.0)])
    np.testing.assert_allclose(evaluate(t, {x: 3.0}), 6.0)


def test_complex_scalar_ops_at_opgraph_scalar() -> None:
    import opgraph.scalar as ps

    z = ps.complex128("z")
    got = evaluate([ps.real(z), ps.imag(z), ps.conj(z), ps.angle(z)], {z: 3 + 4j})
    np.testing.assert_allclose(got, [3.0, 4.0, 3 - 4j, np.angle(3 + 4j)])
    assert isinstance(ps.real, ps.Real) and isinstance(ps.conj, ps.Conj)


def test_mode_objects_c_cvm_vm() -> None:
    """The Mode objects name their linker and FAST_RUN's query (compiled with them in
    tests/integration/test_pytensor_modes.py, where the linkers are installed)."""
    from opgraph.compile import mode as m

    for mode, linker in ((m.C, "c"), (m.CVM, "cvm"), (m.VM, "vm")):
        assert mode.provided_linker == linker
        assert "fast_run" in mode.provided_optimizer.include


def test_pytensor_printer_classes() -> None:
    from opgraph import printing as pr

    x, alpha = pt.dscalar("x"), pt.dscalar("alpha")
    pstate = pr.PrinterState(pprinter=pr.pprint)
    assert pr.leaf_printer.process(x, pstate) == "x"
    assert pr.leaf_printer.process(alpha, pstate) == "\\alpha"
    assert pr.constant_printer.process(pt.constant(2.5), pstate) == "2.5"
    assert isinstance(pr.leaf_printer, pr.Printer) and "left" in pr.VALID_ASSOC
    with pr.set_precedence(pstate, 5):
        assert pstate.precedence == 5
    assert pstate.precedence == -1000.0

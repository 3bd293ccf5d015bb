"""PyTensor's ``scalar.basic`` face: every scalar name, type tuples, plural constructors."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.scalar as ps
import opgraph.scalar.basic as psb
import opgraph.tensor as pt
from opgraph.gradient import grad
from opgraph.scalar.logic import EQ

from .scalar_eval import evaluate


@pytest.mark.parametrize("name", ["add", "mul", "exp", "float64", "ScalarConstant", "Composite",
                                  "switch", "convert_to_int8", "floor_div", "scalar_maximum"])
def test_scalar_basic_exposes_the_package_names(name):
    assert getattr(psb, name) is getattr(ps, name)


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'not_a_scalar_op'"):
        psb.not_a_scalar_op  # noqa: B018


def test_type_tuples():
    assert ps.float64 in psb.float_types and ps.float64 in psb.continuous_types
    assert ps.int8 in psb.int_types and ps.uint8 in psb.uint_types
    assert ps.bool in psb.discrete_types and ps.complex64 in psb.complex_types
    assert set(psb.all_types) == set(psb.discrete_types) | set(psb.continuous_types)


def test_plural_constructors():
    x, y, z = psb.floats("xyz")
    assert y.name == "y"
    assert (x.name, z.name) == ("x", "z") and x.type == ps.float64
    single = psb.floats("w")
    assert single.name == "w"
    a, b = psb.ints("a", "b")
    assert a.type == ps.int64 and b.name == "b"
    assert len(psb.complexs(3)) == 3 and psb.complexs64("c").type == ps.complex64


def test_op_without_the_rule_attribute_equals_a_fresh_one():
    fresh, old = EQ(), EQ()
    del old.output_types_preference
    assert fresh == old and hash(fresh) == hash(old)


def test_gradient_through_a_comparison_is_zero_and_mentions_the_input():
    x, y = ps.float32("x"), ps.float32("y")
    g = grad(x > y, y)
    assert evaluate(g, {y: 1.0}) == 0.0


def test_complex_inputs_an_op_does_not_support_raise_complex_error():
    x, y = ps.complex64("x"), ps.int32("y")
    with pytest.raises(psb.ComplexError, match="complex64"):
        x % y
    assert issubclass(psb.ComplexError, TypeError)


def test_scalar_type_clone_takes_the_dtype_by_position():
    st = ps.ScalarType("int64")
    assert st.clone() == st
    assert st.clone("float64") == ps.float64 and st.clone(dtype="int8") == ps.int8


def test_scalar_op_written_with_only_perform_runs_in_a_composite():
    """A PyTensor-style ScalarOp (make_node + perform, two outputs) ports unchanged."""
    from opgraph.graph.basic import Apply

    class TwoCopies(psb.ScalarOp):
        def make_node(self, x):
            return Apply(self, [x], [x.type(), x.type()])

        def perform(self, node, inputs, outputs):
            outputs[0][0] = inputs[0]
            outputs[1][0] = inputs[0] * 2

    x = ps.float32("x")
    comp = psb.Composite([x], TwoCopies()(x))
    y, z = comp(x)
    assert evaluate([y, z], {x: 1.5}) == [1.5, 3.0]
    assert [float(v) for v in comp.ufunc(np.array([1.0, 2.0], dtype="float32"))[1]] == [2.0, 4.0]


def test_a_cast_prints_as_pytensor_does():
    # PyMC's messages show the variable ("... The data variable was: Cast{int32}.0")
    assert str(ps.convert_to_int8) == "Cast{int8}" and ps.convert_to_int8.name == "convert_to_int8"
    x = pt.dvector("x")
    assert str(pt.cast(x, "int32")) == "Cast{int32}.0"
    assert str(x.astype("float32").owner.op) == "Cast{float32}"

"""The facts stated by PyTensor's "Graph Structures" tutorial hold for opgraph."""

from __future__ import annotations

import io

import numpy as np

import opgraph.tensor as pt
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import TensorConstant, TensorVariable

from .helpers import evaluate


def test_x_plus_y_apply_structure():
    x = pt.dmatrix("x")
    y = pt.dmatrix("y")
    z = x + y
    assert x.owner is None and y.owner is None
    node = z.owner
    assert isinstance(node, Apply)
    assert node.inputs == [x, y]
    assert node.outputs == [z]
    assert z.index == 0
    assert node.outputs[z.index] is z
    assert isinstance(node.op, Elemwise)


def test_mul_by_python_float_broadcasts_constant_with_dimshuffle():
    x = pt.dmatrix("x")
    y = x * 2.0
    assert type(y.owner) is Apply
    assert isinstance(y.owner.op, Elemwise)
    assert str(y.owner.op) == "Mul"
    assert len(y.owner.inputs) == 2
    assert y.owner.inputs[0] is x
    ds = y.owner.inputs[1]
    assert isinstance(ds, TensorVariable)
    assert type(ds.owner) is Apply
    assert isinstance(ds.owner.op, DimShuffle)
    assert ds.owner.op.new_order == ("x", "x")
    assert str(ds) == "DimShuffle{x,x}.0"  # PyTensor's form: the output index
    (const,) = ds.owner.inputs
    assert isinstance(const, TensorConstant) and isinstance(const, Constant)
    assert str(const) == "TensorConstant{2.0}"
    assert const.data == 2.0
    np.testing.assert_array_equal(evaluate(y, {x: np.ones((2, 2))}), np.full((2, 2), 2.0))


def test_dprint_names_the_ops():
    from opgraph.printing import debugprint

    x = pt.dmatrix("x")
    y = x * 2.0
    buf = io.StringIO()
    debugprint(y, file=buf)
    text = buf.getvalue()
    lines = text.splitlines()
    assert lines[0].startswith("Mul [id A]")
    assert "x [id B]" in lines[1]
    assert "DimShuffle{x,x} [id C]" in lines[2]
    assert "TensorConstant{2.0} [id D]" in lines[3]


def test_irow_type_print_and_variables_of_a_type():
    v = pt.irow()
    assert isinstance(pt.irow, TensorType)
    assert v.type.dtype == "int32" and v.type.shape == (1, None)
    assert str(v) == "<Matrix(int32, shape=(1, ?))>"


def test_negation_variable_fields():
    x = pt.ivector()
    y = -x
    assert isinstance(x, Variable) and isinstance(y, Variable)
    assert x.type == pt.ivector and y.type == pt.ivector
    assert y.owner is not None and y.owner.inputs == [x]
    assert y.owner.outputs[y.index] is y
    y.name = "neg"
    assert str(y) == "neg"


def test_apply_from_make_node():
    x = pt.dvector("x")
    node = pt.exp.make_node(x)
    assert isinstance(node, Apply) and node.op is pt.exp and node.inputs == [x]


def test_a_plus_a_pow_10():
    a = pt.vector("a")
    b = a + a**10
    np.testing.assert_allclose(evaluate(b, {a: [0.0, 1.0, 2.0]}), [0.0, 2.0, 1026.0])

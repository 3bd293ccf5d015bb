"""``all``/``any`` of a non-boolean tensor reduce ``x != 0`` (PyTensor's graph), a
boolean one directly."""

from __future__ import annotations

import pytest

import opgraph.tensor as pt
from opgraph.scalar.logic import NEQ
from opgraph.tensor.reduction import All, Any


@pytest.mark.parametrize("fn, op", [(pt.all, All), (pt.any, Any)])
@pytest.mark.parametrize("dtype", ["float64", "int32", "complex128"])
def test_non_bool_input_is_compared_with_zero(fn, op, dtype):
    x = pt.tensor("x", dtype=dtype, shape=(None, 3))
    out = fn(x, axis=0)
    assert isinstance(out.owner.op, op) and out.type.dtype == "bool"
    (truth,) = out.owner.inputs
    assert isinstance(truth.owner.op.scalar_op, NEQ)
    assert truth.owner.inputs[0] is x


@pytest.mark.parametrize("fn", [pt.all, pt.any])
def test_bool_input_is_reduced_directly(fn):
    b = pt.tensor("b", dtype="bool", shape=(2,))
    assert fn(b).owner.inputs[0] is b

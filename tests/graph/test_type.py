"""type.py contract with a toy Type."""

from __future__ import annotations

import pytest
from toys import ToyType, tfloat, tother

from opgraph.graph.basic import Constant


def test_type_filter_and_variables():
    assert tfloat.filter(2) == 2.0
    with pytest.raises(TypeError, match="expected a float, got int"):
        tfloat.filter(2, strict=True)
    assert tfloat.is_valid_value(1.0) and not tfloat.is_valid_value("a")
    v = tfloat("v")
    assert v.type is tfloat and v.name == "v"
    c = tfloat.make_constant(1.5)
    assert isinstance(c, Constant) and c.data == 1.5
    assert tfloat.filter_variable(2.0).data == 2.0
    with pytest.raises(TypeError, match=r"Cannot convert Type Toy\(other\)"):
        tfloat.filter_variable(tother("o"))
    exact = ToyType("float", exact=True)
    assert tfloat.is_super(exact) and not exact.is_super(tfloat)
    assert tfloat.convert_variable(exact("e")) is not None
    assert tfloat.clone(kind="other") == tother
    assert tfloat == ToyType() and hash(tfloat) == hash(ToyType())
    with pytest.raises(TypeError, match="name must be a str"):
        tfloat(3)

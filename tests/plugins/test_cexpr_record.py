"""CExpr: the core record a package returns (in an OpImpl) for a scalar op's C."""

import attrs
import pytest

from opgraph.plugins import CExpr, OpImpl


def test_template_by_output_kind_with_fallbacks():
    rule = CExpr("{0} + {1}", int="og_add_i({0}, {1})", bool="{0} | {1}")
    assert rule.template("float") == "{0} + {1}"  # default
    assert rule.template("int") == "og_add_i({0}, {1})"
    assert rule.template("uint") == "og_add_i({0}, {1})"  # uint falls back to int
    assert rule.template("bool") == "{0} | {1}"
    assert CExpr(float="exp{f}({0})").template("int") is None  # no C for an int output


def test_is_a_frozen_value_usable_in_an_op_impl():
    a = CExpr(float="sin{f}({0})", support=("static int x;",))
    assert a == CExpr(float="sin{f}({0})", support=("static int x;",))
    assert hash(a) == hash(CExpr(float="sin{f}({0})", support=("static int x;",)))
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        a.float = "cos({0})"  # type: ignore[misc]
    assert OpImpl("c", a).impl is a

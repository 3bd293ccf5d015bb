"""The tables lower layers own and the libraries fill (docs/architecture.md, "Tables")."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.scalar as ps
import opgraph.tensor as pt
from opgraph.autodiff import arith
from opgraph.compile import sharedvalue as compile_sharedvalue
from opgraph.graph.basic import Apply
from opgraph.graph.op import Op
from opgraph.graph.printer import PPrinter
from opgraph.link import sharedvalue as link_sharedvalue
from opgraph.printing import pprint
from opgraph.scalar.type import SCALAR_CONVERSIONS, as_scalar
from opgraph.tensor.basic import ScalarFromTensor
from opgraph.tensor.constant_value import (
    CONSTANT_RULES,
    get_underlying_scalar_constant_value,
    passthrough,
    register_constant_rule,
)
from opgraph.tensor.exceptions import NotScalarConstantError
from opgraph.tensor.sharedvar import TensorSharedVariable
from opgraph.tensor.subtensor import Subtensor
from opgraph.tensor.type import TensorType


class _Relabel(Op):
    """A test op whose output holds its input's value (like a view)."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0]


def test_constant_rules_are_filled_by_the_defining_modules():
    x = pt.matrix("x", shape=(3, 4))
    assert get_underlying_scalar_constant_value(x.shape[1]) == 4
    assert get_underlying_scalar_constant_value(pt.alloc(pt.constant(2.5), 3, 4)) == 2.5
    assert get_underlying_scalar_constant_value(pt.constant([7, 8, 9])[2]) == 9
    value = get_underlying_scalar_constant_value(pt.cast(pt.constant(3), "float32"))
    assert value == 3 and value.dtype == np.float32
    assert get_underlying_scalar_constant_value(pt.exp(pt.constant(0.0))) == 1.0


def test_an_op_without_a_rule_is_not_looked_through_until_registered():
    relabelled = _Relabel()(pt.constant(5.0))
    with pytest.raises(NotScalarConstantError, match="not a known constant"):
        get_underlying_scalar_constant_value(relabelled)
    register_constant_rule(_Relabel, passthrough)
    try:
        assert get_underlying_scalar_constant_value(relabelled) == 5.0
    finally:
        del CONSTANT_RULES[_Relabel]


def test_constant_rules_apply_to_subclasses():
    class MySubtensor(Subtensor):
        pass

    node = pt.constant([1, 2, 3])[1].owner
    custom = MySubtensor(node.op.idx_spec)(*node.inputs)
    assert type(custom.owner.op) is MySubtensor
    assert get_underlying_scalar_constant_value(custom) == 2


def test_register_constant_rule_rejects_a_non_class():
    with pytest.raises(TypeError, match="expected an Op class and a function"):
        register_constant_rule("Subtensor", passthrough)


def test_as_scalar_converts_through_the_tensor_entry():
    x = pt.scalar("x")
    assert SCALAR_CONVERSIONS[TensorType] is not None
    out = as_scalar(x)
    assert isinstance(out.owner.op, ScalarFromTensor)
    with pytest.raises(TypeError, match="cannot convert the variable"):
        as_scalar(pt.vector("v"))


def test_gradient_arithmetic_per_family():
    x = pt.vector("x", dtype="float32")
    zeros = arith.zeros_like(x)
    assert zeros.type.dtype == "float32" and zeros.type.ndim == 1
    a = ps.float32("a")
    assert isinstance(arith.zeros_like(a).type, type(a.type))
    assert arith.one_constant(a).type.dtype == "float32"
    assert arith.add_terms([a, a]).owner.op == ps.add
    assert arith.tensor_library() is pt


def test_register_gradient_arithmetic_rejects_bad_arguments():
    with pytest.raises(TypeError, match="expected a Type class and a GradientArithmetic"):
        arith.register_gradient_arithmetic(TensorType, object())


def test_shared_constructors_are_registered_by_the_tensor_library():
    assert compile_sharedvalue.shared is link_sharedvalue.shared
    assert compile_sharedvalue.SharedVariable is link_sharedvalue.SharedVariable
    var = compile_sharedvalue.shared(np.arange(3.0))
    assert isinstance(var, TensorSharedVariable)
    assert isinstance(compile_sharedvalue.shared(1.5), TensorSharedVariable)
    other = compile_sharedvalue.shared({"a": 1})
    assert type(other) is link_sharedvalue.SharedVariable


def test_scalar_printers_come_from_the_scalar_library():
    a, b = ps.float64("a"), ps.float64("b")
    assert pprint(ps.add(a, ps.mul(a, b))) == "a + a * b"
    # A bare table knows no op: the libraries fill the global one.
    assert PPrinter().process(ps.add(a, b)) == "add(a, b)"


def test_dprint_loads_printing_on_first_use():
    # A fresh interpreter: the tensor library does not import the printing layer itself.
    import subprocess
    import sys

    code = (
        "import sys, opgraph.tensor as pt\n"
        "assert 'opgraph.printing' not in sys.modules\n"
        "print(pt.vector('x').dprint(file='str'))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "x [id A]" in result.stdout

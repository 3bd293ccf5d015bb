"""The table through which the lower tensor modules call functions defined above them."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.graph.function_table import FunctionTable
from opgraph.tensor import function_table, math, products, reduction, subtensor, ufuncs
from opgraph.tensor.function_table import TENSOR_FUNCTIONS
from opgraph.tensor.shape import Shape, reshape, specify_shape
from opgraph.tensor.subtensor import Subtensor


def test_the_table_holds_the_defining_modules_functions():
    assert TENSOR_FUNCTIONS.get_item is subtensor.get_item
    assert TENSOR_FUNCTIONS.reshape is reshape
    assert TENSOR_FUNCTIONS.specify_shape is specify_shape
    assert TENSOR_FUNCTIONS.add is ufuncs.add
    assert TENSOR_FUNCTIONS.sum is reduction.sum
    assert TENSOR_FUNCTIONS.dot is products.dot


def test_math_re_exports_the_lower_modules_objects():
    for module in (ufuncs, reduction, products):
        for name in module.__all__:
            assert getattr(math, name) is getattr(module, name), name
    assert set(ufuncs.__all__) <= set(math.__all__)
    assert math._convert_to_float32 is ufuncs._convert_to_float32


def test_operators_and_methods_use_the_registered_functions():
    x = pt.dvector("x")
    assert isinstance(x[0].owner.op, Subtensor)
    assert isinstance(x.shape.owner.op, Shape)
    y = (x + 1).sum()
    assert isinstance(y.owner.op, reduction.Sum)
    assert y.owner.inputs[0].owner.op == ufuncs.add
    # NumPy ufuncs reach the math namespace, lazily loaded names included
    assert np.logaddexp(x, x).owner is not None


def test_an_unregistered_name_is_a_clear_error():
    table = FunctionTable("opgraph.tensor", listed=False)
    with pytest.raises(
        AttributeError, match=r"no opgraph\.tensor function 'frobnicate' is registered"
    ):
        _ = table.frobnicate
    assert getattr(table, "frobnicate", None) is None


def test_registration_adds_functions_and_namespaces_once():
    table = FunctionTable("opgraph.tensor", listed=False)
    saved = function_table.TENSOR_FUNCTIONS
    function_table.TENSOR_FUNCTIONS = table
    try:
        function_table.register_tensor_functions(ufuncs, twice=len)
        function_table.register_tensor_functions(ufuncs)
        assert table.namespaces == [ufuncs]
        assert table.twice is len
        assert table.exp is ufuncs.exp
    finally:
        function_table.TENSOR_FUNCTIONS = saved

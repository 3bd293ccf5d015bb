"""The explicit operator table: every operator and method of TensorVariable comes from it."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph import function
from opgraph.tensor import math as ptm
from opgraph.tensor.function_table import TENSOR_FUNCTIONS
from opgraph.tensor.operators import NUMPY_UFUNCS, OPERATORS, SUPPORT, TENSOR_METHODS


def test_the_table_is_explicit_names_only() -> None:
    assert TENSOR_FUNCTIONS.namespaces == []  # no module is walked
    for name, fn in {**OPERATORS, **SUPPORT, **NUMPY_UFUNCS}.items():
        assert getattr(TENSOR_FUNCTIONS, name) is fn, name


def test_operators_methods_and_ufuncs_build_the_listed_functions() -> None:
    x, y = pt.dvector("x"), pt.dvector("y")
    assert (x + y).owner.op == ptm.add and (x // y).owner.op == ptm.int_div
    assert (x < y).owner.op == ptm.lt and (-x).owner.op == ptm.neg
    assert np.exp(x).owner.op == ptm.exp and np.logaddexp(x, y).owner is not None
    assert x.sort().owner.op == pt.sort(x).owner.op
    assert x.cumsum().owner.op == pt.cumsum(x).owner.op
    assert x.exp().owner.op == ptm.exp
    assert set(TENSOR_METHODS) <= set(dir(x))


def test_a_name_nobody_lists_is_an_error_naming_the_table() -> None:
    with pytest.raises(AttributeError, match=r"no opgraph\.tensor function .no_such_function"):
        TENSOR_FUNCTIONS.no_such_function  # noqa: B018
    x = pt.dvector("x")
    with pytest.raises(TypeError):  # NumPy: __array_ufunc__ returned NotImplemented
        np.frexp(x)


def test_a_plugin_served_name_resolves_through_the_faces() -> None:
    pytest.importorskip("opgraph_special")  # the plugin that serves erf
    special = pytest.importorskip("scipy.special")
    x = pt.dvector("x")
    f = function([x], special.erf(x))
    np.testing.assert_allclose(f([0.0, 0.5]), special.erf([0.0, 0.5]), rtol=1e-12)

"""opgraph.typed_list: building, reading and extending symbolic lists."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.typed_list import TypedListType, append, getitem, length, make_list

from .helpers import evaluate


def test_make_list_length_getitem_append():
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    lst = make_list([a, b])
    assert lst.type == TypedListType(a.type)
    values = {a: np.ones((2, 2)), b: np.zeros((1, 3))}
    assert evaluate(length(append(lst, a)), values) == 3
    np.testing.assert_array_equal(evaluate(getitem(lst, 1), values), np.zeros((1, 3)))
    np.testing.assert_array_equal(evaluate(lst[0], values), np.ones((2, 2)))


def test_type_errors_name_the_problem():
    with pytest.raises(TypeError, match="element 1"):
        make_list([pt.dmatrix(), pt.dvector()])
    with pytest.raises(TypeError, match="typed list"):
        length(pt.dvector())
    with pytest.raises(TypeError, match="TensorType"):
        pt.shape(make_list([pt.dvector()]))
    with pytest.raises(TypeError, match="expected a list"):
        TypedListType(pt.dvector().type).filter(np.ones(3))

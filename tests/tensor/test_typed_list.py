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


def test_list_methods_match_python_lists() -> None:
    from opgraph import typed_list as tl

    a, b, c = pt.dvector("a"), pt.dvector("b"), pt.dvector("c")
    lst = tl.make_list([a, b])
    other = tl.make_list([c])
    i = pt.lscalar("i")
    outs = [lst.extend(other), lst.insert(i, c), lst.reverse(), lst.remove(a),
            lst.count(a), lst.ind(b)]
    va, vb, vc = np.array([1.0]), np.array([2.0, 3.0]), np.array([4.0])
    ext, ins, rev, rem, cnt, idx = evaluate(outs, {a: va, b: vb, c: vc, i: 1})
    assert [x.tolist() for x in ext] == [[1.0], [2.0, 3.0], [4.0]]
    assert [x.tolist() for x in ins] == [[1.0], [4.0], [2.0, 3.0]]
    assert [x.tolist() for x in rev] == [[2.0, 3.0], [1.0]]
    assert [x.tolist() for x in rem] == [[2.0, 3.0]]
    assert int(cnt) == 1 and int(idx) == 1
    with pytest.raises(ValueError, match="not in the list"):
        evaluate(tl.index_(lst, c), {a: va, b: vb, c: vc})
    with pytest.raises(TypeError, match="item has type"):
        lst.count(pt.lscalar())

"""PyTensor's indexing helpers: literal indices, canonical slices, indexed shapes."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.tensor import subtensor as pts
from opgraph.tensor.exceptions import NotScalarConstantError

from .helpers import evaluate


def test_as_index_literal():
    assert pts.as_index_literal(slice(None, pt.as_tensor(1))) == slice(None, 1)
    assert pts.as_index_literal(pt.as_tensor(2)) == 2
    assert pts.as_index_literal(None) is None
    with pytest.raises(NotScalarConstantError):
        pts.as_index_literal(pt.iscalar())


@pytest.mark.parametrize(
    "sl", [slice(3, 7, 2), slice(None, None, -1), slice(8, 2, -3), slice(-2, None, -1),
           slice(5, 1, 1), slice(None, -20, -2)]
)
def test_canonical_slice_constant(sl):
    a = np.arange(10)
    canon, direction = pts.get_canonical_form_slice(sl, 10)
    np.testing.assert_array_equal(a[canon][::direction], a[sl])


def test_canonical_slice_symbolic_matches_numpy():
    b, e, s, n = pt.iscalars("b", "e", "s", "n")
    canon, direction = pts.get_canonical_form_slice(slice(b, e, s), n)
    parts = [pt.as_tensor(canon.start), pt.as_tensor(canon.stop), pt.as_tensor(canon.step),
             pt.as_tensor(direction)]
    x = np.arange(6)
    for start, stop, step in itertools.product(range(-8, 8, 3), range(-8, 8, 3), [-3, -1, 2]):
        lo, hi, st, d = (int(v) for v in evaluate(parts, {b: start, e: stop, s: step, n: 6}))
        np.testing.assert_array_equal(x[lo:hi:st][::d], x[start:stop:step])


def test_canonical_index_and_bad_input():
    n = pt.lscalar()
    assert pts.get_canonical_form_slice(3, n) == (3, 1)
    i = pt.lscalar()
    idx, _ = pts.get_canonical_form_slice(i, n)
    assert evaluate(idx, {i: -2, n: 7}) == 5
    with pytest.raises(ValueError, match="not a supported slice"):
        pts.get_canonical_form_slice(None, 5)


def test_flip_and_slice_at_axis():
    x = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(evaluate(pts.flip(x)), np.flip(x))
    np.testing.assert_array_equal(evaluate(pts.flip(x, axis=1)), np.flip(x, axis=1))
    assert pts.slice_at_axis(slice(1, 2), 2) == (slice(None), slice(None), slice(1, 2), ...)
    with pytest.raises(ValueError, match="out of bounds"):
        pts.flip(x, axis=3)


def test_indexed_result_shape():
    idx = [np.array([1, 2]), slice(None), np.array([0, 1])]
    got = evaluate(list(pts.indexed_result_shape((5, 6, 7), idx)))
    assert tuple(int(v) for v in got) == np.zeros((5, 6, 7))[tuple(idx)].shape
    # basic_shape gives one length per index (PyTensor's): later dimensions are left out.
    got = evaluate(list(pts.basic_shape((5, 6), [slice(1, 4), None])))
    assert tuple(int(v) for v in got) == (3, 1)
    got = evaluate(list(pts.basic_shape((5, 4), (slice(1, 3),))))
    assert tuple(int(v) for v in got) == np.zeros(5)[1:3].shape


def test_advanced_functions():
    x = np.arange(12.0).reshape(3, 4)
    rows = np.array([0, 2, 0])
    np.testing.assert_array_equal(evaluate(pts.advanced_subtensor(x, rows)), x[rows])
    expected = x.copy()
    np.add.at(expected, rows, 1.0)
    np.testing.assert_array_equal(evaluate(pts.advanced_inc_subtensor(x, 1.0, rows)), expected)
    expected = x.copy()
    expected[rows] = -1.0
    np.testing.assert_array_equal(evaluate(pts.advanced_set_subtensor(x, -1.0, rows)), expected)


def test_provably_positive():
    assert pts._is_provably_positive(pt.constant(np.array([1.0, 2.0])))
    assert not pts._is_provably_positive(pt.constant(np.array([0.0, 2.0])))
    assert pts._is_provably_positive(pt.constant(np.array([0.0, 2.0])), strict=False)
    assert pts._is_provably_non_negative(pt.matrix().shape[0])
    assert not pts._is_provably_positive(pt.matrix().shape[0])
    assert pts._is_provably_positive(pt.minimum(2, 3))
    assert not pts._is_provably_positive(pt.maximum(-1, -10))
    assert not pts._is_provably_non_negative(pt.vector())


def test_ignore_duplicates_writes_each_position_once():
    x = pt.as_tensor(np.zeros(4))
    idx = np.array([1, 1, 2])
    np.testing.assert_array_equal(evaluate(pt.inc_subtensor(x[idx], 1.0)), [0, 2, 1, 0])
    out = pt.inc_subtensor(x[idx], 1.0, ignore_duplicates=True)
    assert out.owner.op.ignore_duplicates
    np.testing.assert_array_equal(evaluate(out), [0, 1, 1, 0])
    m = pt.as_tensor(np.zeros((2, 2)))
    out = pts.advanced_inc_subtensor(m, 1.0, [0, 0], [1, 1], ignore_duplicates=True)
    np.testing.assert_array_equal(evaluate(out), [[0, 1], [0, 0]])


def test_take_mode_none_is_raise():
    np.testing.assert_array_equal(evaluate(pts.take(np.arange(5.0), np.array([1, 2]), mode=None)),
                                  [1.0, 2.0])

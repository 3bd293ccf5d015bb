"""x[s1][s2] and x[s1][i] merged into one indexing: same values, same IndexErrors,
same gradients as the unrewritten graph."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import compile_pair, op_counts

import opgraph.tensor as pt
from opgraph.gradient import grad

SHAPES = [(0, 2), (1, 2), (2, 3), (4, 1), (7, 3), (9, 2)]

CASES = [
    lambda x: x[-7:][-1],
    lambda x: x[::-1][3],
    lambda x: x[::-1][:-9],
    lambda x: x[2:][:-1],
    lambda x: x[1:7:2][::-1],
    lambda x: x[::-2][1:5:3],
    lambda x: x[3:6:2, 1:7][1, 2:],
    lambda x: x[-2::-3][::-2],
    lambda x: x[5:1:-1][1:],
    lambda x: x[:, 1:][0],
    lambda x: x[1][1:],
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_merged_subtensor_matches_reference(case):
    x = pt.matrix("x")
    fast, ref = compile_pair([x], CASES[case](x))
    assert op_counts(fast)["Subtensor"] == 1
    rng = np.random.default_rng(case)
    for shape in SHAPES:
        value = rng.normal(size=shape)
        try:
            expected = ref(value)
        except IndexError:
            with pytest.raises(IndexError):
                fast(value)
            continue
        np.testing.assert_array_equal(fast(value), expected)


def test_merged_subtensor_with_symbolic_bounds_and_gradient():
    x, a, i = pt.vector("x"), pt.iscalar("a"), pt.iscalar("i")
    out = (x[a:][i] ** 2) + x[::-1][a:][::2].sum()
    fast, ref = compile_pair([x, a, i], [out, grad(out, x)])
    # the reads of x merged to one Subtensor each (the gradient's reversal of its
    # increments is a view of its own)
    reads = [n for n in fast.maker.fgraph.toposort()
             if type(n.op).__name__ == "Subtensor" and n.inputs[0] in fast.maker.fgraph.inputs]
    assert len(reads) <= 2
    value = np.arange(6.0)
    for av in range(-7, 7):
        for iv in range(-7, 7):
            try:
                expected = ref(value, av, iv)
            except IndexError:
                with pytest.raises(IndexError):
                    fast(value, av, iv)
                continue
            for got, want in zip(fast(value, av, iv), expected):
                np.testing.assert_allclose(got, want)


JOINS = [  # (axis, slices, Join nodes left)
    (0, ((slice(None, 5),), (slice(5, None),)), 0),
    (0, ((slice(0, 2, 1),), (slice(2, 4),), (slice(4, None, 1),)), 0),
    (0, ((slice(None, 5), slice(None, -1)), (slice(5, None), slice(None, -1))), 0),
    (1, ((slice(2, None, 2), slice(None, 2)), (slice(2, None, 2), slice(2, 4))), 0),
    (0, ((slice(4, 2),), (slice(2, 6),)), 0),  # statically empty piece: dropped, not merged
    (0, ((slice(-3, 5),), (slice(5, 7),)), 1),  # negative bound: not merged
    (0, ((slice(3, 7),), (slice(7, 9),), (slice(1, 2),), (slice(2, 4),)), 1),
]


@pytest.mark.parametrize("case", range(len(JOINS)))
def test_join_of_adjacent_slices(case):
    axis, slices, joins = JOINS[case]
    x = pt.dmatrix("x")
    out = pt.concatenate([x[s] for s in slices], axis=axis)
    fast, ref = compile_pair([x], [out, grad(out.sum() * 2, x)])
    assert op_counts(fast)["Join"] == joins
    base = np.arange(100.0).reshape(10, 10)
    for value in (base, base[:4, :3], base[:0], base[:6, :1]):
        for got, want in zip(fast(value), ref(value)):
            np.testing.assert_array_equal(got, want)

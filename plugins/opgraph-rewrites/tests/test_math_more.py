"""Powers, roots, exponentials and the MakeVector/specify_shape rewrites: each fires,
values (edge values included) and gradients match the unrewritten graph."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import EDGE, compile_pair, op_counts

import opgraph.tensor as pt
from opgraph.compile.mode import get_mode
from opgraph.gradient import grad
from opgraph.tensor.shape import MakeVector, specify_shape

MODE = get_mode("FAST_RUN").excluding("fusion")

CASES = [  # (build, op that must be gone, exact)
    (lambda x, y: x ** 0 + y ** 1 + 1 ** x, "Pow", True),
    (lambda x, y: pt.log(pt.sqrt(x)), "Sqrt", False),
    (lambda x, y: pt.sqr(pt.sqrt(x)), "Sqrt", False),
    (lambda x, y: x - (-5.0), "Sub", True),
    (lambda x, y: pt.exp(x) * pt.exp(y) * pt.exp(x), "Mul", False),
    (lambda x, y: pt.exp(x) / pt.exp(y), "TrueDiv", False),
    (lambda x, y: 2 ** x * 2 ** y, "Mul", False),
    (lambda x, y: y / pt.exp(x), "TrueDiv", False),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_values_and_gradients(case):
    build, gone, exact = CASES[case]
    x, y = pt.vector("x"), pt.vector("y")
    out = build(x, y)
    fast, ref = compile_pair([x, y], out, MODE)
    assert op_counts(fast)[gone] == 0
    xs = np.concatenate([EDGE, np.linspace(-3, 3, 7)])
    ys = np.concatenate([EDGE[::-1], np.linspace(2, -2, 7)])
    with np.errstate(all="ignore"):
        got, want = fast(xs, ys), ref(xs, ys)
    assert got.dtype == want.dtype
    if exact:
        np.testing.assert_array_equal(got, want)
    else:
        finite = np.isfinite(want)
        np.testing.assert_allclose(got[finite], want[finite], rtol=1e-12)
    gfast, gref = compile_pair([x, y], grad(out.sum(), [x, y], disconnected_inputs="ignore"), MODE)
    xs, ys = np.linspace(0.5, 2, 5), np.linspace(-1, 1, 5)
    for g, r in zip(gfast(xs, ys), gref(xs, ys)):
        np.testing.assert_allclose(g, r, rtol=1e-12)


def test_make_vector_sum_join_and_specify_shape():
    a, b, c = pt.scalars("abc")
    v = pt.vector("v")
    mv = MakeVector("float64")
    joined = pt.join(0, mv(a), v, mv(b, c), mv(a, b))
    total = mv(a, b, c).sum()
    fast, ref = compile_pair([a, b, c, v], [joined, total, grad(total + joined.sum(), a)], MODE)
    assert op_counts(fast)["Sum"] == 0
    (join_node,) = [n for n in fast.maker.fgraph.apply_nodes if type(n.op).__name__ == "Join"]
    assert len(join_node.inputs) == 4  # axis, mv(a), v, mv(b, c, a, b)
    vals = (np.float64(0.1), np.float64(0.2), np.float64(0.3), np.array([1.0, 2.0]))
    for got, want in zip(fast(*vals), ref(*vals)):
        np.testing.assert_array_equal(got, want)

    m, s1, s2 = pt.matrix("m"), pt.lscalar("s1"), pt.lscalar("s2")
    checked = specify_shape(specify_shape(m, (s1, None)), (s2, 3))
    fast, ref = compile_pair([m, s1, s2], checked * 2, MODE)
    assert op_counts(fast)["SpecifyShape"] == 1
    value = np.ones((2, 3))
    np.testing.assert_array_equal(fast(value, 2, 2), ref(value, 2, 2))
    for args in ((2, 3), (3, 2), (2, 2, 4)):
        bad = (value, *args[:2]) if len(args) == 2 else (np.ones((2, 4)), 2, 2)
        with pytest.raises(AssertionError):
            ref(*bad)
        with pytest.raises(AssertionError):
            fast(*bad)


def test_reshape_lift():
    x = pt.tensor4("x")
    out = pt.flatten(pt.exp(x), 2)
    fast, ref = compile_pair([x], [out, grad(out.sum(), x)], MODE)
    order = [type(n.op).__name__ for n in fast.maker.fgraph.toposort()]
    assert order.index("Reshape") < max(i for i, k in enumerate(order) if k == "Elemwise")
    value = np.random.default_rng(0).normal(size=(2, 3, 4, 5))
    for got, want in zip(fast(value), ref(value)):
        np.testing.assert_allclose(got, want, rtol=1e-15)

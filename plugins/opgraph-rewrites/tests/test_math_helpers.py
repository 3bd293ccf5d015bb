"""The graph-matching helpers of ``opgraph.tensor.rewriting.math`` (PyTensor's names)."""

import numpy as np
from opgraph.tensor.rewriting import math as m

import opgraph.tensor as pt
from opgraph.graph.fg import FunctionGraph


def test_is_mul_is_neg_is_exp():
    x, y = pt.dscalars("x", "y")
    assert m.is_mul(x * y) == [x, y]
    assert m.is_mul(x + y) is None and m.is_mul(x) is None
    assert m.is_neg(-x) is x
    assert m.is_neg(x * -1) is x
    assert m.is_neg(x * y) is None
    assert m.is_exp(pt.exp(x)) == (False, x)
    assert m.is_exp(-pt.exp(x)) == (True, x)
    assert m.is_exp(pt.log(x)) is None


def test_scalarconsts_rest_splits_known_scalars():
    x = pt.dvector("x")
    two, ones = pt.constant(2.0), pt.constant(np.ones(3))
    values, consts, rest = m.scalarconsts_rest([x, two, ones])
    assert [float(v) for v in values] == [2.0, 1.0]
    assert consts == [two, ones] and rest == [x]


def test_clients_at_depth():
    x = pt.dscalar("x")
    a = pt.exp(x)
    b = a * 2
    c = b + 1
    fgraph = FunctionGraph([x], [c * 3, c], clone=False)
    assert list(m.get_clients_at_depth1(fgraph, a.owner)) == [b.owner]
    assert list(m.get_clients_at_depth2(fgraph, a.owner)) == [c.owner]


def test_isclose_counts_ulps():
    assert m.isclose(1.0 + 1e-15, 1)
    assert not m.isclose(1.0 + 1e-10, 1)
    assert m.isclose(np.float32(1.0) + np.float32(1e-7), 1)
    assert m.isclose(1.1, 1, rtol=0.2)


def test_partition_num_or_denom_with_is_exp():
    x, y, z = pt.dscalars("x", "y", "z")
    matched, rest, neg = m.partition_num_or_denom(pt.exp(x) * (-pt.exp(z)) * y, m.is_exp)
    assert neg is False and rest[0].owner is not None
    matched, rest, neg = m.partition_num_or_denom(y * -pt.exp(z), m.is_exp)
    assert matched == [z] and rest == [y] and neg is True
    assert m.partition_num_or_denom(x, m.is_exp) == ([], [x], False)


def test_add_and_mul_calculate():
    f = np.float64
    assert m.add_calculate([f(1), f(2)], [f(3)]) == 0.0
    assert m.add_calculate([f(1), f(2)], [f(3)], aslist=True) == []
    assert m.add_calculate([f(1)], [], aslist=True) == [1.0]
    assert m.mul_calculate([f(1), f(2)], [f(2)], aslist=True) == []
    assert m.mul_calculate([f(3)], [], aslist=True) == [3.0]
    out = m.mul_calculate([np.float32(2)], [np.float32(4)], out_type=pt.dscalar().type)
    assert out == 0.5 and out.dtype == np.float64


def test_check_for_x_over_absX():
    x, y, z = pt.dscalars("x", "y", "z")
    num, den = m.check_for_x_over_absX([x, y], [pt.abs(x), z])
    assert den == [z] and num[0] is y
    assert num[1].owner is not None and "sign" in str(num[1].owner.op).lower()
    num, den = m.check_for_x_over_absX([x], [pt.abs(y)])
    assert num == [x] and len(den) == 1

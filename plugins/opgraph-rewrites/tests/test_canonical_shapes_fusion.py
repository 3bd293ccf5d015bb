"""Canonicalize (useless shape ops, sum of alloc, sub/neg normal form, long sums),
multi-output fusion, and equilibrium on adversarial graphs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers_rw import EDGE, assert_same, compile_pair, op_counts
from opgraph_rewrites.canonicalize import MAX_ARITY

import opgraph.tensor as pt
from opgraph.compile.mode import get_mode
from opgraph.config import config
from opgraph.tensor.creation import Alloc
from opgraph.tensor.reduction import Sum

NOFUSE = get_mode("FAST_RUN").excluding("fusion", "inplace")
RNG = np.random.default_rng(2)


def _counts(fn):
    """Op counts without DimShuffle and the DeepCopyOp an output viewing an input gets."""
    return {k: v for k, v in op_counts(fn).items() if k not in ("DimShuffle", "DeepCopyOp")}


# -- useless reshape / alloc / cast / dimshuffle --------------------------------------------

USELESS = [
    ("reshape(x, x.shape)", lambda x: pt.reshape(x, x.shape)),
    ("reshape(x, (x.shape[0], x.shape[1]))", lambda x: pt.reshape(x, (x.shape[0], x.shape[1]))),
    ("reshape(x, (x.shape[0], -1))", lambda x: pt.reshape(x, (x.shape[0], -1))),
    ("reshape(exp(x), exp(x).shape)", lambda x: pt.reshape(pt.exp(x), pt.exp(x).shape)),
    ("alloc(x, *x.shape)", lambda x: pt.alloc(x, x.shape[0], x.shape[1])),
    ("alloc(exp(x), *x.shape)", lambda x: pt.alloc(pt.exp(x), x.shape[0], x.shape[1])),
    ("cast(x, float64)", lambda x: pt.cast(x, "float64")),
    ("x.dimshuffle(0, 1)", lambda x: x.dimshuffle(0, 1)),
    ("x.T.T", lambda x: x.T.T),
]


@pytest.mark.parametrize("name, build", USELESS, ids=[u[0] for u in USELESS])
def test_useless_shape_ops_are_removed(name, build):
    x = pt.matrix("x")
    out = build(x)
    fast, ref = compile_pair([x], out, NOFUSE)
    assert set(_counts(fast)) <= {"Exp"}, _counts(fast)
    assert fast.maker.fgraph.outputs[0].type == out.type
    assert_same(fast, ref, RNG.normal(size=(3, 4)))
    assert_same(fast, ref, EDGE.reshape(2, 5))


def test_useful_reshape_and_alloc_stay():
    x, n = pt.matrix("x"), pt.lscalar("n")
    fast, ref = compile_pair([x], pt.reshape(x, (x.shape[1], x.shape[0])), NOFUSE)
    assert "Reshape" in _counts(fast)
    assert_same(fast, ref, RNG.normal(size=(3, 4)))
    fast, ref = compile_pair([x, n], pt.alloc(x, n, x.shape[0], x.shape[1]), NOFUSE)
    assert "Alloc" in _counts(fast)
    assert_same(fast, ref, RNG.normal(size=(3, 4)), 2)


def test_reshape_of_reshape_is_one_reshape():
    x = pt.matrix("x")
    fast, ref = compile_pair([x], pt.reshape(pt.reshape(x, (-1,)), (4, 3)), NOFUSE)
    assert _counts(fast) == {"Reshape": 1}
    assert_same(fast, ref, RNG.normal(size=(3, 4)))


def test_dimshuffle_of_dimshuffle_is_merged():
    x = pt.tensor3("x")
    out = x.dimshuffle(2, 0, "x", 1).dimshuffle(1, 3, 0, 2)
    fast, ref = compile_pair([x], out, NOFUSE)
    assert op_counts(fast) == {"DimShuffle": 1, "DeepCopyOp": 1}  # a view of x: copied
    assert_same(fast, ref, RNG.normal(size=(2, 3, 4)))


# -- sum of a broadcast alloc -----------------------------------------------------------------

SUM_ALLOC = [
    ("scalar, all axes", lambda s, v, n: pt.sum(pt.alloc(s, n, 3)), False),
    ("scalar, axis 0", lambda s, v, n: pt.sum(pt.alloc(s, n, 3), axis=0), True),
    ("vector, broadcast axis", lambda s, v, n: pt.sum(pt.alloc(v, n, 4), axis=0), True),
    ("vector, real axis", lambda s, v, n: pt.sum(pt.alloc(v, n, 4), axis=1), True),
    ("vector, all axes", lambda s, v, n: pt.sum(pt.alloc(v, n, 4)), False),
]


@pytest.mark.parametrize("name, build, alloc_left", SUM_ALLOC, ids=[c[0] for c in SUM_ALLOC])
def test_sum_of_broadcast_alloc_counts_instead_of_adding(name, build, alloc_left):
    s, v, n = pt.scalar("s"), pt.vector("v"), pt.lscalar("n")
    out = build(s, v, n)
    inputs = [s, v, n]
    fast, ref = compile_pair(inputs, out, NOFUSE)
    nodes = fast.maker.fgraph.apply_nodes
    for node in nodes:  # no Sum reads an Alloc any more
        assert not (isinstance(node.op, Sum) and node.inputs[0].owner is not None
                    and isinstance(node.inputs[0].owner.op, Alloc))
    assert any(isinstance(nd.op, Alloc) for nd in nodes) == alloc_left
    assert fast.maker.fgraph.outputs[0].type == out.type
    vv = RNG.normal(size=4)
    assert_same(fast, ref, 2.5, vv, 5, rtol=1e-12)
    assert_same(fast, ref, -np.inf, np.array([0.0, np.nan, np.inf, -1.0]), 3, rtol=1e-12)
    assert_same(fast, ref, 1.5, vv, 0, rtol=1e-12)  # empty: the sum is 0


def test_sum_of_alloc_int_keeps_numpy_sum_dtype():
    s, n = pt.scalar("s", dtype="int32"), pt.lscalar("n")
    out = pt.sum(pt.alloc(s, n, 3))
    fast, ref = compile_pair([s, n], out, NOFUSE)
    assert fast.maker.fgraph.outputs[0].type.dtype == "int64"
    assert_same(fast, ref, np.int32(7), 4)


# -- sub/neg normal form and collected constants ---------------------------------------------

NORMAL_FORM = [
    ("x+(-y)", lambda x, y: x + (-y), {"Sub": 1}),
    ("(-x)+y", lambda x, y: (-x) + y, {"Sub": 1}),
    ("-(x-y)", lambda x, y: -(x - y), {"Sub": 1}),
    ("x-(-y)", lambda x, y: x - (-y), {"Add": 1}),
    ("0-x", lambda x, y: 0 - x, {"Neg": 1}),
    ("x*-1", lambda x, y: x * -1, {"Neg": 1}),
    ("(-x)*y", lambda x, y: (-x) * y, {"Neg": 1, "Mul": 1}),
    ("-((-x)*y)", lambda x, y: -((-x) * y), {"Mul": 1}),
    ("x+1+2", lambda x, y: x + 1 + 2, {"Add": 1}),
    ("(x+1)-1", lambda x, y: (x + 1) - 1, {}),
    ("2*x/4", lambda x, y: 2 * x / 4, {"Mul": 1}),
    ("x*2*y*3", lambda x, y: x * 2 * y * 3, {"Mul": 1}),
]


@pytest.mark.parametrize("name, build, expected", NORMAL_FORM, ids=[c[0] for c in NORMAL_FORM])
def test_sub_neg_normal_form_and_constants(name, build, expected):
    x, y = pt.vector("x"), pt.vector("y")
    fast, ref = compile_pair([x, y], build(x, y), NOFUSE)
    assert _counts(fast) == expected
    assert_same(fast, ref, RNG.normal(size=6), RNG.normal(size=6))
    assert_same(fast, ref, EDGE, EDGE[::-1])


def test_normal_form_of_negation_puts_neg_outside():
    x, y = pt.vector("x"), pt.vector("y")
    fast, _ = compile_pair([x, y], (-x) * y, NOFUSE)
    (out,) = fast.maker.fgraph.outputs
    assert type(out.owner.op.scalar_op).__name__ == "Neg"


# -- long sums and products: fully simplified, bounded arity -----------------------------------


@pytest.mark.parametrize("n", [300, 1500])  # 1500: chains past the recursion limit
def test_long_chains_are_fully_simplified(n):
    x, y = pt.vector("x"), pt.vector("y")
    s, p, c = x, x, x
    for _ in range(n):
        s = (s + y) - y
        p = p * 1.001
        c = c + 1.0
    # (s + y) - y cancels only under fast_math (y = inf gives NaN in NumPy)
    for out, expected, fast_math in [(s, {}, True), (p, {"Mul": 1}, False),
                                     (c, {"Add": 1}, False)]:
        with config.change_flags(fast_math=fast_math):
            fast, ref = compile_pair([x, y], out, NOFUSE)
        assert _counts(fast) == expected
        assert_same(fast, ref, RNG.normal(size=4), RNG.normal(size=4), rtol=1e-9)


def test_long_sum_of_distinct_terms_has_bounded_arity():
    x = pt.vector("x")
    s = x
    for i in range(300):
        s = s + pt.sin(x * float(i + 2))
    fast, ref = compile_pair([x], s, NOFUSE)
    adds = [n for n in fast.maker.fgraph.apply_nodes if type(n.op.scalar_op).__name__ == "Add"]
    assert len(adds) == -(-300 // (MAX_ARITY - 1))
    assert all(len(n.inputs) <= MAX_ARITY for n in adds)
    assert_same(fast, ref, RNG.normal(size=4), rtol=1e-9)


# -- multi-output fusion ------------------------------------------------------------------------


def test_fusion_gives_multi_output_composite_for_values_reused_later():
    x, y = pt.vector("x"), pt.vector("y")
    h = pt.tanh(x * y)
    out1 = pt.exp(h) * 2
    out2 = pt.sin(out1) + h * h  # h is read again after out1's fused node
    fast, ref = compile_pair([x, y], [out1, out2])
    nodes = fast.maker.fgraph.apply_nodes
    assert op_counts(fast) == {"Composite": len(nodes)}
    assert len(nodes) < 3
    assert any(len(n.outputs) > 1 for n in nodes)
    xv, yv = RNG.normal(size=5), RNG.normal(size=5)
    for a, b in zip(fast(xv, yv), ref(xv, yv)):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_fusion_exposes_intermediate_graph_outputs():
    x = pt.vector("x")
    a = pt.exp(x) * 3
    b = pt.tanh(a) + 1
    fast, ref = compile_pair([x], [a, b])
    assert len(fast.maker.fgraph.apply_nodes) == 1
    v = RNG.normal(size=5)
    for p, q in zip(fast(v), ref(v)):
        np.testing.assert_allclose(p, q, rtol=1e-12)


# -- equilibrium terminates on adversarial graphs --------------------------------------------------


def _adversarial(x, y):
    """Shapes that make naive rewriting cycle or explode: nested cancellations,
    alternating groups, wide fan-out of one subexpression, deep neg towers."""
    t = x
    for i in range(200):
        t = -(t - y) if i % 2 else (t * y) / y
    shared = pt.exp(x + y)
    fan = shared
    for _ in range(50):
        fan = fan + shared * shared - shared
    tower = x
    for _ in range(301):
        tower = -tower
    div = x
    for _ in range(100):
        div = 1 / (1 / (div * 2)) / 2
    logs = pt.log(pt.exp(pt.log(pt.exp(x + 0))))
    return t + fan + tower + div + logs


def test_fast_run_terminates_on_adversarial_graph_without_giving_up():
    x, y = pt.vector("x"), pt.vector("y")
    out = _adversarial(x, y)
    xv, yv = RNG.uniform(0.5, 1, size=4), RNG.uniform(0.5, 1, size=4)
    for fast_math in (False, True):  # the terms cancel under fast_math only
        with warnings.catch_warnings(), config.change_flags(fast_math=fast_math):
            warnings.simplefilter("error", RuntimeWarning)  # "rewrites undoing each other"
            fast, ref = compile_pair([x, y], out, NOFUSE)
        if fast_math:
            assert len(fast.maker.fgraph.apply_nodes) < 60
        assert_same(fast, ref, xv, yv, rtol=1e-9)

"""local_useless_blockwise: a Blockwise that needs no mapping becomes its core Op."""

from __future__ import annotations

import numpy as np

import opgraph.tensor as pt
from opgraph.graph.fg import FunctionGraph
from opgraph.tensor.blockwise import Blockwise, local_useless_blockwise
from opgraph.tensor.elemwise import Elemwise
from tests.tensor.helpers import evaluate


def test_blockwise_of_scalar_elemwise_becomes_the_elemwise() -> None:
    x = pt.tensor3("x")
    log = pt.log(pt.scalar()).owner.op
    out = Blockwise(log, signature="()->()")(x)
    fg = FunctionGraph([x], [out], clone=False)
    [new] = local_useless_blockwise.transform(fg, out.owner)
    assert isinstance(new.owner.op, Elemwise) and new.type == out.type
    xv = np.random.default_rng(0).random((2, 3, 4)) + 0.5
    np.testing.assert_allclose(evaluate(new, {x: xv}), evaluate(out, {x: xv}))


def test_batched_blockwise_of_a_core_op_is_kept() -> None:
    x = pt.tensor3("x")
    core = pt.sum(pt.vector(), axis=0).owner.op
    out = Blockwise(core, signature="(n)->()")(x)
    fg = FunctionGraph([x], [out], clone=False)
    assert local_useless_blockwise.transform(fg, out.owner) is None


def test_vectorized_matmul_keeps_new_axes_outermost() -> None:
    """A core matmul of a matrix and a 3-d stack, vectorised: the new axis stays leading."""
    b = pt.tensor3("b")
    xb = pt.tensor3("xb")
    out = pt.vectorize(pt.matmul, signature="(m,k),(s,k,n)->(s,m,n)")(xb, b)
    assert not isinstance(out.owner.op, Blockwise)  # matmul maps over the batch itself
    rng = np.random.default_rng(1)
    xv, bv = rng.random((4, 2, 3)), rng.random((5, 3, 6))
    expected = np.stack([np.matmul(x, bv) for x in xv])
    np.testing.assert_allclose(evaluate(out, {xb: xv, b: bv}), expected)

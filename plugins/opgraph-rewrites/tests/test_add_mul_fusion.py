"""PyTensor's add_mul_fusion step: nested sums/products flattened, constant terms folded
(never into a bigger array), values those of the unrewritten graph."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import compile_pair
from opgraph.tensor.rewriting.elemwise import (
    add_mul_fusion_seqopt,
    constant_fold_branches_of_add_mul,
    flatten_nested_add_mul,
)

import opgraph.tensor as pt
from opgraph.compile.database import optdb
from opgraph.compile.mode import get_mode
from opgraph.graph.basic import Constant
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.utils import rewrite_graph
from opgraph.graph.rewriting.walking import in2out

RNG = np.random.default_rng(11)
XS = np.array([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, 1e308, -1e-308])


@pytest.mark.parametrize("op", [pt.add, pt.mul])
def test_folds_constants_and_keeps_values(op):
    x = pt.dvector("x")
    a, b = RNG.normal(size=(1, 4, 9)), RNG.normal(size=(1, 4, 1))
    out = op(op(a, x), b)
    new = rewrite_graph(out, include=("add_mul_fusion",))
    assert len(new.owner.inputs) == 2
    assert sum(isinstance(i, Constant) for i in new.owner.inputs) == 1
    fast, ref = compile_pair([x], out, get_mode("FAST_RUN"))
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(fast(XS), ref(XS), rtol=1e-15, equal_nan=True)


def test_small_constant_against_a_big_one_stays_apart():
    x = pt.dvector("x")
    a, b, c = RNG.normal(size=(1, 4, 3)), RNG.normal(size=(1, 4, 1)), RNG.normal(size=(50, 1, 1))
    out = pt.add(pt.add(pt.add(a, x), c), b)
    new = rewrite_graph(out, include=("add_mul_fusion",))
    consts = [i for i in new.owner.inputs if isinstance(i, Constant)]
    assert sorted(c.data.shape for c in consts) == [(1, 4, 3), (50, 1, 1)]
    fast, ref = compile_pair([x], out, get_mode("FAST_RUN"))
    # the terms are added in another order: equal up to the last place of the largest term
    np.testing.assert_allclose(fast(XS[:3]), ref(XS[:3]), rtol=1e-15, atol=1e-14)


def test_flatten_only_single_reader():
    x, y, z = pt.dvector("x"), pt.dvector("y"), pt.dvector("z")
    inner = x * y
    fg = FunctionGraph([x, y, z], [inner * z, inner + 1], clone=True)
    in2out(flatten_nested_add_mul).rewrite(fg)
    assert len(fg.outputs[0].owner.inputs) == 2  # the inner product is read twice
    fg = FunctionGraph([x, y, z], [(x * y) * z], clone=True)
    in2out(flatten_nested_add_mul).rewrite(fg)
    assert len(fg.outputs[0].owner.inputs) == 3


def test_gradient_through_folded_graph():
    x = pt.dvector("x")
    out = ((x * 2.0) * 3.0).sum()
    fast, ref = compile_pair([x], pt.grad(out, x), get_mode("FAST_RUN"))
    np.testing.assert_array_equal(fast(np.ones(3)), ref(np.ones(3)))


def test_registered_in_the_fusion_phase():
    assert optdb["add_mul_fusion"] is add_mul_fusion_seqopt
    assert "constant_fold_branches_of_add_mul" in add_mul_fusion_seqopt
    assert add_mul_fusion_seqopt["constant_fold_branches_of_add_mul"] is \
        constant_fold_branches_of_add_mul

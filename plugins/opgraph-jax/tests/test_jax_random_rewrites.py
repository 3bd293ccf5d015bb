"""PyTensor's JAX random rewrites (opt-in here): each rebuilt draw keeps its distribution."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as st
from opgraph.tensor.random.rewriting.jax import (
    materialize_implicit_arange_choice_without_replacement,
    random_vars_opt,
    size_parameter_as_tuple,
)
from opgraph_jax.shape_tuple import JAXShapeTuple

import opgraph
import opgraph.tensor as pt
import opgraph.tensor.random.basic as rb
from opgraph.compile.mode import get_mode
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.walking import in2out
from opgraph.tensor.random.op import RandomVariable

N = 40_000
CASES = [
    ("lognormal", lambda r: pt.random.lognormal(0.3, 0.5, size=N, rng=r),
     st.lognorm(0.5, scale=np.exp(0.3))),
    ("halfnormal", lambda r: pt.random.halfnormal(1.0, 2.0, size=N, rng=r),
     st.halfnorm(1.0, 2.0)),
    ("geometric", lambda r: pt.random.geometric(0.3, size=N, rng=r), st.geom(0.3)),
    ("negative_binomial", lambda r: pt.random.negative_binomial(5, 0.4, size=N, rng=r),
     st.nbinom(5, 0.4)),
    ("invgamma", lambda r: pt.random.invgamma(4.0, 2.0, size=N, rng=r),
     st.invgamma(4.0, scale=2.0)),
    ("gengamma", lambda r: pt.random.gengamma(2.0, 1.5, 3.0, size=N, rng=r),
     st.gengamma(2.0 / 1.5, 1.5, scale=3.0)),
    ("wald", lambda r: pt.random.wald(1.5, 2.0, size=N, rng=r),
     st.invgauss(1.5 / 2.0, scale=2.0)),
    ("betabinom", lambda r: pt.random.betabinom(10, 2.0, 3.0, size=N, rng=r),
     st.betabinom(10, 2.0, 3.0)),
]


def _rewritten(out, rewriter):
    fg = FunctionGraph(outputs=[out], clone=True)
    rewriter.rewrite(fg)
    return fg


@pytest.mark.parametrize(("name", "build", "dist"), CASES, ids=[c[0] for c in CASES])
def test_rebuilt_draw_keeps_mean_and_variance(name, build, dist):
    rng = opgraph.shared(np.random.default_rng(11))
    out = build(rng)
    original = type(out.owner.op)
    fg = _rewritten(out, random_vars_opt)
    ops = [type(n.op) for n in fg.apply_nodes]
    assert original not in ops, f"{name} was not rebuilt"
    assert any(issubclass(t, RandomVariable) for t in ops)
    draws = opgraph.function([], fg.outputs[0], mode="FAST_COMPILE")()
    assert draws.dtype == out.type.dtype and draws.shape == (N,)
    mean, var = dist.stats("mv")
    assert abs(draws.mean() - mean) < 5 * np.sqrt(var / N)
    assert abs(draws.var() / var - 1) < 0.1


def test_group_is_opt_in_and_reachable_by_name():
    rng = opgraph.shared(np.random.default_rng(3))
    out = pt.random.lognormal(0.0, 1.0, size=5, rng=rng)
    plain = opgraph.function([], out, mode="FAST_RUN")
    assert any(isinstance(n.op, type(out.owner.op)) for n in plain.maker.fgraph.apply_nodes)
    opted = opgraph.function([], out, mode=get_mode("FAST_RUN").including("random_vars_opt"))
    assert not any(isinstance(n.op, type(out.owner.op)) for n in opted.maker.fgraph.apply_nodes)
    assert np.all(opted() > 0)


def test_size_from_scalars_becomes_a_shape_tuple_with_the_same_draws():
    x = pt.matrix("x")
    rng = opgraph.shared(np.random.default_rng(5))
    out = pt.random.normal(0.0, 1.0, size=(x.shape[0], 3), rng=rng)
    fg = _rewritten(out, in2out(size_parameter_as_tuple))
    (rv,) = [n for n in fg.apply_nodes if isinstance(n.op, RandomVariable)]
    assert isinstance(rv.inputs[1].owner.op, JAXShapeTuple)
    value = np.zeros((4, 2))
    want = opgraph.function([x], out, mode="FAST_COMPILE")(value)
    rng.set_value(np.random.default_rng(5))
    inputs = [v for v in fg.inputs if v.name == "x"]
    got = opgraph.function(inputs, fg.outputs[0], mode="FAST_COMPILE")(value)
    np.testing.assert_array_equal(got, want)


def test_batched_choice_from_a_count_draws_from_arange():
    rng = opgraph.shared(np.random.default_rng(2))
    op = rb.ChoiceWithoutReplacement(signature="(),(a),(1)->(s0)")
    node = op.make_node(rng, None, pt.constant(6), pt.constant(np.full((3, 6), 1 / 6)),
                        pt.constant(np.array([4])))
    fg = _rewritten(node.outputs[1], in2out(materialize_implicit_arange_choice_without_replacement))
    (new,) = [n for n in fg.apply_nodes if isinstance(n.op, rb.ChoiceWithoutReplacement)]
    assert new.op.signature.startswith("(a)")
    assert new.inputs[2].type.ndim == 1
    draws = opgraph.function([], fg.outputs[0], mode="FAST_COMPILE")()
    assert draws.shape == (3, 4)
    for row in draws:
        assert len(set(row.tolist())) == 4 and set(row.tolist()) <= set(range(6))

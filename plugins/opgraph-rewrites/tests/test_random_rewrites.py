"""RV rewrites: the lifted graph draws exactly what the original draws."""

from __future__ import annotations

import numpy as np
import pytest
from opgraph_rewrites.random import (
    local_dimshuffle_rv_lift,
    local_rv_size_lift,
    local_subtensor_rv_lift,
    random_make_inplace,
    sidestep_unused_rng_consumer,
)
from opgraph_rewrites.shape_feature import ShapeOptimizer

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode, get_default_mode
from opgraph.compile.sharedvalue import shared
from opgraph.graph.destroyhandler import DestroyHandler
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.walking import in2out
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.random.basic import NormalRV, dirichlet, multivariate_normal, normal
from opgraph.tensor.random.op import RandomVariable, default_rng
from opgraph.tensor.random.type import random_generator_type
from opgraph.tensor.type_other import NoneTypeT

PLAIN = Mode(linker="py", optimizer=None)


def _values(outputs):
    """Evaluate ``outputs`` without rewrites (the shared generator is not updated)."""
    return function([], outputs, mode=PLAIN)()


def _rewrite(out, rewriter):
    fg = FunctionGraph(outputs=[out], clone=True)
    in2out(rewriter).rewrite(fg)
    return fg


@pytest.mark.parametrize(
    "build",
    [
        lambda rng: normal(np.array([0.0, 10.0]), 1.0, size=(3, 2), rng=rng),
        lambda rng: normal(0.0, 1.0, size=(), rng=rng),
        lambda rng: dirichlet(np.ones((2, 3)), size=(4, 2), rng=rng),
        lambda rng: multivariate_normal(np.zeros(2), np.eye(2), size=(3,), rng=rng),
    ],
)
def test_rv_size_lift_moves_size_into_the_parameters(build):
    rng = shared(np.random.default_rng(5))
    out = build(rng)
    fg = _rewrite(out, local_rv_size_lift)
    (new,) = fg.outputs
    node = new.owner
    assert isinstance(node.op, RandomVariable)
    assert isinstance(node.op.size_param(node).type, NoneTypeT)
    assert new.type.shape == out.type.shape
    np.testing.assert_allclose(_values(new), _values(out))


@pytest.mark.parametrize(
    "order, size",
    [(("x", 0), None), ((1, 0), (2, 3)), ((0, "x", 1), (2, 3)), (("x",), ())],
)
def test_dimshuffle_lift_draws_the_same_numbers(order, size):
    rng = shared(np.random.default_rng(8))
    loc = np.arange(2.0) * 100 if size is None else 0.0
    out = normal(loc, 1e-6 if size is None else 1.0, size=size, rng=rng).dimshuffle(order)
    fg = _rewrite(out, local_dimshuffle_rv_lift)
    (new,) = fg.outputs
    assert isinstance(new.owner.op, RandomVariable)
    assert not any(isinstance(n.op, DimShuffle) and n.inputs[0].owner is not None
                   and isinstance(n.inputs[0].owner.op, RandomVariable)
                   for n in fg.apply_nodes)
    assert new.type.shape == out.type.shape
    if order == (1, 0):
        # a transpose of iid draws is a different assignment of the same stream
        assert sorted(_values(new).ravel()) == pytest.approx(sorted(_values(out).ravel()))
    else:
        np.testing.assert_allclose(_values(new), _values(out), rtol=1e-5)


def test_dimshuffle_lift_leaves_support_dims_and_shared_draws_alone():
    rng = shared(np.random.default_rng(1))
    mv = multivariate_normal(np.zeros(2), np.eye(2), size=(3,), rng=rng)
    fg = _rewrite(mv.dimshuffle(1, 0), local_dimshuffle_rv_lift)
    assert isinstance(fg.outputs[0].owner.op, DimShuffle)
    x = normal(0, 1, size=(3,), rng=rng)
    fg = FunctionGraph(outputs=[x.dimshuffle("x", 0), x], clone=True)
    in2out(local_dimshuffle_rv_lift).rewrite(fg)
    assert isinstance(fg.outputs[0].owner.op, DimShuffle)


def test_random_make_inplace_respects_the_destroy_handler():
    seed = pt.lscalar("seed")
    made = default_rng(seed)
    x = normal(0, 1, size=(2,), rng=made)
    fg = FunctionGraph(inputs=[seed], outputs=[x], clone=True)
    random_make_inplace.rewrite(fg)
    assert fg.outputs[0].owner.op.inplace  # the generator is an intermediate: safe

    rng = random_generator_type("rng")
    y = normal(0, 1, size=(2,), rng=rng)
    fg = FunctionGraph(inputs=[rng], outputs=[y], clone=False)
    # As in PyTensor, a bare handler lets graph inputs be destroyed; function() protects
    # them (mutable_inputs), and so does protect_inputs=True.
    fg.attach_feature(DestroyHandler(protect_inputs=True))
    random_make_inplace.rewrite(fg)
    assert not fg.outputs[0].owner.op.inplace  # a caller's generator is protected

    fg = FunctionGraph(inputs=[rng], outputs=[y], clone=False)
    fg.attach_feature(DestroyHandler(mutable_inputs=[rng]))
    random_make_inplace.rewrite(fg)
    assert fg.outputs[0].owner.op.inplace


@pytest.mark.parametrize(
    "index",
    [
        lambda x, i: x[1, i:, ::2],
        lambda x, i: x[:, i],
        lambda x, i: x[i],
        lambda x, i: x[np.array([True, False]), i],
        lambda x, i: x[:, np.array([False, True, True]), i],
    ],
)
def test_subtensor_lift_draws_only_the_selected_entries(index):
    rng = shared(np.random.default_rng(6))
    loc = np.arange(12.0).reshape(3, 4) * 10
    i = pt.lscalar("i")
    out = index(normal(loc, 1e-6, size=(2, 3, 4), rng=rng), i)
    fg = FunctionGraph(outputs=[out], clone=False)
    in2out(local_subtensor_rv_lift).rewrite(fg)
    new = fg.outputs[0]
    assert isinstance(new.owner.op, RandomVariable)
    assert new.type == out.type
    lifted = function([i], new, mode=PLAIN)(1)
    expected = index(np.broadcast_to(loc, (2, 3, 4)), 1)
    np.testing.assert_allclose(lifted, expected, atol=1e-3)


def test_subtensor_lift_leaves_support_dims_and_shared_draws_alone():
    rng = shared(np.random.default_rng(1))
    mv = multivariate_normal(np.zeros(2), np.eye(2), size=(3,), rng=rng)
    fg = FunctionGraph(outputs=[mv[:, 0]], clone=False)
    in2out(local_subtensor_rv_lift).rewrite(fg)
    assert not isinstance(fg.outputs[0].owner.op, RandomVariable)
    x = normal(0, 1, size=(3,), rng=rng)
    fg = FunctionGraph(outputs=[x[0], x], clone=False)
    in2out(local_subtensor_rv_lift).rewrite(fg)
    assert not isinstance(fg.outputs[0].owner.op, RandomVariable)
    y = normal(0, 1, size=(3,), rng=rng)
    fg = FunctionGraph(outputs=[y[np.array([0, 0])]], clone=False)  # repeats one draw
    in2out(local_subtensor_rv_lift).rewrite(fg)
    assert not isinstance(fg.outputs[0].owner.op, RandomVariable)
    z = multivariate_normal(np.zeros(2), np.eye(2), size=(3,), rng=rng)
    fg = FunctionGraph(outputs=[z[np.array([True, False, True]), :]], clone=False)
    in2out(local_subtensor_rv_lift).rewrite(fg)
    assert isinstance(fg.outputs[0].owner.op, RandomVariable)


def test_shape_feature_gives_rv_shapes_when_indexed():
    m = pt.iscalar("m")
    d = dirichlet(pt.ones((m, 4)), size=(2, m))
    fg = FunctionGraph(outputs=[d], clone=False)
    ShapeOptimizer().rewrite(fg)
    shape = fg.shape_feature.shape_of[d]
    values = function([m], list(shape), mode=PLAIN, on_unused_input="ignore")(3)
    assert [int(v) for v in values] == [2, 3, 4]
    # a generator has no shape: as in PyTensor, shape_of maps it to None
    assert fg.shape_feature.shape_of[d.owner.outputs[0]] is None
    with pytest.raises(KeyError):  # a variable that is not in the graph at all
        fg.shape_feature.shape_of[random_generator_type("elsewhere")]


def test_sidestep_unused_rng_consumer_in_default_mode_and_by_tag():
    rng = random_generator_type("rng")
    next_rng, x = rng.normal([0.0], [1.0], size=3)
    next_rng, _unused = next_rng.normal(x, [1.0])
    final_rng, z = next_rng.normal(1.0, 2.0)
    fn = function([rng], [final_rng, z], mode=get_default_mode().excluding("inplace"))
    nodes = [n for n in fn.maker.fgraph.apply_nodes if isinstance(n.op, NormalRV)]
    assert len(nodes) == 1 and nodes[0].inputs[0] in fn.maker.fgraph.inputs
    gen = np.random.default_rng(3)
    _, value = fn(gen)
    assert value == pytest.approx(np.random.default_rng(3).normal(1.0, 2.0))
    kept = function([rng], [final_rng, z],
                    mode=get_default_mode().excluding("inplace", "random_unsafe"))
    assert sum(isinstance(n.op, NormalRV) for n in kept.maker.fgraph.apply_nodes) == 3


def test_sidestep_keeps_a_duplicate_that_advances_the_generator():
    rng = random_generator_type("rng")
    _next_a, draw_a = rng.normal(0, 1, size=3)
    next_b, _draw_b = draw_a.owner.clone().outputs
    fg = FunctionGraph([rng], [draw_a, next_b], clone=False)
    in2out(sidestep_unused_rng_consumer).rewrite(fg)
    assert sum(isinstance(n.op, NormalRV) for n in fg.apply_nodes) == 2


def test_lifted_draws_keep_the_name():
    rng = shared(np.random.default_rng(8))
    out = normal(0.0, 1.0, size=(3,), rng=rng, name="eps").dimshuffle("x", 0)
    fg = _rewrite(out, local_dimshuffle_rv_lift)
    assert fg.outputs[0].name == "eps_lifted"
    next_rng, x = normal(0.0, 1.0, rng=rng, return_next_rng=True)
    assert next_rng is x.owner.outputs[0]

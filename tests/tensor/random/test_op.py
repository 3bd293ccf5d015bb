"""RandomVariable as an Op: signature, shapes, size checks, dtype, gradients, purity."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.autodiff.undefined import NullTypeGradError
from opgraph.compile.sharedvalue import shared
from opgraph.config import config
from opgraph.gradient import grad
from opgraph.tensor.random.basic import (
    NormalRV,
    choice,
    dirichlet,
    multivariate_normal,
    normal,
)
from opgraph.tensor.random.op import RandomVariable, default_rng, vectorize_random_variable
from opgraph.tensor.random.type import random_generator_type
from opgraph.tensor.type_other import NoneConst

from ..helpers import evaluate


def test_signature_gives_ndims_and_str():
    rv = RandomVariable("normal", signature="(),()->()", dtype="float32")
    assert (rv.ndim_supp, rv.ndims_params) == (0, (0, 0))
    assert str(rv) == 'normal_rv{"(),()->()"}'
    mv = RandomVariable("mv", signature="(n),(n,n)->(n)", dtype="float64")
    assert (mv.ndim_supp, mv.ndims_params) == (1, (1, 2))
    legacy = RandomVariable("normal", 0, [0, 0], "floatX")
    assert legacy.ndims_params == (0, 0)
    with pytest.raises(TypeError, match="ndims_params"):
        RandomVariable("normal", 0, 0, "floatX")
    with pytest.raises(ValueError, match="signature"):
        RandomVariable("normal", signature="(),()")


def test_equal_ops_compare_equal_and_pickle():
    assert NormalRV() == normal and hash(NormalRV()) == hash(normal)
    assert NormalRV(inplace=True) != normal
    out = choice(5, size=(2, 3), replace=False)
    back = pickle.loads(pickle.dumps(out))
    assert back.owner.op == out.owner.op


def test_inputs_outputs_and_params():
    rng = shared(np.random.default_rng(1))
    out = normal(1.0, 2.0, size=(3,), rng=rng)
    node = out.owner
    assert node.op.rng_param(node) is rng
    assert [float(evaluate(p)) for p in node.op.dist_params(node)] == [1.0, 2.0]
    assert node.outputs[0].type == random_generator_type
    assert node.outputs[1] is out
    assert normal(0, 1).owner.inputs[1] is NoneConst


def test_static_shape_from_size_and_params():
    mu = pt.tensor(dtype="float64", shape=(1, None, 3))
    sd = pt.tensor(dtype="float64", shape=(None, 1))
    assert normal(mu, sd).type.shape == (1, None, 3)
    n = pt.iscalar("n")
    assert normal(mu, sd, size=(4, n, 3)).type.shape == (4, None, 3)
    assert normal(0, 1, size=pt.as_tensor(np.int64(1))).type.shape == (1,)
    assert normal(0, 1, size=()).type.shape == ()
    assert normal([0.0], [1.0]).type.shape == (1,)
    mean = pt.tensor(dtype="float64", shape=(2, 3))
    cov = pt.tensor(dtype="float64", shape=(10, 2, 3, 3))
    assert multivariate_normal(mean, cov).type.shape == (10, 2, 3)
    assert dirichlet(pt.ones((4, 5))).type.shape == (4, 5)


def test_infer_shape_matches_the_draw():
    m = pt.iscalar("m")
    alphas = pt.ones((m, m + 1))
    out = dirichlet(alphas, size=(2, m))
    shape = out.owner.op._infer_shape(out.owner.inputs[1], out.owner.op.dist_params(out.owner))
    rng = out.owner.inputs[0]
    value = evaluate(out, {rng: np.random.default_rng(0), m: 3})
    assert tuple(int(evaluate(s, {m: 3})) if not isinstance(s, int) else s
                 for s in shape) == value.shape == (2, 3, 4)


def test_bad_inputs_are_reported():
    with pytest.raises(TypeError, match="rng must be"):
        normal(0, 1, rng=shared(np.random.RandomState(0)))
    with pytest.raises(TypeError, match="rng must be"):
        normal.make_node(1, None, 0.0, 1.0)
    with pytest.raises(TypeError, match="Parameter size"):
        normal(0, 1, size={1, 2})
    with pytest.raises(ValueError, match="Size length is incompatible"):
        normal(np.zeros((2, 3)), 1, size=(3,))
    with pytest.raises(ValueError, match="Size length is incompatible"):
        normal([0.0], [1.0], size=())
    with pytest.raises(TypeError, match="expects 2 distribution parameter"):
        normal.make_node(None, None, 0.0)
    with pytest.raises(ValueError, match="needs at least 1 dimension"):
        dirichlet(1.0)


def test_dtype_argument_and_floatx():
    rv = RandomVariable("normal", signature="(),()->()", dtype="int32")
    assert rv(0, 1).dtype == "int32"
    assert rv(0, 1, dtype="int64").dtype == "int64"
    with pytest.raises(ValueError, match="Cannot change the dtype of a normal RV"):
        rv(0, 1, dtype="float32")
    assert normal(0, 1, dtype="float32").dtype == "float32"
    floatx = RandomVariable("normal", signature="(),()->()", dtype="floatX")
    assert floatx.dtype == "floatX"
    with config.change_flags(floatX="float32"):
        assert floatx(0, 1).dtype == "float32"


def test_perform_copies_the_generator_unless_inplace():
    rng_value = np.random.default_rng(3)
    before = copy.deepcopy(rng_value.bit_generator.state)
    rng = shared(np.random.default_rng(3))
    out = normal(0, 1, size=(2,), rng=rng)
    next_rng = out.owner.outputs[0]
    new_rng, value = evaluate([next_rng, out], {rng: rng_value})
    assert rng_value.bit_generator.state == before
    assert new_rng is not rng_value
    np.testing.assert_allclose(value, np.random.default_rng(3).normal(size=2))
    inplace = NormalRV(inplace=True)
    assert inplace.destroy_map == {0: [0]}
    out = inplace(0, 1, size=(2,), rng=rng)
    new_rng, _ = evaluate([out.owner.outputs[0], out], {rng: rng_value})
    assert new_rng is rng_value and rng_value.bit_generator.state != before


def test_gradient_is_undefined_with_a_clear_message():
    mu = pt.dscalar("mu")
    out = normal(mu, 1.0)
    with pytest.raises(NullTypeGradError, match="No gradient defined for random variables"):
        grad(out, mu)


def test_default_rng_op():
    seed = pt.lscalar("seed")
    value = evaluate(default_rng(seed), {seed: 3})
    assert random_generator_type.values_eq(value, np.random.default_rng(3))
    assert isinstance(evaluate(default_rng(None)), np.random.Generator)


def test_vectorize_random_variable_adds_batch_dims_in_front():
    vec = pt.tensor(dtype="float64", shape=(None,))
    out = normal(vec, 1.0, size=(3,))
    mat = pt.tensor(dtype="float64", shape=(None, None))
    node = out.owner
    new = vectorize_random_variable(node.op, node, node.inputs[0], node.inputs[1], mat,
                                    node.inputs[3])
    assert new.op.dist_params(new)[0] is mat
    size = evaluate(new.op.size_param(new), {mat: np.zeros((2, 3))})
    np.testing.assert_array_equal(size, [2, 3])
    sigma = pt.as_tensor(np.array(1.0))
    out = normal(vec, sigma, size=(2, 5))
    node = out.owner
    new_mu = pt.tensor(dtype="float64", shape=(1, 5))
    new_sigma = pt.tensor(dtype="float64", shape=(10,))
    new = vectorize_random_variable(node.op, node, node.inputs[0], node.inputs[1], new_mu,
                                    new_sigma)
    assert new.outputs[1].type.shape == (10, 2, 5)

"""Generator type, shared generators, the size/broadcast helpers and RandomStream."""

from __future__ import annotations

import copy
import subprocess
import sys

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.compile.sharedvalue import shared
from opgraph.tensor.random.type import random_generator_type
from opgraph.tensor.random.utils import (
    RandomStream,
    broadcast_params,
    custom_rng_deepcopy,
    normalize_size_param,
    params_broadcast_shapes,
    supp_shape_from_ref_param_shape,
)
from opgraph.tensor.random.variable import RandomGeneratorSharedVariable, shared_rng
from opgraph.tensor.type import TensorType
from opgraph.tensor.type_other import NoneConst

from ..helpers import evaluate


def test_type_filter_and_values_eq():
    rng = np.random.default_rng(5)
    assert random_generator_type.filter(rng) is rng
    with pytest.raises(TypeError, match=r"expects a numpy\.random\.Generator.*got int"):
        random_generator_type.filter(1)
    state = rng.bit_generator.state
    assert not random_generator_type.is_valid_value(state)
    rebuilt = random_generator_type.filter(state, strict=False)
    assert random_generator_type.values_eq(rebuilt, rng)
    assert not random_generator_type.is_valid_value({"bit_generator": "PCG64"}, strict=False)
    assert not random_generator_type.values_eq(rng, np.random.default_rng(6))
    assert repr(random_generator_type) == "RandomGeneratorType"
    var = random_generator_type("r")
    assert var.type == random_generator_type and var.name == "r"


def test_shared_generator_is_a_random_generator_shared_variable():
    gen = np.random.default_rng(42)
    copied = shared(gen)
    borrowed = shared(gen, borrow=True)
    assert isinstance(copied, RandomGeneratorSharedVariable)
    assert copied.container.storage[0] is not gen
    assert borrowed.container.storage[0] is gen
    assert copied.get_value(borrow=False) is not copied.container.storage[0]
    assert random_generator_type.may_share_memory(gen, borrowed.get_value(borrow=True))
    next_rng, x = borrowed.normal(0, 1)
    assert x.owner.inputs[0] is borrowed and next_rng is x.owner.outputs[0]


def test_shared_rng_and_set_value_seed():
    with pytest.raises(ValueError, match="Must set one of value or seed"):
        shared_rng()
    with pytest.raises(ValueError, match="Cannot specify both value and seed"):
        shared_rng(np.random.default_rng(1), seed=1)
    with pytest.raises(TypeError, match=r"Expected numpy\.random\.Generator"):
        shared_rng(value=42)
    srng = shared_rng(seed=7, name="rng")
    assert srng.name == "rng"
    assert random_generator_type.values_eq(srng.get_value(), np.random.default_rng(7))
    srng.set_value(seed=8)
    assert random_generator_type.values_eq(srng.get_value(), np.random.default_rng(8))
    with pytest.raises(ValueError, match="Cannot specify both new_value and seed"):
        srng.set_value(np.random.default_rng(1), seed=1)
    with pytest.raises(TypeError):
        srng.set_value(np.zeros(3))
    assert isinstance(shared_rng(seed=None).get_value(), np.random.Generator)


def test_normalize_size_param():
    assert normalize_size_param(None) is NoneConst
    assert normalize_size_param(()).type == TensorType(dtype="int64", shape=(0,))
    assert normalize_size_param(5).type == TensorType(dtype="int64", shape=(1,))
    n = pt.iscalar("n")
    size = normalize_size_param((2, n))
    assert size.type == TensorType(dtype="int64", shape=(2,))
    np.testing.assert_array_equal(evaluate(size, {n: 4}), [2, 4])
    vec = pt.tensor(dtype="int64", shape=(3,))
    assert normalize_size_param(vec) is vec
    with pytest.raises(TypeError, match="Parameter size"):
        normalize_size_param({1})
    with pytest.raises(TypeError, match="integer"):
        normalize_size_param(pt.dvector())
    with pytest.raises(ValueError, match="static length"):
        normalize_size_param(pt.lvector())


def test_broadcast_params_numeric_and_symbolic():
    mean = np.array([[0.0], [10.0], [100.0]])
    cov = np.eye(1)
    bm, bc = broadcast_params([mean, cov], [1, 2])
    np.testing.assert_array_equal(bm, mean)
    np.testing.assert_array_equal(bc, np.broadcast_to(cov, (3, 1, 1)))
    assert params_broadcast_shapes([(3, 1), (1, 1)], [1, 2]) == [(3, 1), (3, 1, 1)]
    m = pt.tensor(dtype="float64", shape=(None, 1))
    c = pt.dmatrix()
    sm, sc = broadcast_params([m, c], [1, 2])
    values = evaluate([sm, sc], {m: mean, c: cov})
    np.testing.assert_array_equal(values[1], np.broadcast_to(cov, (3, 1, 1)))
    with pytest.raises(ValueError, match="could not be broadcast"):
        params_broadcast_shapes([(2,), (3,)], [0, 0])


def test_supp_shape_from_ref_param_shape():
    assert supp_shape_from_ref_param_shape(
        ndim_supp=2, dist_params=(np.ones(2), np.ones((2, 3, 4))), ref_param_idx=1) == (3, 4)
    with pytest.raises(ValueError, match="ndim_supp"):
        supp_shape_from_ref_param_shape(ndim_supp=0, dist_params=(1,), ref_param_idx=0)
    with pytest.raises(ValueError, match="Reference parameter"):
        supp_shape_from_ref_param_shape(ndim_supp=1, dist_params=(np.array(1),),
                                        ref_param_idx=0)


def test_custom_rng_deepcopy_is_an_independent_equal_copy():
    rng = np.random.default_rng(123)
    rng.normal(size=3)
    cp = custom_rng_deepcopy(rng)
    assert cp.bit_generator is not rng.bit_generator
    assert cp.bit_generator.state == copy.deepcopy(rng).bit_generator.state
    np.testing.assert_array_equal(cp.normal(size=5), rng.normal(size=5))


def test_random_stream_seeds_each_generator_from_a_seed_sequence():
    stream = RandomStream(seed=234)
    u = stream.uniform(0, 1, size=(2,))
    n = stream.normal(0, 1, size=(2,))
    (child_u, child_n) = np.random.SeedSequence(234).spawn(2)
    rng_u, rng_n = (s for s, _ in stream.state_updates)
    assert rng_u.default_update is u.owner.outputs[0]
    np.testing.assert_allclose(evaluate(u, {rng_u: rng_u.get_value()}),
                               np.random.default_rng(child_u).uniform(0, 1, size=2))
    np.testing.assert_allclose(evaluate(n, {rng_n: rng_n.get_value()}),
                               np.random.default_rng(child_n).normal(0, 1, size=2))
    stream.seed(99)
    (child_u,) = np.random.SeedSequence(99).spawn(1)
    assert random_generator_type.values_eq(rng_u.get_value(), np.random.default_rng(child_u))
    assert stream.updates() == stream.state_updates
    with pytest.raises(ValueError, match="rng"):
        stream.normal(rng=shared(np.random.default_rng()))
    with pytest.raises(AttributeError):
        stream.not_a_distribution  # noqa: B018
    assert hasattr(stream, "standard_normal")


def test_shared_knows_generators_in_a_fresh_interpreter():
    code = (
        "import numpy as np, opgraph\n"
        "s = opgraph.shared(np.random.default_rng(1))\n"
        "assert type(s).__name__ == 'RandomGeneratorSharedVariable', type(s)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_importing_the_random_package_does_not_import_scipy():
    code = (
        "import sys, opgraph.tensor as pt\n"
        "assert pt.random.halfnormal is not None\n"
        "assert 'scipy' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)

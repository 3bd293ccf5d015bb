"""PyTensor's ``link.jax.dispatch.*`` modules and names: each name is the translation
``jax_funcify`` uses, and the helpers behave as PyTensor's do."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import scipy.sparse
from jax_helpers import compare_with_py
from opgraph.link.jax.dispatch import jax_funcify

import opgraph
import opgraph.tensor as pt
from opgraph.tensor.blockwise import Blockwise

# (module under opgraph.link.jax.dispatch, PyTensor's name, an expression with that Op)
CASES = [
    ("elemwise", "jax_funcify_Elemwise", lambda x: pt.exp(x)),
    ("elemwise", "jax_funcify_CAReduce", lambda x: x.sum(axis=0)),
    ("elemwise", "jax_funcify_DimShuffle", lambda x: x.T),
    ("elemwise", "jax_funcify_Softmax", lambda x: pt.special.softmax(x, axis=-1)),
    ("math", "jax_funcify_Dot", lambda x: pt.dot(x, x.T)),
    ("math", "jax_funcify_Max", lambda x: pt.max(x, axis=1)),
    ("math", "jax_funcify_Argmax", lambda x: pt.argmax(x, axis=1)),
    ("extra_ops", "jax_funcify_CumOp", lambda x: pt.cumsum(x, axis=0)),
    ("sort", "jax_funcify_Sort", lambda x: pt.sort(x, axis=1)),
    ("shape", "jax_funcify_Reshape", lambda x: x.reshape((3, 2))),
    ("shape", "jax_funcify_Shape", lambda x: x.shape),
    ("tensor_basic", "jax_funcify_Join", lambda x: pt.concatenate([x, x], axis=0)),
    ("linalg.decomposition", "jax_funcify_Cholesky",
     lambda x: pt.linalg.cholesky(pt.dot(x.T, x) + pt.eye(3))),
    ("linalg.summary", "jax_funcify_Det", lambda x: pt.linalg.det(pt.dot(x.T, x) + pt.eye(3))),
    ("subtensor", "jax_funcify_Subtensor", lambda x: x[1:, ::2]),
    ("subtensor", "jax_funcify_IncSubtensor", lambda x: pt.inc_subtensor(x[0], 1.0)),
]


@pytest.mark.parametrize(("module", "name", "build"), CASES, ids=[c[1] for c in CASES])
def test_named_translation_is_the_registered_one_and_computes_the_op(module, name, build):
    mod = importlib.import_module(f"opgraph.link.jax.dispatch.{module}")
    x = pt.matrix("x")
    out = build(x)
    node = out.owner
    if isinstance(node.op, Blockwise):  # the core Op's translation, on unbatched inputs
        node = node.op.core_op.make_node(*node.inputs)
        out = node.outputs[0]
    named = getattr(mod, name)
    assert named is jax_funcify.dispatch(type(node.op))
    value = np.arange(6.0).reshape(2, 3) / 7 + 0.1
    fn = named(node.op, node=node)
    no_rewrites = opgraph.compile.mode.Mode(linker="py", optimizer=None)
    args = opgraph.function([x], list(node.inputs), mode=no_rewrites,
                            on_unused_input="ignore")(value)
    ref = opgraph.function([x], out, mode=no_rewrites)(value)
    got = fn(*args)
    got = got[0] if isinstance(got, list | tuple) and not isinstance(ref, list) else got
    np.testing.assert_allclose(np.asarray(got), ref, rtol=1e-10)


def test_every_pytensor_module_path_imports():
    for module in ["basic", "blas", "blockwise", "einsum", "elemwise", "extra_ops", "linalg",
                   "linalg.constructors", "linalg.decomposition", "linalg.inverse",
                   "linalg.products", "linalg.solvers", "linalg.summary", "math", "pad",
                   "random", "scalar", "scan", "shape", "signal", "signal.conv", "sort",
                   "sparse", "subtensor", "tensor_basic"]:
        importlib.import_module(f"opgraph.link.jax.dispatch.{module}")


def test_basic_names_resolve_translations_registered_later():
    basic = importlib.import_module("opgraph.link.jax.dispatch.basic")
    from opgraph.ifelse import IfElse

    assert basic.jax_funcify_IfElse is jax_funcify.dispatch(IfElse)
    with pytest.raises(AttributeError, match="jax_funcify_Nothing"):
        basic.jax_funcify_Nothing  # noqa: B018
    assert np.asarray(basic.jnp_safe_copy(np.ones(2))).tolist() == [1.0, 1.0]


def test_jax_shape_tuple_builds_a_static_shape():
    shape_mod = importlib.import_module("opgraph.link.jax.dispatch.shape")
    x = pt.matrix("x")
    shape = shape_mod.JAXShapeTuple()(x.shape[0], x.shape[1])
    compare_with_py([x], pt.zeros(shape), [np.ones((2, 3))])
    with pytest.raises(TypeError, match="entry 0 must be an integer scalar"):
        shape_mod.JAXShapeTuple()(pt.scalar("f"))


def test_size_argument_check_names_what_jax_cannot_compile():
    random = importlib.import_module("opgraph.link.jax.dispatch.random")
    x = pt.matrix("x")
    random.assert_size_argument_jax_compatible(pt.random.normal(size=x.shape).owner)
    size = pt.lvector("size", shape=(2,))
    with pytest.raises(NotImplementedError, match="size as values known"):
        random.assert_size_argument_jax_compatible(pt.random.normal(size=size).owner)
    assert random.jax_sample_fn_t is random.jax_sample_fn.dispatch(pt.random.basic.StudentTRV)


def test_scalar_python_operator_forms():
    scalar = importlib.import_module("opgraph.link.jax.dispatch.scalar")
    import opgraph.scalar as ps

    assert scalar.jax_funcify_scalar_op_via_py_operators(ps.add)(1, 2, 3) == 6
    assert scalar.jax_funcify_scalar_op_via_py_operators(ps.int_div)(7, 2) == 3
    with pytest.raises(NotImplementedError):
        scalar.jax_funcify_scalar_op_via_py_operators(ps.exp)
    a = pt.scalar("a")
    assert scalar.all_inputs_are_scalar((a + a).owner)
    assert not scalar.all_inputs_are_scalar((pt.vector("v") + a).owner)


def test_sparse_matrix_typified_as_bcoo():
    sparse = importlib.import_module("opgraph.link.jax.dispatch.sparse")
    m = scipy.sparse.random(4, 3, density=0.5, format="csr", random_state=0)
    got = sparse.jax_typify_spmatrix(m, dtype="float32")
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got.todense()), m.toarray(), rtol=1e-6)

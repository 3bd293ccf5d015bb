"""The JAX mode as a plugin and as a Function: registration, faces, state, jit, errors."""

from __future__ import annotations

import jax
import numpy as np
import opgraph.link.jax
import opgraph_jax.link
import pytest
from opgraph.link.jax import JAXLinker, jitted_function
from opgraph.link.jax.dispatch import JAXUnsupportedOpError, jax_funcify
from opgraph.link.jax.ops import JAXOp

import opgraph
import opgraph.tensor as pt
from opgraph import function
from opgraph.compile.mode import JAX, Mode, available_modes, get_mode
from opgraph.graph.basic import Apply
from opgraph.graph.op import Op


def test_mode_linker_and_paths_are_registered() -> None:
    assert "JAX" in available_modes()
    assert isinstance(get_mode("JAX").linker, JAXLinker)
    assert isinstance(JAX.linker, JAXLinker)
    assert "jax" in JAX._optimizer.include and "inplace" in JAX._optimizer.exclude
    assert opgraph.link.jax is opgraph_jax.link  # one module object under both names
    assert opgraph.wrap_jax is opgraph.link.jax.ops.wrap_jax


def test_inputs_numpy_outputs_jax_arrays_or_numpy_on_request() -> None:
    x = pt.vector("x")
    f = function([x], x * 2, mode="JAX")
    out = f(np.arange(3.0))
    assert isinstance(out, jax.Array)
    np.testing.assert_array_equal(np.asarray(out), [0.0, 2.0, 4.0])
    g = function([x], x * 2, mode=Mode(linker=JAXLinker(numpy_outputs=True), optimizer=None))
    assert type(g(np.arange(3.0))) is np.ndarray


def test_shared_updates_stay_on_the_device_between_calls() -> None:
    w = opgraph.shared(np.zeros(3), name="w")
    x = pt.vector("x")
    f = function([x], w.sum(), updates={w: w + x}, mode="JAX")
    f(np.ones(3))
    assert isinstance(w.get_value(borrow=True), jax.Array)
    f(np.ones(3))
    np.testing.assert_array_equal(np.asarray(w.get_value()), [2.0, 2.0, 2.0])
    w.set_value(np.full(3, 10.0))
    assert float(f(np.ones(3))) == 30.0


def test_jit_once_and_raw_callable() -> None:
    x = pt.vector("x")
    f = function([x], pt.exp(x).sum(), mode="JAX")
    raw = jitted_function(f)
    assert raw is f.vm.jit_fn
    f(np.ones(3))
    f(np.zeros(3))
    assert raw._cache_size() == 1  # same shapes: traced and compiled once
    (value,) = raw(np.ones(3))
    np.testing.assert_allclose(value, 3 * np.e)
    grad = jax.grad(lambda v: raw(v)[0])(np.ones(3))  # usable by JAX samplers directly
    np.testing.assert_allclose(grad, np.full(3, np.e))


def test_trust_input_skips_checks_and_keeps_device_arrays() -> None:
    x = pt.vector("x")
    f = function([x], x + 1, mode="JAX")
    with pytest.raises(TypeError, match="x"):
        f(np.ones((2, 2)))
    f.trust_input = True
    out = f(jax.numpy.ones(3))
    np.testing.assert_array_equal(np.asarray(out), 2.0)


def test_integer_shape_inputs_are_static_arguments() -> None:
    a = pt.vector("a")
    n = pt.iscalar("n")
    f = function([a, n], a.reshape((n, n)), mode="JAX")
    assert f(np.arange(4.0), 2).shape == (2, 2)
    assert f(np.arange(9.0), 3).shape == (3, 3)


class _Twice(Op):
    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0] * 2


def test_third_parties_register_translations_and_missing_ones_fail_at_compile() -> None:
    x = pt.vector("x")
    with pytest.raises(JAXUnsupportedOpError, match="_Twice"):
        function([x], _Twice()(x), mode="JAX")

    class _Thrice(_Twice):
        pass

    jax_funcify.register(_Thrice)(lambda op, **kw: (lambda v: v * 3))
    f = function([x], _Thrice()(x), mode="JAX")
    np.testing.assert_array_equal(np.asarray(f(np.ones(2))), [3.0, 3.0])


def test_jax_op_gradient_matches_finite_differences() -> None:
    x = pt.tensor("x", shape=(3,))

    @opgraph.wrap_jax
    def f(v):
        return jax.numpy.sin(v) * v

    out = f(x)
    assert isinstance(out.owner.op, JAXOp)
    g = opgraph.grad(out.sum(), x)
    vals = np.array([0.3, -1.2, 2.0])
    for mode in ("FAST_COMPILE", "JAX"):
        gv = np.asarray(function([x], g, mode=mode)(vals))
        eps = 1e-6
        fd = [(np.sum(np.sin(vals + eps * e) * (vals + eps * e))
               - np.sum(np.sin(vals - eps * e) * (vals - eps * e))) / (2 * eps)
              for e in np.eye(3)]
        np.testing.assert_allclose(gv, fd, rtol=1e-6)


def test_wrap_jax_needs_static_shapes() -> None:
    x = pt.vector("x")
    with pytest.raises(ValueError, match="Please provide inputs"):
        opgraph.wrap_jax(lambda v: v * 2)(x)

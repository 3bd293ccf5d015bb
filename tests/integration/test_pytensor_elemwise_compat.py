"""PyTensor behaviours around Elemwise and einsum that need a linker: the unpacked
``make_thunk()`` triple, ``accept_inplace``, the C linker's shape errors, compiled einsum."""

from __future__ import annotations

import numpy as np
import pytest
from opgraph.link.c.basic import CLinker

import opgraph
import opgraph.tensor as pt
from opgraph.compile.io import In
from opgraph.compile.mode import Mode
from opgraph.gradient import verify_grad
from opgraph.graph.fg import FunctionGraph
from opgraph.link.basic import PerformLinker
from opgraph.scalar import basic as ps
from opgraph.scalar.logic import xor
from opgraph.scalar.math import exp
from opgraph.tensor.einsum import Einsum, einsum
from opgraph.tensor.elemwise import Elemwise
from opgraph.utils import to_return_values


@pytest.mark.parametrize("linker", [PerformLinker, CLinker])
def test_make_thunk_unpacks_as_fn_inputs_outputs(linker):
    x, y = pt.dmatrix("x"), pt.dmatrix("y")
    result = linker().accept(FunctionGraph([x, y], [x + y, x * y])).make_thunk()
    fn, inputs, outputs = result
    assert fn is result.fn and len(inputs) == 2 and len(outputs) == 2
    xv, yv = np.arange(6.0).reshape(2, 3), np.full((2, 3), 2.0)
    inputs[0].data = xv
    inputs[1].storage[0] = yv
    assert result.input_storage[0][0] is xv  # the handles are views of the same cells
    fn()
    np.testing.assert_array_equal(outputs[0].data, xv + yv)
    np.testing.assert_array_equal(to_return_values([o.data for o in outputs])[1], xv * yv)
    assert to_return_values([3]) == 3


@pytest.mark.parametrize("linker", [PerformLinker, CLinker])
def test_thunk_of_in_place_elemwise_writes_its_input(linker):
    x, y = pt.dmatrix("x"), pt.drow("y")
    fn, inputs, outputs = linker().accept(
        FunctionGraph([x, y], [Elemwise(ps.add, {0: 0})(x, y)])).make_thunk()
    xv, yv = np.ones((3, 2)), np.array([[1.0, 2.0]])
    inputs[0].data, inputs[1].data = xv, yv
    fn()
    np.testing.assert_array_equal(xv, [[2.0, 3.0]] * 3)
    assert outputs[0].data is xv


def test_accept_inplace_lets_the_callers_in_place_op_overwrite_its_input():
    x, y = pt.bvector("x"), pt.bvector("y")
    out = Elemwise(xor, {0: 0})(x, y)
    with pytest.raises(TypeError, match="accept_inplace"):
        opgraph.function([x, y], out)
    fn = opgraph.function([x, y], out, accept_inplace=True)
    left = np.array([0, 0, 1, 1], dtype="int8")
    fn(left, np.array([0, 1, 0, 1], dtype="int8"))
    np.testing.assert_array_equal(left, [0, 1, 1, 0])
    # An input no in-place Op of the caller's graph touches stays protected.
    z = pt.dvector("z")
    keep = np.array([1.0, 2.0])
    g = opgraph.function([z, x, y], [pt.exp(z) * 2, Elemwise(xor, {0: 0})(x, y)],
                         accept_inplace=True)
    g(keep, left.copy(), left.copy())
    np.testing.assert_array_equal(keep, [1.0, 2.0])
    # Declared mutable inputs were always allowed.
    h = opgraph.function([In(x, mutable=True), y], out, accept_inplace=True)
    other = np.array([1, 1], dtype="int8")
    h(other, np.array([1, 0], dtype="int8"))
    np.testing.assert_array_equal(other, [0, 1])


def test_verify_grad_accepts_an_in_place_op():
    value = np.array([[1.5, -0.5, 2.0], [0.1, 0.2, -1.0]])
    before = value.copy()
    verify_grad(Elemwise(exp, {0: 0}), [value], rng=np.random.default_rng(1))
    np.testing.assert_array_equal(value, before)


def test_c_shape_errors_name_the_clashing_dimension():
    x, y = pt.dmatrix("x"), pt.dmatrix("y")
    fn = opgraph.function([x, y], x * y, mode=Mode(linker="cvm"))
    # PyTensor's wording, with the user's variables named instead of ``input[k]`` (issue 28)
    with pytest.raises(ValueError, match=r"Runtime broadcasting not allowed.*"
                       r"\(x\.shape\[1\] = 4, y\.shape\[1\] = 1\)"):
        fn(np.zeros((5, 4)), np.zeros((5, 1)))
    with pytest.raises(ValueError, match=r"Input dimension mismatch: "
                       r"\(x\.shape\[1\] = 4, y\.shape\[1\] = 3\)"):
        fn(np.zeros((5, 4)), np.zeros((5, 3)))


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE", Mode(linker="py", optimizer=None)])
@pytest.mark.parametrize("static", [True, False])
def test_compiled_einsum_matches_numpy(mode, static):
    rng = np.random.default_rng(2)
    shapes = [(2, 3), (3, 4), (4, 5)]
    xs = [pt.tensor(n, shape=s if static else (None, None)) for n, s in zip("abc", shapes)]
    out = einsum("ij,jk,kl->il", *xs)
    fn = opgraph.function(xs, out, mode=mode)
    vals = [rng.normal(size=s) for s in shapes]
    np.testing.assert_allclose(fn(*vals), np.einsum("ij,jk,kl->il", *vals), rtol=1e-10)
    kept = [n for n in fn.maker.fgraph.apply_nodes if isinstance(n.op, Einsum)]
    if mode == "FAST_RUN" and static:
        assert not kept  # planned from known shapes, then written out as products
    if not isinstance(mode, str):
        assert kept  # no rewrites: np.einsum runs the node


def test_compiled_einsum_gradient_matches_numpy():
    rng = np.random.default_rng(3)
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    cost = einsum("ij,jk->", a, b)
    fn = opgraph.function([a, b], opgraph.grad(cost, [a, b]))
    av, bv = rng.normal(size=(2, 3)), rng.normal(size=(3, 4))
    ga, gb = fn(av, bv)
    np.testing.assert_allclose(ga, np.broadcast_to(bv.sum(1), (2, 3)))
    np.testing.assert_allclose(gb, np.broadcast_to(av.sum(0)[:, None], (3, 4)))


def test_diagonal_method_matches_numpy():
    x = pt.dmatrix("x")
    xv = np.arange(12.0).reshape(3, 4)
    for offset, axis1, axis2 in [(0, 0, 1), (1, 0, 1), (-1, 0, 1), (0, 1, 0), (-2, 1, 0)]:
        np.testing.assert_array_equal(x.diagonal(offset, axis1, axis2).eval({x: xv}),
                                      xv.diagonal(offset, axis1, axis2))

"""extra_ops, sort and take_along_axis against NumPy, with finite-difference gradients."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import opgraph.tensor as pt
from opgraph.gradient import grad as _grad
from opgraph.npy_2_compat import old_np_unique
from opgraph.tensor import extra_ops as xo
from opgraph.tensor.indexing_along import add_along_axis, take_along_axis
from opgraph.tensor.sort import ArgSortOp, SortOp, argsort, sort

from .helpers import check_derivatives, evaluate
from .shape_checks import assert_infer_shape

rng = np.random.default_rng(11)


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("fn", ["cumsum", "cumprod"])
def test_cumulative_ops_match_numpy(fn: str, axis: int | None) -> None:
    x = pt.dmatrix("x")
    a = rng.normal(size=(3, 4))
    out = getattr(xo, fn)(x, axis=axis)
    np.testing.assert_allclose(evaluate(out, {x: a}), getattr(np, fn)(a, axis=axis))
    assert_infer_shape(out, {x: a})


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("fn", ["cumsum", "cumprod"])
def test_cumulative_gradients(fn: str, axis: int | None) -> None:
    a = rng.uniform(0.5, 1.5, size=(3, 4))
    check_derivatives(lambda x: getattr(xo, fn)(x, axis=axis), [a], rng)


def test_cumop_checks_mode_and_axis() -> None:
    with pytest.raises(ValueError, match="mode"):
        xo.CumOp(0, "max")
    with pytest.raises(ValueError, match="out of range"):
        xo.cumsum(pt.dvector("v"), axis=1)


@pytest.mark.parametrize("n", [0, 1, 2, 3])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_diff(n: int, axis: int) -> None:
    x = pt.dmatrix("x")
    a = rng.normal(size=(4, 5))
    np.testing.assert_allclose(evaluate(xo.diff(x, n, axis), {x: a}), np.diff(a, n, axis))


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_repeat_scalar_and_vector(axis: int | None) -> None:
    x = pt.dmatrix("x")
    a = rng.normal(size=(2, 3))
    np.testing.assert_allclose(evaluate(xo.repeat(x, 3, axis), {x: a}), np.repeat(a, 3, axis))
    if axis is not None:
        reps = np.arange(1, a.shape[axis] + 1)
        r = pt.lvector("r")
        got = evaluate(xo.repeat(x, r, axis), {x: a, r: reps})
        np.testing.assert_allclose(got, np.repeat(a, reps, axis))


def test_repeat_static_shape_and_gradient() -> None:
    x = pt.tensor(dtype="float64", shape=(2, 3))
    assert xo.repeat(x, 2, axis=1).type.shape == (2, 6)
    check_derivatives(lambda v: xo.repeat(v, 3, axis=1), [rng.normal(size=(2, 3))], rng,
                      forward=False)
    check_derivatives(lambda v: xo.repeat(v, np.array([1, 0, 2]), axis=0),
                      [rng.normal(size=(3, 2))], rng, forward=False)


def test_repeat_rejects_float_repeats() -> None:
    with pytest.raises(TypeError, match="repeats must be integers"):
        xo.repeat(pt.dvector("v"), pt.dscalar("r"))


def test_bincount_with_and_without_weights() -> None:
    x = pt.lvector("x")
    w = pt.dvector("w")
    data = np.array([0, 1, 1, 3, 1])
    weights = rng.normal(size=5)
    np.testing.assert_array_equal(evaluate(xo.bincount(x), {x: data}), np.bincount(data))
    np.testing.assert_allclose(evaluate(xo.bincount(x, w), {x: data, w: weights}),
                               np.bincount(data, weights))
    got = evaluate(xo.bincount(x, minlength=7), {x: data})
    np.testing.assert_array_equal(got, np.bincount(data, minlength=7))
    with pytest.raises(AssertionError, match="negative"):
        evaluate(xo.bincount(x, assert_nonneg=True), {x: np.array([1, -1])})


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(side: str) -> None:
    a, v = pt.dvector("a"), pt.dmatrix("v")
    av = np.sort(rng.normal(size=7))
    vv = np.concatenate([av[:3], rng.normal(size=3)]).reshape(2, 3)
    got = evaluate(xo.searchsorted(a, v, side=side), {a: av, v: vv})
    np.testing.assert_array_equal(got, np.searchsorted(av, vv, side=side))
    perm = rng.permutation(7)
    s = pt.lvector("s")
    got = evaluate(xo.searchsorted(a, v, side, sorter=s), {a: av[perm], v: vv,
                                                             s: np.argsort(av[perm])})
    np.testing.assert_array_equal(got, np.searchsorted(av, vv, side=side))


@pytest.mark.parametrize("flags", [(False, False, False), (True, True, True), (False, True, False)])
def test_unique(flags: tuple[bool, bool, bool]) -> None:
    x = pt.lmatrix("x")
    data = rng.integers(0, 4, size=(3, 4))
    got = evaluate(xo.unique(x, *flags), {x: data})
    want = np.unique(data, *flags)
    for g, w in zip(got if isinstance(got, list) else [got], want if isinstance(want, tuple)
                    else [want]):
        np.testing.assert_array_equal(g, np.asarray(w).reshape(g.shape))


@pytest.mark.parametrize("axis", [None, 0])
def test_unique_inverse_has_numpy_1_shape(axis: int | None) -> None:
    x = pt.lmatrix("x")
    data = np.array([[1, 0], [1, 0], [2, 3]])
    got = evaluate(xo.unique(x, True, True, True, axis=axis), {x: data})
    for g, w in zip(got, old_np_unique(data, True, True, True, axis=axis)):
        np.testing.assert_array_equal(g, w)
    assert got[2].ndim == 1


def test_unique_along_axis() -> None:
    x = pt.lmatrix("x")
    data = np.array([[1, 0], [1, 0], [2, 3]])
    np.testing.assert_array_equal(evaluate(xo.unique(x, axis=0), {x: data}),
                                  np.unique(data, axis=0))


def test_ravel_and_unravel_round_trip() -> None:
    i, j = pt.lvector("i"), pt.lvector("j")
    dims = np.array([3, 4])
    flat = xo.ravel_multi_index([i, j], dims)
    iv, jv = np.array([0, 2, 1]), np.array([3, 0, 2])
    np.testing.assert_array_equal(evaluate(flat, {i: iv, j: jv}),
                                  np.ravel_multi_index((iv, jv), (3, 4)))
    back = xo.unravel_index(flat, dims)
    got = evaluate(list(back), {i: iv, j: jv})
    np.testing.assert_array_equal(got[0], iv)
    np.testing.assert_array_equal(got[1], jv)
    with pytest.raises(ValueError):
        evaluate(flat, {i: np.array([5]), j: np.array([0])})


def test_fill_diagonal_and_offset_with_gradients() -> None:
    a = rng.normal(size=(3, 4))
    m = pt.dmatrix("m")
    want = a.copy()
    np.fill_diagonal(want, 5.0)
    np.testing.assert_allclose(evaluate(xo.fill_diagonal(m, 5.0), {m: a}), want)
    got = evaluate(xo.fill_diagonal_offset(m, 7.0, 1), {m: a})
    want = a.copy()
    want[[0, 1, 2], [1, 2, 3]] = 7.0
    np.testing.assert_allclose(got, want)
    got = evaluate(xo.fill_diagonal_offset(m, 7.0, -1), {m: a})
    want = a.copy()
    want[[1, 2], [0, 1]] = 7.0
    np.testing.assert_allclose(got, want)
    check_derivatives(lambda x, v: xo.fill_diagonal(x, v.sum()),
                      [a, rng.normal(size=(1,))], rng, forward=False)
    check_derivatives(lambda x, v: xo.fill_diagonal_offset(x, v.sum(), 1),
                      [a, rng.normal(size=(1,))], rng, forward=False)
    with pytest.raises(TypeError, match="downcast"):
        xo.fill_diagonal(pt.imatrix("i"), 0.5)


def test_bartlett_contiguous_one_hot_compress() -> None:
    n = pt.lscalar("n")
    np.testing.assert_allclose(evaluate(xo.bartlett(n), {n: 6}), np.bartlett(6))
    x = pt.dmatrix("x")
    a = rng.normal(size=(3, 4))[:, ::2]
    out = evaluate(xo.cpu_contiguous(x), {x: a})
    assert out.flags.c_contiguous
    np.testing.assert_array_equal(out, a)
    y = pt.lvector("y")
    np.testing.assert_array_equal(evaluate(xo.to_one_hot(y, 4), {y: np.array([1, 3])}),
                                  np.eye(4)[[1, 3]])
    c = pt.bvector("c")
    cond = np.array([1, 0, 1], dtype="int8")
    b = rng.normal(size=(3, 2))
    np.testing.assert_allclose(evaluate(xo.compress(c, x, axis=0), {c: cond, x: b}),
                               np.compress(cond, b, axis=0))


def test_broadcast_helpers() -> None:
    x, y = pt.dcol("x"), pt.drow("y")
    a, b = rng.normal(size=(3, 1)), rng.normal(size=(1, 4))
    xa, ya = xo.broadcast_arrays(x, y)
    got = evaluate([xa, ya], {x: a, y: b})
    for g, w in zip(got, np.broadcast_arrays(a, b)):
        np.testing.assert_allclose(g, w)
    shape = evaluate(list(xo.broadcast_shape(x, y)), {x: a, y: b})
    assert [int(s) for s in shape] == [3, 4]
    np.testing.assert_allclose(evaluate(xo.broadcast_to(x, (3, 5)), {x: a}),
                               np.broadcast_to(a, (3, 5)))


@pytest.mark.parametrize("endpoint", [True, False])
def test_spaces(endpoint: bool) -> None:
    s, e = pt.dscalar("s"), pt.dscalar("e")
    got = evaluate(xo.linspace(s, e, 7, endpoint=endpoint), {s: -1.0, e: 3.0})
    np.testing.assert_allclose(got, np.linspace(-1.0, 3.0, 7, endpoint=endpoint))
    got = evaluate(xo.logspace(s, e, 5, endpoint=endpoint), {s: 0.0, e: 2.0})
    np.testing.assert_allclose(got, np.logspace(0.0, 2.0, 5, endpoint=endpoint))
    got = evaluate(xo.geomspace(s, e, 5, endpoint=endpoint), {s: 1.0, e: 1000.0})
    np.testing.assert_allclose(got, np.geomspace(1.0, 1000.0, 5, endpoint=endpoint))


def test_linspace_of_vectors_along_an_axis() -> None:
    s, e = pt.dvector("s"), pt.dvector("e")
    sv, ev = np.array([0.0, 1.0]), np.array([1.0, 3.0])
    got = evaluate(xo.linspace(s, e, 4, axis=1), {s: sv, e: ev})
    np.testing.assert_allclose(got, np.linspace(sv, ev, 4, axis=1))


# --------------------------------------------------------------------------- sort


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("kind", ["quicksort", "stable"])
def test_sort_and_argsort(axis: int | None, kind: str) -> None:
    x = pt.dmatrix("x")
    a = rng.normal(size=(3, 4))
    np.testing.assert_allclose(evaluate(sort(x, axis, kind), {x: a}), np.sort(a, axis, kind))
    got = evaluate(argsort(x, axis, kind="stable"), {x: a})
    np.testing.assert_array_equal(got, np.argsort(a, axis, kind="stable"))


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_sort_gradient(axis: int | None) -> None:
    check_derivatives(lambda v: sort(v, axis), [rng.normal(size=(3, 4))], rng, forward=False)


def test_sort_along_a_symbolic_axis_with_gradient() -> None:
    x, ax = pt.dmatrix("x"), pt.lscalar("ax")
    a = rng.normal(size=(3, 4))
    for axis in (0, 1, -1):
        np.testing.assert_allclose(evaluate(sort(x, ax), {x: a, ax: axis}), np.sort(a, axis))
        np.testing.assert_array_equal(evaluate(argsort(x, ax, stable=True), {x: a, ax: axis}),
                                      np.argsort(a, axis, stable=True))
    g = evaluate(_grad((sort(x, ax) * np.arange(4.0)).sum(), x), {x: a, ax: 1})
    np.testing.assert_allclose(g, np.argsort(np.argsort(a, 1), 1).astype(float))
    with pytest.raises(ValueError, match="integer dtype"):
        sort(x, pt.fscalar("f"))


def test_sort_rejects_bad_arguments() -> None:
    v = pt.dvector("v")
    with pytest.raises(ValueError, match="kind"):
        sort(v, kind="bogus")
    with pytest.raises(ValueError, match="out of range"):
        argsort(v, axis=2)
    with pytest.raises(ValueError, match="0-d"):
        sort(pt.dscalar("s"))
    assert SortOp("stable") == SortOp("stable") and ArgSortOp() != ArgSortOp("stable")


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
                  elements=st.floats(-1e6, 1e6)), st.data())
def test_take_along_axis_of_argsort_is_sort(a: np.ndarray, data: st.DataObject) -> None:
    axis = data.draw(st.integers(0, a.ndim - 1))
    x = pt.tensor(dtype="float64", shape=(None,) * a.ndim)
    out = take_along_axis(x, argsort(x, axis), axis)
    np.testing.assert_array_equal(evaluate(out, {x: a}), np.sort(a, axis))


def test_add_along_axis_accumulates_and_differentiates() -> None:
    x = pt.dvector("x")
    i = pt.lvector("i")
    v = pt.dvector("v")
    got = evaluate(add_along_axis(x, i, v, 0), {x: np.zeros(3), i: np.array([0, 2, 0]),
                                               v: np.array([1.0, 2.0, 3.0])})
    np.testing.assert_allclose(got, [4.0, 0.0, 2.0])
    idx = np.array([[2, 0], [1, 1]])
    check_derivatives(lambda m: take_along_axis(m, idx, 1), [rng.normal(size=(2, 3))], rng,
                      forward=False)


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("reps", [3, np.array([2])])
def test_repeat_with_one_count_is_a_broadcast(axis, reps):
    a = np.arange(24.0).reshape(2, 3, 4)
    out = xo.repeat(a, reps, axis=axis)
    assert not isinstance(out.owner.op, xo.Repeat)
    np.testing.assert_array_equal(evaluate(out), np.repeat(a, reps, axis=axis))
    check_derivatives(lambda v: xo.repeat(v, reps, axis=axis), [a],
                      np.random.default_rng(0), forward=False)


def test_repeat_rejects_counts_numpy_cannot_index_with():
    with pytest.raises(TypeError, match="repeats must be integers"):
        xo.repeat(pt.dvector(), pt.scalar(dtype="uint64"))
    with pytest.raises(TypeError, match="repeats must be integers"):
        xo.repeat(pt.dvector(), pt.vector(dtype="uint64"), axis=0)


def test_searchsorted_sorter_rank_and_dtype_errors():
    with pytest.raises(ValueError, match="sorter must be a vector"):
        xo.searchsorted(pt.dvector(), pt.dvector(), sorter=pt.lmatrix())
    with pytest.raises(TypeError, match="integer vector"):
        xo.searchsorted(pt.dvector(), pt.dvector(), sorter=pt.fvector())


def test_sort_argument_errors_name_the_cause():
    x = pt.dmatrix("x")
    with pytest.raises(ValueError, match="Sort axis must have an integer dtype, got float32"):
        pt.sort(x, pt.fscalar())
    with pytest.raises(ValueError, match="ArgSort axis must have an integer dtype, got float32"):
        pt.argsort(x, pt.fscalar())
    with pytest.raises(ValueError, match="kind and stable cannot be set at the same time"):
        pt.sort(x, kind="quicksort", stable=True)
    assert pt.sort(x, kind="stable", stable=True).owner.op.kind == "stable"
    with pytest.raises(ValueError, match="order argument is not applicable"):
        pt.sort(x, order=[])

"""Array helpers and contractions (tensordot, batched_dot, einsum) against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opgraph.tensor as pt
from opgraph.tensor import arrays as ar
from opgraph.tensor.contractions import batched_dot, batched_tensordot, tensordot
from opgraph.tensor.einsum import einsum

from .helpers import check_derivatives, evaluate

rng = np.random.default_rng(5)


def _var(shape: tuple[int, ...]) -> tuple[object, np.ndarray]:
    return pt.tensor(dtype="float64", shape=(None,) * len(shape)), rng.normal(size=shape)


EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("ij->", [(3, 4)]),
    ("ij->ji", [(3, 4)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ijk,jl,lk->i", [(2, 3, 4), (3, 5), (5, 4)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("ij,jk,kl,lm->im", [(2, 3), (3, 4), (4, 5), (5, 2)]),
    ("iij->j", [(3, 3, 2)]),
    ("ab,ab", [(2, 3), (2, 3)]),
    ("i,i->", [(0,), (0,)]),
    # one planned step contracting three operands at once: d must survive the first pair
    ("acd,bcd,dab->abc", [(1, 1, 2), (1, 1, 2), (2, 1, 1)]),
]


@pytest.mark.parametrize(("subscripts", "shapes"), EINSUM_CASES)
def test_einsum_matches_numpy(subscripts: str, shapes: list[tuple[int, ...]]) -> None:
    pairs = [_var(s) for s in shapes]
    out = einsum(subscripts, *(v for v, _ in pairs))
    got = evaluate(out, {v: a for v, a in pairs})
    np.testing.assert_allclose(got, np.einsum(subscripts, *(a for _, a in pairs)), atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_einsum_random_contractions(data: st.DataObject) -> None:
    labels = "abcde"
    sizes = {c: data.draw(st.integers(1, 3)) for c in labels}
    n_ops = data.draw(st.integers(1, 3))
    terms = [
        "".join(data.draw(st.lists(st.sampled_from(labels), min_size=1, max_size=3, unique=True)))
        for _ in range(n_ops)
    ]
    used = sorted(set("".join(terms)))
    out = "".join(data.draw(st.lists(st.sampled_from(used), max_size=len(used), unique=True)))
    subscripts = ",".join(terms) + "->" + out
    pairs = [_var(tuple(sizes[c] for c in t)) for t in terms]
    got = evaluate(einsum(subscripts, *(v for v, _ in pairs)), {v: a for v, a in pairs})
    np.testing.assert_allclose(got, np.einsum(subscripts, *(a for _, a in pairs)), atol=1e-10)


def test_einsum_gradient_and_errors() -> None:
    check_derivatives(lambda a, b: einsum("ij,jk->ik", a, b),
                      [rng.normal(size=(2, 3)), rng.normal(size=(3, 2))], rng)
    check_derivatives(lambda a: einsum("ii->i", a), [rng.normal(size=(3, 3))], rng,
                      forward=False)
    m = pt.dmatrix("m")
    with pytest.raises(ValueError, match="invalid subscript"):
        einsum("i1,jk", m, m)
    with pytest.raises(ValueError, match="2 operand"):
        einsum("ij,jk", m)
    with pytest.raises(ValueError, match="3 labels"):
        einsum("ijk", m)
    with pytest.raises(ValueError, match="output subscripts"):
        einsum("ij->iz", m)


def test_tensordot_and_batched_products() -> None:
    a, av = _var((2, 3, 4))
    b, bv = _var((4, 3, 5))
    for axes in ([[1, 2], [1, 0]], 1, [[2], [0]]):
        got = evaluate(tensordot(a, b, axes), {a: av, b: bv})
        np.testing.assert_allclose(got, np.tensordot(av, bv, axes))
    with pytest.raises(ValueError, match="length"):
        tensordot(pt.tensor(dtype="float64", shape=(2, 3)),
                  pt.tensor(dtype="float64", shape=(4, 5)), 1)
    x, xv = _var((2, 3, 4))
    y, yv = _var((2, 4, 5))
    np.testing.assert_allclose(evaluate(batched_dot(x, y), {x: xv, y: yv}), np.matmul(xv, yv))
    u, uv = _var((2, 4))
    np.testing.assert_allclose(evaluate(batched_dot(u, u), {u: uv}), np.sum(uv * uv, axis=1))
    np.testing.assert_allclose(evaluate(batched_tensordot(x, y, [[2], [1]]), {x: xv, y: yv}),
                               np.matmul(xv, yv))
    check_derivatives(lambda p, q: tensordot(p, q, 1),
                      [rng.normal(size=(2, 3)), rng.normal(size=(3, 2))], rng)


def test_dot_with_nd_right_operand() -> None:
    a, av = _var((2, 3, 4))
    b, bv = _var((3, 4, 2))
    np.testing.assert_allclose(evaluate(pt.dot(a, b), {a: av, b: bv}), np.dot(av, bv))
    check_derivatives(lambda p, q: pt.dot(p, q),
                      [rng.normal(size=(2, 3)), rng.normal(size=(2, 3, 2))], rng)


def test_shape_helpers() -> None:
    m, mv = _var((2, 3))
    a, av = _var((2, 3, 4))
    for reps in [(2, 3), (2, 1, 2), 3]:
        np.testing.assert_allclose(evaluate(ar.tile(m, reps), {m: mv}), np.tile(mv, reps))
    for shift, axis in [(1, 1), (-4, None), (0, 0), (5, 0)]:
        np.testing.assert_allclose(evaluate(ar.roll(m, shift, axis), {m: mv}),
                                   np.roll(mv, shift, axis))
    np.testing.assert_allclose(evaluate(ar.moveaxis(a, [0, 1], [2, 0]), {a: av}),
                               np.moveaxis(av, [0, 1], [2, 0]))
    np.testing.assert_allclose(evaluate(ar.swapaxes(a, 0, 2), {a: av}), np.swapaxes(av, 0, 2))
    with pytest.raises(ValueError, match="out of bounds"):
        ar.moveaxis(m, 0, 5)
    check_derivatives(lambda x: ar.tile(x, (2, 2)), [rng.normal(size=(2, 3))], rng)
    check_derivatives(lambda x: ar.roll(x, 1, 0), [rng.normal(size=(3, 2))], rng)


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_take(mode: str) -> None:
    a, av = _var((2, 3, 4))
    i = pt.lvector("i")
    iv = np.array([2, 0, 5, -1]) if mode != "raise" else np.array([2, 0, 1, -1])
    got = evaluate(ar.take(a, i, axis=1, mode=mode), {a: av, i: iv})
    np.testing.assert_allclose(got, np.take(av, iv, axis=1, mode=mode))
    got = evaluate(ar.take(a, i, mode=mode), {a: av, i: iv})
    np.testing.assert_allclose(got, np.take(av, iv, mode=mode))


def test_nonzero_family() -> None:
    z = pt.lmatrix("z")
    zv = np.array([[0, 1, 0], [2, 0, 3]])
    for got, want in zip(evaluate(list(ar.nonzero(z)), {z: zv}), np.nonzero(zv)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(evaluate(ar.nonzero(z, return_matrix=True), {z: zv}),
                                  np.array(np.nonzero(zv)))
    np.testing.assert_array_equal(evaluate(ar.flatnonzero(z), {z: zv}), np.flatnonzero(zv))
    np.testing.assert_array_equal(evaluate(ar.nonzero_values(z), {z: zv}), zv[zv != 0])
    with pytest.raises(ValueError, match="0-d"):
        ar.nonzero(pt.lscalar("s"))


def test_comparisons_and_statistics() -> None:
    p, q = pt.dvector("p"), pt.dvector("q")
    pv = np.array([1.0, np.inf, np.nan, 1e-9, -np.inf, 2.0])
    qv = np.array([1 + 1e-9, np.inf, np.nan, 0.0, np.inf, 2.1])
    for equal_nan in (False, True):
        got = evaluate(ar.isclose(p, q, equal_nan=equal_nan), {p: pv, q: qv})
        np.testing.assert_array_equal(got, np.isclose(pv, qv, equal_nan=equal_nan))
    assert bool(evaluate(ar.allclose(p, p), {p: pv[:2]}))
    assert not bool(evaluate(ar.allclose(p, q), {p: pv, q: qv}))
    a, av = _var((2, 3, 4))
    for axis in (None, 1, (0, 2)):
        np.testing.assert_allclose(evaluate(ar.median(a, axis), {a: av}), np.median(av, axis))
    np.testing.assert_allclose(evaluate(ar.ptp(a, 1), {a: av}), np.ptp(av, 1))
    np.testing.assert_array_equal(evaluate(ar.nan_to_num(p), {p: pv}), np.nan_to_num(pv))
    np.testing.assert_array_equal(evaluate(ar.nan_to_num(p, 1.0, 2.0, -2.0), {p: pv}),
                                  np.nan_to_num(pv, nan=1.0, posinf=2.0, neginf=-2.0))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid(indexing: str) -> None:
    u, w, v = pt.dvector("u"), pt.dvector("w"), pt.dvector("v")
    uv, wv, vv = np.arange(3.0), np.arange(4.0), np.arange(2.0)
    got = evaluate(ar.meshgrid(u, w, v, indexing=indexing), {u: uv, w: wv, v: vv})
    for g, want in zip(got, np.meshgrid(uv, wv, vv, indexing=indexing)):
        np.testing.assert_array_equal(g, want)

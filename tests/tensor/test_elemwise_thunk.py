"""Elemwise's node-specialised thunk computes exactly what ``perform`` does.

Also: DimShuffle's precomputed view, and Composite's generated array program.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opgraph.tensor as pt
from opgraph.scalar import arith as sa
from opgraph.scalar import math as sm
from opgraph.scalar import structural as ss
from opgraph.scalar.composite import Composite
from opgraph.scalar.type import get_scalar_type
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.elemwise_thunk import broadcast_check_inputs

RNG = np.random.default_rng(11)


def _run_thunk(node: Any, values: list, compute_map: bool = True) -> tuple[list, list]:
    """Values of ``node``'s outputs computed by its thunk, and the compute_map cells."""
    storage = {v: [x] for v, x in zip(node.inputs, values)}
    storage.update({v: [None] for v in node.outputs})
    cmap = {v: [False] for v in storage} if compute_map else None
    thunk = node.op.make_thunk(node, storage, cmap, [])
    thunk()
    marks = [cmap[v][0] for v in node.outputs] if cmap else []
    return [storage[v][0] for v in node.outputs], marks


def _run_perform(node: Any, values: list) -> list:
    cells = [[None] for _ in node.outputs]
    node.op.perform(node, [np.array(v, copy=True) for v in values], cells)
    return [c[0] for c in cells]


CASES = [
    ("int / int -> float64", lambda a, b: a / b, "int64", "int64", (3,)),
    ("float32 stays float32", lambda a, b: a * b, "float32", "float32", (2, 3)),
    ("int8 + int8", lambda a, b: a + b, "int8", "int8", (4,)),
    ("0-d float64", lambda a, b: a - b, "float64", "float64", ()),
    ("0-d int32 / int32", lambda a, b: a / b, "int32", "int32", ()),
    ("mixed float32 int64", lambda a, b: a + b, "float32", "int64", (3,)),
    ("comparison", lambda a, b: a < b, "float64", "float64", (5,)),
    ("unary exp float32", lambda a, b: pt.exp(a), "float32", "float32", (3,)),
]


@pytest.mark.parametrize("label, build, da, db, shape", CASES, ids=[c[0] for c in CASES])
def test_thunk_matches_perform(label: str, build: Any, da: str, db: str, shape: tuple) -> None:
    a = pt.tensor(da, shape=(None,) * len(shape))
    b = pt.tensor(db, shape=(None,) * len(shape))
    node = build(a, b).owner
    values = [(RNG.random(shape) * 9 + 1).astype(d) for d in (da, db)][: len(node.inputs)]
    got, marks = _run_thunk(node, values)
    expected = _run_perform(node, values)
    for g, e, var in zip(got, expected, node.outputs):
        assert type(g) is np.ndarray  # 0-d results too, never NumPy scalars
        assert g.dtype == e.dtype == var.type.numpy_dtype
        assert g.shape == e.shape
        np.testing.assert_array_equal(g, e)
    assert marks == [True] * len(node.outputs)


def test_thunk_without_compute_map() -> None:
    x, y = pt.dvectors("x", "y")
    (got,), marks = _run_thunk((x + y).owner, [np.ones(2), np.ones(2)], compute_map=False)
    np.testing.assert_array_equal(got, [2.0, 2.0])
    assert marks == []


def test_inplace_ufunc_writes_into_the_destroyed_input() -> None:
    x, y = pt.dvectors("x", "y")
    node = Elemwise(sa.add, {0: 0}).make_node(x, y)
    a, b = np.ones(3), np.arange(3.0)
    (got,), _ = _run_thunk(node, [a, b])
    assert got is a
    np.testing.assert_array_equal(a, [1, 2, 3])


def test_inplace_0d_ufunc_returns_the_input_array() -> None:
    x, y = pt.dscalars("x", "y")
    node = Elemwise(sa.mul, {0: 1}).make_node(x, y)
    a, b = np.array(3.0), np.array(2.0)
    (got,), _ = _run_thunk(node, [a, b])
    assert got is b
    assert float(b) == 6.0


def test_inplace_non_ufunc_copies_back() -> None:
    c = pt.tensor("bool", shape=(None,))
    x, y = pt.dvectors("x", "y")
    node = Elemwise(ss.switch, {0: 1}).make_node(c, x, y)
    a, b = np.ones(3), np.zeros(3)
    (got,), _ = _run_thunk(node, [np.array([True, False, True]), a, b])
    assert got is a
    np.testing.assert_array_equal(a, [1, 0, 1])


def test_multi_output_composite_through_thunk() -> None:
    s0, s1 = get_scalar_type("float64")(), get_scalar_type("float64")()
    comp = Composite([s0, s1], [sa.add(s0, s1), sa.mul(s0, s1)])
    x, y = pt.dvectors("x", "y")
    node = Elemwise(comp).make_node(x, y)
    a, b = RNG.random(4), RNG.random(4)
    (r_sum, r_prod), marks = _run_thunk(node, [a, b])
    np.testing.assert_allclose(r_sum, a + b)
    np.testing.assert_allclose(r_prod, a * b)
    assert marks == [True, True]


def test_runtime_broadcasting_still_refused() -> None:
    x, y = pt.dmatrices("x", "y")
    node = (x + y).owner
    with pytest.raises(ValueError, match=r"(?i)runtime broadcasting"):
        _run_thunk(node, [np.ones((3, 4)), np.ones((1, 4))])
    with pytest.raises(ValueError, match="cannot be broadcast"):
        _run_thunk(node, [np.ones((3, 4)), np.ones((2, 4))])


def test_broadcastable_inputs_broadcast() -> None:
    x = pt.dmatrix("x")
    r = pt.drow("r")
    (got,), _ = _run_thunk((x * r).owner, [np.ones((3, 4)), np.arange(4.0)[None]])
    np.testing.assert_array_equal(got, np.tile(np.arange(4.0), (3, 1)))


@pytest.mark.parametrize(
    "shapes, expected",
    [
        ([(None,), (None,)], (0, 1)),  # both may be 1 at run time: compare them
        ([(None, 3), (1, 3)], ()),  # one free input per dimension: nothing to check
        ([(4, 3), (4, 3)], ()),  # equal static lengths are guaranteed
        ([(), ()], ()),
        ([(None, 1), (1, 1), (None, 1)], (0, 2)),  # all-1 inputs are never compared
        ([(5,)], ()),
    ],
)
def test_broadcast_check_inputs(shapes: list, expected: tuple) -> None:
    vars_ = [pt.tensor("float64", shape=s) for s in shapes]
    node = pt.add(*vars_).owner if len(vars_) > 1 else pt.exp(vars_[0]).owner
    assert broadcast_check_inputs(node) == expected


def test_subclass_perform_is_honoured() -> None:
    calls = []

    class Counting(Elemwise):
        def perform(self, node: Any, inputs: Any, output_storage: Any) -> None:
            calls.append(1)
            super().perform(node, inputs, output_storage)

    x = pt.dvector("x")
    node = Counting(sa.neg).make_node(x)
    (got,), _ = _run_thunk(node, [np.arange(3.0)])
    np.testing.assert_array_equal(got, [0, -1, -2])
    assert calls == [1]


# ----------------------------------------------------------------------------- DimShuffle


def _reference_dimshuffle(x: np.ndarray, new_order: tuple) -> np.ndarray:
    kept = [o for o in new_order if o != "x"]
    dropped = [d for d in range(x.ndim) if d not in kept]
    res = np.transpose(x, kept + dropped).reshape([x.shape[d] for d in kept])
    for pos, o in enumerate(new_order):
        if o == "x":
            res = np.expand_dims(res, pos)
    return res


@st.composite
def _dimshuffles(draw: Any) -> tuple[np.ndarray, tuple]:
    ndim = draw(st.integers(0, 3))
    kept = draw(st.permutations(range(ndim)))
    n_keep = draw(st.integers(0, ndim))
    kept = list(kept[:n_keep])
    order: list[Any] = list(kept)
    for _ in range(draw(st.integers(0, 2))):
        order.insert(draw(st.integers(0, len(order))), "x")
    shape = [draw(st.integers(2, 3)) if d in kept else 1 for d in range(ndim)]
    return np.arange(int(np.prod(shape)), dtype=float).reshape(shape), tuple(order)


@settings(max_examples=40, deadline=None)
@given(_dimshuffles())
def test_dimshuffle_perform_is_a_view_of_the_input(case: tuple) -> None:
    x, order = case
    op = DimShuffle(input_ndim=x.ndim, new_order=order)
    cell = [None]
    op.perform(None, [x], [cell])
    got = cell[0]
    expected = _reference_dimshuffle(x, order)
    assert type(got) is np.ndarray and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)
    assert got is not x and np.shares_memory(got, x)


def test_dimshuffle_pickles_with_its_precomputed_view() -> None:
    op = DimShuffle(input_ndim=2, new_order=(1, "x", 0))
    clone = pickle.loads(pickle.dumps(op))
    assert clone == op and hash(clone) == hash(op)
    cell = [None]
    clone.perform(None, [np.ones((2, 3))], [cell])
    assert cell[0].shape == (3, 1, 2)


# ----------------------------------------------------------------------------- Composite


def test_composite_array_program_after_pickling() -> None:
    s0, s1 = get_scalar_type("float64")(), get_scalar_type("float64")()
    comp = Composite([s0, s1], [sm.exp(sa.add(s0, s1))])
    a, b = RNG.random(3), RNG.random(3)
    first = comp.ufunc(a, b)
    clone = pickle.loads(pickle.dumps(comp))
    np.testing.assert_allclose(clone.ufunc(a, b), first)
    assert clone == comp


def test_composite_passing_an_input_through_gives_a_fresh_array() -> None:
    s0, s1 = get_scalar_type("float64")(), get_scalar_type("float64")()
    comp = Composite([s0, s1], [s0, sa.mul(s0, s1)])
    a, b = np.arange(3.0), np.full((2, 3), 2.0)
    passed, prod = comp.ufunc(a, b)
    assert passed.shape == (2, 3) and not np.shares_memory(passed, a)
    np.testing.assert_array_equal(prod, a * b)


@pytest.mark.parametrize("dtype, shape", [("float64", (3,)), ("int8", ()), ("float32", ())])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_variadic_add_and_mul_match_perform(dtype: str, shape: tuple, n: int) -> None:
    xs = [pt.tensor(dtype, shape=(None,) * len(shape)) for _ in range(n)]
    values = [(RNG.random(shape) * 5).astype(dtype) for _ in range(n)]
    for build in (pt.add, pt.mul):
        node = build(*xs).owner
        assert len(node.inputs) == n
        (got,), _ = _run_thunk(node, values)
        (expected,) = _run_perform(node, values)
        assert type(got) is np.ndarray and got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


def test_inplace_variadic_add_writes_into_input() -> None:
    x, y, z = pt.dvectors("x", "y", "z")
    node = Elemwise(sa.add, {0: 2}).make_node(x, y, z)
    a, b, c = np.ones(3), np.arange(3.0), np.full(3, 10.0)
    (got,), _ = _run_thunk(node, [a, b, c])
    assert got is c
    np.testing.assert_array_equal(c, [11, 12, 13])

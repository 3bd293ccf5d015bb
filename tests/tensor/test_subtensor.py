"""Indexing: Subtensor, IncSubtensor, the advanced ops and get_item dispatch."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opgraph.tensor as pt
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.exceptions import StaticIndexError
from opgraph.tensor.subtensor import (
    AdvancedIncSubtensor,
    AdvancedIncSubtensor1,
    AdvancedSubtensor,
    AdvancedSubtensor1,
    IncSubtensor,
    SliceSpec,
    Subtensor,
    get_item,
    inc_subtensor,
    set_subtensor,
)
from opgraph.tensor.subtensor_more import slice_at_axis
from opgraph.tensor.type import TensorType

from .helpers import check_derivatives, evaluate
from .shape_checks import assert_infer_shape

rng = np.random.default_rng(3)
XV = rng.standard_normal((4, 5, 3))


@pytest.mark.parametrize(
    "index",
    [
        1,
        -1,
        (slice(1, 3),),
        (slice(None, None, -1),),
        (slice(None), 2),
        (1, slice(None, None, 2), -1),
        (Ellipsis, 0),
        (0, Ellipsis),
        (None, 1),
        (slice(None), None, slice(1, None), None),
        (Ellipsis, None),
        (slice(-10, 10), slice(4, 1, -2)),
        (slice(2, 2),),
        (1, 2, 0),
    ],
)
def test_basic_indexing_matches_numpy(index):
    x = pt.tensor3("x")
    y = x[index]
    expected = XV[index]
    out = evaluate(y, {x: XV})
    np.testing.assert_array_equal(out, expected)
    assert y.type.ndim == np.ndim(expected)
    node = y.owner
    while isinstance(node.op, DimShuffle):
        node = node.inputs[0].owner
        if node is None:  # only new axes: a DimShuffle of x itself
            return
    assert isinstance(node.op, Subtensor)
    assert node.op.view_map == {0: [0]}
    assert_infer_shape(node.outputs[0], {x: XV})


def test_static_shapes_from_constant_slices():
    x = pt.tensor(dtype="float64", shape=(5, None, 3), name="x")
    assert x[1:4].type.shape == (3, None, 3)
    assert x[::2, :, 1].type.shape == (3, None)
    assert x[:, 1:].type.shape == (5, None, 3)
    assert x[-1].type.shape == (None, 3)
    n = pt.lscalar("n")
    assert x[n:].type.shape == (None, None, 3)
    assert x[None, 0].type.shape == (1, None, 3)


def test_symbolic_slice_bounds():
    x = pt.matrix("x")
    a, b, c = pt.lscalar("a"), pt.lscalar("b"), pt.lscalar("c")
    y = x[a:b:c, a]
    v = rng.standard_normal((6, 4))
    for av, bv, cv in [(1, 5, 2), (-1, 0, -1), (0, 10, 3), (3, 1, 1)]:
        givens = {x: v, a: av, b: bv, c: cv}
        np.testing.assert_array_equal(evaluate(y, givens), v[av:bv:cv, av])
        assert_infer_shape(y, givens)


def test_equal_indexings_merge_and_print():
    x = pt.matrix("x")
    assert x[1:].owner.op == x[1:, :].owner.op
    assert x[1].owner.op == Subtensor(("int",))
    assert str(x[1:, 0].owner.op) == "Subtensor{start:, int}"
    assert x[1:].owner.op.idx_spec == (SliceSpec(True, False, False),)


def test_idx_list_is_pytensor_3_encoding():
    """``op.idx_list`` gives input positions (slices hold positions or None), as PyTensor 3;
    ``op.idx_spec`` is opgraph's, and the constructors accept either."""
    x, i, j = pt.matrix("x"), pt.iscalar("i"), pt.iscalar("j")
    op = x[i, 1:j].owner.op
    assert op.idx_list == (0, slice(1, 2, None))
    assert op.idx_spec == ("int", SliceSpec(True, True, False))
    assert x[:j].owner.op.idx_list == (slice(None, 0, None),)
    assert x[::2, j].owner.op.idx_list == (slice(None, None, 0), 1)
    assert Subtensor(idx_list=[slice(None, 0, None), 1]) == Subtensor((SliceSpec(stop=True), "int"))
    upd = pt.set_subtensor(x[:j], pt.ones((2, 3))).owner.op
    assert upd.idx_list == (slice(None, 0, None),) and upd.set_instead_of_inc
    assert IncSubtensor(upd.idx_list, set_instead_of_inc=True) == upd
    assert x[[0, 1], 2:].owner.op.idx_list == (0, slice(1, None, None))
    assert AdvancedSubtensor1().idx_list == (0,)
    rebuilt = type(op)(**op._props_dict())
    assert rebuilt == op
    v = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(evaluate(x[i, 1:j], {x: v, i: 2, j: 3}), v[2, 1:3])


def test_idx_list_bad_entry_is_named():
    with pytest.raises(TypeError, match="idx_list entries must be"):
        Subtensor(idx_list=[1.5])
    with pytest.raises(TypeError, match="idx_list must be a sequence"):
        Subtensor(idx_list="int")


def test_basic_indexing_bad_input():
    x = pt.tensor(dtype="float64", shape=(3, None), name="x")
    with pytest.raises(StaticIndexError, match="index 3 is out of bounds for axis 0 of x"):
        x[3]
    with pytest.raises(IndexError, match="-4"):
        x[-4]
    with pytest.raises(IndexError, match="too many indices for x"):
        x[0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., ...]
    with pytest.raises(TypeError, match="float"):
        x[1.5]
    with pytest.raises(TypeError, match="integer"):
        x[pt.scalar("f")]
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        x[::0]
    with pytest.raises(NotImplementedError, match="scalar boolean"):
        x[True]
    m = pt.matrix("m")
    with pytest.raises(IndexError):
        evaluate(m[5], {m: np.zeros((2, 2))})


def test_subtensor_gradients():
    check_derivatives(lambda a: a[1:, ::-1] * 2.0, [rng.standard_normal((3, 4))], rng)
    check_derivatives(lambda a: a[1, 2], [rng.standard_normal((3, 4))], rng)


# --------------------------------------------------------------------------- updates


@pytest.mark.parametrize(
    "index", [(slice(1, 3),), (0, slice(None, None, 2)), (-1, 1), (Ellipsis, 1)]
)
def test_set_and_inc_subtensor_match_numpy(index):
    x = pt.matrix("x")
    v = rng.standard_normal((4, 5))
    target = v[index]
    yv = rng.standard_normal(np.shape(target))
    y = pt.tensor(dtype="float64", shape=(None,) * np.ndim(target), name="y")
    s = set_subtensor(x[index], y)
    i = inc_subtensor(x[index], y)
    assert isinstance(s.owner.op, IncSubtensor) and s.owner.op.set_instead_of_inc
    assert s.type == x.type
    want_s = v.copy()
    want_s[index] = yv
    want_i = v.copy()
    want_i[index] += yv
    np.testing.assert_array_equal(evaluate(s, {x: v, y: yv}), want_s)
    np.testing.assert_array_equal(evaluate(i, {x: v, y: yv}), want_i)
    assert_infer_shape(s, {x: v, y: yv})


def test_update_broadcasts_value_and_keeps_input():
    x = pt.matrix("x")
    v = rng.standard_normal((3, 4))
    keep = v.copy()
    out = evaluate(set_subtensor(x[:, 1:], 0.0), {x: v})
    assert np.all(out[:, 1:] == 0) and np.array_equal(out[:, 0], v[:, 0])
    np.testing.assert_array_equal(v, keep)  # not inplace: input untouched
    assert x[0].set(1.0).owner.op.set_instead_of_inc
    assert not x[0].inc(1.0).owner.op.set_instead_of_inc


def test_inplace_flag_sets_destroy_map():
    x = pt.matrix("x")
    node = inc_subtensor(x[0], 1.0, inplace=True).owner
    assert node.op.destroy_map == {0: [0]}
    assert inc_subtensor(x[0], 1.0).owner.op.destroy_map == {}
    v = np.zeros((2, 2))
    cells = [[None]]
    node.op.perform(node, [v, np.float64(1.0), np.int64(0)], cells)
    assert cells[0][0] is v and v[0, 0] == 1.0


def test_update_through_newaxis():
    x = pt.vector("x")
    v = rng.standard_normal(4)
    s = set_subtensor(x[None, 1:3], pt.as_tensor_variable(np.array([[7.0, 8.0]])))
    want = v.copy()
    want[1:3] = [7.0, 8.0]
    np.testing.assert_array_equal(evaluate(s, {x: v}), want)


def test_update_bad_input():
    x = pt.tensor(dtype="float64", shape=(4, 3), name="x")
    with pytest.raises(TypeError, match="cannot set a 1-dimensional part of x"):
        set_subtensor(x[0], pt.matrix("m"))
    with pytest.raises(ValueError, match="cannot broadcast"):
        set_subtensor(x[0], pt.tensor(dtype="float64", shape=(2,)))
    with pytest.raises(TypeError, match="dtype complex128"):
        inc_subtensor(x[0], pt.zvector("z"))
    with pytest.raises(TypeError, match="result of indexing"):
        set_subtensor(x, 1.0)
    with pytest.raises(TypeError, match="result of indexing"):
        set_subtensor(pt.exp(x), 1.0)


def test_update_gradients():
    check_derivatives(
        lambda a, b: inc_subtensor(a[1:, 0], b) * 2.0,
        [rng.standard_normal((3, 2)), rng.standard_normal(2)],
        rng,
    )
    check_derivatives(
        lambda a, b: set_subtensor(a[::2], b),
        [rng.standard_normal((3, 2)), rng.standard_normal((1, 2))],
        rng,
    )


# --------------------------------------------------------------------------- advanced


def test_advanced_subtensor1():
    x = pt.matrix("x")
    idx = pt.lvector("idx")
    y = x[idx]
    assert isinstance(y.owner.op, AdvancedSubtensor1)
    v = rng.standard_normal((4, 3))
    iv = np.array([3, 0, 0, -1])
    np.testing.assert_array_equal(evaluate(y, {x: v, idx: iv}), v[iv])
    assert_infer_shape(y, {x: v, idx: iv})
    assert x[[0, 1]].type.shape == (2, None)
    check_derivatives(lambda a: a[np.array([0, 2, 0])] * 2.0, [rng.standard_normal((3, 2))], rng)


def test_advanced_inc_subtensor1_accumulates_repeats():
    x = pt.matrix("x")
    y = pt.matrix("y")
    idx = pt.lvector("idx")
    v = rng.standard_normal((4, 3))
    yv = rng.standard_normal((3, 3))
    iv = np.array([1, 1, 3])
    inc = inc_subtensor(x[idx], y)
    assert isinstance(inc.owner.op, AdvancedIncSubtensor1)
    want = v.copy()
    np.add.at(want, iv, yv)
    np.testing.assert_allclose(evaluate(inc, {x: v, y: yv, idx: iv}), want)
    st_ = set_subtensor(x[idx], 0.0)
    want = v.copy()
    want[iv] = 0.0
    np.testing.assert_array_equal(evaluate(st_, {x: v, idx: iv}), want)
    check_derivatives(
        lambda a, b: inc_subtensor(a[np.array([0, 0, 2])], b),
        [rng.standard_normal((3, 2)), rng.standard_normal((3, 2))],
        rng,
    )
    check_derivatives(
        lambda a, b: set_subtensor(a[np.array([2, 0])], b),
        [rng.standard_normal((3, 2)), rng.standard_normal((2, 2))],
        rng,
    )


def test_advanced_bad_input():
    x = pt.tensor(dtype="float64", shape=(3, 2), name="x")
    with pytest.raises(StaticIndexError, match="index 5 is out of bounds for axis 0 of x"):
        x[[0, 5]]
    with pytest.raises(TypeError, match="integers or booleans"):
        x[pt.vector("f")]
    with pytest.raises(StaticIndexError, match="boolean index"):
        x[np.array([True, False])]


@pytest.mark.parametrize(
    "index",
    [
        (slice(None), [0, 2]),
        ([0, 1], [1, 2]),
        ([[0], [2]], slice(None), [0, 1]),
        (0, slice(None), [1, 2]),
        (slice(1, None), [0, 0], 1),
        (np.array([True, False, True, True]),),
        (slice(None), np.array([[True, False, True]] * 5)),
        (Ellipsis, [2, 0]),
    ],
)
def test_advanced_subtensor_matches_numpy(index):
    x = pt.tensor3("x")
    y = x[index]
    expected = XV[index]
    np.testing.assert_array_equal(evaluate(y, {x: XV}), expected)
    assert y.type.ndim == expected.ndim
    assert_infer_shape(y, {x: XV})
    xs = pt.tensor(dtype="float64", shape=XV.shape)
    assert xs[index].type.shape == expected.shape


def test_advanced_inc_subtensor_general():
    x = pt.tensor3("x")
    index = (slice(None), [0, 0, 4], [1, 1, 2])
    y = x[index]
    assert isinstance(y.owner.op, AdvancedSubtensor)
    yv = rng.standard_normal(XV[index].shape)
    yy = pt.tensor(dtype="float64", shape=(None, None))
    inc = inc_subtensor(y, yy)
    assert isinstance(inc.owner.op, AdvancedIncSubtensor)
    want = XV.copy()
    np.add.at(want, index, yv)
    np.testing.assert_allclose(evaluate(inc, {x: XV, yy: yv}), want)
    mask = XV > 0
    s = set_subtensor(x[mask], 0.0)
    np.testing.assert_array_equal(evaluate(s, {x: XV}), np.where(mask, 0.0, XV))
    check_derivatives(
        lambda a: a[:, np.array([1, 1, 0])] * 2.0, [rng.standard_normal((2, 3))], rng
    )
    check_derivatives(
        lambda a, b: inc_subtensor(a[np.array([0, 1]), np.array([1, 1])], b),
        [rng.standard_normal((2, 3)), rng.standard_normal(2)],
        rng,
    )


# --------------------------------------------------------------------------- hypothesis

_bound = st.one_of(st.none(), st.integers(-7, 7))
_slices = st.builds(slice, _bound, _bound, st.one_of(st.none(), st.integers(-3, 3).filter(bool)))


@st.composite
def _shape_and_index(draw):
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=1, max_size=3)))
    entries = []
    for n in shape[: draw(st.integers(0, len(shape)))]:
        if n > 0 and draw(st.booleans()):
            entries.append(draw(st.integers(-n, n - 1)))
        else:
            entries.append(draw(_slices))
    return shape, tuple(entries)


@settings(max_examples=50, deadline=None)
@given(case=_shape_and_index(), symbolic=st.booleans())
def test_random_basic_indexing_matches_numpy(case, symbolic):
    shape, index = case
    value = np.arange(int(np.prod(shape)), dtype="float64").reshape(shape)
    x = pt.tensor(dtype="float64", shape=(None,) * len(shape) if symbolic else shape)
    y = get_item(x, index)
    expected = value[index]
    np.testing.assert_array_equal(evaluate(y, {x: value}), expected)
    assert y.type.ndim == expected.ndim
    for static, actual in zip(y.type.shape, expected.shape):
        assert static is None or static == actual
    if not symbolic:
        assert y.type.shape == expected.shape
    if y.owner is not None:
        assert_infer_shape(y, {x: value})


@settings(max_examples=30, deadline=None)
@given(case=_shape_and_index())
def test_random_inc_subtensor_matches_numpy(case):
    shape, index = case
    value = np.arange(int(np.prod(shape)), dtype="float64").reshape(shape)
    x = pt.tensor(dtype="float64", shape=(None,) * len(shape))
    part = get_item(x, index)
    if part.owner is None:
        return
    inc = inc_subtensor(part, 1.5)
    want = value.copy()
    want[index] += 1.5
    np.testing.assert_array_equal(evaluate(inc, {x: value}), want)


def test_type_of_vector_index_variable():
    x = pt.matrix("x")
    assert x[pt.lvector()].type == TensorType("float64", (None, None))


@pytest.mark.parametrize("index", [
    (None, [0, 2]), ([0, 2], None), (slice(None), None, [1, 3]), (None, [0, 1], None, [2, 3]),
    (Ellipsis, None, [1, 2]), ([True, False, True], None),
    (np.array([[True, False, True, False]] * 3), None, 1),
])
def test_newaxis_with_array_indices_matches_numpy(index):
    a = np.arange(60.0).reshape(3, 4, 5)
    x = pt.tensor3("x")
    y = x[index]
    got = evaluate(y, {x: a})
    np.testing.assert_array_equal(got, a[index])
    assert all(s is None or s == g for s, g in zip(y.type.shape, got.shape))


def test_full_slice_is_an_indexing_node_set_subtensor_accepts():
    x = pt.matrix("x")
    assert isinstance(x[:].owner.op, Subtensor)
    assert x[...] is x
    np.testing.assert_array_equal(evaluate(pt.set_subtensor(x[:], 0.0), {x: np.ones((2, 2))}),
                                  np.zeros((2, 2)))


def test_advanced_inc_subtensor1_refuses_runtime_broadcasting():
    y = pt.matrix("y")
    x = pt.zeros((10, 5))
    idx = np.repeat(np.arange(10), 2)
    out = pt.inc_subtensor(x[idx], y)
    np.testing.assert_array_equal(evaluate(out, {y: np.ones((20, 5))}), np.full((10, 5), 2.0))
    with pytest.raises(ValueError, match="Runtime broadcasting not allowed"):
        evaluate(out, {y: np.ones((1, 5))})
    # A value whose type says length 1 does broadcast.
    row = pt.row("row")
    np.testing.assert_array_equal(evaluate(pt.inc_subtensor(x[idx], row), {row: np.ones((1, 5))}),
                                  np.full((10, 5), 2.0))


def test_boolean_index_shape_inference_broadcasts_one_against_zero():
    # Two masks selecting 1 and 0 positions broadcast to 0 (NumPy), not max(1, 0).
    n = pt.dmatrix("n")
    y = n[n[:, 0] > 2, n[0, :] > 2]
    nv = np.arange(6.0).reshape(2, 3)
    (inferred,) = y.owner.op.infer_shape(None, y.owner, [(n.shape[0], n.shape[1])])
    assert [int(evaluate(s, {n: nv})) for s in inferred] == list(nv[nv[:, 0] > 2, nv[0] > 2].shape)


def test_empty_slices_of_unknown_length_are_statically_empty():
    v = pt.lvector("v")
    for sl in (slice(1, 1), slice(-1, -1, 3), slice(3, 1)):
        y = v[sl]
        assert y.type.shape == (0,)
        assert evaluate(y, {v: np.arange(5)}).shape == np.arange(5)[sl].shape
    assert v[-1:1].type.shape == (None,)  # depends on the length: -1 + n may be < 1


def test_slice_at_axis_negative_axis():
    x = pt.tensor("x", shape=(3, 4, 5))
    assert x[slice_at_axis(slice(None, 1), axis=-2)].type.shape == (3, 1, 5)
    assert x[slice_at_axis(slice(None, 1), axis=0)].type.shape == (1, 4, 5)

"""PyTensor's write, read-of-write, index and shape rewrites (subtensor_writes.py,
subtensor_index.py, shape.py): each result and gradient equals the unrewritten graph's
on random and extreme inputs, and every error the unrewritten graph raises is kept."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import compile_pair, op_counts

import opgraph.tensor as pt
from opgraph.compile.mode import get_mode
from opgraph.gradient import grad
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.shape import specify_shape

RNG = np.random.default_rng(30)
EXTREME = np.array([[0.0, -0.0, np.inf], [-np.inf, np.nan, 1e308], [-1e-308, 5.0, -2.5],
                    [3.0, 1e-300, -7.0]])


def _outcome(fn, *args):
    try:
        return fn(*args)
    except Exception as exc:  # the error class is part of the result
        return type(exc)


def _same(fast, ref, *args):
    got, want = _outcome(fast, *args), _outcome(ref, *args)
    if isinstance(want, type):
        assert got is want or (isinstance(got, type) and issubclass(want, Exception)
                               and issubclass(got, Exception)), (got, want)
        assert isinstance(got, type), f"the rewritten graph lost the {want.__name__}"
        return
    assert not isinstance(got, type), got
    for g, w in zip(got if isinstance(got, list) else [got],
                    want if isinstance(want, list) else [want]):
        np.testing.assert_array_equal(g, w)
        assert np.asarray(g).dtype == np.asarray(w).dtype


def _with_grad(inputs, out, wrt):
    cost = (out * out.ones_like() * 1.5).sum()
    return [out, *grad(cost, wrt, disconnected_inputs="ignore")]


# -- writes ----------------------------------------------------------------------------------

WRITES = {
    "set-reversed": lambda x, y: pt.set_subtensor(x[:, ::-1], specify_shape(y, x.shape)),
    "inc-whole": lambda x, y: pt.inc_subtensor(x[:, :], specify_shape(y, x.shape)),
    "inc-whole-unknown": lambda x, y: pt.inc_subtensor(x[:, :], y),  # kept: y may be 1
    "inc-zeros-slice": lambda x, y: pt.inc_subtensor(x[:3], pt.zeros_like(y)),
    "inc-zeros-rows": lambda x, y: pt.inc_subtensor(x[[0, -1, 2]], pt.zeros_like(y)),
    "set-zeros-into-zeros": lambda x, y: pt.set_subtensor(pt.zeros_like(x)[1:], pt.zeros_like(y)),
    "read-of-inc-rows": lambda x, y: pt.inc_subtensor(x[[0, 2, 3]], y)[[0, 2, 3]],
    "read-of-set-slice": lambda x, y: pt.set_subtensor(x[:3], y)[:3],
    "read-of-inc-slice": lambda x, y: pt.inc_subtensor(x[1:], y)[1:],
    "inc-of-set": lambda x, y: pt.inc_subtensor(pt.set_subtensor(x[:3], y)[:3], y * 2),
    "inc-of-set-rows": lambda x, y: pt.inc_subtensor(
        pt.set_subtensor(x[[0, 2, 1]], y)[[0, 2, 1]], y[:1] * 2),
    "set-to-inc": lambda x, y: pt.set_subtensor(x[[2, 0, 1]], x[[2, 0, 1]] + y),
}
REWRITTEN_AWAY = {"set-reversed": "IncSubtensor", "inc-whole": "IncSubtensor",
                  "inc-zeros-slice": "IncSubtensor", "inc-zeros-rows": "AdvancedIncSubtensor1",
                  "set-zeros-into-zeros": "IncSubtensor",
                  "read-of-inc-rows": "AdvancedIncSubtensor1"}
SHAPES = [((4, 3), (4, 3)), ((3, 3), (3, 3)), ((4, 3), (3, 3)), ((4, 3), (1, 3)),
          ((2, 3), (2, 3)), ((0, 3), (0, 3)), ((4, 3), (4, 2)), ((5, 3), (3, 3))]


@pytest.mark.parametrize("case", sorted(WRITES))
def test_writes_keep_values_gradients_and_errors(case):
    x, y = pt.matrix("x"), pt.matrix("y")
    out = WRITES[case](x, y)
    fast, ref = compile_pair([x, y], out)
    if case in REWRITTEN_AWAY:
        assert op_counts(fast)[REWRITTEN_AWAY[case]] == 0, op_counts(fast)
    if case == "inc-of-set-rows":  # one write of a + b
        assert op_counts(fast)["AdvancedIncSubtensor1"] == 1, op_counts(fast)
    gfast, gref = compile_pair([x, y], _with_grad([x, y], out, [x, y]))
    for xs, ys in SHAPES:
        a, b = RNG.normal(size=xs), RNG.normal(size=ys)
        _same(fast, ref, a, b)
        _same(gfast, gref, a, b)
    _same(fast, ref, EXTREME, EXTREME[:3])
    _same(fast, ref, EXTREME, EXTREME)


@pytest.mark.parametrize("op", [pt.set_subtensor, pt.inc_subtensor])
def test_read_of_basic_write_with_static_shapes(op):
    """x[1:4].set(v)[1:4] -> v, .inc -> x[1:4] + v when the shapes show v fits (the
    write would also broadcast a length 1 known only at run time)."""
    x, v = pt.tensor("x", shape=(5, 3)), pt.tensor("v", shape=(3, 3))
    out = op(x[1:4], v)[1:4]
    fast, ref = compile_pair([x, v], out)
    assert op_counts(fast)["IncSubtensor"] == 0
    gfast, gref = compile_pair([x, v], _with_grad([x, v], out, [x, v]))
    a, b = RNG.normal(size=(5, 3)), RNG.normal(size=(3, 3))
    _same(fast, ref, a, b)
    _same(gfast, gref, a, b)
    _same(fast, ref, EXTREME[:, [0, 1, 2, 2, 0]].T[:, :3], EXTREME[:3])


def test_read_of_write_with_repeated_indices_is_kept():
    """x[i].set(v)[i] is not v when i repeats (the last write wins)."""
    x, v, i = pt.matrix("x"), pt.matrix("v"), pt.ivector("i")
    out = pt.set_subtensor(x[i], v)[i]
    fast, ref = compile_pair([x, v, i], out)
    a, b = RNG.normal(size=(4, 2)), RNG.normal(size=(3, 2))
    got = fast(a, b, np.array([1, 3, 3], "int32"))
    np.testing.assert_array_equal(got, ref(a, b, np.array([1, 3, 3], "int32")))
    assert not np.array_equal(got, b)


def test_set_to_inc_with_repeats_is_kept():
    x, y = pt.vector("x"), pt.vector("y")
    out = pt.set_subtensor(x[[1, 1, 0]], x[[1, 1, 0]] + y)
    fast, ref = compile_pair([x, y], out)
    assert op_counts(fast)["AdvancedIncSubtensor1"] == 1
    _same(fast, ref, np.arange(3.0), np.array([1.0, 2.0, 3.0]))


def test_setsubtensor_of_constants_and_zeros_in_fast_compile():
    """The same rules in FAST_COMPILE's canonicalize give the same values."""
    x, y = pt.matrix("x"), pt.matrix("y")
    out = pt.inc_subtensor(x[:2], pt.zeros_like(y))
    fast, ref = compile_pair([x, y], out, get_mode("FAST_COMPILE"))
    for xs, ys in SHAPES:
        _same(fast, ref, RNG.normal(size=xs), RNG.normal(size=ys))


# -- index rewrites ----------------------------------------------------------------------------

INDEX = {
    "broadcastable-index": (lambda x: x.dimshuffle("x", 1, 0, "x")[0, :, :, -1], "Subtensor"),
    "negative-index": (lambda x: specify_shape(x, (None, 3))[:, -2], None),
    "negative-index-first": (lambda x: specify_shape(x, (4, 3))[-4], None),
    "arange-rows": (lambda x: specify_shape(x, (4, 3))[[0, 1, 2, 3]], "AdvancedSubtensor1"),
    "adv-inc-rows": (lambda x: pt.inc_subtensor(x[np.array([0, 2, 2]), :], 1.5),
                     "AdvancedIncSubtensor"),
    "specify-shape-lift": (lambda x: specify_shape(x, (4, 3))[1], None),
    "specify-shape-lift-neg": (lambda x: specify_shape(x, (4, 3))[-1], None),
}


@pytest.mark.parametrize("case", sorted(INDEX))
def test_index_rewrites_keep_values_gradients_and_errors(case):
    x = pt.matrix("x")
    build, gone = INDEX[case]
    out = build(x)
    fast, ref = compile_pair([x], out)
    if gone is not None:
        assert op_counts(fast)[gone] == 0, op_counts(fast)
    gfast, gref = compile_pair([x], _with_grad([x], out, [x]))
    for shape in [(4, 3), (3, 3), (4, 2), (1, 3), (0, 3), (5, 3)]:
        a = RNG.normal(size=shape)
        _same(fast, ref, a)
        _same(gfast, gref, a)
    _same(fast, ref, EXTREME)


def test_specify_shape_lift_keeps_the_indexed_axis_check():
    x = pt.matrix("x")
    out = specify_shape(x, (4, 3))[1]
    fast, _ = compile_pair([x], out)
    with pytest.raises(Exception):  # noqa: B017 - the assertion's class is SpecifyShape's
        fast(RNG.normal(size=(5, 3)))


# -- shape rewrites ----------------------------------------------------------------------------

SHAPE_CASES = {
    "fuse-expand-dims": (lambda x: x.reshape((3, 4))[..., None], (12,)),
    "fuse-squeeze": (lambda x: x.squeeze(0).reshape((3, 3))[..., None], (1, 9)),
    "scalar-reshape": (lambda x: x.reshape((1, -1)), ()),
    "one-unmatched": (lambda x: pt.reshape(x, (x.shape[0], 3)), (None, None)),
    "ground": (lambda x: x.shape * 1, (2, 3)),
}


@pytest.mark.parametrize("case", sorted(SHAPE_CASES))
def test_shape_rewrites_keep_values_and_errors(case):
    build, static = SHAPE_CASES[case]
    x = pt.tensor("x", shape=static)
    out = build(x)
    fast, ref = compile_pair([x], out)
    shapes = {(): [()], (12,): [(12,)], (1, 9): [(1, 9)], (2, 3): [(2, 3)],
              (None, None): [(4, 3), (2, 6), (3, 4), (0, 3)]}[static]
    for shape in shapes:
        _same(fast, ref, RNG.normal(size=shape))


def test_reshape_with_one_unmatched_length_is_a_length_check():
    x = pt.matrix("x")
    out = pt.reshape(x, (x.shape[0], 3))
    fast, _ = compile_pair([x], out)
    assert op_counts(fast)["Reshape"] == 0 and op_counts(fast)["SpecifyShape"] == 1


# -- slice bounds and lifts through squeeze / join / advanced index --------------------------

BOUNDS = [-12, -10, -9, -6, -5, -4, -1, 0, 1, 3, 4, 5, 8, 9, 12, None]


@pytest.mark.parametrize("step", [1, 2, -1, -3, None])
def test_default_slice_bounds_read_the_same_elements(step):
    """x[a:b:s] with bounds at or past their defaults is NumPy's x[a:b:s] on every
    static length (0 included) and bound."""
    for n in (0, 1, 5, 9):
        x = pt.tensor("x", shape=(n, 2))
        outs = [x[a:b:step] for a in BOUNDS for b in BOUNDS]
        fast, ref = compile_pair([x], outs)
        _same(fast, ref, RNG.normal(size=(n, 2)))


LIFTS = {
    "squeeze": (lambda x: x.squeeze(0)[1, ::-1], (1, 4, 3)),
    "squeeze-two": (lambda x: x.squeeze((0, 2))[-1], (1, 4, 1)),
    "join-other-axis": (lambda x: pt.concatenate([x, x * 2], axis=1)[-2], (4, 3)),
    "join-both": (lambda x: pt.concatenate([x, x * 2], axis=1)[0, 1:], (4, 3)),
    "join-axis-only": (lambda x: pt.concatenate([x, x * 2], axis=0)[5], (4, 3)),
}


@pytest.mark.parametrize("case", sorted(LIFTS))
def test_lifts_keep_values_gradients_and_index_errors(case):
    build, shape = LIFTS[case]
    x = pt.tensor("x", shape=(None,) * len(shape))
    out = build(x)
    fast, ref = compile_pair([x], out)
    gfast, gref = compile_pair([x], _with_grad([x], out, [x]))
    small = (1,) * len(shape)  # too short for the integer index
    for s in (shape, small):
        a = RNG.normal(size=s)
        _same(fast, ref, a)
        _same(gfast, gref, a)


def test_subtensor_of_adv_subtensor_by_name():
    x = pt.tensor3("x")
    outs = [x[:, [2, 0, 1]][-1], x[:, [2, 0, 1], [0, 0, 0]][1:], x[:, :, [2, 0]][1, 2:, 1]]
    mode = get_mode("FAST_RUN").including("local_subtensor_of_adv_subtensor")
    fast, ref = compile_pair([x], outs, mode)
    for shape in [(7, 5, 3), (1, 5, 3), (2, 3, 3), (0, 5, 3)]:
        _same(fast, ref, RNG.normal(size=shape))


def test_blockwise_of_subtensor_is_one_subtensor():
    x, a = pt.tensor3("x"), pt.lscalar("a")
    core = pt.matrix("c")[a:, -1]
    out = Blockwise(core.owner.op, signature="(m,n),(),()->(k)")(x, a, pt.constant(-1))
    fast, ref = compile_pair([x, a], out)
    assert op_counts(fast)["Blockwise"] == 0
    for shape, av in [((2, 4, 3), 1), ((2, 4, 3), -5), ((3, 0, 2), 0), ((2, 4, 0), 1)]:
        _same(fast, ref, RNG.normal(size=shape), np.int64(av))


def test_inc_into_constant_zeros_is_a_set():
    y = pt.matrix("y")
    out = pt.inc_subtensor(pt.constant(np.zeros((4, 3)))[1:], y)
    fast, ref = compile_pair([y], out)
    incs = [n for n in fast.maker.fgraph.toposort() if type(n.op).__name__ == "IncSubtensor"]
    assert len(incs) == 1 and incs[0].op.set_instead_of_inc
    for shape in [(3, 3), (1, 3), (2, 3), (3, 1)]:
        _same(fast, ref, RNG.normal(size=shape))


ALLOC_INDEX = [(2, slice(None)), (slice(None), 3), (slice(3, None),),
               (slice(1, 3), slice(None, -1)), (slice(None, None, 2),), (-1, -2), (0,),
               (slice(None), -5)]


@pytest.mark.parametrize("index", ALLOC_INDEX, ids=str)
def test_subtensor_of_alloc_keeps_values_gradients_and_errors(index):
    """alloc(y, n, m)[idx] -> alloc(y[idx'], ...): a length mismatch between y and m and
    an integer out of range still raise."""
    x, y = pt.matrix("x"), pt.vector("y")
    out = pt.alloc(y, x.shape[0], x.shape[1])[index]
    fast, ref = compile_pair([x, y], out)
    gfast, gref = compile_pair([x, y], _with_grad([x, y], out, [y]))
    for xs, ys in [((3, 5), 5), ((4, 6), 6), ((1, 5), 5), ((3, 5), 4), ((5, 1), 1), ((0, 3), 3),
                   ((3, 0), 0)]:
        a, b = np.zeros(xs), RNG.normal(size=ys)
        _same(fast, ref, a, b)
        _same(gfast, gref, a, b)


def test_subtensor_of_alloc_on_a_broadcast_axis():
    v = pt.tensor("v", shape=(7, 1))
    out = pt.alloc(v, 7, 5)[:3, :2]
    fast, ref = compile_pair([v], out)
    assert op_counts(fast)["Subtensor"] == 1 and op_counts(fast)["Alloc"] == 1
    _same(fast, ref, RNG.normal(size=(7, 1)))

"""Index updates and Allocs over batch axes, as one node, against a Python loop over the batch.

``batched_index_update``/``batched_alloc`` are what a Blockwise of an
IncSubtensor, AdvancedIncSubtensor or Alloc lowers to (batched indices become
one advanced index with an ``arange`` per batch axis).  Each case builds a core
graph, batches some of its inputs, and checks the one-node form's values and
gradients against the core graph run on every batch entry in a Python loop.
"""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.autodiff.evaluate import compile_callable
from opgraph.gradient import NoBatchingRule, grad
from opgraph.graph.basic import ancestors
from opgraph.graph.replace import vectorize_graph
from opgraph.tensor.advanced import AdvancedIncSubtensor
from opgraph.tensor.batching_index import (
    batch_shape,
    batched_alloc,
    batched_index_update,
    lower_blockwise,
)
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.subtensor import IncSubtensor

RNG = np.random.default_rng(1874)
PERFORM = "perform"  # each node's perform: no linker needed, nothing compiled


def _core_case(name):
    """(core output, core inputs, {core input: (batched variable, value)})."""
    x = pt.dmatrix("x")
    x3 = pt.tensor("x3", dtype="float64", shape=(None, None, None))
    i = pt.lscalar("i")
    v = pt.lvector("v")
    y0 = pt.dscalar("y")
    if name == "basic_batched_int":  # IncSubtensor{inc;:stop, int}
        out = pt.inc_subtensor(x[:3, i], y0)
        return out, [x, y0, i], {i: (pt.lvector("I"), np.array([0, -1, 2]))}
    if name == "basic_batched_all":  # x (4, 1, ...) broadcasts against i and y (3,)
        out = pt.set_subtensor(x[:3, i], y0)
        return out, [x, y0, i], {
            x: (pt.tensor("X", dtype="float64", shape=(4, 1, None, None)), None),
            i: (pt.lvector("I"), np.array([0, -1, 2])),
            y0: (pt.dvector("Y"), RNG.normal(size=3))}
    if name == "adv_int_array":  # AdvancedIncSubtensor{inc;int, array}
        out = pt.inc_subtensor(x[i, v], y0)
        return out, [x, y0, i, v], {
            i: (pt.lvector("I"), np.array([0, -1])),
            v: (pt.lmatrix("V"), np.array([[0, 2, 4], [1, 3, 5]]))}
    if name == "basic_non_consecutive":  # IncSubtensor{set;int, :, int}
        out = pt.set_subtensor(x3[i, :, i], y0)
        return out, [x3, y0, i], {
            x3: (pt.tensor("X3", dtype="float64", shape=(None,) * 4), None),
            i: (pt.lvector("I"), np.array([0, 2]))}
    if name == "adv_non_consecutive":  # AdvancedIncSubtensor{set;int, :, array}
        yv = pt.dmatrix("yv")
        out = pt.set_subtensor(x3[i, :, v], yv)
        return out, [x3, yv, i, v], {
            i: (pt.lvector("I"), np.array([1, 0])),
            yv: (pt.tensor3("YV", dtype="float64"), RNG.normal(size=(2, 2, 4)))}
    if name == "adv_after_slice":  # x3[:, i, v]: adjacent advanced indices after a slice
        yv = pt.dmatrix("yv")
        out = pt.inc_subtensor(x3[:, i, v], yv)
        return out, [x3, yv, i, v], {
            v: (pt.lmatrix("V"), np.array([[0, 1], [3, 3]])),
            yv: (pt.tensor3("YV", dtype="float64"), RNG.normal(size=(2, 3, 2)))}
    if name == "unbatched_index_batched_y":  # x unbatched: each entry writes its own copy
        out = pt.inc_subtensor(x[1:, 2], y0)
        return out, [x, y0], {y0: (pt.dvector("Y"), RNG.normal(size=5))}
    raise KeyError(name)


CORE_VALUES = {"x": lambda: RNG.normal(size=(6, 6)), "x3": lambda: RNG.normal(size=(3, 4, 5)),
               "y": lambda: np.array(2.5), "yv": lambda: RNG.normal(size=(2, 4)),
               "i": lambda: np.array(1), "v": lambda: np.array([0, 3])}
CASES = ["basic_batched_int", "basic_batched_all", "adv_int_array", "basic_non_consecutive",
         "adv_non_consecutive", "adv_after_slice", "unbatched_index_batched_y"]


def _values(core_inputs, batched):
    values = []
    for c in core_inputs:
        var, value = batched.get(c, (c, None))
        if value is None:
            core = CORE_VALUES[c.name]()
            extra = var.type.ndim - c.type.ndim
            value = core if not extra else RNG.normal(size=(
                *(s or 2 for s in var.type.shape[:extra]), *core.shape))
        values.append((var, value))
    return values


def _loop(core_out, core_inputs, values, cotangent):
    """Per batch entry: the core output and the gradients of sum(out * cotangent[b])."""
    extras = [v.type.ndim - c.type.ndim for c, (v, _) in zip(core_inputs, values)]
    nb = max(extras)
    shapes = [val.shape[:e] for (_, val), e in zip(values, extras)]
    batch = np.broadcast_shapes(*[(1,) * (nb - len(s)) + s for s in shapes])
    w = pt.tensor("w", dtype="float64", shape=(None,) * core_out.type.ndim)
    float_ins = [c for c in core_inputs if c.type.dtype.startswith("float")]
    grads = grad((core_out * w).sum(), float_ins)
    fn = compile_callable([*core_inputs, w], [core_out, *grads], mode=PERFORM)
    full = [np.broadcast_to(val, batch + val.shape[e:]) if e else val
            for (_, val), e in zip(values, extras)]
    outs = np.empty(batch + cotangent.shape[nb:])
    gsum = [np.zeros(batch + np.shape(val)[e:]) for (_, val), e, c in
            zip(values, extras, core_inputs) if c in float_ins]
    for b in np.ndindex(*batch):
        res = fn(*[f[b] if e else f for f, e in zip(full, extras)], cotangent[b])
        outs[b] = res[0]
        for acc, g in zip(gsum, res[1:]):
            acc[b] = g
    return outs, gsum, batch


def _reduce_to(g, value, e, nb):
    """A gradient over the whole batch summed back to an input that broadcast into it."""
    if not e:
        return g.sum(axis=tuple(range(nb)))
    g = g.sum(axis=tuple(range(nb - e)))
    axes = tuple(k for k in range(e) if value.shape[k] == 1 and g.shape[k] != 1)
    return g.sum(axis=axes, keepdims=True) if axes else g


@pytest.mark.parametrize("name", CASES)
def test_batched_update_matches_a_loop_values_and_gradients(name):
    core_out, core_inputs, batched = _core_case(name)
    values = _values(core_inputs, batched)
    node = core_out.owner
    by_core = dict(zip(core_inputs, values))
    ins = [by_core[c][0] if c in by_core else c for c in node.inputs]
    extra = [b.type.ndim - c.type.ndim for b, c in zip(ins, node.inputs)]
    (out,) = batched_index_update(node, ins, extra)
    assert isinstance(out.owner.op, IncSubtensor | AdvancedIncSubtensor)
    assert not any(isinstance(a.owner.op, Blockwise) for a in ancestors([out]) if a.owner)
    in_vars = [v for v, _ in values]
    in_vals = [val for _, val in values]
    (probe,) = compile_callable(in_vars, [out], mode=PERFORM)(*in_vals)
    cot = RNG.normal(size=probe.shape)
    ref_out, ref_grads, _ = _loop(core_out, core_inputs, values, cot)
    np.testing.assert_allclose(probe, ref_out, rtol=1e-12)
    w = pt.tensor("w", dtype="float64", shape=(None,) * out.type.ndim)
    float_vars = [v for (v, _), c in zip(values, core_inputs) if c.type.dtype.startswith("float")]
    grads = grad((out * w).sum(), float_vars)
    got = compile_callable([*in_vars, w], grads, mode=PERFORM)(*in_vals, cot)
    nb = len(ref_out.shape) - core_out.type.ndim
    float_values = [(v, val) for (v, val), c in zip(values, core_inputs)
                    if c.type.dtype.startswith("float")]
    for g, ref, (v, val), c in zip(got, ref_grads, float_values,
                                   [c for c in core_inputs if c.type.dtype.startswith("float")]):
        expected = _reduce_to(ref, val, v.type.ndim - c.type.ndim, nb)
        np.testing.assert_allclose(g, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", CASES)
def test_vectorize_graph_gives_a_blockwise_that_lowers_to_the_same_values(name):
    core_out, core_inputs, batched = _core_case(name)
    values = _values(core_inputs, batched)
    replace = {c: v for c, (v, _) in zip(core_inputs, values) if v is not c}
    vec = vectorize_graph(core_out, replace)
    assert isinstance(vec.owner.op, Blockwise)  # as PyTensor's vectorize gives it
    lowered = lower_blockwise(vec.owner)
    assert lowered is not None
    in_vars = [v for v, _ in values]
    a, b = compile_callable(in_vars, [vec, lowered[0]], mode=PERFORM)(*[val for _, val in values])
    np.testing.assert_allclose(a, b, rtol=1e-12)


def test_a_slice_bound_that_varies_over_the_batch_keeps_the_blockwise():
    x, stop = pt.dmatrix("x"), pt.lscalar("stop")
    core = pt.inc_subtensor(x[:stop, 0], 1.0)
    vec = vectorize_graph(core, {stop: pt.lvector("S")})
    assert isinstance(vec.owner.op, Blockwise)
    assert lower_blockwise(vec.owner) is None
    ins = [*core.owner.inputs[:2], pt.lvector("S"), core.owner.inputs[3]]
    with pytest.raises(NoBatchingRule, match="slice bound"):
        batched_index_update(core.owner, ins, [0, 0, 1, 0])


def test_batched_alloc_of_a_length_equal_over_the_batch_is_one_alloc():
    x, n = pt.dscalar("x"), pt.lscalar("n")
    core = pt.alloc(x, n, 2)
    vec = vectorize_graph(core, {x: pt.dvector("X"), n: pt.alloc(n, 5)})
    assert isinstance(vec.owner.op, Blockwise)
    (out,) = lower_blockwise(vec.owner)
    assert type(out.owner.op).__name__ == "Alloc"
    xs = RNG.normal(size=5)
    got, ref = compile_callable([vec.owner.inputs[0], n], [out, vec], mode=PERFORM)(xs, 3)
    np.testing.assert_allclose(got, np.stack([np.full((3, 2), v) for v in xs]))
    np.testing.assert_allclose(ref, got)
    # a length that differs per batch entry has no single Alloc: the Blockwise stays
    varying = vectorize_graph(core, {n: pt.lvector("N")})
    assert lower_blockwise(varying.owner) is None
    with pytest.raises(NoBatchingRule, match="varies"):
        batched_alloc(core.owner, [x, pt.lvector("N"), core.owner.inputs[2]], [0, 1, 0])


def test_batch_shape_prefers_static_lengths_and_broadcasts_ones():
    a = pt.tensor("a", dtype="float64", shape=(4, 1, 3))
    b = pt.tensor("b", dtype="float64", shape=(None, 3))
    dims = batch_shape([a, b], [2, 1])
    assert dims[0] == 4 and dims[1] is not None and not isinstance(dims[1], int)
    assert batch_shape([a], [2]) == [4, 1]


def test_reshape_with_a_longer_or_a_batched_shape():
    n = pt.lscalar("n")
    vec, mat = pt.dvector("vec"), pt.dmatrix("mat")
    shape = pt.as_tensor_variable([-1, n])
    out = pt.reshape(vec, shape)
    # a shape two longer than the row's is the whole new shape, batch axes included
    whole = vectorize_graph(out, {vec: mat, shape: pt.as_tensor_variable((5, -1, n))})
    (got,) = compile_callable([mat, n], [whole], mode=PERFORM)(np.arange(30.0).reshape(5, 6), 2)
    np.testing.assert_array_equal(got, np.arange(30.0).reshape(5, 3, 2))
    with pytest.raises(ValueError, match="Invalid shape length passed into vectorize node"):
        vectorize_graph(out, {vec: mat, shape: pt.as_tensor_variable((5, 3, 2, n))})
    # one shape per batch entry: a Blockwise, each entry reshaped its own way
    per_entry = vectorize_graph(out, {shape: pt.stack([[-1, n], [n - 1, -1]], axis=0)})
    assert isinstance(per_entry.owner.op, Blockwise)
    (got,) = compile_callable([vec, n], [per_entry], mode=PERFORM)(np.arange(6.0), 3)
    np.testing.assert_array_equal(got, np.stack([np.arange(6.0).reshape(2, 3)] * 2))


def _index_entry(k, kind, batched):
    """(core index entry, {core var: (batched var, value)}) for one axis of a 3-d x."""
    if kind == "slice":
        return slice(1, None), {}
    if kind == "int":
        core, value = pt.lscalar(f"i{k}"), np.array(1)
        wide, wide_value = pt.lvector(f"I{k}"), np.array([0, 2, 1])
    else:  # an integer array, with a repeated entry in one batch element
        core, value = pt.lvector(f"v{k}"), np.array([0, 2])
        wide, wide_value = pt.lmatrix(f"V{k}"), np.array([[0, 1], [2, 2], [1, 0]])
    return core, {core: (wide, wide_value) if batched else (core, value)}


@pytest.mark.parametrize("kinds", [(a, b, c) for a in ("slice", "int", "array")
                                   for b in ("slice", "int", "array")
                                   for c in ("slice", "int", "array")])
@pytest.mark.parametrize("batched_index", [False, True])
def test_every_index_pattern_lowers_to_the_blockwise_values(kinds, batched_index):
    """x[i, :, v] += y over a batch of x, y and (or not) the indices: the one-node form
    equals the Blockwise loop, whatever NumPy does with the advanced axes' position."""
    x = pt.tensor("x", dtype="float64", shape=(None,) * 3)
    index, inputs = [], {}
    for k, kind in enumerate(kinds):
        entry, more = _index_entry(k, kind, batched_index)
        index.append(entry)
        inputs.update(more)
    region = x[tuple(index)]
    y = pt.tensor("y", dtype="float64", shape=(None,) * region.type.ndim)
    core = pt.inc_subtensor(region, y)
    xv = RNG.normal(size=(3, 3, 4, 3))
    index_vars = [e for e in index if not isinstance(e, slice)]
    (reg,) = compile_callable([x, *index_vars], [region], mode=PERFORM)(
        xv[0], *[inputs[v][1][0] if batched_index else inputs[v][1] for v in index_vars])
    X = pt.tensor("X", dtype="float64", shape=(3, None, None, None))
    Y = pt.tensor("Y", dtype="float64", shape=(None,) * (region.type.ndim + 1))
    inputs.update({x: (X, xv), y: (Y, RNG.normal(size=(3, *reg.shape)))})
    vec = vectorize_graph(core, {c: w for c, (w, _) in inputs.items() if w is not c})
    assert isinstance(vec.owner.op, Blockwise)
    (lowered,) = lower_blockwise(vec.owner)
    ins = [w for w, _ in inputs.values()]
    loop, one = compile_callable(ins, [vec, lowered], mode=PERFORM)(
        *[value for _, value in inputs.values()])
    np.testing.assert_allclose(one, loop, rtol=1e-12)

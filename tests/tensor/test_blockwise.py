"""Blockwise and pt.vectorize, with core Ops only (no plugin installed)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opgraph.tensor as pt
from opgraph.autodiff.vectorize import BATCHING_RULES
from opgraph.gradient import jacobian
from opgraph.graph.basic import Apply, equal_computations
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.op import Op
from opgraph.tensor.blockwise import (
    Blockwise,
    local_useless_blockwise,
    parse_gufunc_signature,
    safe_signature,
    vectorize_core_graph,
    vectorize_node_fallback,
)
from opgraph.tensor.products import Dot
from opgraph.tensor.random.type import RandomGeneratorType
from opgraph.tensor.type import TensorType

from .helpers import check_derivatives, evaluate

MATMUL = Blockwise(Dot(), "(m,k),(k,n)->(m,n)")


class Affine(Op):
    """A core op written for one matrix and one vector: A @ v + v.sum()."""

    __props__ = ()
    gufunc_signature = "(m,k),(k)->(m)"

    def make_node(self, a: Any, v: Any) -> Apply:
        a, v = pt.as_tensor_variable(a), pt.as_tensor_variable(v)
        out = TensorType("float64", (a.type.shape[0],))()
        return Apply(self, [a, v], [out])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        a, v = inputs
        assert a.ndim == 2 and v.ndim == 1, "perform must see core arrays only"
        out[0][0] = a @ v + v.sum()

    def pullback(self, inputs: Any, outputs: Any, cotangents: Any) -> Any:
        a, v = inputs
        (g,) = cotangents
        return [pt.outer(g, v), pt.dot(a.T, g) + g.sum()]

    def pushforward(self, inputs: Any, outputs: Any, tangents: Any) -> Any:
        a, v = inputs
        ta, tv = tangents
        return [pt.dot(ta, v) + pt.dot(a, tv) + tv.sum()]


def affine_ref(a: np.ndarray, v: np.ndarray) -> np.ndarray:
    return np.einsum("...mk,...k->...m", a, v) + v.sum(-1)[..., None]


# ----------------------------------------------------------------------------- signatures


def test_parse_signature() -> None:
    assert parse_gufunc_signature("(m,n),(n)->(m)") == ([("m", "n"), ("n",)], [("m",)])
    assert parse_gufunc_signature("(),( a , b )->(),(b)") == ([(), ("a", "b")], [(), ("b",)])
    with pytest.raises(ValueError, match="not a valid gufunc signature"):
        parse_gufunc_signature("(m,n)(n)->(m)")
    with pytest.raises(TypeError, match="must be a str"):
        parse_gufunc_signature(3)  # type: ignore[arg-type]


def test_safe_signature_names_every_axis_apart() -> None:
    assert safe_signature([1, 2], [1, 2]) == "(i00),(i10,i11)->(o00),(o10,o11)"
    ins, outs = parse_gufunc_signature(safe_signature([2, 0], [1]))
    names = [d for core in ins + outs for d in core]
    assert [len(c) for c in ins] == [2, 0] and len(outs[0]) == 1
    assert len(set(names)) == len(names)


def test_signature_from_core_op_and_str() -> None:
    op = Blockwise(Affine())
    assert op.signature == "(m,k),(k)->(m)"
    assert str(op) == "Blockwise{Affine, (m,k),(k)->(m)}"
    assert op == Blockwise(Affine(), "(m,k),(k)->(m)") and hash(op) == hash(Blockwise(Affine()))
    with pytest.raises(ValueError, match="no gufunc_signature"):
        Blockwise(Dot())
    with pytest.raises(TypeError, match="core_op must be an Op"):
        Blockwise(np.add, "(),()->()")  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- make_node


def test_static_batch_shape_broadcasts() -> None:
    a = pt.tensor(name="a", shape=(5, 1, 3, 4))
    b = pt.tensor(name="b", shape=(7, 4, 2))
    out = MATMUL(a, b)
    assert out.type.shape == (5, 7, 3, 2)
    assert MATMUL(pt.matrix("x", shape=(3, 4)), pt.matrix("y", shape=(4, 2))).type.shape == (3, 2)


def test_construction_errors_name_the_input() -> None:
    a = pt.tensor(name="a", shape=(5, 3, 4))
    with pytest.raises(ValueError, match=r"batch dimensions do not broadcast.*input 1 \(b\)"):
        MATMUL(a, pt.tensor(name="b", shape=(6, 4, 2)))
    with pytest.raises(ValueError, match=r"'k' has length 4 in input 0 \(a\) but 5 in input 1"):
        MATMUL(a, pt.tensor(name="c", shape=(5, 2)))
    with pytest.raises(ValueError, match=r"input 1 \(v\) must have at least 2 dimension"):
        MATMUL(a, pt.vector("v"))
    with pytest.raises(TypeError, match="expected 2 input"):
        MATMUL(a)


def test_runtime_errors_name_the_input() -> None:
    a, b = pt.tensor3("a"), pt.tensor3("b")
    out = MATMUL(a, b)
    with pytest.raises(ValueError, match=r"batch dimensions do not broadcast.*input 1 \(b\)"):
        evaluate(out, {a: np.ones((2, 3, 4)), b: np.ones((3, 4, 2))})
    with pytest.raises(ValueError, match=r"'k' has length 4 in input 0 \(a\)"):
        evaluate(out, {a: np.ones((2, 3, 4)), b: np.ones((2, 5, 2))})


# ----------------------------------------------------------------------------- perform

batch_shapes = st.lists(st.integers(1, 3), min_size=0, max_size=3)


@st.composite
def broadcastable_pair(draw: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Two batch shapes that broadcast: drop leading axes, set some lengths to 1."""
    full = draw(batch_shapes)
    out = []
    for _ in range(2):
        keep = draw(st.integers(0, len(full)))
        shp = list(full[len(full) - keep:])
        for i in range(len(shp)):
            if draw(st.booleans()):
                shp[i] = 1
        out.append(tuple(shp))
    return out[0], out[1]


@settings(max_examples=40, deadline=None)
@given(broadcastable_pair(), st.integers(1, 3), st.integers(1, 3), st.integers(0, 2))
def test_matmul_over_batches_matches_numpy(shapes: Any, m: int, k: int, n: int) -> None:
    rng = np.random.default_rng(0)
    (ba, bb) = shapes
    av, bv = rng.normal(size=(*ba, m, k)), rng.normal(size=(*bb, k, n))
    # a length-1 batch axis broadcasts only when its type says so
    a = pt.tensor(name="a", shape=(*(1 if s == 1 else None for s in ba), None, None))
    b = pt.tensor(name="b", shape=(*(1 if s == 1 else None for s in bb), None, None))
    out = MATMUL(a, b)
    got = evaluate(out, {a: av, b: bv})
    np.testing.assert_allclose(got, np.matmul(av, bv))
    assert got.dtype == np.float64


def test_one_core_node_per_node_sees_its_dtypes() -> None:
    class DtypeDependent(Op):
        __props__ = ()

        def make_node(self, x: Any) -> Apply:
            x = pt.as_tensor_variable(x)
            return Apply(self, [x], [x.type()])

        def perform(self, node: Apply, inputs: Any, out: Any) -> None:
            shift = 1 if node.inputs[0].type.dtype.startswith("float") else -1
            out[0][0] = np.asarray(inputs[0] + shift, dtype=inputs[0].dtype)

    op = Blockwise(DtypeDependent(), "()->()")
    x = pt.tensor(name="x", dtype="float32", shape=(3,))
    y = pt.tensor(name="y", dtype="int32", shape=(3,))
    fx, fy = evaluate([op(x), op(y)], {x: np.zeros(3, "float32"), y: np.zeros(3, "int32")})
    np.testing.assert_array_equal(fx, np.ones(3))
    np.testing.assert_array_equal(fy, -np.ones(3))
    assert fx.dtype == np.float32 and fy.dtype == np.int32


def test_runtime_broadcasting_needs_a_static_length_one() -> None:
    a, b = pt.tensor3("a"), pt.tensor3("b")
    out = MATMUL(a, b)
    with pytest.raises(ValueError, match=r"runtime broadcasting not allowed: input 0 \(a\)"):
        evaluate(out, {a: np.ones((1, 3, 5)), b: np.ones((2, 5, 3))})
    np.testing.assert_allclose(evaluate(out, {a: np.ones((1, 3, 5)), b: np.ones((1, 5, 3))}),
                               np.full((1, 3, 3), 5.0))
    a1 = pt.tensor(name="a1", shape=(1, None, None))
    got = evaluate(MATMUL(a1, b), {a1: np.ones((1, 3, 5)), b: np.ones((2, 5, 3))})
    np.testing.assert_allclose(got, np.full((2, 3, 3), 5.0))


def test_empty_batch() -> None:
    a, b = pt.tensor3("a"), pt.matrix("b")
    got = evaluate(MATMUL(a, b), {a: np.ones((0, 3, 4)), b: np.ones((4, 2))})
    assert got.shape == (0, 3, 2)


def test_infer_shape() -> None:
    a = pt.tensor(name="a", shape=(None, 1, None, None))
    b = pt.tensor(name="b", shape=(None, None, None))
    node = MATMUL(a, b).owner
    shapes = node.op.infer_shape(None, node, [a.shape, b.shape])
    values = {a: np.ones((2, 1, 3, 4)), b: np.ones((5, 4, 6))}
    got = [int(evaluate(d, values)) if not isinstance(d, int) else d for d in shapes[0]]
    assert got == [2, 5, 3, 6]


# ----------------------------------------------------------------------------- gradients


@pytest.mark.parametrize(
    ("a_shape", "v_shape"),
    [((3, 2), (2,)), ((2, 3, 2), (2,)), ((2, 3, 2), (1, 2)), ((1, 3, 2), (4, 2)),
     ((2, 1, 3, 2), (4, 2))],
)
def test_pullback_and_pushforward_match_finite_differences(a_shape: Any, v_shape: Any) -> None:
    rng = np.random.default_rng(1)
    op = Blockwise(Affine())
    check_derivatives(op, [rng.normal(size=a_shape), rng.normal(size=v_shape)], rng)


def test_gradient_of_a_wrapped_core_op() -> None:
    rng = np.random.default_rng(2)
    check_derivatives(MATMUL, [rng.normal(size=(2, 3, 4)), rng.normal(size=(1, 4, 2))], rng)


def test_jacobian_uses_the_batching_rule() -> None:
    assert Blockwise in BATCHING_RULES
    rng = np.random.default_rng(3)
    a, v = pt.tensor3("a"), pt.matrix("v")
    out = Blockwise(Affine())(a, v).sum(axis=0)
    jac = jacobian(out, a)
    av, vv = rng.normal(size=(2, 3, 2)), rng.normal(size=(2, 2))
    got = evaluate(jac, {a: av, v: vv})
    expected = np.zeros((3, 2, 3, 2))
    for i in range(3):
        expected[i, :, i, :] = vv
    np.testing.assert_allclose(got, expected)


# ----------------------------------------------------------------------------- vectorize


def test_vectorize_with_signature() -> None:
    f = pt.vectorize(lambda a, v: pt.dot(a, v) + a.sum(), "(m,k),(k)->(m)")
    a, v = pt.tensor3("a"), pt.matrix("v")
    out = f(a, v)
    assert out.type.ndim == 2
    rng = np.random.default_rng(4)
    av, vv = rng.normal(size=(4, 3, 2)), rng.normal(size=(4, 2))
    expected = np.einsum("bij,bj->bi", av, vv) + av.sum((1, 2))[:, None]
    np.testing.assert_allclose(evaluate(out, {a: av, v: vv}), expected)


def test_vectorize_without_signature_is_elementwise() -> None:
    f = pt.vectorize(lambda x, y: pt.exp(x) * y)
    x, y = pt.matrix("x"), pt.vector("y")
    out = f(x, y)
    xv, yv = np.arange(6.0).reshape(2, 3) / 10, np.arange(3.0)
    np.testing.assert_allclose(evaluate(out, {x: xv, y: yv}), np.exp(xv) * yv)


def test_vectorize_mixes_batched_and_unbatched_inputs() -> None:
    # The core graph reduces then broadcasts: the batch axis must stay leading.
    f = pt.vectorize(lambda a, s: (a - a.mean()) * s, "(n),()->(n)")
    a, s = pt.matrix("a"), pt.scalar("s")
    av = np.arange(6.0).reshape(2, 3)
    got = evaluate(f(a, s), {a: av, s: 2.0})
    np.testing.assert_allclose(got, (av - av.mean(1, keepdims=True)) * 2.0)


def test_vectorize_errors() -> None:
    f = pt.vectorize(lambda a: a.sum(), "(m,n)->()")
    with pytest.raises(ValueError, match=r"Input v has less dimensions \(1\) than its core"):
        f(pt.vector("v"))
    for exc in (TypeError, ValueError):  # PyTensor raises ValueError; opgraph used TypeError
        with pytest.raises(exc, match=r"Number of inputs \(2\) does not match"):
            f(pt.matrix("a"), pt.matrix("b"))
        with pytest.raises(exc, match=r"Number of outputs \(2\) does not match"):
            pt.vectorize(lambda a, b: (a + b, a - b), "(),()->()")(pt.vector(), pt.vector())
    for not_a_tensor in (RandomGeneratorType()(), RandomGeneratorType()):
        with pytest.raises(TypeError, match="input 0 must be TensorVariable"):
            f(not_a_tensor)
    with pytest.raises(ValueError, match="no outputs"):
        pt.vectorize(lambda a: None)(pt.vector())


def test_vectorize_reduction_keeps_a_plain_reduction() -> None:
    f = pt.vectorize(lambda x, y: (x * y).sum(), "(a),(a)->()")
    x, y = pt.tensor("x", shape=(2, 3, 5)), pt.tensor("y", shape=(2, 3, 5))
    out = f(x, y)
    assert equal_computations([out], [(x * y).sum(axis=-1)])
    m = pt.tensor("m", shape=(4, 2, 3))
    top = pt.vectorize(lambda a: a.max(axis=0), "(p,q)->(q)")(m)
    assert equal_computations([top], [m.max(axis=1)])
    mv = np.arange(24.0).reshape(4, 2, 3)
    np.testing.assert_array_equal(evaluate(top, {m: mv}), mv.max(axis=1))


def test_vectorize_core_graph_fallback_wraps_in_blockwise() -> None:
    a = pt.matrix("a")
    core = Affine()(a, pt.vector("v"))
    batched_a = pt.tensor3("A")
    (out,) = vectorize_core_graph([core], {a: batched_a})
    assert isinstance(out.owner.op, Blockwise) and isinstance(out.owner.op.core_op, Affine)
    with pytest.raises(ValueError, match="fewer dimensions"):
        vectorize_core_graph([core], {a: pt.vector("w")})


def test_vectorize_node_fallback_uses_own_signature() -> None:
    a, v = pt.matrix("a"), pt.vector("v")
    node = Affine()(a, v).owner
    (out,) = vectorize_node_fallback(node.op, node, pt.tensor3("A"), v)
    assert out.owner.op.signature == "(m,k),(k)->(m)"
    assert out.type.ndim == 2


def test_repeated_core_dim_must_match_within_one_input() -> None:
    op = Blockwise(Dot(), "(m,m),(m,m)->(m,m)")
    with pytest.raises(ValueError, match=r"input 0 \(s\) must have equal lengths.*square matrix"):
        op(pt.tensor(name="s", shape=(3, 4)), pt.matrix("t"))
    s, t = pt.matrix("s"), pt.matrix("t")
    with pytest.raises(ValueError, match=r"got shape \(3, 4\)"):
        evaluate(op(s, t), {s: np.ones((3, 4)), t: np.ones((3, 3))})


class Opaque(Op):
    """A core op with no infer_shape: output lengths the signature cannot tell stay unknown."""

    __props__ = ()

    def make_node(self, *inputs: Any) -> Apply:
        inputs = [pt.as_tensor_variable(x) for x in inputs]
        return Apply(self, inputs, [x.type() for x in inputs])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        (x,) = inputs
        out[0][0] = np.zeros((x.shape[0], 2 * x.shape[-1]))


def test_static_core_shape_from_signature_and_partial_infer_shape() -> None:
    op = Blockwise(Opaque(), "(m,n)->(n,m)")
    assert op(pt.tensor(name="x", shape=(5, 4, 3))).type.shape == (5, 3, 4)
    op = Blockwise(Opaque(), "(m,n)->(m,k)")
    x = pt.tensor(name="x", shape=(5, None, None))
    out = op(x)
    node = out.owner
    shapes = op.infer_shape(None, node, [x.shape])[0]
    value = {x: np.zeros((5, 4, 3))}
    assert [int(evaluate(d, value)) if not isinstance(d, int) else d for d in shapes] == [5, 4, 6]
    # k is tied to no input: its length is read from the output itself
    assert shapes[2].owner.inputs[0] is out


@settings(max_examples=12, deadline=None)
@given(broadcastable_pair(), st.integers(1, 2), st.integers(1, 3))
def test_pullback_over_random_batch_shapes(shapes: Any, m: int, k: int) -> None:
    """Finite differences through Blockwise for broadcasting batch shapes (size-1 axes,
    missing leading axes), where the cotangents must be summed back."""
    rng = np.random.default_rng(5)
    ba, bv = shapes
    check_derivatives(
        Blockwise(Affine()), [rng.normal(size=(*ba, m, k)), rng.normal(size=(*bv, k))], rng,
    )


def test_local_useless_blockwise() -> None:
    a, b = pt.matrix("a"), pt.matrix("b")
    node = MATMUL(a, b).owner
    (out,) = local_useless_blockwise.transform(FunctionGraph([a, b], node.outputs), node)
    assert isinstance(out.owner.op, Dot) and out.type == node.outputs[0].type
    batched = MATMUL(pt.tensor3("c"), b).owner
    assert not local_useless_blockwise.transform(FunctionGraph(batched.inputs, batched.outputs),
                                                 batched)


class ValueDependent(Op):
    """Core op whose infer_shape gives one length from the input shape (usable) and one
    from the input's values (not a shape of the batched node)."""

    __props__ = ()

    def make_node(self, a: Any) -> Apply:
        a = pt.as_tensor_variable(a)
        return Apply(self, [a], [pt.vector().type(), pt.vector().type()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        (a,) = inputs
        out[0][0] = np.zeros(2 * a.size)
        out[1][0] = np.zeros(int(a.sum()))

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Any) -> Any:
        ((n,),) = input_shapes
        return [(2 * n,), (pt.cast(node.inputs[0].sum(), "int64"),)]


def test_infer_shape_drops_lengths_that_depend_on_core_values() -> None:
    a = pt.tensor(name="a", shape=(5, None))
    c, d = Blockwise(ValueDependent(), "(n)->(c),(d)")(a)
    shapes = c.owner.op.infer_shape(None, c.owner, [a.shape])
    value = {a: np.ones((5, 3))}
    assert int(evaluate(shapes[0][1], value)) == 6
    assert shapes[1][1].owner.inputs[0] is d  # read from the output itself
    assert int(evaluate(shapes[1][1], value)) == 3


def test_literal_dimensions_in_the_signature() -> None:
    op = Blockwise(Opaque(), "(2,n)->(2,n)")
    x = pt.tensor(name="x", shape=(4, None, None))
    assert op(x).type.shape == (4, 2, None)
    with pytest.raises(ValueError, match=r"must have length 2"):
        op(pt.tensor(name="y", shape=(4, 3, 5)))
    with pytest.raises(ValueError, match=r"must have length 2"):
        evaluate(op(x), {x: np.zeros((4, 3, 5))})


def test_local_useless_blockwise_runs_the_core_op_once_on_unit_batch_axes() -> None:
    a = pt.tensor("a", shape=(3, 2))
    v = pt.tensor("v", shape=(1, 2))
    op = Blockwise(Affine(), signature="(m,k),(k)->(m)")
    out = op(a, v)
    fg = FunctionGraph([a, v], [out], clone=False)
    [new] = local_useless_blockwise.transform(fg, out.owner)
    assert new.type == out.type
    assert not any(isinstance(n.op, Blockwise) for n in FunctionGraph([a, v], [new]).apply_nodes)
    av, vv = np.arange(6.0).reshape(3, 2), np.array([[1.0, -2.0]])
    np.testing.assert_allclose(evaluate(new, {a: av, v: vv}), (av @ vv[0] + vv.sum())[None])
    # a batch axis of unknown length keeps the Blockwise
    w = pt.tensor("w", shape=(None, 2))
    node = op(a, w).owner
    assert local_useless_blockwise.transform(FunctionGraph([a, w], node.outputs), node) is None

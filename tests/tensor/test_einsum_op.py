"""The Einsum node: its attributes, its perform and its written-out graph against NumPy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.gradient import verify_grad
from opgraph.graph.basic import ancestors
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.replace import vectorize_graph
from opgraph.graph.traversal import graph_inputs
from opgraph.tensor.einsum import Einsum, einsum, inline_optimized_einsum
from opgraph.tensor.shape import specify_shape

from .helpers import evaluate

LENGTHS = dict(zip("ijklmnop", [2, 3, 5, 7, 4, 6, 3, 2], strict=True))
CASES = ["ij", "ji", "ii->i", "ii", "ij->", "ij,jk", "ij,ij->i", "ik,kj->ikj",
         "ij,jk,kl->il", "kl,ij,jk->il", "oij,imj,mjkn,lnk,plk->op", "i,i,i->i"]


def _operands(signature: str, static: bool) -> tuple[list, list]:
    rng = np.random.default_rng(len(signature))
    terms = signature.split("->")[0].split(",")
    shapes = [tuple(LENGTHS[c] for c in t) for t in terms]
    variables = [pt.tensor(f"x{k}", shape=s if static else (None,) * len(s))
                 for k, s in enumerate(shapes)]
    return variables, [rng.normal(size=s) for s in shapes]


def _inlined(out):
    """The node's written-out graph, as the specialize rewrite puts it."""
    fg = FunctionGraph(list(graph_inputs([out])), [out], clone=False)
    return inline_optimized_einsum.transform(fg, out.owner)


@pytest.mark.parametrize("static", [True, False])
@pytest.mark.parametrize("signature", CASES)
def test_perform_and_written_out_graph_match_numpy(signature, static):
    xs, values = _operands(signature, static)
    out = einsum(signature, *xs)
    op = out.owner.op
    assert isinstance(op, Einsum) and op.subscripts == signature
    assert op.optimized == (static or len(xs) <= 2)
    expected = np.einsum(signature, *values)
    givens = dict(zip(xs, values, strict=True))
    np.testing.assert_allclose(evaluate(out, givens), expected, rtol=1e-10, atol=1e-12)
    replaced = _inlined(out)
    if op.optimized:
        (new,) = replaced
        assert not any(isinstance(v.owner.op, Einsum) for v in ancestors([new]) if v.owner)
        np.testing.assert_allclose(evaluate(new, givens), expected, rtol=1e-10, atol=1e-12)
    else:
        assert replaced is None  # shapes unknown: the order cannot be chosen yet
    # The inner graph is the same computation on the op's own inputs.
    inner = dict(zip(op.inner_inputs, values, strict=True))
    np.testing.assert_allclose(evaluate(op.inner_outputs[0], inner), expected, rtol=1e-10,
                               atol=1e-12)


def test_static_shapes_learned_later_replan_and_inline():
    a, b, c = (pt.matrix(n) for n in "abc")
    out = einsum("ij,ij,jk->ik", a, b, c)
    assert not out.owner.op.optimized
    shaped = [specify_shape(a, (2, 3)), specify_shape(b, (2, 3)), specify_shape(c, (3, 5))]
    again = out.owner.clone_with_new_inputs(shaped).default_output()
    (new,) = _inlined(again)
    assert not any(isinstance(v.owner.op, Einsum) for v in ancestors([new]) if v.owner)
    rng = np.random.default_rng(0)
    vals = [rng.normal(size=s) for s in [(2, 3), (2, 3), (3, 5)]]
    np.testing.assert_allclose(evaluate(new, dict(zip([a, b, c], vals))),
                               np.einsum("ij,ij,jk->ik", *vals))


def test_output_type_and_infer_shape():
    x = pt.tensor("x", shape=(7, 3, 5))
    y = pt.tensor("y", shape=(5, 2))
    out = einsum("mij,jk->mik", x, y)
    assert out.type.shape == (7, 3, 2)
    # A label of length 1 in one operand and longer in another broadcasts, as in NumPy.
    u = pt.tensor("u", shape=(None, 4))
    v = pt.tensor("v", shape=(1, 4))
    with pytest.warns(UserWarning, match="suboptimal contraction path"):
        w = einsum("bj,bj->b", u, v)
    shp = w.owner.op.infer_shape(None, w.owner, [(pt.constant(6), pt.constant(4)),
                                                  (pt.constant(1), pt.constant(4))])
    assert evaluate(shp[0][0]) == 6
    uv, vv = np.ones((6, 4)), np.arange(4.0)[None]
    np.testing.assert_allclose(evaluate(w, {u: uv, v: vv}), np.einsum("bj,bj->b", uv, vv))
    (new,) = _inlined(w)
    np.testing.assert_allclose(evaluate(new, {u: uv, v: vv}), np.einsum("bj,bj->b", uv, vv))


def test_path_is_numpy_optimal_with_known_shapes():
    a = pt.tensor("a", shape=(32, 32, 32))
    b = pt.tensor("b", shape=(1000, 32))
    c = pt.tensor("c", shape=(1, 32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = einsum("ijk,bj,ck->i", a, b, c)
    assert [set(p) for p in out.owner.op.path] == [{0, 2}, {0, 1}]


def test_gradients_against_finite_differences():
    rng = np.random.default_rng(5)
    verify_grad(lambda a, b: einsum("ij,jk->ik", a, b),
                [rng.normal(size=(2, 3)), rng.normal(size=(3, 4))], rng=rng)
    verify_grad(lambda a, b, c: einsum("ij,ij,jk->ik", a, b, c),
                [rng.normal(size=(2, 3)), rng.normal(size=(2, 3)), rng.normal(size=(3, 2))],
                rng=rng)
    verify_grad(lambda a: einsum("ii->i", a), [rng.normal(size=(3, 3))], rng=rng)


def test_equal_nodes_merge_and_bad_operands_are_named():
    a, b = pt.matrix("a"), pt.matrix("b")
    assert einsum("ij,jk", a, b).owner.op == einsum("ij,jk", b, a).owner.op
    assert einsum("ij,jk", a, b).owner.op != einsum("ij,kj", a, b).owner.op
    op = einsum("ij,jk", a, b).owner.op
    with pytest.raises(TypeError, match="expected 2 operands"):
        op(a)
    with pytest.raises(TypeError, match="operand 1"):
        op(a, pt.tensor3("t"))
    with pytest.raises(ValueError, match="labels"):
        einsum("ij,jk", a, pt.vector("v"))


def test_vectorized_einsum_is_one_einsum_with_batch_labels():
    rng = np.random.default_rng(9)
    a, b = pt.matrix("a"), pt.matrix("b")
    out = einsum("ij,jk->ik", a, b)
    batched_a = pt.tensor3("A")
    (new,) = vectorize_graph([out], {a: batched_a})
    assert isinstance(new.owner.op, Einsum)
    av, bv = rng.normal(size=(4, 2, 3)), rng.normal(size=(3, 5))
    np.testing.assert_allclose(evaluate(new, {batched_a: av, b: bv}),
                               np.einsum("bij,jk->bik", av, bv))
    core = pt.vectorize(lambda x: einsum("ii->i", x), "(n,n)->(n)")
    many = pt.tensor4("M")
    diag = core(many)
    assert isinstance(diag.owner.op, Einsum)
    mv = rng.normal(size=(2, 3, 4, 4))
    np.testing.assert_allclose(evaluate(diag, {many: mv}), np.einsum("abii->abi", mv))


def test_batched_matrix_product_is_written_out_as_one_matmul():
    a, b = pt.tensor3("a"), pt.tensor3("b")
    out = einsum("bij,bjk->bik", a, b)
    (new,) = _inlined(out)
    ops = [type(v.owner.op).__name__ for v in ancestors([new]) if v.owner]
    assert ops == ["MatMul"]

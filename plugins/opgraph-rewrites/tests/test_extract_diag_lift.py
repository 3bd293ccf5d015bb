"""diagonal() moved toward the inputs (extract_diag_lift_pass): same values and
gradients as the unrewritten graph, shape errors kept."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import compile_pair, op_counts

import opgraph.tensor as pt
from opgraph.gradient import grad

pytest.importorskip("opgraph_linalg")

X = np.arange(25.0).reshape(5, 5) / 7 - 1


@pytest.mark.parametrize("build, left", [
    (lambda x, b: pt.diagonal(pt.exp(x)), "Exp"),
    (lambda x, b: pt.diagonal(x + b), "Add"),
    (lambda x, b: pt.diagonal(x * b[:1], offset=1), "Mul"),
    (lambda x, b: pt.diagonal(x + b[:, :1], offset=-2), "Add"),
    (lambda x, b: pt.diagonal(pt.eye(5) * x), None),
    (lambda x, b: pt.diagonal(pt.diag(pt.diagonal(x), k=1), offset=1), None),
])
def test_lifted_diagonal(build, left):
    x = pt.matrix("x", shape=(5, 5))
    b = pt.matrix("b", shape=(5, 5))
    out = build(x, b)
    alone, _ = compile_pair([x, b], out)
    if left is not None:  # the elementwise op now runs on the diagonal (a vector)
        (node,) = [n for n in alone.maker.fgraph.toposort()
                   if type(getattr(n.op, "scalar_op", None)).__name__ == left]
        assert node.outputs[0].type.ndim == 1
    else:
        assert op_counts(alone)["Mul"] + op_counts(alone)["AllocDiag"] == 0
    fast, ref = compile_pair([x, b], [out, grad(out.sum(), x)])
    for got, want in zip(fast(X, X.T), ref(X, X.T)):
        np.testing.assert_allclose(got, want, rtol=1e-15)


def test_diagonal_of_alloc_and_eye():
    n, m, s = pt.lscalar("n"), pt.lscalar("m"), pt.scalar("s")
    out = pt.diagonal(pt.alloc(s, n, m)) + pt.diagonal(pt.eye(n, m, 0))
    fast, ref = compile_pair([n, m, s], out)
    assert op_counts(fast)["ExtractDiag"] == 0
    for nv, mv in ((3, 5), (5, 3), (0, 2)):
        np.testing.assert_array_equal(fast(nv, mv, 2.5), ref(nv, mv, 2.5))


def test_shape_error_kept():
    x, y = pt.matrix("x"), pt.matrix("y")  # unknown lengths: not lifted
    fast, ref = compile_pair([x, y], pt.diagonal(x + y))
    with pytest.raises(ValueError):
        ref(np.ones((3, 5)), np.ones((5, 3)))
    with pytest.raises(ValueError):
        fast(np.ones((3, 5)), np.ones((5, 3)))

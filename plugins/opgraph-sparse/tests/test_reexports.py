"""``opgraph.sparse``'s re-exports (the same objects as the core's) and ``sparse_grad``."""

from __future__ import annotations

import numpy as np
import opgraph.sparse as S
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.gradient import grad
from opgraph.graph.basic import Apply, Variable
from opgraph.tensor.type import continuous_dtypes, discrete_dtypes


def test_core_names_are_the_same_objects() -> None:
    assert S.Apply is Apply and S.Variable is Variable
    assert S.tensor is pt.tensor and S.minimum is pt.minimum and S.join_dims is pt.join_dims
    assert S.tensor_continuous_dtypes == continuous_dtypes
    assert S.tensor_discrete_dtypes == discrete_dtypes
    with pytest.raises(AttributeError, match="no_such_name"):
        S.no_such_name  # noqa: B018


def test_sparse_grad_rows_value_and_sparse_gradient() -> None:
    x, i = pt.matrix("x"), pt.ivector("i")
    y = S.sparse_grad(x[i])
    assert y.owner.op.sparse_grad
    g = grad((y * y).sum(), x)
    assert g.type.format == "csc"
    f = opgraph.function([x, i], [y, g, grad((x[i] * x[i]).sum(), x)])
    xv = np.arange(12.0).reshape(4, 3)
    rows = np.array([1, 3, 1], dtype="int32")
    val, gs, gd = f(xv, rows)
    np.testing.assert_allclose(val, xv[rows])
    np.testing.assert_allclose(gs.toarray(), gd)  # repeated rows accumulate, as dense


def test_sparse_grad_refuses_other_variables() -> None:
    x = pt.matrix("x")
    with pytest.raises(TypeError, match="AdvancedSubtensor"):
        S.sparse_grad(pt.exp(x))
    with pytest.raises(TypeError, match="AdvancedSubtensor"):
        S.sparse_grad(x)

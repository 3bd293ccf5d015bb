"""Sparse variables through graphs and functions, against scipy.sparse."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import opgraph.sparse as S
import pytest
import scipy.sparse as sp

import opgraph
import opgraph.tensor as pt
from opgraph.gradient import grad
from opgraph.raise_op import CheckAndRaise


def test_served_at_pytensors_path_with_one_identity() -> None:
    import opgraph_sparse

    assert S is opgraph_sparse
    assert S.SparseTensorType is opgraph_sparse.SparseTensorType


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_type_filters_and_refuses(fmt: str) -> None:
    t = S.SparseTensorType(fmt, "float64")
    m = sp.random(4, 3, density=0.5, format=fmt, random_state=0)
    assert t.filter(m, strict=True) is m
    other = "csc" if fmt == "csr" else "csr"
    with pytest.raises(TypeError, match=f"expected a scipy.sparse {fmt}"):
        t.filter(m.asformat(other), strict=True)
    assert t.filter(m.asformat(other)).format == fmt
    with pytest.raises(TypeError, match="allow_downcast"):
        S.SparseTensorType(fmt, "int32").filter(m)
    assert S.SparseTensorType(fmt, "float32").filter(m, allow_downcast=True).dtype == "float32"
    with pytest.raises(TypeError, match="Expected an array-like"):
        t.filter(pt.dmatrix("d"))
    with pytest.raises(ValueError, match="format"):
        S.SparseTensorType("coo", "float64")
    same = S.SparseTensorType(fmt, "float64")
    assert t == same and hash(t) == hash(same)


def test_function_roundtrip_and_gradient() -> None:
    x = S.csc_matrix("x")
    dense = S.dense_from_sparse(x)
    f = opgraph.function([x], [dense * 2, S.csr_from_dense(dense)])
    m = sp.csc_matrix(np.array([[0.0, 1.0], [2.0, 0.0]]))
    twice, back = f(m)
    np.testing.assert_allclose(twice, 2 * m.toarray())
    assert back.format == "csr" and (back != m).nnz == 0
    d = pt.dmatrix("d")
    g = grad((S.dense_from_sparse(S.csc_from_dense(d)) ** 2).sum(), d)
    dv = np.array([[1.0, 0.0], [3.0, -2.0]])
    np.testing.assert_allclose(opgraph.function([d], g)(dv), 2 * dv)


def test_as_sparse_variable_and_check_and_raise() -> None:
    m = sp.csc_matrix(sp.eye(5, 3))
    v = S.as_sparse_variable(m)
    assert v.format == "csc" and v.type.shape == (5, 3)
    checked = CheckAndRaise(ValueError, "sparse_check")(v, np.bool_(False))
    with pytest.raises(ValueError, match="sparse_check"):
        checked.eval()
    with pytest.raises(TypeError, match="expected a sparse"):
        S.as_sparse_variable(pt.dmatrix("d"))


def test_entry_point_does_not_import_scipy() -> None:
    code = "import sys, opgraph_sparse.plugin; print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"

"""The PyTensor-path modules of opgraph.sparse, checked against scipy.sparse and NumPy."""

from __future__ import annotations

import warnings

import numpy as np
import opgraph.sparse as S
import opgraph.sparse.basic as sb
import opgraph.sparse.math as sm
import pytest
import scipy.sparse as sp
from opgraph.sparse.linalg import block_diag
from opgraph.sparse.sharedvar import SparseTensorSharedVariable
from opgraph.sparse.utils import hash_from_sparse

import opgraph
import opgraph.tensor as pt
from opgraph.gradient import grad, verify_grad
from opgraph.graph.replace import vectorize_graph
from opgraph.tensor.type import DenseTensorType

RNG = np.random.default_rng(7)


def _mat(fmt: str, shape: tuple[int, int] = (4, 3)) -> sp.spmatrix:
    dense = RNG.random(shape) * (RNG.random(shape) < 0.5)
    return (sp.csr_matrix if fmt == "csr" else sp.csc_matrix)(dense)


def _dense(x: object) -> np.ndarray:
    return x.toarray() if sp.issparse(x) else np.asarray(x)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_structured_unary_keep_pattern_and_match_numpy(fmt: str) -> None:
    x = S.matrix(fmt, "x")
    m = _mat(fmt)
    for name, ref in [("sign", np.sign), ("sqrt", np.sqrt), ("sin", np.sin),
                      ("expm1", np.expm1), ("abs", np.abs)]:
        out = opgraph.function([x], getattr(sm, name)(-x if name == "abs" else x))(m)
        assert out.format == fmt and out.nnz == m.nnz
        arg = -m.toarray() if name == "abs" else m.toarray()
        np.testing.assert_allclose(out.toarray(), ref(arg))


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_arithmetic_and_comparisons_match_scipy(fmt: str) -> None:
    x, y = S.matrix(fmt, "x"), S.matrix(fmt, "y")
    d = pt.dmatrix("d")
    a, b, dv = _mat(fmt), _mat(fmt), RNG.random((4, 3))
    f = opgraph.function([x, y, d], [x + y, x + d, x * y, x * d, x - y, sm.gt(x, y),
                                     sm.lt(x, d), sm.structured_add_s_v(x, d[0])])
    ss, sd, mss, msd, sub, gt, lt, sav = f(a, b, dv)
    A, B = a.toarray(), b.toarray()
    np.testing.assert_allclose(_dense(ss), A + B)
    assert isinstance(sd, np.ndarray)
    np.testing.assert_allclose(sd, A + dv)
    np.testing.assert_allclose(_dense(mss), A * B)
    np.testing.assert_allclose(_dense(msd), A * dv)
    np.testing.assert_allclose(_dense(sub), A - B)
    np.testing.assert_array_equal(_dense(gt), (A > B).astype("uint8"))
    np.testing.assert_array_equal(lt, (A < dv).astype("uint8"))
    np.testing.assert_allclose(_dense(sav), A + (A != 0) * dv[0])


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_sums_dots_and_transpose(fmt: str) -> None:
    x = S.matrix(fmt, "x")
    d = pt.dmatrix("d")
    m, dv = _mat(fmt), RNG.random((3, 2))
    outs = opgraph.function([x, d], [S.sp_sum(x), S.sp_sum(x, axis=0), x.sum(axis=1),
                                     S.structured_dot(x, d), sm.dot(x, d), pt.dot(x, d),
                                     x.T, sm.true_dot(x, d)])(m, dv)
    M = m.toarray()
    np.testing.assert_allclose(outs[0], M.sum())
    np.testing.assert_allclose(outs[1], M.sum(0))
    np.testing.assert_allclose(outs[2], M.sum(1))
    for prod in outs[3:6]:
        np.testing.assert_allclose(prod, M @ dv)
    assert outs[6].format == ("csc" if fmt == "csr" else "csr")
    np.testing.assert_allclose(outs[6].toarray(), M.T)
    np.testing.assert_allclose(outs[7].toarray(), M @ dv)


def test_gradients_match_finite_differences() -> None:
    dv = RNG.random((3, 4)) + 0.5
    w = RNG.random((4, 2))

    def via_csr(d: object) -> object:
        return sm.structured_dot(S.csr_from_dense(d), pt.constant(w))

    verify_grad(via_csr, [dv], rng=np.random.default_rng(1))
    verify_grad(lambda d: S.sp_sum(S.csc_from_dense(d) * 3.0, axis=1), [dv],
                rng=np.random.default_rng(2))
    verify_grad(lambda d: S.dense_from_sparse(sm.sqr(S.csr_from_dense(d)).T), [dv],
                rng=np.random.default_rng(3))


def test_structured_grad_stays_on_the_pattern() -> None:
    x = S.csr_matrix("x")
    g = grad(S.sp_sum(x * 2.0, sparse_grad=True), x)
    m = _mat("csr")
    gv = opgraph.function([x], g)(m)
    assert sp.issparse(gv)
    np.testing.assert_allclose(gv.toarray(), 2.0 * (m.toarray() != 0))


def test_variable_operators_and_dense_fallback() -> None:
    x = S.csr_from_dense(pt.dmatrix("x"))
    assert isinstance(x.T.type, S.SparseTensorType)
    assert isinstance(x.sum().type, DenseTensorType)
    with pytest.warns(UserWarning, match="converted to dense"):
        z = x.exp()
    assert isinstance(z.type, DenseTensorType)
    xv = np.array([[1.0, 0.0], [0.0, 2.0]])
    f = opgraph.function([x], [z, x[0:1, :], x[1, 1], -x])
    ez, row, item, neg = f(xv)
    np.testing.assert_allclose(ez, np.exp(xv))
    np.testing.assert_allclose(row.toarray(), xv[:1])
    assert item == 2.0
    np.testing.assert_allclose(neg.toarray(), -xv)


def test_structure_ops() -> None:
    a, b = _mat("csc", (3, 3)), _mat("csc", (3, 2))
    x, y = S.csc_matrix("x"), S.csc_matrix("y")
    v = pt.dvector("v")
    f = opgraph.function([x, y, v], [sb.hstack([x, y]), sb.vstack([x, sb.transpose(y)]),
                                     sb.diag(x), sb.square_diagonal(v), sb.col_scale(x, v),
                                     sb.row_scale(x, v), sb.remove0(x), sb.cast(x, "float32")])
    vv = np.arange(1.0, 4.0)
    hs, vs, dg, sq, cs, rs, r0, c32 = f(a, b, vv)
    A, B = a.toarray(), b.toarray()
    np.testing.assert_allclose(hs.toarray(), np.hstack([A, B]))
    np.testing.assert_allclose(vs.toarray(), np.vstack([A, B.T]))
    np.testing.assert_allclose(dg, np.diag(A))
    np.testing.assert_allclose(sq.toarray(), np.diag(vv))
    np.testing.assert_allclose(cs.toarray(), A * vv)
    np.testing.assert_allclose(rs.toarray(), A * vv[:, None])
    np.testing.assert_allclose(r0.toarray(), A)
    assert c32.dtype == "float32"


def test_csm_round_trip_and_properties() -> None:
    m = _mat("csr")
    x = S.csr_matrix("x")
    data, ind, ptr, shape = S.csm_properties(x)
    f = opgraph.function([x], [S.CSR(data * 2, ind, ptr, shape), shape])
    doubled, shp = f(m)
    np.testing.assert_allclose(doubled.toarray(), 2 * m.toarray())
    np.testing.assert_array_equal(shp, m.shape)
    with pytest.raises(TypeError, match="data argument must be a vector"):
        S.CSR(pt.dmatrix(), ind, ptr, shape)


def test_shared_block_diag_and_hash() -> None:
    m = _mat("csr")
    s = opgraph.shared(m, name="s")
    assert isinstance(s, SparseTensorSharedVariable) and s.format == "csr"
    np.testing.assert_allclose(opgraph.function([], S.sp_sum(s))(), m.sum())
    out = block_diag(m, np.eye(2), format="csc").eval()
    np.testing.assert_allclose(out.toarray(), sp.block_diag([m, np.eye(2)]).toarray())
    assert hash_from_sparse(m[1:]) == hash_from_sparse(m[1:].copy())
    assert hash_from_sparse(m) != hash_from_sparse(m * 2)


def test_bad_input_names_what_was_expected() -> None:
    with pytest.raises(TypeError, match="at least one sparse"):
        sm.add(pt.dmatrix(), pt.dmatrix())
    with pytest.raises(ValueError, match="format"):
        S.SparseTensorType("coo", "float64")
    with pytest.raises(ValueError, match="0 or 2 dimensions"):
        sm.mul_s_d(S.csr_matrix(), pt.dvector())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert S.SparseTensorType("csr", "float64").clone(format="csc").format == "csc"


def test_vectorize_batches_the_dense_operand_only() -> None:
    a = S.as_sparse_variable(_mat("csr", (3, 3)))
    x, xb = pt.dmatrix("x"), pt.dtensor3("xb")
    yb = vectorize_graph(sm.structured_dot(a, x), {x: xb})
    v = RNG.random((2, 3, 4))
    np.testing.assert_allclose(opgraph.function([xb], yb)(v), a.data.toarray() @ v)
    with pytest.raises(NotImplementedError, match="no batched-sparse"):
        vectorize_graph(sm.add(a, x), {x: xb})

"""Every linear-algebra rewrite keeps values AND gradients (issue 35's rule).

For each rewrite of ``opgraph_linalg.rewrites``: a graph that triggers it (checked
by the rewritten graph's Ops), inputs chosen to break a careless rewrite
(ill-conditioned, transposed, batched, the other triangle filled with junk), and a
full random cotangent.  The FAST_RUN values and gradients must equal those of the
unrewritten graph (Python linker, no rewrites), and those must equal central finite
differences.
"""

from __future__ import annotations

import numpy as np
import opgraph_linalg as la
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode, get_mode
from opgraph.tensor.blockwise import Blockwise

PLAIN = Mode(linker="py", optimizer=None)
#: FAST_RUN's rewrites on the Python linker (the rewrites are under test, not the C code;
#: tests/integration/fuzz/test_grad_fuzz.py runs such graphs in the C modes too)
FAST = Mode(linker="py", optimizer=get_mode("FAST_RUN").optimizer)


def _core_names(fn) -> list[str]:
    names = []
    for node in fn.maker.fgraph.apply_nodes:
        op = node.op.core_op if isinstance(node.op, Blockwise) else node.op
        names.append(type(op).__name__)
    return names


def _illcond(rng: np.random.Generator, n: int, cond: float = 1e3) -> np.ndarray:
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    v, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return (q * np.logspace(0, -np.log10(cond), n)) @ v.T


def _fd(cost_fn, vals: list[np.ndarray], direction: list[np.ndarray], h: float = 1e-6):
    """Fourth-order central difference of ``cost_fn`` along ``direction``."""
    def at(t: float) -> float:
        return float(cost_fn(*[v + t * d for v, d in zip(vals, direction)]))
    return (8 * (at(h) - at(-h)) - (at(2 * h) - at(-2 * h))) / (12 * h)


def check_rewrite(inputs: list, out, vals: list[np.ndarray], rng: np.random.Generator,
                  fired: str | None = None, gone: str | None = None) -> None:
    """FAST_RUN == unrewritten (values and full-cotangent gradients) == finite differences."""
    cot = pt.tensor("cot", dtype="float64", shape=(None,) * out.type.ndim)
    cost = pt.sum(out * cot)
    grads = opgraph.grad(cost, inputs, disconnected_inputs="ignore")
    fast = function([*inputs, cot], [out, *grads], mode=FAST, on_unused_input="ignore")
    # the value graph shows the rewrite (the gradient graph may still need inv(A))
    names = _core_names(function(inputs, out, mode=FAST, on_unused_input="ignore"))
    if fired is not None:
        assert fired in names, f"the rewrite did not fire: {names}"
    if gone is not None:
        assert gone not in names, f"the rewrite did not fire: {names}"
    plain = function([*inputs, cot], [out, *grads], mode=PLAIN, on_unused_input="ignore")
    cost_fn = function([*inputs, cot], cost, mode=PLAIN, on_unused_input="ignore")
    value = function(inputs, out, mode=PLAIN, on_unused_input="ignore")(*vals)
    w = rng.standard_normal(np.shape(value))
    got, want = fast(*vals, w), plain(*vals, w)
    for g, e in zip(got, want):
        np.testing.assert_allclose(g, e, rtol=1e-7, atol=1e-9 * max(1.0, np.abs(e).max()))
    for _ in range(2):
        d = [rng.standard_normal(v.shape) for v in vals]
        norm = np.sqrt(sum(np.sum(x * x) for x in d))
        d = [x / norm for x in d]
        fd = _fd(lambda *a: cost_fn(*a, w), vals, d)
        an = sum(float(np.sum(g * x)) for g, x in zip(want[1:], d))
        scale = sum(float(np.sum(np.abs(g * x))) for g, x in zip(want[1:], d))
        assert abs(fd - an) <= 1e-6 * scale + 1e-9, (fd, an)


# -- linalg_transposed_triangular ------------------------------------------------------


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("trans", [0, 1])
@pytest.mark.parametrize("unit", [False, True])
def test_transposed_triangular_solve(rng, lower, trans, unit):
    """solve_triangular(A.T, b): the other triangle of A holds junk it must not read."""
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    out = la.solve_triangular(a.T, b, lower=lower, trans=trans, unit_diagonal=unit)
    a0 = rng.standard_normal((4, 4)) + 5 * np.eye(4)
    check_rewrite([a, b], out, [a0, rng.standard_normal((4, 2))], rng)


def test_transposed_triangular_solve_batched(rng):
    a, b = pt.dtensor3("a"), pt.dtensor3("b")
    out = la.solve_triangular(pt.swapaxes(a, -1, -2), b, lower=True)
    a0 = rng.standard_normal((2, 3, 3)) + 4 * np.eye(3)
    check_rewrite([a, b], out, [a0, rng.standard_normal((2, 3, 2))], rng)


# -- linalg_cholesky_of_cholesky_product -----------------------------------------------


@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_of_cholesky_product(rng, lower):
    x = pt.dmatrix("x")
    spd = pt.dot(x, x.T) + pt.eye(4)
    factor = la.cholesky(spd, lower=lower)
    prod = pt.dot(factor, factor.T) if lower else pt.dot(factor.T, factor)
    out = la.cholesky(prod, lower=lower)
    check_rewrite([x], out, [_illcond(rng, 4)], rng)


def test_cholesky_of_product_of_other_triangle_is_not_rewritten(rng):
    """cholesky(L.T @ L) is not L: the rewrite must not fire on the wrong product order."""
    x = pt.dmatrix("x")
    factor = la.cholesky(pt.dot(x, x.T) + pt.eye(3), lower=True)
    out = la.cholesky(pt.dot(factor.T, factor), lower=True)
    check_rewrite([x], out, [rng.standard_normal((3, 3))], rng)


# -- linalg_inv_to_solve ---------------------------------------------------------------


@pytest.mark.parametrize("side", ["left_mat", "left_vec", "right_mat", "right_vec"])
def test_inv_to_solve(rng, side):
    a = pt.dmatrix("a")
    b = pt.dvector("b") if side.endswith("vec") else pt.dmatrix("b")
    out = pt.dot(la.inv(a), b) if side.startswith("left") else pt.dot(b, la.inv(a))
    a0 = _illcond(rng, 4) + 0.0
    b0 = rng.standard_normal(4) if side.endswith("vec") else rng.standard_normal((4, 3))
    if side == "right_mat":
        b0 = b0.T
    check_rewrite([a, b], out, [a0, b0], rng, gone="MatrixInverse")


def test_inv_to_solve_of_a_transposed_matrix(rng):
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    out = pt.dot(b, la.inv(a.T))
    check_rewrite([a, b], out, [_illcond(rng, 3), rng.standard_normal((2, 3))], rng,
                  gone="MatrixInverse")


# -- linalg_log_det_to_slogdet ---------------------------------------------------------


def test_log_det_to_slogdet(rng):
    x = pt.dmatrix("x")
    out = pt.log(la.det(pt.dot(x, x.T) + pt.eye(4)))
    check_rewrite([x], out, [_illcond(rng, 4)], rng, gone="Det")


def test_log_abs_det_to_slogdet_negative_determinant(rng):
    a = pt.dmatrix("a")
    out = pt.log(pt.abs(la.det(a)))
    a0 = _illcond(rng, 3)
    a0 = a0 * np.sign(np.linalg.det(a0)) * np.array([[-1.0], [1.0], [1.0]])
    assert np.linalg.det(a0) < 0
    check_rewrite([a], out, [a0], rng, gone="Det")


# -- linalg_psd_solve_to_cho_solve -----------------------------------------------------


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("b_ndim", [1, 2])
def test_pos_solve_to_cho_solve(rng, lower, b_ndim):
    x = pt.dmatrix("x")
    b = pt.dvector("b") if b_ndim == 1 else pt.dmatrix("b")
    out = la.solve(pt.dot(x, x.T) + pt.eye(4), b, assume_a="pos", lower=lower)
    b0 = rng.standard_normal(4 if b_ndim == 1 else (4, 2))
    check_rewrite([x, b], out, [_illcond(rng, 4, 30.0), b0], rng, fired="CholeskySolve")


@pytest.mark.parametrize("transposed_factor", [False, True])
def test_gram_solve_to_cho_solve(rng, transposed_factor):
    """solve(X @ X.T, b) (assume_a="gen"): proven positive definite by its form."""
    x, b = pt.dmatrix("x"), pt.dmatrix("b")
    gram = pt.dot(x.T, x) if transposed_factor else pt.dot(x, x.T)
    out = la.solve(gram, b)
    x0 = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    check_rewrite([x, b], out, [x0, rng.standard_normal((3, 2))], rng, fired="CholeskySolve")


def test_gram_inverse_to_cho_solve(rng):
    x = pt.dmatrix("x")
    out = la.inv(pt.dot(x, x.T))
    check_rewrite([x], out, [rng.standard_normal((3, 3)) + 3 * np.eye(3)], rng,
                  fired="CholeskySolve")


def test_product_of_different_matrices_is_not_taken_for_positive_definite(rng):
    """solve(X @ Y.T, b) is a general solve: no Cholesky (X @ Y.T is not symmetric)."""
    x, y, b = pt.dmatrix("x"), pt.dmatrix("y"), pt.dvector("b")
    out = la.solve(pt.dot(x, y.T), b)
    x0 = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    y0 = rng.standard_normal((3, 3)) - 3 * np.eye(3)
    check_rewrite([x, y, b], out, [x0, y0, rng.standard_normal(3)], rng, gone="Cholesky")


def test_batched_gram_solve(rng):
    x, b = pt.dtensor3("x"), pt.dtensor3("b")
    out = la.solve(pt.matmul(x, pt.swapaxes(x, -1, -2)), b)
    x0 = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    check_rewrite([x, b], out, [x0, rng.standard_normal((2, 3, 2))], rng)


# -- the gradients of issue 35 (Gram products under decompositions) ---------------------


@pytest.mark.parametrize("expr", [
    "chol", "solve_tri_chol", "solve_pos", "logdet", "mvn_logp", "gram_w", "inv", "slogdet",
])
def test_issue_35_table(rng, expr):
    """Every row of the issue's table, in FAST_RUN, against the unrewritten graph and FD."""
    a, b = pt.dmatrix("A"), pt.dvector("b")
    gram = pt.dot(a, a.T)
    eye = pt.eye(5)
    chol = la.cholesky(gram + eye)
    out = {
        "chol": la.cholesky(gram),
        "solve_tri_chol": la.solve_triangular(la.cholesky(gram), b, lower=True),
        "solve_pos": la.solve(gram + eye, b, assume_a="pos"),
        "logdet": pt.log(la.det(gram + eye)),
        "mvn_logp": -0.5 * pt.sum(pt.sqr(la.solve_triangular(chol, b, lower=True)))
        - pt.sum(pt.log(pt.diagonal(chol))),
        "gram_w": gram,
        "inv": la.inv(gram + eye),
        "slogdet": la.slogdet(gram + eye)[1],
    }[expr]
    a0 = rng.standard_normal((5, 5)) + 2 * np.eye(5)
    check_rewrite([a, b], out, [a0, rng.standard_normal(5)], rng)

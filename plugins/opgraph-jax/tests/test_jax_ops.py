"""Op families other than elementwise, each against the Python linker (JAX mode values)."""

from __future__ import annotations

import numpy as np
import pytest
from jax_helpers import compare_with_py
from opgraph.compile.builders import OpFromGraph
from opgraph.link.jax.dispatch import JAXUnsupportedOpError
from opgraph.tensor.optimize import minimize, root, root_scalar

import opgraph
import opgraph.tensor as pt
from opgraph import function
from opgraph.compile.mode import Mode, get_mode
from opgraph.ifelse import ifelse
from opgraph.scalar import basic as ps
from opgraph.scalar.loop import ScalarLoop
from opgraph.tensor import linalg
from opgraph.tensor.blockwise import Blockwise
from opgraph.tensor.elemwise import Elemwise
from opgraph.tensor.extra_ops import Unique
from opgraph.tensor.special import log_softmax, softmax

RNG = np.random.default_rng(42)
A = RNG.normal(size=(4, 5))
B = RNG.normal(size=(5, 3))
SPD = A @ A.T + 4 * np.eye(4)


def test_reductions_over_axes() -> None:
    x = pt.tensor3("x")
    outs = [x.sum(), x.sum(axis=(0, 2)), x.prod(axis=1), x.max(axis=0), x.min(axis=-1),
            pt.argmax(x, axis=1), pt.argmin(x, axis=(0, 2)), (x > 0).all(axis=1),
            (x > 0).any(), x.mean(axis=2), x.var(axis=0)]
    compare_with_py([x], outs, [RNG.normal(size=(2, 3, 4))])


def test_products_blas_and_einsum() -> None:
    x, y, v = pt.matrix("x"), pt.matrix("y"), pt.vector("v")
    outs = [pt.dot(x, y), x @ y, pt.dot(x, v[:5]), pt.outer(v, v),
            pt.einsum("ij,jk->ik", x, y), pt.einsum("ij->j", x)]
    compare_with_py([x, y, v], outs, [A, B, RNG.normal(size=5)])


def test_blas_ops_from_fast_run_rewrites() -> None:
    # FAST_RUN (the reference here) turns these into Gemm/Gemv/Ger; JAX mode excludes
    # those rewrites, so also compile the BLAS-rewritten graph with the JAX linker
    x, y, z = pt.matrix("x"), pt.matrix("y"), pt.matrix("z")
    a = pt.vector("a")
    out = [z * 0.5 + 2.0 * pt.dot(x, y), 3.0 * pt.dot(x, a) + a[:4]]
    ref = function([x, y, z, a], out, mode=Mode(linker="py", optimizer=None))
    blas = function([x, y, z, a], out, mode=Mode(linker="jax",
                                                 optimizer=get_mode("FAST_RUN").optimizer))
    vals = [A, B, RNG.normal(size=(4, 3)), RNG.normal(size=5)]
    for w, g in zip(ref(*vals), blas(*vals), strict=True):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-10)


def test_static_and_dynamic_indexing_reads() -> None:
    x = pt.matrix("x")
    i = pt.iscalar("i")
    idx = pt.lvector("idx")
    outs = [x[1], x[1:3, ::2], x[-1, 2:], x[i], x[i, 1], x[idx], x[[0, 2], [1, 3]],
            x[x > 0].sum(), x[:, idx]]
    compare_with_py([x, i, idx], outs, [A, 2, np.array([3, 0, 0])])


def test_set_and_inc_subtensor_static_and_dynamic() -> None:
    x = pt.matrix("x")
    i = pt.iscalar("i")
    idx = pt.lvector("idx")
    outs = [pt.set_subtensor(x[1:3], 0.0), pt.inc_subtensor(x[i, 1:], 1.0),
            pt.inc_subtensor(x[idx], 2.0), pt.set_subtensor(x[idx, 0], -1.0),
            pt.inc_subtensor(x[x > 0], 10.0)]
    compare_with_py([x, i, idx], outs, [A, 2, np.array([3, 0, 0])])


def test_shape_ops_with_shapes_from_inputs() -> None:
    x = pt.matrix("x")
    n = pt.iscalar("n")
    outs = [x.reshape((n, -1)), x.shape, x.shape[0] * 2, x.T, x.flatten(),
            pt.zeros((n, 2)), pt.ones_like(x), pt.arange(n), pt.eye(n),
            pt.alloc(x[0], n, 5), pt.concatenate([x, x], axis=1), pt.stack([x, x]),
            pt.specify_shape(x, (4, 5)), x.dimshuffle(1, "x", 0), pt.expand_dims(x, 0).squeeze()]
    compare_with_py([x, n], outs, [A, 2])


def test_split_and_join() -> None:
    x = pt.matrix("x")
    parts = pt.split(x, [1, 3], 2, axis=0)
    compare_with_py([x], [*parts, pt.join(0, *parts[::-1])], [A])


def test_extra_ops_and_sorting() -> None:
    x = pt.matrix("x")
    v = pt.vector("v")
    outs = [pt.cumsum(x, axis=0), pt.cumprod(x, axis=1), pt.repeat(x, 2, axis=0),
            pt.sort(x, axis=1), pt.argsort(v), pt.searchsorted(pt.sort(v), v),
            pt.diff(v), pt.fill_diagonal(x, 3.0), softmax(x, axis=1),
            log_softmax(x, axis=0), pt.take_along_axis(x, pt.argsort(x, axis=1), axis=1)]
    compare_with_py([x, v], outs, [A, RNG.normal(size=6)])


def test_linalg_decompositions_and_solvers() -> None:
    m, b = pt.matrix("m"), pt.matrix("b")
    outs = [linalg.cholesky(m), linalg.solve(m, b), linalg.inv(m), linalg.det(m),
            linalg.slogdet(m)[1], linalg.eigh(m)[0], linalg.solve_triangular(
                linalg.cholesky(m), b, lower=True), linalg.pinv(m), linalg.expm(m * 0.1),
            linalg.svd(m, compute_uv=False), linalg.qr(m)[1] ** 2]
    compare_with_py([m, b], outs, [SPD, RNG.normal(size=(4, 2))], rtol=1e-6, atol=1e-8)


def test_blockwise_is_vectorized_over_batch_axes() -> None:
    m = pt.tensor3("m")
    out = linalg.inv(m)
    assert any(isinstance(n.op, Blockwise) for n in
               function([m], out, mode="JAX").maker.fgraph.apply_nodes)
    compare_with_py([m], out, [np.stack([SPD, 2 * SPD, 3 * SPD])], rtol=1e-8)


def test_ifelse_with_traced_and_constant_conditions() -> None:
    a, x, y = pt.dscalar("a"), pt.vector("x"), pt.vector("y")
    outs = [ifelse(a > 0, x, y), ifelse(pt.constant(True), x * 2, y)]
    vals = [RNG.normal(size=3), RNG.normal(size=3)]
    compare_with_py([a, x, y], outs, [0.5, *vals])
    compare_with_py([a, x, y], outs, [-0.5, *vals])


def test_op_from_graph_not_inlined() -> None:
    x, y = pt.matrices("x", "y")
    ofg = OpFromGraph([x, y], [x * y, x - y], inline=False)
    a, b = ofg(x, y)
    compare_with_py([x, y], [a + b], [A, A * 2])


def test_scan_sit_sot_mit_sot_nit_sot_and_shared_output() -> None:
    x0 = pt.dvector("x0")
    seq = pt.matrix("seq")
    out, _ = opgraph.scan(lambda s, prev: prev * 0.5 + s, sequences=[seq], outputs_info=[x0])
    fib, _ = opgraph.scan(lambda a, b: a + b, outputs_info=[{"initial": pt.as_tensor(
        np.array([0.0, 1.0])), "taps": [-2, -1]}], n_steps=8)
    nit, _ = opgraph.scan(lambda s: s.sum(), sequences=[seq])
    compare_with_py([x0, seq], [out, fib, nit], [RNG.normal(size=5), A])


def test_scan_while_loop_last_value() -> None:
    x = pt.dscalar("x")
    vals, _ = opgraph.scan(lambda v: (v * 2, opgraph.scan.until(v * 2 > 100)),
                           outputs_info=[x], n_steps=50)
    compare_with_py([x], vals[-1], [3.0])


def test_random_draws_follow_the_distribution_and_advance() -> None:
    rng = opgraph.shared(np.random.default_rng(3))
    nxt, draws = pt.random.normal(2.0, 3.0, size=(20000,), rng=rng).owner.outputs
    with pytest.warns(UserWarning, match="RandomType SharedVariables"):
        f = function([], draws, updates={rng: nxt}, mode="JAX")
    first, second = np.asarray(f()), np.asarray(f())
    assert abs(first.mean() - 2.0) < 0.1 and abs(first.std() - 3.0) < 0.1
    assert not np.array_equal(first, second)
    assert isinstance(rng.get_value(), np.random.Generator)  # the shared generator is kept


def test_random_means_of_other_distributions() -> None:
    rng = opgraph.shared(np.random.default_rng(5))
    size = (20000,)
    outs = [pt.random.gamma(2.0, 1.5, size=size, rng=rng),  # (shape, rate): mean 4/3
            pt.random.poisson(4.0, size=size, rng=rng),
            pt.random.categorical(np.array([0.2, 0.3, 0.5]), size=size, rng=rng),
            pt.random.wald(2.0, 3.0, size=size, rng=rng)]
    with pytest.warns(UserWarning):
        f = function([], outs, mode="JAX")
    for got, mean in zip(f(), [2.0 / 1.5, 4.0, 1.3, 2.0], strict=True):
        assert abs(np.asarray(got).mean() - mean) < 0.05 * mean


def test_value_dependent_shape_is_a_clear_error() -> None:
    n = pt.dscalar("n")  # a float input: not made static, so its value is traced
    f = function([n], pt.zeros((pt.cast(n, "int64"),)), mode="JAX")
    with pytest.raises(JAXUnsupportedOpError, match="shape"):
        f(3.0)


def test_boolean_mask_read_without_sum_names_jax_limit() -> None:
    x = pt.vector("x")
    f = function([x], x[x > 0], mode="JAX")
    with pytest.raises(Exception, match="boolean indices must be concrete"):
        f(np.ones(3))


def test_scalar_loop_with_until_inside_elemwise() -> None:
    x0, c = ps.float64("x0"), ps.float64("c")
    step = x0 * c + 1
    loop = ScalarLoop(init=[x0], update=[step], constant=[c], until=step > 10)
    n, xv, cv = pt.lscalar("n"), pt.vector("xv"), pt.vector("cv")
    outs = Elemwise(loop)(n, xv, cv)
    compare_with_py([n, xv, cv], outs, [5, np.array([0.0, 1.0]), np.array([0.5, 2.0])])


def test_blockwise_refuses_runtime_broadcasting_of_batch_axes() -> None:
    a, b = pt.tensor3("a"), pt.tensor3("b")
    f = function([a, b], linalg.solve(a, b), mode="JAX")
    np.testing.assert_allclose(np.asarray(f(np.stack([2 * np.eye(3)] * 2), np.ones((2, 3, 2)))),
                               0.5)
    with pytest.raises(ValueError, match="Runtime broadcasting not allowed"):
        f(np.eye(3)[None], np.ones((2, 3, 2)))


def test_pad_modes() -> None:
    x = pt.matrix("x")
    outs = [pt.pad(x, ((1, 2), (0, 1)), mode="constant", constant_values=3.0),
            pt.pad(x, 2, mode="reflect"), pt.pad(x, 1, mode="edge"),
            pt.pad(x, 1, mode="linear_ramp", end_values=((1.0, 2.0), (3.0, 4.0))),
            pt.pad(x, 2, mode="mean", stat_length=2), pt.pad(x, 2, mode="wrap")]
    compare_with_py([x], outs, [A])


def test_optimize_ops_with_jax_solvers() -> None:
    x, a = pt.vector("x"), pt.vector("a")
    s, c = pt.dscalar("s"), pt.dscalar("c")
    x_min, ok_min = minimize(((x - a) ** 2).sum() + (x ** 4).sum(), x)
    x_root, ok_root = root(x ** 3 - a, x)
    s_root, ok_scalar = root_scalar(s ** 2 - c, s)
    outs = [x_min, x_root, s_root, ok_min, ok_root, ok_scalar]
    compare_with_py([x, a, s, c], outs, [np.ones(3), np.array([1.0, 2.0, 3.0]), 1.0, 4.0],
                    rtol=1e-5, atol=1e-6)


def test_batched_permutations_are_independent_permutations() -> None:
    rng = opgraph.shared(np.random.default_rng(7))
    with pytest.warns(UserWarning):
        f = function([], pt.random.permutation(np.arange(6), size=(4,), rng=rng), mode="JAX")
    draws = np.asarray(f())
    assert draws.shape == (4, 6)
    assert all(sorted(row) == list(range(6)) for row in draws)
    assert len({tuple(row) for row in draws}) > 1


def test_scan_higher_order_gradients() -> None:
    # the gradient graphs write whole small blocks (inc_subtensor): no scatter for those
    x = pt.dscalar("x")
    xs = opgraph.scan(lambda prev: prev ** 2, outputs_info=[x], n_steps=4, return_updates=False)
    g = opgraph.grad(xs[-1], x)
    compare_with_py([x], [xs[-1], g, opgraph.grad(g, x)], [0.95], rtol=1e-10)


def test_unique_of_a_constant_runs_and_of_an_input_is_refused_clearly() -> None:
    const = pt.as_tensor(np.array([[1.0, 1.0, 2.0], [3.0, 3.0, 4.0]]))
    got = function([], Unique(axis=1)(const), mode="JAX")()
    np.testing.assert_array_equal(np.asarray(got), np.unique(const.data, axis=1))
    a = pt.dmatrix("a")
    with pytest.raises(JAXUnsupportedOpError, match="unique of a value known only at run"):
        function([a], Unique(axis=1)(a), mode="JAX")(np.ones((2, 3)))


def test_kronecker_product_and_sylvester_solves() -> None:
    """KroneckerProduct (one Op since the rewrite modules landed) and SolveSylvester,
    with its gradients, as the Python linker computes them; solve_discrete_lyapunov's
    bilinear method goes through the Sylvester solve, batched."""
    rng = np.random.default_rng(11)
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    compare_with_py([a, b], [linalg.kron(a, b)], [rng.normal(size=(2, 3)),
                                                  rng.normal(size=(3, 2))])
    sa, sb, sc = pt.dmatrix("A"), pt.dmatrix("B"), pt.dmatrix("C")
    x = linalg.solve_sylvester(sa, sb, sc)
    compare_with_py([sa, sb, sc], [x, *opgraph.grad(x.sum(), [sa, sb, sc])],
                    [rng.normal(size=(3, 3)), rng.normal(size=(2, 2)), rng.normal(size=(3, 2))])
    a3, b3 = pt.dtensor3("A3"), pt.dtensor3("B3")
    compare_with_py([a3, b3], [linalg.solve_discrete_lyapunov(a3, b3, method="bilinear")],
                    [0.3 * rng.normal(size=(2, 4, 4)), rng.normal(size=(2, 4, 4))])

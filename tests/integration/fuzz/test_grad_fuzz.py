"""The CI profile of the value-and-gradient fuzzer (grad_worker.py), plus its findings.

Random float64 graphs mixing elementwise Ops, reductions, products with
transposes (Gemm/Gemv/Ger shapes), views, subtensors, shape Ops, scan,
OpFromGraph and every linear-algebra Op, on structured matrices, each with a
full random cotangent: every mode's values and gradients must equal the
unrewritten Python run's, and that gradient must equal central finite
differences.  The long profile is ``nox -s fuzz`` (``--grad-linalg``, 5,000
graphs); ``OPGRAPH_GRAD_FUZZ_GRAPHS`` scales this one.
"""

from __future__ import annotations

import json
import os

import mpmath
import numpy as np
import pytest

import opgraph
from opgraph.compile.function import function
from opgraph.compile.mode import Mode

from . import grad_worker
from .grad_build import build, cotangents, values
from .grad_driver import BASE_MODES, C_MODES, GradFuzzer, coverage
from .grad_generate import LINALG_STEPS, random_grad_spec

GRAPHS = int(os.environ.get("OPGRAPH_GRAD_FUZZ_GRAPHS", "32"))
#: seeds of the CI profile: fixed, so a CI failure reproduces
SEED = 910_000


@pytest.fixture(scope="module")
def fuzzer(tmp_path_factory: pytest.TempPathFactory):
    f = GradFuzzer(str(tmp_path_factory.mktemp("opgraph-gradfuzz-cache")))
    yield f
    f.close()


def _failures(specs: list[dict], results: list) -> str:
    return "\n\n".join(f"[{r['kind']}] {r['detail']}\nspec: {json.dumps(s)}"
                       for s, r in zip(specs, results) if r and "kind" in r)


def _checked(results: list) -> int:
    return sum(1 for r in results if not (r and "skipped" in r))


def test_random_graphs_values_and_gradients_in_rewritten_modes(fuzzer):
    """FAST_COMPILE and FAST_RUN's rewrites vs the unrewritten graph vs finite differences."""
    specs = [random_grad_spec(SEED + k) for k in range(GRAPHS)]
    covered = coverage(specs)
    assert sum(covered.get(k, 0) for k in LINALG_STEPS) >= GRAPHS // 2  # most have linalg
    results = []
    for i in range(0, len(specs), 24):
        results += fuzzer.run(specs[i:i + 24], BASE_MODES)
    assert not _failures(specs, results), _failures(specs, results)
    assert _checked(results) >= len(specs) * 0.9, results


def test_random_graphs_in_the_c_and_dask_modes(fuzzer):
    """FAST_RUN and C (C linker) and DASK on a smaller batch (compiling dominates)."""
    specs = [random_grad_spec(SEED + GRAPHS + k) for k in range(max(4, GRAPHS // 4))]
    results = fuzzer.run(specs, [*BASE_MODES, *C_MODES, "DASK"])
    assert not _failures(specs, results), _failures(specs, results)
    assert _checked(results) >= len(specs) * 0.9, results


def _inp(shape: list, fill: str = "normal") -> dict:
    return {"shape": shape, "fill": fill, "static": False}


#: Graphs the fuzzer found wrong (FAST_RUN gradient or value), kept as regression cases.
FOUND = {
    # the gradient of solve_discrete_lyapunov holds A X A^T: a Gemm on a transposed
    # accumulator dropped a transpose (issue 35, fixed in blas_gemm.py)
    "lyap of a symmetric matrix": {
        "seed": 38, "n": 4, "inputs": [_inp([4, 4], "sym")], "steps": [["lyap", 0, 0]],
        "outputs": [1], "output_shapes": [[4, 4]]},
    "lyap, tril, broadcast product": {
        "seed": 54, "n": 2, "inputs": [_inp([2, 2], "diag"), _inp([1, 2])],
        "steps": [["lyap", 0, 0], ["tril_triu", 0, False], ["bcast", "mul", 0, 1],
                  ["unary", "tanh", 4]],
        "outputs": [2, 5], "output_shapes": [[2, 2], [2, 2]]},
    "lyap then gemv": {
        "seed": 58, "n": 4, "inputs": [_inp([4, 4], "gram"), _inp([4])],
        "steps": [["lyap", 0, 0], ["gemv", 1, 0, 1, -0.5, False]],
        "outputs": [2, 3], "output_shapes": [[4, 4], [4]]},
    # the issue's own shapes: C @ A + (D @ A).T, and a Gram product under Cholesky
    "C @ A + (D @ A).T": {  # A, C, D = x0, x1, x2
        "seed": 1, "n": 3, "inputs": [_inp([3, 3]), _inp([3, 3]), _inp([3, 3])],
        "steps": [["dot", 1, 0, False, False, True],
                  ["gemm", 3, 2, 0, 1.0, False, False, False, True, True]],
        "outputs": [4], "output_shapes": [[3, 3]]},
    "cholesky(A @ A.T)": {
        "seed": 2, "n": 4, "inputs": [_inp([4, 4])],
        "steps": [["dot", 0, 0, False, True, True], ["chol", 1, True, False]],
        "outputs": [2], "output_shapes": [[4, 4]]},
    # solve(assume_a="tridiagonal") of a 2x2 matrix: SciPy's gttrf refuses n < 3
    "tridiagonal solve, n = 2 (transposed)": {
        "seed": 300170, "n": 2,
        "inputs": [{"shape": [2, 2], "fill": "gram", "static": True}, _inp([])],
        "steps": [["expm", 0, False], ["index", 2, [["i", -2]]], ["bcast", "pow_pos", 2, 1],
                  ["solve", 4, 3, "tridiagonal", False, True, "T"]],
        "outputs": [5], "output_shapes": [[2]]},
    "tridiagonal solve, n = 2 (Gram)": {
        "seed": 300291, "n": 2,
        "inputs": [_inp([2, 2], "gram"), _inp([2, 2], "gram"),
                   {"shape": [2, 2], "fill": "normal", "static": True}, _inp([2])],
        "steps": [["solve", 0, 0, "tridiagonal", True, True, "gram"], ["binary", "mul", 4, 1],
                  ["view", 5, "rev0"], ["tril_triu", 2, False], ["dot", 7, 7, False, True, True],
                  ["gemv", 3, 4, 3, -0.5, False]],
        "outputs": [9], "output_shapes": [[2]]},
}


def test_found_graphs(fuzzer):
    specs = list(FOUND.values())
    results = fuzzer.run(specs, [*BASE_MODES, *C_MODES])
    assert results == [None] * len(specs), _failures(specs, results)


def test_inv_then_ofg_twice_gradient_is_exact_to_high_precision():
    """The long profile's seed 103664 (``fd`` finding): ``inv`` of an ill-conditioned
    matrix fed twice through ``dot(a, b.T) + sin(a)`` gives values near 1e9, where a
    float64 step moves ``sin``'s argument by whole periods; 60-digit central differences
    show the unrewritten gradient is right to 1e-12, so the finding was the float64
    differences' and the float64 check stays as it is."""
    spec = random_grad_spec(103664)
    assert [s[0] for s in spec["steps"]] == ["inv", "ofg"]
    (a,) = values(spec)
    inputs, outputs, cots, cost = build(spec)
    (w,) = cotangents(spec, [o.type.ndim * (a.shape[0],) for o in outputs])
    fn = function([*inputs, *cots], opgraph.grad(cost, inputs[0]),
                  mode=Mode(linker="py", optimizer=None))
    grad = fn(a, w)
    mpmath.mp.dps = 60

    def f(x):  # the same graph in 60 digits: X = inv(x.T); Y = op(X, X); op(Y, X)
        inv = (x.T) ** -1
        y = inv * inv.T + inv.apply(mpmath.sin)
        z = y * inv.T + y.apply(mpmath.sin)
        return mpmath.fsum(z[i, j] * w[i, j] for i in range(z.rows) for j in range(z.cols))

    x0, h = mpmath.matrix(a.tolist()), mpmath.mpf("1e-25")
    for d in np.random.default_rng(0).standard_normal((3, *a.shape)):
        dm = mpmath.matrix(d.tolist())
        exact = float((f(x0 + h * dm) - f(x0 - h * dm)) / (2 * h))
        assert abs(float(np.sum(grad * d)) - exact) <= 1e-10 * abs(exact)


def _reference_batch(spec: dict):
    built = grad_worker._Built(spec)
    built.cot_vals = cotangents(spec, [tuple(s) for s in spec["output_shapes"]])
    batch = grad_worker._Batch([built], ["ref"])
    outs, err = grad_worker._call(batch.fns["ref"], batch.args())
    assert err is None, err
    costs, err = grad_worker._call(batch.cost_fn, batch.args())
    assert err is None, err
    batch.cost_fn_value = costs
    return batch, [outs[len(built.outputs):]]


#: the long profile's seed 202286: pinv of a strictly triangular square of an
#: ill-conditioned matrix, then eigh; step 1e-6 is off by 3e-5 (rounding), 1e-4 by 3e-8
ILL_CONDITIONED_PINV = {
    "seed": 202286, "n": 3,
    "inputs": [_inp([2, 3, 3]), _inp([3, 3], "illcond"), _inp([3, 1])],
    "steps": [["matrix_power", 1, 2], ["tril_triu", 3, False],
              ["cho_solve", 4, 2, True, "gram"], ["det", 4, "gram"], ["pinv", 4, False, "T"],
              ["eigh", 7, False, "T"]],
    "outputs": [7, 8], "output_shapes": [[3, 3], [3, 3]]}


def test_the_fd_check_tries_other_steps_before_it_reports():
    batch, grads = _reference_batch(ILL_CONDITIONED_PINV)
    assert grad_worker._fd_check(batch, grads, ILL_CONDITIONED_PINV["seed"]) == [None]


def test_the_fd_check_reports_a_wrong_gradient_at_every_step():
    spec = FOUND["cholesky(A @ A.T)"]
    batch, grads = _reference_batch(spec)
    assert grad_worker._fd_check(batch, grads, 5) == [None]
    wrong = [[g * 1.001 for g in grads[0]]]
    [why] = grad_worker._fd_check(batch, wrong, 5)
    assert why is not None and "finite differences" in why

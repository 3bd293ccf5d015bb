"""IEEE results in every mode: rewrites and C code give NumPy's inf, NaN and 0.

Each case is a graph whose algebraic simplification (``x / x -> 1``, ``x - x -> 0``,
``x * 0 -> 0``, a factor moved out of a sum or a dot, ``a*d - b*c`` fused into a
multiply-add) changes the result for inf, NaN or 0 inputs.  By default every mode
must give NumPy's values (computed under ``np.errstate(all="ignore")``); with
``config.fast_math`` the rewrite applies, which the compiled graph shows.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import opgraph.scalar as ps
import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import LinkerUnavailableError, Mode, available_modes, get_mode
from opgraph.config import config
from opgraph.tensor.blas import Gemv
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.products import Dot


def _modes() -> list[tuple[str, Any]]:
    """Every registry mode usable here, plus the py linker under FAST_RUN rewrites."""
    out = []
    for name in sorted(available_modes()):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                get_mode(name).linker  # noqa: B018 - resolving is the check
            except LinkerUnavailableError:
                continue
        out.append((name, name))
    # XLA flushes subnormals to zero and contracts multiply-adds (docs/jax.md, "Differences"):
    # these IEEE-exact tables hold for every other mode.
    out = [m for m in out if m[0] != "JAX"]
    out.append(("py+FAST_RUN", Mode(linker="py", optimizer=get_mode("FAST_RUN").optimizer)))
    return out


MODES = _modes()
MODE_IDS = [m[0] for m in MODES]
SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.5, -2.0, 1e-310])


def _case_dot() -> tuple:
    v, m = pt.dvector("v"), pt.dmatrix("m")
    return ([v, m], pt.dot(v / 0.0, m), [np.array([1.0, 1.0]), np.array([[0.0, 1], [1, -1]])],
            lambda v, m: np.dot(v / 0.0, m))


def _case_dot_scaled() -> tuple:
    v, m, c = pt.dvector("v"), pt.dmatrix("m"), pt.dscalar("c")
    return ([v, m, c], pt.dot(c * v, m), [np.array([1.0, 0.0]), np.eye(2), np.float64(np.inf)],
            lambda v, m, c: np.dot(c * v, m))


def _unary(build: Callable, ref: Callable) -> Callable[[], tuple]:
    def case() -> tuple:
        x = pt.dvector("x")
        return [x], build(x), [SPECIAL.copy()], ref
    return case


def _binary(build: Callable, ref: Callable) -> Callable[[], tuple]:
    def case() -> tuple:
        x, y = pt.dvector("x"), pt.dvector("y")
        return [x, y], build(x, y), [SPECIAL.copy(), SPECIAL[::-1].copy()], ref
    return case


def _case_sum_scaled() -> tuple:
    x, c = pt.dmatrix("x"), pt.dscalar("c")
    return ([x, c], pt.sum(x * c, axis=1),
            [np.array([[1.0, 0.0], [2.0, 3.0]]), np.float64(np.inf)],
            lambda x, c: np.sum(x * c, axis=1))


def _case_sum_alloc() -> tuple:
    v, n = pt.dscalar("v"), pt.lscalar("n")
    return ([v, n], pt.sum(pt.alloc(v, n)), [np.float64(np.inf), np.int64(0)],
            lambda v, n: np.sum(np.full(n, v)))


CASES = {
    "dot(v / 0, M)": _case_dot,
    "dot(c * v, M)": _case_dot_scaled,
    "x / x": _unary(lambda x: x / x, lambda x: x / x),
    "x - x": _unary(lambda x: x - x, lambda x: x - x),
    "x * 0": _unary(lambda x: x * 0, lambda x: x * 0),
    "(2 * x) / x": _unary(lambda x: (2 * x) / x, lambda x: (2 * x) / x),
    "x * y / y": _binary(lambda x, y: x * y / y, lambda x, y: x * y / y),
    "(x + y) - y": _binary(lambda x, y: (x + y) - y, lambda x, y: (x + y) - y),
    "sum(x * c)": _case_sum_scaled,
    "sum(alloc(v, 0))": _case_sum_alloc,
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("mode", [m[1] for m in MODES], ids=MODE_IDS)
def test_ieee_results_match_numpy(case: str, mode: Any) -> None:
    inputs, out, vals, ref = CASES[case]()
    f = function(inputs, out, mode=mode)
    with np.errstate(all="ignore"):
        want = np.asarray(ref(*vals))
        got = np.asarray(f(*vals))
    np.testing.assert_array_equal(got, want, err_msg=f"{case} in {mode}")
    assert got.dtype == want.dtype


def _ops(f: Any) -> list[Any]:
    return [n.op for n in f.maker.fgraph.toposort()]


def _scalar_ops(f: Any) -> list[Any]:
    out = []
    for op in _ops(f):
        if isinstance(op, Elemwise):
            inner = getattr(op.scalar_op, "fgraph", None)  # a fused Composite
            out += [n.op for n in inner.toposort()] if inner is not None else [op.scalar_op]
    return out


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_fast_math_cancels_terms(mode: str) -> None:
    x = pt.dvector("x")
    for expr, leftover in ((x / x, ps.TrueDiv), (x - x, ps.Sub), (x * 0, ps.Mul)):
        assert any(isinstance(o, leftover) for o in _scalar_ops(function([x], expr, mode=mode)))
        with config.change_flags(fast_math=True):
            f = function([x], expr, mode=mode)
        assert not any(isinstance(o, leftover) for o in _scalar_ops(f)), expr
        with np.errstate(all="ignore"):
            got = f(SPECIAL.copy())
        assert np.isfinite(got).all()  # 1 or 0 where NumPy gives NaN: the allowed difference


def test_fast_math_moves_the_factor_out_of_dot() -> None:
    inputs, out, vals, _ = _case_dot()
    with config.change_flags(fast_math=True):
        f = function(inputs, out, mode="FAST_RUN")
    # the product is a Dot, or the Gemv FAST_RUN makes of it (operands A, x at 2 and 3)
    dot = next(n for n in f.maker.fgraph.toposort() if isinstance(n.op, Dot | Gemv))
    operands = dot.inputs if isinstance(dot.op, Dot) else dot.inputs[2:4]
    operands = [i.owner.inputs[0] if i.owner and isinstance(i.owner.op, DimShuffle) else i
                for i in operands]
    assert all(i.owner is None for i in operands)  # v / 0 no longer feeds the dot
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(f(*vals), [np.inf, np.nan])


def test_integer_terms_still_cancel() -> None:
    """Integer arithmetic wraps exactly: x - x is 0 for every int, so it still folds."""
    x = pt.lvector("x")
    f = function([x], x - x, mode="FAST_RUN")
    assert not any(isinstance(o, ps.Sub) for o in _scalar_ops(f))
    np.testing.assert_array_equal(f(np.array([0, -5, 2**62])), [0, 0, 0])


def _singular_batch(n: int) -> np.ndarray:
    """``n`` singular 2x2 matrices with equal rows: ``a*d - b*c`` is exactly 0 in NumPy."""
    rng = np.random.default_rng(19)
    rows = rng.standard_normal((n, 1, 2))
    return np.concatenate([rows, rows], axis=1)


def _det_sign() -> tuple[Any, Any]:
    m = pt.tensor3("m", dtype="float64")
    det = m[:, 0, 0] * m[:, 1, 1] - m[:, 0, 1] * m[:, 1, 0]
    return m, pt.sign(det)


@pytest.mark.parametrize("mode", [m[1] for m in MODES], ids=MODE_IDS)
def test_no_fused_multiply_add(mode: Any) -> None:
    m, out = _det_sign()
    data = _singular_batch(1000)
    want = np.sign(data[:, 0, 0] * data[:, 1, 1] - data[:, 0, 1] * data[:, 1, 0])
    assert not want.any()
    np.testing.assert_array_equal(function([m], out, mode=mode)(data), want)


def _cpu_has_fma() -> bool:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            return any(line.startswith("flags") and " fma " in f"{line} " for line in fh)
    except OSError:
        return False


@pytest.mark.skipif(not _cpu_has_fma(), reason="the CPU has no fused multiply-add")
def test_fast_math_lets_c_contract() -> None:
    """Under fast_math the C compiler may fuse: the same graph then loses exact zeros."""
    if "C" not in dict(MODES):
        pytest.skip("no C linker")
    m, out = _det_sign()
    with config.change_flags(fast_math=True):
        f = function([m], out, mode="C")
    assert np.count_nonzero(f(_singular_batch(1000))) > 0


# -- reductions over empty axes ----------------------------------------------------------

REDUCTIONS = {
    "max": (pt.max, np.max), "min": (pt.min, np.min),
    "argmax": (pt.argmax, np.argmax), "argmin": (pt.argmin, np.argmin),
    "prod": (pt.prod, np.prod), "sum": (pt.sum, np.sum),
}
EMPTY = [((0, 0), 0), ((0, 3), 0), ((0, 3, 0), 0), ((2, 0), None), ((3, 0), 0), ((0, 3), 1),
         ((0, 2), (0, 1))]


@pytest.mark.parametrize("reduction", list(REDUCTIONS))
@pytest.mark.parametrize("mode", [m[1] for m in MODES], ids=MODE_IDS)
def test_empty_reductions_raise_like_numpy(reduction: str, mode: Any) -> None:
    """No identity (max, min, argmax...): raise when the reduced part is empty, even if
    the result is empty too; with one (sum, prod): NumPy's identity."""
    ours, theirs = REDUCTIONS[reduction]
    for shape, axis in EMPTY:
        if reduction.startswith("arg") and isinstance(axis, tuple):
            continue  # NumPy's argmax takes one axis
        x = pt.tensor("x", dtype="float64", shape=(None,) * len(shape))
        f = function([x], ours(x, axis=axis), mode=mode)
        data = np.zeros(shape)
        try:
            want = theirs(data, axis=axis)
        except ValueError:
            with pytest.raises(ValueError):
                f(data)
            continue
        got = f(data)
        np.testing.assert_array_equal(got, want, err_msg=f"{reduction} {shape} {axis} {mode}")
        assert np.asarray(got).shape == np.shape(want)

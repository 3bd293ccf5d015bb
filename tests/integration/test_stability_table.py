"""Value and gradient of every stabilised expression at extreme inputs, in every mode.

Each row is an expression as a user writes it (the stable function or the naive
form it stands for), the inputs it is defined on, and its exact value and
derivative from mpmath at 60 digits.  Wherever the exact result is a finite
double, every mode must give a finite result close to it: a NaN or an inf
there is a wrong answer, whatever the rewrite phase.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import mpmath as mp
import numpy as np
import opgraph_special as special
import pytest

import opgraph.tensor as pt
from opgraph.autodiff.reverse import grad
from opgraph.compile.function import function
from opgraph.compile.mode import LinkerUnavailableError, Mode, available_modes, get_mode
from opgraph.gradient import verify_grad
from opgraph.tensor.special import log_softmax, logsumexp, softmax

mp.mp.dps = 60

TINY = 5e-324  # the smallest subnormal
#: The elementwise rows are checked at these inputs (those in their domain).
POINTS = np.array([-1e3, -40.0, -1.5, -1e-310, -TINY, 0.0, TINY, 1e-310, 1.5, 40.0, 1e3])
#: The reductions are checked on these vectors.
VECTORS = [
    np.array([-1e3, -40.0, 0.0, 40.0, 1e3]),
    np.array([1e3, 1e3, -1e3]),
    np.array([-1e3, -1e3]),
    np.array([TINY, -TINY, 0.0, 1e-310]),
    np.array([0.3, -1.2, 2.5]),
]


def _modes() -> list[tuple[str, Any]]:
    """Every registry mode usable here, plus the py and vm linkers under FAST_RUN rewrites."""
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
    rewrites = get_mode("FAST_RUN").optimizer
    out.append(("py+FAST_RUN", Mode(linker="py", optimizer=rewrites)))
    out.append(("vm+FAST_RUN", Mode(linker="vm", optimizer=rewrites)))
    return out


MODES = _modes()


# -- exact references (mpmath) ---------------------------------------------------------


def _sig(x: Any) -> Any:
    return 1 / (1 + mp.exp(-x))


def _softplus(x: Any) -> Any:
    return mp.log1p(mp.exp(x)) if x < 0 else x + mp.log1p(mp.exp(-x))


def _log1mexp(x: Any) -> Any:
    return mp.log(-mp.expm1(x))


def _d_log1mexp(x: Any) -> Any:
    return -1 / mp.expm1(-x)


def _lse(v: list) -> Any:
    m = max(v)
    return m + mp.log(mp.fsum(mp.exp(a - m) for a in v))


# (name, build(z), exact value, exact derivative, domain predicate)
Elementwise = tuple[str, Callable[[Any], Any], Callable[[Any], Any], Callable[[Any], Any],
                    Callable[[float], bool]]

_ALL: Callable[[float], bool] = lambda v: True
_NEGATIVE: Callable[[float], bool] = lambda v: v < 0

ELEMENTWISE: list[Elementwise] = [
    ("sigmoid(z)", pt.sigmoid, _sig, lambda x: _sig(x) * _sig(-x), _ALL),
    ("1/(1+exp(-z))", lambda z: 1 / (1 + pt.exp(-z)), _sig, lambda x: _sig(x) * _sig(-x), _ALL),
    ("exp(z)/(1+exp(z))", lambda z: pt.exp(z) / (1 + pt.exp(z)), _sig,
     lambda x: _sig(x) * _sig(-x), _ALL),
    ("1/(exp(-z)+1)", lambda z: pt.reciprocal(pt.exp(-z) + 1), _sig,
     lambda x: _sig(x) * _sig(-x), _ALL),
    ("1-sigmoid(z)", lambda z: 1 - pt.sigmoid(z), lambda x: _sig(-x),
     lambda x: -_sig(x) * _sig(-x), _ALL),
    ("log(sigmoid(z))", lambda z: pt.log(pt.sigmoid(z)), lambda x: -_softplus(-x),
     lambda x: _sig(-x), _ALL),
    ("log(1/(1+exp(-z)))", lambda z: pt.log(1 / (1 + pt.exp(-z))), lambda x: -_softplus(-x),
     lambda x: _sig(-x), _ALL),
    ("log(exp(z)/(1+exp(z)))", lambda z: pt.log(pt.exp(z) / (1 + pt.exp(z))),
     lambda x: -_softplus(-x), lambda x: _sig(-x), _ALL),
    ("log(1-sigmoid(z))", lambda z: pt.log(1 - pt.sigmoid(z)), lambda x: -_softplus(x),
     lambda x: -_sig(x), _ALL),
    ("log(1-1/(1+exp(-z)))", lambda z: pt.log(1 - 1 / (1 + pt.exp(-z))),
     lambda x: -_softplus(x), lambda x: -_sig(x), _ALL),
    ("log1p(-sigmoid(z))", lambda z: pt.log1p(-pt.sigmoid(z)), lambda x: -_softplus(x),
     lambda x: -_sig(x), _ALL),
    ("softplus(z)", pt.softplus, _softplus, _sig, _ALL),
    ("log1p(exp(z))", lambda z: pt.log1p(pt.exp(z)), _softplus, _sig, _ALL),
    ("log(1+exp(z))", lambda z: pt.log(1 + pt.exp(z)), _softplus, _sig, _ALL),
    ("log1mexp(z)", pt.log1mexp, _log1mexp, _d_log1mexp, _NEGATIVE),
    ("log(1-exp(z))", lambda z: pt.log(1 - pt.exp(z)), _log1mexp, _d_log1mexp, _NEGATIVE),
    ("log1p(-exp(z))", lambda z: pt.log1p(-pt.exp(z)), _log1mexp, _d_log1mexp, _NEGATIVE),
    ("log(-expm1(z))", lambda z: pt.log(-pt.expm1(z)), _log1mexp, _d_log1mexp, _NEGATIVE),
    ("log(erfc(z))", lambda z: pt.log(special.erfc(z)), lambda x: mp.log(mp.erfc(x)),
     lambda x: -2 / mp.sqrt(mp.pi) * mp.exp(-x * x) / mp.erfc(x), _ALL),
]

# (name, build(z) -> scalar, exact value(list), exact gradient(list) -> list)
REDUCTIONS = [
    ("logsumexp(z)", logsumexp, _lse,
     lambda v: [mp.exp(a - _lse(v)) for a in v]),
    ("log(sum(exp(z)))", lambda z: pt.log(pt.sum(pt.exp(z))), _lse,
     lambda v: [mp.exp(a - _lse(v)) for a in v]),
    ("sum(log_softmax(z))", lambda z: pt.sum(log_softmax(z)),
     lambda v: mp.fsum(a - _lse(v) for a in v),
     lambda v: [1 - len(v) * mp.exp(a - _lse(v)) for a in v]),
    ("sum(log(softmax(z)))", lambda z: pt.sum(pt.log(softmax(z))),
     lambda v: mp.fsum(a - _lse(v) for a in v),
     lambda v: [1 - len(v) * mp.exp(a - _lse(v)) for a in v]),
]

#: Relative error allowed against the 60-digit reference (exp of a sum of logs loses
#: about |x| ulps at |x| = 1000).
RTOL = 1e-11
MAX_DOUBLE = float(np.finfo(np.float64).max)


def _exact(fn: Callable[[Any], Any], v: Any) -> float:
    with mp.workdps(60):
        arg = [mp.mpf(float(a)) for a in v] if isinstance(v, np.ndarray) else mp.mpf(float(v))
        return float(fn(arg))


def _check(got: np.ndarray, exact: np.ndarray, what: str, atol: float = 1e-300) -> None:
    got, exact = np.asarray(got, dtype=float), np.asarray(exact, dtype=float)
    representable = np.isfinite(exact) & (np.abs(exact) <= MAX_DOUBLE)
    bad = representable & ~np.isfinite(got)
    assert not bad.any(), f"{what}: non-finite {got[bad]} where exact is {exact[bad]}"
    np.testing.assert_allclose(got[representable], exact[representable], rtol=RTOL,
                               atol=atol, err_msg=what)


def _compile(z: Any, out: Any, mode: Any) -> Any:
    g = grad(pt.sum(out), z)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function([z], [out, g], mode=mode)


@pytest.mark.parametrize("mode_name, mode", MODES, ids=[m[0] for m in MODES])
@pytest.mark.parametrize("row", ELEMENTWISE, ids=[r[0] for r in ELEMENTWISE])
def test_elementwise_value_and_gradient_are_finite_and_exact(row: Elementwise, mode_name: str,
                                                             mode: Any) -> None:
    name, build, value, deriv, domain = row
    xs = np.array([v for v in POINTS if domain(v)])
    z = pt.dvector("z")
    fn = _compile(z, build(z), mode)
    with np.errstate(all="ignore"):
        got_value, got_grad = fn(xs)
    _check(got_value, [_exact(value, v) for v in xs], f"{name} value ({mode_name})")
    _check(got_grad, [_exact(deriv, v) for v in xs], f"d {name} ({mode_name})")


@pytest.mark.parametrize("mode_name, mode", MODES, ids=[m[0] for m in MODES])
@pytest.mark.parametrize("row", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
def test_reduction_value_and_gradient_are_finite_and_exact(row: tuple, mode_name: str,
                                                           mode: Any) -> None:
    name, build, value, gradient = row
    z = pt.dvector("z")
    fn = _compile(z, build(z), mode)
    for v in VECTORS:
        with np.errstate(all="ignore"):
            got_value, got_grad = fn(v)
        _check(got_value, _exact(value, v), f"{name} value at {v} ({mode_name})")
        with mp.workdps(60):
            exact_grad = [float(g) for g in gradient([mp.mpf(float(a)) for a in v])]
        # the gradients here are differences of O(1) terms: absolute accuracy
        _check(got_grad, exact_grad, f"d {name} at {v} ({mode_name})", atol=1e-15)


@pytest.mark.parametrize("mode_name, mode", MODES, ids=[m[0] for m in MODES])
@pytest.mark.parametrize("row", ELEMENTWISE, ids=[r[0] for r in ELEMENTWISE])
def test_rewritten_graph_matches_the_plain_one_at_ordinary_inputs(row: Elementwise,
                                                                   mode_name: str,
                                                                   mode: Any) -> None:
    name, build, _value, _deriv, domain = row
    rng = np.random.default_rng(7)
    xs = rng.uniform(-6.0, 6.0, 50)
    xs = xs[[domain(v) for v in xs]]
    z = pt.dvector("z")
    out = build(z)
    fn = _compile(z, out, mode)
    plain = _compile(z, out, Mode(linker="py", optimizer=None))
    for a, b in zip(fn(xs), plain(xs)):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-15, err_msg=f"{name} ({mode_name})")


@pytest.mark.parametrize("mode_name, mode", MODES, ids=[m[0] for m in MODES])
@pytest.mark.parametrize("row", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
def test_rewritten_reductions_match_the_plain_graph_at_ordinary_inputs(row: tuple,
                                                                       mode_name: str,
                                                                       mode: Any) -> None:
    name, build = row[:2]
    z = pt.dvector("z")
    out = build(z)
    fn = _compile(z, out, mode)
    plain = _compile(z, out, Mode(linker="py", optimizer=None))
    v = np.random.default_rng(3).uniform(-6.0, 6.0, 7)
    for a, b in zip(fn(v), plain(v)):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-14, err_msg=f"{name} ({mode_name})")


def test_table_covers_every_mode_and_the_naive_forms_really_fail() -> None:
    # the table is only worth something if the plain graphs go wrong at these inputs
    assert {"FAST_RUN", "FAST_COMPILE"} <= {m[0] for m in MODES}
    z = pt.dvector("z")
    plain = _compile(z, pt.log(1 / (1 + pt.exp(-z))), Mode(linker="py", optimizer=None))
    with np.errstate(all="ignore"):
        value, gradient = plain(np.array([-1e3]))
    assert not np.isfinite(value).all() and not np.isfinite(gradient).all()
    assert math.isfinite(_exact(lambda x: -_softplus(-x), -1e3))


@pytest.mark.parametrize("mode_name, mode", MODES, ids=[m[0] for m in MODES])
def test_cross_entropy_of_a_written_out_sigmoid(mode_name: str, mode: Any) -> None:
    # -y log p - (1-y) log(1-p), p = 1/(1+exp(-t)): value y*softplus(-t) + (1-y)*softplus(t),
    # gradient sigmoid(t) - y; the plain gradient is 0/0 once sigmoid(-|t|) underflows
    t = pt.dvector("t")
    y = pt.dvector("y")
    p = 1 / (1 + pt.exp(-t))
    xent = -y * pt.log(p) - (1 - y) * pt.log(1 - p)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn = function([t, y], [xent, grad(pt.sum(xent), t)], mode=mode)
    ts = np.repeat(POINTS, 2)
    ys = np.tile([0.0, 1.0], len(POINTS))
    with np.errstate(all="ignore"):
        value, gradient = fn(ts, ys)
    exact_value = [_exact(lambda a, b=b: b * _softplus(-a) + (1 - b) * _softplus(a), a)
                   for a, b in zip(ts, ys)]
    exact_grad = [_exact(lambda a, b=b: _sig(a) - b, a) for a, b in zip(ts, ys)]
    _check(value, exact_value, f"cross-entropy ({mode_name})")
    _check(gradient, exact_grad, f"d cross-entropy ({mode_name})", atol=1e-300)


# the rewritten gradients against finite differences too (verify_grad), at ordinary inputs
VERIFY = [
    ("log1mexp", lambda z: pt.log1mexp(z), lambda rng: -rng.uniform(0.1, 4.0, 5)),
    ("sigmoid", pt.sigmoid, lambda rng: rng.uniform(-4.0, 4.0, 5)),
    ("softplus", pt.softplus, lambda rng: rng.uniform(-4.0, 4.0, 5)),
    ("log(1-1/(1+exp(-z)))", lambda z: pt.log(1 - 1 / (1 + pt.exp(-z))),
     lambda rng: rng.uniform(-4.0, 4.0, 5)),
    ("softmax", lambda z: softmax(z) * np.arange(1.0, 6.0), lambda rng: rng.uniform(-3, 3, 5)),
    ("log(sum(exp(z)))", lambda z: pt.log(pt.sum(pt.exp(z))), lambda rng: rng.uniform(-3, 3, 5)),
]


VERIFY_MODES = [m for m in MODES if m[0] in ("FAST_COMPILE", "FAST_RUN")]


@pytest.mark.parametrize("mode_name, mode", VERIFY_MODES, ids=[m[0] for m in VERIFY_MODES])
@pytest.mark.parametrize("row", VERIFY, ids=[r[0] for r in VERIFY])
def test_gradients_match_finite_differences(row: tuple, mode_name: str, mode: Any) -> None:
    _name, build, draw = row
    rng = np.random.default_rng(11)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        verify_grad(build, [draw(rng)], mode=mode, rng=rng)

"""Compiled functions on the Python linkers never touch the caller's arrays.

A view op that does not declare ``view_map`` lets an inplace rewrite write
through it into a function input (Reshape once did: ``reshape(x) * c`` under
FAST_RUN overwrote ``x``).  For hand-picked and hypothesis-generated graphs
(elementwise, reshape, dimshuffle, subtensor, set/inc_subtensor and reduction
chains) compiled with the "py" and "vm" linkers under every rewrite query the
mode registry lists, each call must:

- leave every input array byte-identical (inputs passed C-ordered, Fortran
  ordered and strided);
- return the NumPy reference result;
- return arrays that share no memory with the inputs, and that a second call
  (with other values) leaves unchanged.

Without the rewrite plugin installed the queries select no rewrites; with it
(the full test run) FAST_RUN's inplace rewrites are exercised on these linkers.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode, available_modes, get_mode

LINKERS = ("py", "vm")


def _queries() -> dict[str, Any]:
    """One rewrite query per distinct registry mode query, plus no rewrites at all."""
    found: dict[str, Any] = {"no-rewrites": None}
    for name in sorted(available_modes(), key=lambda n: (not n.startswith("FAST_"), n)):
        query = get_mode(name).optimizer
        if query not in found.values():
            found[name] = query
    return found


QUERIES = _queries()
MODES = {
    f"{q}/{linker}": (linker, query) for q, query in QUERIES.items() for linker in LINKERS
}


def make_mode(key: str) -> Mode:
    linker, query = MODES[key]
    return Mode(linker=linker, optimizer=query, name=key)


# --------------------------------------------------------------------------- checking


def _layouts(a: np.ndarray) -> list[np.ndarray]:
    """``a`` as C-ordered, Fortran-ordered and strided (non-contiguous) arrays."""
    out = [np.array(a, copy=True), np.asfortranarray(a).copy(order="F")]
    if a.ndim:
        buf = np.zeros((*a.shape[:-1], 2 * a.shape[-1] + 1), dtype=a.dtype)
        view = buf[..., 1::2]
        view[...] = a
        out.append(view)
    return out


def _snap(a: np.ndarray) -> tuple:
    return a.shape, a.dtype.str, a.tobytes()


def _as_list(r: Any) -> list:
    return list(r) if isinstance(r, list | tuple) else [r]


def check_function(
    f: Any, args: Sequence[np.ndarray], other_args: Sequence[np.ndarray],
    expected: Sequence[np.ndarray], label: str,
    other_expected: Sequence[np.ndarray] | None = None,
) -> None:
    """The caller-visible memory contract of one compiled function (see module doc).

    ``other_expected`` (the results for ``other_args``) also checks that the first
    call left no trace: no constant, shared value or cached buffer was overwritten.
    """
    for layout in range(3):
        call_args = [_layouts(a)[min(layout, len(_layouts(a)) - 1)] for a in args]
        before = [_snap(a) for a in call_args]
        with np.errstate(all="ignore"):
            results = _as_list(f(*call_args))
        for k, (a, snap) in enumerate(zip(call_args, before)):
            assert _snap(a) == snap, f"{label}: input {k} was modified by the call"
        assert len(results) == len(expected)
        for j, (r, e) in enumerate(zip(results, expected)):
            np.testing.assert_allclose(
                np.asarray(r), e, rtol=1e-6, atol=1e-9, err_msg=f"{label}: output {j}"
            )
            for k, a in enumerate(call_args):
                assert not np.shares_memory(r, a), (
                    f"{label}: output {j} shares memory with input {k}"
                )
        kept = [np.array(r, copy=True) for r in results]
        with np.errstate(all="ignore"):
            second = _as_list(f(*[np.array(a, copy=True) for a in other_args]))
        for j, (r, k) in enumerate(zip(results, kept)):
            np.testing.assert_array_equal(
                r, k, err_msg=f"{label}: output {j} of the first call changed after a second call"
            )
            for s in second:
                assert not np.shares_memory(r, s), (
                    f"{label}: output {j} of two calls share memory"
                )
        for j, (s, e) in enumerate(zip(second, other_expected or ())):
            np.testing.assert_allclose(
                np.asarray(s), e, rtol=1e-6, atol=1e-9,
                err_msg=f"{label}: output {j} of a second call (state left by the first?)",
            )


def compile_quiet(inputs: list, outputs: Any, mode: Mode) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(inputs, outputs, mode=mode, on_unused_input="ignore")


# --------------------------------------------------------------------------- hand-picked

Graph = Callable[[Any, Any], Any]
Ref = Callable[[np.ndarray, np.ndarray], Any]
SHARED_VALUE = np.linspace(-1.0, 1.0, 9).reshape(3, 3)


def _shared_graph(x: Any) -> Any:
    """A graph reading a shared variable through views (its value must never change)."""
    from opgraph.compile.sharedvalue import shared

    s = shared(SHARED_VALUE.copy(), name="s")
    return pt.reshape(s, (-1,)) * pt.reshape(x, (-1,)) + pt.reshape(s.T, (-1,))

HAND_PICKED: dict[str, tuple[Graph, Ref]] = {
    "reshape(x)*c": (lambda x, y: pt.reshape(x, (-1,)) * 3.0, lambda x, y: x.reshape(-1) * 3.0),
    "x.T + 1": (lambda x, y: x.T + 1, lambda x, y: x.T + 1),
    "x[1:] * 2": (lambda x, y: x[1:] * 2, lambda x, y: x[1:] * 2),
    "set_subtensor(x[0], y[0])": (
        lambda x, y: pt.set_subtensor(x[0], y[0]),
        lambda x, y: np.concatenate([y[:1], x[1:]]),
    ),
    "inc_subtensor(x[1:], y[1:]) * 2": (
        lambda x, y: pt.inc_subtensor(x[1:], y[1:]) * 2,
        lambda x, y: np.concatenate([x[:1], x[1:] + y[1:]]) * 2,
    ),
    "exp(x) + exp(x).T": (
        lambda x, y: pt.exp(x) + pt.exp(x).T,
        lambda x, y: np.exp(x) + np.exp(x).T,
    ),
    "e=exp(x); e + e[::-1]": (
        lambda x, y: pt.exp(x) + pt.exp(x)[::-1],
        lambda x, y: np.exp(x) + np.exp(x)[::-1],
    ),
    "outputs x, x.T, reshape(x)": (
        lambda x, y: [x, x.T, pt.reshape(x, (-1,))],
        lambda x, y: [x, x.T, x.reshape(-1)],
    ),
    "outputs v, v*2 with v=x.T": (lambda x, y: [x.T, x.T * 2], lambda x, y: [x.T, x.T * 2]),
    "flatten(x) - sum(y)": (
        lambda x, y: pt.flatten(x) - pt.sum(y),
        lambda x, y: x.reshape(-1) - y.sum(),
    ),
    "dimshuffle(x)*y.T[:, 0]": (
        lambda x, y: x.dimshuffle(1, 0, "x") * y.T[:, 0].dimshuffle(0, "x", "x"),
        lambda x, y: x.T[:, :, None] * y.T[:, 0][:, None, None],
    ),
    "x[[0, 0]] * 2 + 1": (lambda x, y: x[[0, 0]] * 2 + 1, lambda x, y: x[[0, 0]] * 2 + 1),
    "specify_shape(x) ** 2": (
        lambda x, y: pt.specify_shape(x, (3, 3)) ** 2,
        lambda x, y: x**2,
    ),
    "ifelse(sum(x) > 0, x.T, y) * 2": (
        lambda x, y: pt.ifelse(pt.sum(x) > 0, x.T, y) * 2,
        lambda x, y: (x.T if x.sum() > 0 else y) * 2,
    ),
    "reshape(exp(x)) * 3 and exp(x)": (
        lambda x, y: [pt.reshape(pt.exp(x), (-1,)) * 3.0, pt.exp(x)],
        lambda x, y: [np.exp(x).reshape(-1) * 3.0, np.exp(x)],
    ),
    "exp(x).T + 1 and exp(x)[0]": (
        lambda x, y: [pt.exp(x).T + 1, pt.exp(x)[0]],
        lambda x, y: [np.exp(x).T + 1, np.exp(x)[0]],
    ),
    "reshape(constant) * x": (
        lambda x, y: pt.reshape(pt.constant(np.arange(9.0)), (3, 3)) * x,
        lambda x, y: np.arange(9.0).reshape(3, 3) * x,
    ),
    "reshape(shared) * x + shared.T": (
        lambda x, y: _shared_graph(x),
        lambda x, y: SHARED_VALUE.reshape(-1) * x.reshape(-1) + SHARED_VALUE.T.reshape(-1),
    ),
    "x + y (both destroyable intermediates)": (
        lambda x, y: (x * 1) + (y * 1),
        lambda x, y: x + y,
    ),
}


@pytest.mark.parametrize("mode_key", sorted(MODES))
@pytest.mark.parametrize("name", sorted(HAND_PICKED))
def test_hand_picked_graphs(name: str, mode_key: str) -> None:
    build, ref = HAND_PICKED[name]
    x, y = pt.dmatrix("x"), pt.dmatrix("y")
    f = compile_quiet([x, y], build(x, y), make_mode(mode_key))
    rng = np.random.default_rng(7)
    xv, yv = rng.uniform(-1, 1, (3, 3)), rng.uniform(-1, 1, (3, 3))
    xo, yo = rng.uniform(-1, 1, (3, 3)), rng.uniform(-1, 1, (3, 3))
    expected = [np.asarray(e) for e in _as_list(ref(xv, yv))]
    other = [np.asarray(e) for e in _as_list(ref(xo, yo))]
    check_function(f, [xv, yv], [xo, yo], expected, f"{name} [{mode_key}]", other)


# --------------------------------------------------------------------------- random chains
# Each step maps (symbolic, numpy value) to the next pair and is offered only when
# valid for the current value's shape, so every chain is well-formed.

Step = tuple[str, Callable[[Any], Any], Callable[[np.ndarray], np.ndarray]]


def _steps(v: np.ndarray, x_shape: tuple) -> list[Step]:
    steps: list[Step] = [
        ("exp", pt.exp, np.exp),
        ("tanh", pt.tanh, np.tanh),
        ("*2.5", lambda s: s * 2.5, lambda a: a * 2.5),
        ("1-", lambda s: 1 - s, lambda a: 1 - a),
        ("neg", lambda s: -s, lambda a: -a),
        ("sqr+s", lambda s: s * s + s, lambda a: a * a + a),
    ]
    if v.ndim >= 1:
        steps += [
            ("flatten", lambda s: pt.reshape(s, (-1,)), lambda a: a.reshape(-1)),
            ("[::-1]", lambda s: s[::-1], lambda a: a[::-1]),
            ("[1:]", lambda s: s[1:], lambda a: a[1:]),
            ("sum0", lambda s: pt.sum(s, axis=0), lambda a: a.sum(axis=0)),
            ("+rev", lambda s: s + s[::-1], lambda a: a + a[::-1]),
            ("[[0,0]]", lambda s: s[[0, 0]], lambda a: a[[0, 0]]) if v.shape[0] else None,
            ("[0]", lambda s: s[0], lambda a: a[0]) if v.shape[0] else None,
            ("set[0]", lambda s: pt.set_subtensor(s[0], 0.5),
             lambda a: np.concatenate([np.full_like(a[:1], 0.5), a[1:]])) if v.shape[0] else None,
            ("inc[1:]", lambda s: pt.inc_subtensor(s[1:], 1.0),
             lambda a: np.concatenate([a[:1], a[1:] + 1.0])),
            ("max0", lambda s: pt.max(s, axis=0), lambda a: a.max(axis=0)) if v.shape[0] else None,
        ]
    if v.ndim == 1:
        steps.append(("row", lambda s: s.dimshuffle("x", 0), lambda a: a[None, :]))
    if v.ndim == 2:
        steps += [
            ("T", lambda s: s.T, lambda a: a.T),
            ("T+s", lambda s: s.T + s, lambda a: a.T + a) if v.shape[0] == v.shape[1] else None,
            ("reshape(n,-1)", lambda s: pt.reshape(s, (v.shape[1], -1)),
             lambda a: a.reshape(v.shape[1], -1)) if v.shape[1] else None,
            ("mean1", lambda s: pt.mean(s, axis=1), lambda a: a.mean(axis=1)) if v.shape[1]
            else None,
        ]
    if v.shape == x_shape:
        steps.append(("*x", None, None))  # multiply by the function input x itself
    return [s for s in steps if s is not None]


@st.composite
def chains(draw: Any) -> tuple[tuple, list[str]]:
    shape = draw(st.sampled_from([(3, 3), (2, 4), (1, 4), (4, 1), (0, 3), (1, 1)]))
    n = draw(st.integers(1, 6))
    v = np.zeros(shape)
    names = []
    for _ in range(n):
        options = _steps(v, shape)
        name = draw(st.sampled_from([s[0] for s in options]))
        names.append(name)
        step = next(s for s in options if s[0] == name)
        with np.errstate(all="ignore"):
            v = v * 1.0 if step[2] is None else step[2](v)
    return shape, names


def build_chain(shape: tuple, names: list[str], x: Any, xv: np.ndarray) -> tuple[list, list]:
    """Symbolic outputs and NumPy references: the chain's end and one intermediate."""
    s, v = x, xv
    seen = [(s, v)]
    for name in names:
        step = next(t for t in _steps(v, shape) if t[0] == name)
        if step[1] is None:
            s, v = s * x, v * xv
        else:
            s, v = step[1](s), step[2](v)
        seen.append((s, v))
    mid = seen[len(seen) // 2]
    return [s, mid[0]], [v, mid[1]]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chains(), st.integers(0, 2**16))
def test_random_chains_never_modify_inputs(chain: tuple, seed: int) -> None:
    shape, names = chain
    rng = np.random.default_rng(seed)
    xv, xo = rng.uniform(-1, 1, shape), rng.uniform(-1, 1, shape)
    x = pt.matrix("x", dtype="float64")
    with np.errstate(all="ignore"):
        outs, expected = build_chain(shape, names, x, xv)
        other = build_chain(shape, names, x, xo)[1]
    expected = [np.asarray(e) for e in expected]
    other = [np.asarray(e) for e in other]
    for key in sorted(MODES):
        f = compile_quiet([x], outs, make_mode(key))
        check_function(f, [xv], [xo], expected, f"{names} [{key}]", other)

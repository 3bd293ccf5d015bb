"""The demo's examples: the documentation's scenarios whose plugins are installed.

Building them is deterministic, so the process that measures cold compiles
(:mod:`opgraph_demo.cold`) rebuilds exactly the same graphs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

import opgraph
import opgraph.tensor as pt
from opgraph.gradient import grad
from opgraph.plugins import load_target, plugin_report

__all__ = ["FEATURES", "Example", "Skip", "build_examples", "plugin_states", "why_missing"]

FEATURES: dict[str, str] = {
    "opgraph-numpy": "the Python linkers (py, vm) and mode FAST_COMPILE",
    "opgraph-rewrites": "the rewrite database (graphs compile unrewritten without it)",
    "opgraph-ofg": "OpFromGraph (the three documented examples)",
    "opgraph-c": "the C linkers (modes C, CVM; FAST_RUN prefers C)",
    "opgraph-special": "special functions (the log(erfc(x)) stabilisation example)",
    "opgraph-jax": "the JAX backend (mode JAX: one jax.jit function, on any device JAX sees)",
}
"""Distribution -> what the demo uses it for."""


@attrs.frozen
class Skip:
    """Something the demo did not do, and why."""

    what: str
    why: str


@attrs.define
class Example:
    """One scenario: symbolic inputs, outputs, values to call with, and what it should give."""

    name: str
    inputs: list[Any]
    outputs: list[Any]
    values: tuple[Any, ...]
    expected: list[Any] | None = None
    #: compared only in modes whose rewrites include this tag (None: every mode)
    needs_tag: str | None = None


def plugin_states() -> dict[str, tuple[str, str]]:
    """Distribution -> (status, reason); status is ok, disabled, failed or missing."""
    states: dict[str, tuple[str, str]] = {}
    for info in plugin_report():
        states[info.distribution or info.name] = (info.status, info.error)
    for dist in FEATURES:
        states.setdefault(dist, ("missing", "not installed"))
    return states


def why_missing(state: tuple[str, str], dist: str) -> str:
    """A sentence saying why the plugin ``dist`` is not in use."""
    status, error = state
    if status == "disabled":
        return f"plugin {dist} is disabled (OPGRAPH_DISABLE_PLUGINS)"
    if status == "failed":
        return f"plugin {dist} failed to load: {error}"
    where = "contrib" if dist == "opgraph-special" else "plugins"
    return f"plugin {dist} is not installed (pip install ./{where}/{dist})"


def _tutorial_examples() -> list[Example]:
    a = pt.dvector("a")
    w = pt.dvector("w")
    loss = (pt.tanh(pt.dot(w, a)) - 0.5) ** 2
    a_val, w_val = np.array([1.0, 2.0, 3.0]), np.array([0.1, -0.2, 0.3])
    t = np.tanh(w_val @ a_val)
    d = 2 * (t - 0.5) * (1 - t**2)
    return [
        Example("tutorial: a + a**10", [a], [a + a**10], (np.array([0.0, 1.0, 2.0]),),
                [np.array([0.0, 2.0, 1026.0])]),
        Example("gradient of (tanh(w.a) - 1/2)**2", [w, a], grad(loss, [w, a]),
                (w_val, a_val), [d * a_val, d * w_val]),
        _scan_example(),
    ]


def _scan_example() -> Example:
    """A recurrence with ``scan``: the last state of h[t] = tanh(W h[t-1] + x[t])."""
    x, W, h0 = pt.dmatrix("x"), pt.dmatrix("W"), pt.dvector("h0")
    h = opgraph.scan(lambda xt, h, W: pt.tanh(pt.dot(W, h) + xt), sequences=x,
                     outputs_info=h0, non_sequences=W, return_updates=False)
    rng = np.random.default_rng(1)
    xv, Wv, h0v = rng.normal(size=(20, 3)), rng.normal(size=(3, 3)) / 3, np.zeros(3)
    want = h0v
    for row in xv:
        want = np.tanh(Wv @ want + row)
    return Example("scan: last state of h[t] = tanh(W h[t-1] + x[t])", [x, W, h0], [h[-1]],
                   (xv, Wv, h0v), [want])


def _ofg_examples() -> list[Example]:
    # Optional plugins are reached by name, only once the plugin is known to be in use.
    from_graph = load_target("opgraph.compile.builders:OpFromGraph")
    x, y, z = pt.scalars("xyz")
    op = from_graph([x, y, z], [x + y * z])
    e2 = op(x, y, z) + op(z, y, x)
    values = (2.0, 3.0, 4.0)
    s_value = np.random.default_rng(0).random((2, 2)).astype(opgraph.config.floatX)
    s = opgraph.shared(s_value, name="s")
    op_s = from_graph([x, y, z], [x + y * z + s])
    e3 = op_s(x, y, z) + op_s(z, y, x)

    def rescale_dy(inps: Sequence[Any], outputs: Sequence[Any], out_grads: Sequence[Any]) -> Any:
        return inps[2] * 2

    op_g = from_graph([x, y, z], [x + y * z], pullback=[None, rescale_dy, None])
    return [
        Example("OpFromGraph: basic", [x, y, z], [e2], values, [np.array(24.0)]),
        Example("OpFromGraph: basic, differentiated", [x, y, z], grad(e2, [x, y, z]), values,
                [np.array(4.0), np.array(6.0), np.array(4.0)]),
        Example("OpFromGraph: shared variable", [x, y, z], [e3], values, [2 * s_value + 24.0]),
        Example("OpFromGraph: per-input pullback override", [x, y, z],
                grad(op_g(x, y, z), [x, y, z]), values,
                [np.array(1.0), np.array(8.0), np.array(3.0)]),
    ]


def log_erfc_reference(x: float) -> float:
    """log(erfc(x)) in double precision, also where erfc(x) underflows (x > 26).

    Up to 26 ``math.erfc`` is a normal double with nothing to cancel; beyond, the
    asymptotic series of erfc (terms to x**-12) is exact to double precision.
    """
    if x <= 26.0:
        return math.log(math.erfc(x))
    inv = 1.0 / (2.0 * x * x)
    series, term = 1.0, 1.0
    for k in range(1, 7):
        term *= -(2 * k - 1) * inv
        series += term
    return -x * x - math.log(x * math.sqrt(math.pi)) + math.log(series)


def _special_examples() -> list[Example]:
    erfc = load_target("opgraph_special:erfc")
    v = pt.dvector("v")
    values = np.array([-3.0, 0.5, 10.0, 40.0])
    # At v = 40 erfc underflows to 0: only the stabilised graph stays finite (-1604.8...).
    expected = np.array([log_erfc_reference(float(x)) for x in values])
    return [Example("special: log(erfc(v))", [v], [pt.log(erfc(v))], (values,),
                    [expected], needs_tag="fast_run")]


def build_examples(states: dict[str, tuple[str, str]], skips: list[Skip]) -> list[Example]:
    """The examples whose plugins are in use; the others become entries of ``skips``."""
    examples = _tutorial_examples()
    if states["opgraph-ofg"][0] == "ok":
        examples += _ofg_examples()
    if states["opgraph-special"][0] == "ok":
        examples += _special_examples()
        if states["opgraph-rewrites"][0] != "ok":
            skips.append(Skip("checking the log(erfc(v)) stabilisation",
                              why_missing(states["opgraph-rewrites"], "opgraph-rewrites")))
    return examples

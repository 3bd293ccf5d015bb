"""With every plugin installed, no mode of the registry ever touches the caller's arrays.

The plugin-level test (plugins/opgraph-numpy/tests/test_inputs_never_modified.py)
runs the Python linkers; this one compiles the same kinds of graphs by mode
*name* as users do: FAST_RUN (all rewrites, inplace included, and the C linker
when a compiler works), FAST_COMPILE and every other mode a plugin declares.
The graphs, the NumPy references and the checks (inputs byte-identical,
results correct, results not sharing memory with inputs or with the results
of a later call) are the plugin test's, loaded from that file.
"""

from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import LinkerUnavailableError, available_modes, get_mode

_PLUGIN_TEST = (
    Path(__file__).resolve().parents[2]
    / "plugins" / "opgraph-numpy" / "tests" / "test_inputs_never_modified.py"
)


def _load_plugin_checks() -> Any:
    name = "opgraph_numpy_inputs_never_modified_checks"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, _PLUGIN_TEST)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


checks = _load_plugin_checks()


def _usable_modes() -> list[str]:
    """Registry modes whose linker resolves here (a C mode without a compiler is left out)."""
    names = []
    for name in sorted(available_modes()):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                get_mode(name).linker  # noqa: B018 - resolving is the check
            except LinkerUnavailableError:
                continue
        names.append(name)
    return names


MODE_NAMES = _usable_modes()


def compile_named(inputs: list, outputs: Any, mode: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(inputs, outputs, mode=mode, on_unused_input="ignore")


def test_registry_modes_include_fast_run_and_fast_compile() -> None:
    assert {"FAST_RUN", "FAST_COMPILE"} <= set(MODE_NAMES)


def test_fast_run_uses_inplace_rewrites_on_these_graphs() -> None:
    """The audit is meaningful: FAST_RUN really makes ``reshape(f(x, y)) * c`` style graphs
    inplace (a one-input op under a reshape moves above it, onto the view of ``x``)."""
    x = pt.dmatrix("x")
    f = compile_named([x], pt.reshape(pt.exp(x) + x, (-1,)) * 3.0, "FAST_RUN")
    destroyers = [n for n in f.maker.fgraph.apply_nodes if getattr(n.op, "destroy_map", None)]
    assert destroyers, "expected an inplace node in the FAST_RUN graph"


@pytest.mark.parametrize("mode", MODE_NAMES)
@pytest.mark.parametrize("name", sorted(checks.HAND_PICKED))
def test_hand_picked_graphs_every_mode(name: str, mode: str) -> None:
    build, ref = checks.HAND_PICKED[name]
    x, y = pt.dmatrix("x"), pt.dmatrix("y")
    f = compile_named([x, y], build(x, y), mode)
    rng = np.random.default_rng(11)
    xv, yv = rng.uniform(-1, 1, (3, 3)), rng.uniform(-1, 1, (3, 3))
    xo, yo = rng.uniform(-1, 1, (3, 3)), rng.uniform(-1, 1, (3, 3))
    expected = [np.asarray(e) for e in checks._as_list(ref(xv, yv))]
    other = [np.asarray(e) for e in checks._as_list(ref(xo, yo))]
    checks.check_function(f, [xv, yv], [xo, yo], expected, f"{name} [{mode}]", other)


@pytest.mark.parametrize("mode", MODE_NAMES)
def test_results_match_fast_compile(mode: str) -> None:
    """Every mode agrees with FAST_COMPILE on a graph mixing all the op families."""
    x, y = pt.dmatrix("x"), pt.dmatrix("y")
    v = pt.reshape(pt.exp(x), (-1,))
    out = [
        pt.set_subtensor(v[1:], pt.tanh(v[:-1])) * 2.0,
        pt.sum(x.T * y, axis=0) + pt.max(y, axis=1),
        pt.inc_subtensor(x[[0, 0]], 1.0)[::-1] - y,
    ]
    rng = np.random.default_rng(3)
    xv, yv = rng.uniform(-1, 1, (3, 3)), rng.uniform(-1, 1, (3, 3))
    xo, yo = rng.uniform(-1, 1, (3, 3)), rng.uniform(-1, 1, (3, 3))
    fast_compile = compile_named([x, y], out, "FAST_COMPILE")
    reference = checks._as_list(fast_compile(xv, yv))
    other = checks._as_list(fast_compile(xo, yo))
    f = compile_named([x, y], out, mode)
    checks.check_function(f, [xv, yv], [xo, yo], reference, f"mixed [{mode}]", other)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(checks.chains(), st.integers(0, 2**16))
def test_random_chains_fast_run(chain: tuple, seed: int) -> None:
    """Random chains in FAST_RUN (inplace rewrites + C linker if usable) and FAST_COMPILE."""
    shape, names = chain
    rng = np.random.default_rng(seed)
    xv, xo = rng.uniform(-1, 1, shape), rng.uniform(-1, 1, shape)
    x = pt.matrix("x", dtype="float64")
    with np.errstate(all="ignore"):
        outs, expected = checks.build_chain(shape, names, x, xv)
        expected = [np.asarray(e) for e in expected]
        other = [np.asarray(e) for e in checks.build_chain(shape, names, x, xo)[1]]
        reference = checks._as_list(compile_named([x], outs, "FAST_COMPILE")(xv))
    for e, r in zip(expected, reference):
        np.testing.assert_allclose(r, e, rtol=1e-6, atol=1e-9, err_msg=f"{names} FAST_COMPILE")
    f = compile_named([x], outs, "FAST_RUN")
    checks.check_function(f, [xv], [xo], expected, f"{names} [FAST_RUN]", other)

"""The log(erfc(x)) stabilisation: applied by the core engine, checked numerically."""

from __future__ import annotations

import math

import numpy as np
import opgraph_special as special
import pytest
import scipy.special as sc
from conftest import compile_py
from hypothesis import given, settings
from hypothesis import strategies as st
from opgraph_special.rewrites import (
    local_grad_log_erfc,
    local_log_erfc,
    register_rewrites,
    stable_log_erfc,
)

import opgraph.tensor as pt
from opgraph.autodiff.reverse import grad
from opgraph.compile.mode import Mode
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.walking import in2out


def _reference(x: np.ndarray) -> np.ndarray:
    # log(erfc(x)) = log(2 Phi(-x sqrt 2)), evaluated by SciPy's tail-accurate log_ndtr
    return math.log(2.0) + sc.log_ndtr(-np.asarray(x) * math.sqrt(2.0))


def _rewritten(x_var, out):
    fgraph = FunctionGraph([x_var], [out], clone=True)
    in2out(local_log_erfc).rewrite(fgraph)
    return fgraph


def test_rewrite_replaces_log_erfc() -> None:
    x = pt.dvector("x")
    fgraph = _rewritten(x, pt.log(special.erfc(x)))
    ops = {str(node.op) for node in fgraph.apply_nodes}
    assert "Erfcx" in ops
    assert not any(
        str(node.op) == "Log" and node.inputs[0].owner is not None
        and str(node.inputs[0].owner.op) == "Erfc"
        for node in fgraph.apply_nodes
    )


def test_rewritten_graph_is_accurate_where_the_naive_one_underflows() -> None:
    x = pt.dvector("x")
    naive = compile_py([x], pt.log(special.erfc(x)), mode=Mode(linker="vm", optimizer=None))
    fgraph = _rewritten(x, pt.log(special.erfc(x)))
    stable = compile_py(fgraph.inputs, fgraph.outputs[0])
    values = np.array([-50.0, -5.0, -1e-3, 0.0, 1e-3, 1.0, 10.0, 27.0, 100.0, 1e5])
    with np.errstate(divide="ignore"):
        assert np.isneginf(naive(values)[-1])  # erfc(1e5) == 0: the problem being fixed
    got = stable(values)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, _reference(values), rtol=1e-13, atol=1e-15)


@settings(max_examples=40, deadline=None)
@given(st.floats(-1e3, 1e3, allow_nan=False))
def test_stable_form_keeps_the_meaning(value: float) -> None:
    x = pt.dscalar("x")
    fn = compile_py([x], stable_log_erfc(x))
    assert fn(value) == pytest.approx(_reference(value), rel=1e-12, abs=1e-15)


def test_rewrite_leaves_float32_type_unchanged() -> None:
    x = pt.fvector("x")
    out = pt.log(special.erfc(x))
    fgraph = _rewritten(x, out)
    assert fgraph.outputs[0].type == out.type
    fn = compile_py(fgraph.inputs, fgraph.outputs[0])
    np.testing.assert_allclose(fn(np.array([0.5, 20.0], dtype="float32")),
                               _reference([0.5, 20.0]).astype("float32"), rtol=1e-5)


def test_rewrite_ignores_other_logs() -> None:
    x = pt.dvector("x")
    fgraph = _rewritten(x, pt.log(special.erf(x)))
    assert sorted(str(n.op) for n in fgraph.apply_nodes) == ["Erf", "Log"]


class _FakePhase:
    def __init__(self) -> None:
        self.entries: list[tuple] = []

    def register(self, name, rewriter, *tags, **kwargs):
        self.entries.append((name, rewriter, tags))
        return rewriter


class _FakeDB(dict):
    pass


def test_registers_into_the_stabilize_phase() -> None:
    db = _FakeDB(stabilize=_FakePhase())
    register_rewrites(db)
    entries = {name: (rewriter, set(tags)) for name, rewriter, tags in db["stabilize"].entries}
    assert entries["special_log_erfc"][0] is local_log_erfc
    assert entries["special_grad_log_erfc"][0] is local_grad_log_erfc
    assert all({"fast_run", "stabilize"} <= tags for _, tags in entries.values())


def test_fast_compile_runs_the_rewrites_in_canonicalize() -> None:
    db = _FakeDB(stabilize=_FakePhase(), canonicalize=_FakePhase())
    register_rewrites(db)
    entries = {name: set(tags) for name, _, tags in db["canonicalize"].entries}
    assert set(entries) == {"special_log_erfc", "special_grad_log_erfc"}
    assert all("fast_compile" in tags and "fast_run" not in tags for tags in entries.values())


@pytest.mark.parametrize("mode", ["FAST_COMPILE", "FAST_RUN"])
def test_gradient_of_log_erfc_is_finite_and_exact(mode: str) -> None:
    # d/dx log(erfc(x)) = -2/sqrt(pi) * exp(-x^2) / erfc(x) = -2/sqrt(pi) / erfcx(x)
    x = pt.dvector("x")
    out = pt.log(special.erfc(x))
    g = grad(out.sum(), x)
    fn = compile_py([x], g, mode=mode)
    plain = compile_py([x], g, mode=Mode(linker="vm", optimizer=None))
    values = np.array([-1e3, -40.0, -1.0, 0.0, 0.5, 3.0, 27.0, 40.0, 1e3])
    expected = -2.0 / math.sqrt(math.pi) / sc.erfcx(values)
    got = fn(values)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-300)
    ordinary = values[1:6]
    np.testing.assert_allclose(fn(ordinary), plain(ordinary), rtol=1e-12)
    with np.errstate(all="ignore"):
        assert np.isnan(plain(np.array([40.0]))).all()  # 0/0 without the rewrite

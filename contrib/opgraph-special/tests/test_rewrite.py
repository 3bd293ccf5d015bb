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
from opgraph_special.rewrites import local_log_erfc, register_rewrites, stable_log_erfc

import opgraph.tensor as pt
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
    naive = compile_py([x], pt.log(special.erfc(x)))
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
    ((name, rewriter, tags),) = db["stabilize"].entries
    assert name == "special_log_erfc" and rewriter is local_log_erfc
    assert {"fast_run", "stabilize"} <= set(tags)

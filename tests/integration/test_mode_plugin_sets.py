"""Two modes with different plugin sets in one process: each compile uses its own Mode's."""

import warnings

import numpy as np
import opgraph_numpy.plugin as numpy_plugin
import opgraph_rewrites.plugin as rewrites_plugin

import opgraph.scalar as ps
import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import get_mode
from opgraph.graph.features import Feature
from opgraph.graph.rewriting import node_rewriter
from opgraph.plugins import hookimpl, make_plugin_manager
from opgraph.tensor.elemwise import Elemwise


@node_rewriter([Elemwise])
def sin_as_shifted_cos(fgraph, node):
    if node.op.scalar_op != ps.sin:
        return False
    return [pt.cos(node.inputs[0] - np.pi / 2)]


class Seen(Feature):
    """Marks the graphs this plugin's mode compiled."""


class ThirdParty:
    def __init__(self):
        self.rewrite_calls = 0

    @hookimpl
    def opgraph_register_rewrites(self, db):
        self.rewrite_calls += 1
        db["specialize"].register("sin_as_shifted_cos", sin_as_shifted_cos, "fast_run")

    @hookimpl
    def opgraph_compile_features(self, fgraph, mode):
        return [Seen()]


def _ops(fn):
    return {type(n.op.scalar_op).__name__ for n in fn.maker.fgraph.apply_nodes
            if isinstance(n.op, Elemwise)}


def test_two_plugin_sets_in_one_process():
    third = ThirdParty()
    base = [("opgraph-numpy", numpy_plugin), ("opgraph-rewrites", rewrites_plugin)]
    pm_a = make_plugin_manager(plugins=[*base, ("third-party", third)], strict=True)
    pm_b = make_plugin_manager(plugins=base, strict=True)
    mode_a = get_mode("FAST_RUN", pm=pm_a).excluding("fusion")
    mode_b = get_mode("FAST_RUN", pm=pm_b).excluding("fusion")
    x = pt.dvector("x")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no C linker in these managers: the VM is used
        fa = function([x], pt.sin(x), mode=mode_a)
        fb = function([x], pt.sin(x), mode=mode_b)
        fa2 = function([x], pt.sin(x), mode=mode_a)
    assert "Cos" in _ops(fa) and "Sin" not in _ops(fa)
    assert "Sin" in _ops(fb) and "Cos" not in _ops(fb)
    assert any(isinstance(f, Seen) for f in fa.maker.fgraph._features)
    assert not any(isinstance(f, Seen) for f in fb.maker.fgraph._features)
    assert third.rewrite_calls == 1  # pm_a's database is built once, pm_b's never asks it
    assert "Cos" in _ops(fa2)
    a = np.array([0.1, 1.3])
    for f in (fa, fb):
        np.testing.assert_allclose(f(a), np.sin(a))

"""The database (tags, positions, queries), the hook, and how modes query it."""

from __future__ import annotations

import warnings

import numpy as np
import opgraph_numpy.plugin as numpy_plugin
import opgraph_rewrites.plugin as rewrites_plugin
import pytest
from helpers_rw import op_counts
from opgraph_rewrites.db import (
    EquilibriumDB,
    LocalGroupDB,
    RewriteDatabaseQuery,
    SequenceDB,
)
from opgraph_rewrites.registry import get_database, get_query_rewriter
from opgraph_rewrites.utils import ew

import opgraph.scalar as ps
import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import get_mode
from opgraph.config import change_flags
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting import (
    EquilibriumGraphRewriter,
    SequentialGraphRewriter,
    SequentialNodeRewriter,
    node_rewriter,
)
from opgraph.ifelse import IfElse, ifelse
from opgraph.plugins import hookimpl
from opgraph.plugins.manager import make_plugin_manager

# -- a third-party plugin: sin(x) -> cos(x - pi/2), tagged "third_party" ----------------


@node_rewriter([ew(ps.sin)])
def sin_as_shifted_cos(fgraph, node):
    (x,) = node.inputs
    return [pt.cos(x - np.pi / 2)]


class ThirdParty:
    @hookimpl
    def opgraph_register_rewrites(self, db):
        db["specialize"].register("sin_as_shifted_cos", sin_as_shifted_cos, "fast_run",
                                  "third_party")


@pytest.fixture
def pm():
    return make_plugin_manager(
        plugins=[("opgraph-numpy", numpy_plugin), ("opgraph-rewrites", rewrites_plugin),
                 ("third-party", ThirdParty())],
        strict=True,
    )


def _compile(x, out, mode):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function([x], out, mode=mode)


def test_third_party_rewrite_runs_in_fast_run_and_is_excludable(pm):
    x = pt.vector("x")
    fast_run = get_mode("FAST_RUN", pm=pm).excluding("fusion")
    fn = _compile(x, pt.sin(x), fast_run)
    assert "Cos" in op_counts(fn) and "Sin" not in op_counts(fn)
    np.testing.assert_allclose(fn(np.array([0.3, 1.0])), np.sin([0.3, 1.0]))
    fn2 = _compile(x, pt.sin(x), fast_run.excluding("third_party"))
    assert "Sin" in op_counts(fn2) and "Cos" not in op_counts(fn2)


def test_config_flags_exclude_tags_everywhere(pm):
    x = pt.vector("x")
    mode = get_mode("FAST_RUN", pm=pm).excluding("fusion")
    with change_flags(optimizer_excluding=("third_party",)):
        fn = _compile(x, pt.sin(x), mode)
    assert "Sin" in op_counts(fn)
    # x / 1 -> x is a canonicalize rule only (specialize drops `* 1` and `+ 0` too)
    with change_flags(optimizer_excluding=("canonicalize",)):
        fn = _compile(x, x / 1.0, mode)
    assert "TrueDiv" in op_counts(fn)
    fn = _compile(x, x / 1.0, mode)
    assert "TrueDiv" not in op_counts(fn)


def test_mode_requiring_and_including(pm):
    x = pt.vector("x")
    mode = get_mode("FAST_COMPILE", pm=pm)
    fn = _compile(x, pt.log(1 + x), mode)
    assert "Log1p" not in op_counts(fn)
    fn = _compile(x, pt.log(1 + x), mode.including("stabilize"))
    assert "Log1p" in op_counts(fn)
    fn = _compile(x, pt.log(1 + x) * 1.0, get_mode("FAST_RUN", pm=pm).requiring("merge"))
    assert "Mul" in op_counts(fn)


def test_database_built_once_per_manager(pm):
    db = get_database(pm)
    assert get_database(pm) is db
    assert "sin_as_shifted_cos" in db["specialize"]
    assert get_query_rewriter(("fast_run",), pm=pm) is get_query_rewriter(("fast_run",), pm=pm)


def test_failing_plugin_hook_does_not_break_the_database():
    class Broken:
        @hookimpl
        def opgraph_register_rewrites(self, db):
            raise RuntimeError("plugin bug")

    pm = make_plugin_manager(plugins=[("opgraph-rewrites", rewrites_plugin), ("broken", Broken())],
                             strict=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        db = get_database(pm)
    assert "canonicalize_add" in db["canonicalize"]


# -- database mechanics with toy rewriters ----------------------------------------------


def _noop(name):
    @node_rewriter(None, name=name)
    def rw(fgraph, node):
        return False

    return rw


def test_query_include_exclude_require_and_names():
    db = EquilibriumDB("eq")
    a, b, c = _noop("a"), _noop("b"), _noop("c")
    db.register("a", a, "fast_run", "x")
    db.register("b", b, "fast_run")
    db.register("c", c, "fast_compile", "x")
    names = lambda r: {str(n) for n in r.node_rewriters}
    assert names(db.query("fast_run")) == {"a", "b"}
    assert names(db.query("fast_run", "-x")) == {"b"}
    assert names(db.query("fast_run", "fast_compile", "&x")) == {"a", "c"}
    assert names(db.query(RewriteDatabaseQuery(include=["eq"]))) == {"a", "b", "c"}
    assert names(db.query(RewriteDatabaseQuery(include=["c"]))) == {"c"}
    q = RewriteDatabaseQuery(include=["fast_run"]).excluding("a").including("c")
    assert names(db.query(q)) == {"b", "c"}


def test_sequence_db_orders_by_position_and_nests():
    seq = SequenceDB("top")
    inner = EquilibriumDB("inner")
    inner.register("a", _noop("a"), "fast_run")
    seq.register("late", _noop("late"), "fast_run", position=10)
    seq.register("inner", inner, "fast_run", position=1)
    seq.register("early", _noop("early"), "fast_run", position=0.5)
    result = seq.query("fast_run")
    assert isinstance(result, SequentialGraphRewriter)
    assert [str(r) for r in result.data] == ["early", "inner", "late"]
    assert isinstance(result.data[1], EquilibriumGraphRewriter)
    sub = RewriteDatabaseQuery(
        include=["fast_run"], subquery={"inner": RewriteDatabaseQuery(["none"])}
    )
    assert seq.query(sub).data[1].node_rewriters == []


def test_local_group_db_and_registration_errors():
    grp = LocalGroupDB("grp")
    grp.register("a", _noop("a"), "fast_run", position=2)
    grp.register("b", _noop("b"), "fast_run", position=1)
    res = grp.query("fast_run")
    assert isinstance(res, SequentialNodeRewriter)
    assert [str(r) for r in res.rewriters] == ["b", "a"]
    with pytest.raises(ValueError, match="The tag 'a' is already present"):
        grp.register("a", _noop("a"))
    with pytest.raises(TypeError, match="NodeRewriter"):
        grp.register("z", object())
    with pytest.raises(TypeError, match="tags must be hashable"):
        EquilibriumDB().register("q", _noop("q"), ["unhashable"])
    with pytest.raises(KeyError, match="no entry"):
        grp["missing"]


def test_equilibrium_db_final_rewriters():
    from opgraph.graph.rewriting import MergeOptimizer

    db = EquilibriumDB("eq")
    db.register("merge", MergeOptimizer(), "fast_run", final_rewriter=True)
    db.register("a", _noop("a"), "fast_run")
    rw = db.query("fast_run")
    assert len(rw.final_rewriters) == 1
    x = pt.vector("x")
    fg = FunctionGraph([x], [pt.exp(x) + pt.exp(x)])
    rw.rewrite(fg)
    assert len(fg.apply_nodes) == 2


def test_fusion_and_inplace_can_be_excluded_by_their_pytensor_names():
    x = pt.vector("x")
    o = pt.outer(x, x)
    out = pt.log(o) * o
    mode = get_mode("FAST_RUN").excluding("local_elemwise_fusion",
                                          "inplace_elemwise_optimizer")
    f = function([x], out, mode=mode)
    nodes = f.maker.fgraph.toposort()
    assert len(nodes) == 5  # log and mul stay separate Elemwise nodes
    assert not any(n.op.destroy_map for n in nodes)
    fused = function([x], out, mode="FAST_RUN").maker.fgraph.toposort()
    assert len(fused) < 5


def test_ifelse_becomes_a_view_in_fast_run_but_not_without_inplace():
    c = pt.iscalar("c")
    x, y = pt.vector("x"), pt.vector("y")
    f = function([c, x, y], ifelse(c, x, y), mode="FAST_RUN")
    (node,) = [n for n in f.maker.fgraph.toposort() if isinstance(n.op, IfElse)]
    assert node.op.as_view and str(node.op) == "if{inplace}"
    xv = np.arange(3.0)
    got = f(1, xv, np.zeros(2))
    np.testing.assert_array_equal(got, xv)
    assert not np.shares_memory(got, xv)  # the function still copies what aliases an input
    g = function([c, x, y], ifelse(c, x, y), mode=get_mode("FAST_RUN").excluding("inplace"))
    (node,) = [n for n in g.maker.fgraph.toposort() if isinstance(n.op, IfElse)]
    assert not node.op.as_view

"""opgraph_rewrites.db at PyTensor's API: constructors, register rules, TopoDB, ProxyDB."""

import io

import pytest
from opgraph_rewrites.db import (
    EquilibriumDB,
    LocalGroupDB,
    ProxyDB,
    RewriteDatabase,
    SequenceDB,
    TopoDB,
)

import opgraph.tensor as pt
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.basic import (
    EquilibriumGraphRewriter,
    GraphRewriter,
    SequentialGraphRewriter,
    SequentialNodeRewriter,
    WalkingGraphRewriter,
    node_rewriter,
)


class Count(GraphRewriter):
    def __init__(self, slot):
        self.slot = slot

    def apply(self, fgraph):
        fgraph.counter[self.slot] += 1


def test_names_and_tags_share_one_namespace():
    db = RewriteDatabase()
    db.register("a", Count(0))
    db.register("c", Count(0), "z", "asdf")
    assert "a" in db and "c" in db
    with pytest.raises(ValueError, match="The tag 'c' is already present"):
        db.register("c", Count(1))
    with pytest.raises(ValueError, match="The tag 'z' is already present"):
        db.register("z", Count(1))  # a name may not be a tag in use
    with pytest.raises(ValueError, match=r"The tag 'a' .* collides with an existing name"):
        db.register("u", Count(1), "a")
    with pytest.raises(TypeError, match="is not a valid rewrite type"):
        db.register("d", 1)


def test_overwrite_existing_replaces_the_entry():
    db = SequenceDB()
    fg = FunctionGraph([], [])
    fg.counter = [0, 0]
    db.register("a", Count(0), "basic")
    db.query("+basic").rewrite(fg)
    assert fg.counter == [1, 0]
    db.register("a", Count(1), "basic", overwrite_existing=True)
    db.query("+basic").rewrite(fg)
    assert fg.counter == [1, 1]


def test_sequence_db_positions_and_summary():
    seq = SequenceDB(failure_callback=None)
    res = seq.query("+a")
    assert isinstance(res, SequentialGraphRewriter) and res.data == []
    seq.register("b", Count(0), position=1)
    seq.register("c", Count(0), position=0.5)
    assert seq.__position__ == {"b": 1.0, "c": 0.5}
    out = io.StringIO()
    seq.print_summary(stream=out)
    text = out.getvalue()
    assert str(id(seq)) in text and "names" in text and "'b'" in text
    with pytest.raises(TypeError, match="`position` must be numeric"):
        seq.register("d", Count(0), position=object())
    fg = FunctionGraph([], [])
    fg.counter = [0]
    seq.query("+b", "+c", position_cutoff=1).rewrite(fg)
    assert fg.counter == [1]  # b (at 1) is cut off


def test_equilibrium_db_constructor_and_final_cleanup():
    eq = EquilibriumDB()
    assert eq.ignore_newtrees is True and eq.tracks_on_change_inputs is False
    with pytest.raises(ValueError, match="`final_rewriter` and `cleanup` cannot both be true"):
        eq.register("d", Count(0), final_rewriter=True, cleanup=True)
    named = EquilibriumDB(name="phase", tracks_on_change_inputs=True)
    assert named.name == "phase" and EquilibriumDB("old_style").name == "old_style"

    @node_rewriter(None)
    def nothing(fgraph, node):
        return False

    named.register("nothing", nothing)
    assert isinstance(named.query("phase"), EquilibriumGraphRewriter)


def test_local_group_db_and_topo_db():
    @node_rewriter(None)
    def nothing(fgraph, node):
        return False

    grp = LocalGroupDB(apply_all_rewrites=True)
    grp.register("a", nothing, 1)  # a tag need not be a string
    assert "a" in grp.__position__
    res = grp.query("a")
    assert isinstance(res, SequentialNodeRewriter) and res.apply_all_rewrites
    with pytest.raises(TypeError, match="`position` must be numeric"):
        grp.register("b", nothing, position=object())
    topo = TopoDB(grp, order="out_to_in")
    walker = topo.query("a")
    assert isinstance(walker, WalkingGraphRewriter) and walker.order == "out_to_in"
    x = pt.vector("x")
    fg = FunctionGraph([x], [pt.exp(x)])
    walker.rewrite(fg)


def test_proxy_db():
    with pytest.raises(TypeError, match="`db` must be"):
        ProxyDB(object())
    inner = SequenceDB()
    inner.register("a", Count(0), "t")
    proxy = ProxyDB(inner)
    outer = SequenceDB()
    outer.register("one", inner, "t", position=1)
    outer.register("two", proxy, "t", position=2)
    fg = FunctionGraph([], [])
    fg.counter = [0]
    outer.query("t").rewrite(fg)
    assert fg.counter == [2]

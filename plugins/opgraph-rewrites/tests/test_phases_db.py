"""The rewrite database ordered by named phases; duplicates and cycles found at build time."""

from __future__ import annotations

import io
import warnings

import opgraph_rewrites.plugin as rewrites_plugin
import pytest
from opgraph_rewrites.db import DuplicateRewriteError, SequenceDB
from opgraph_rewrites.registry import build_database, standard_skeleton

from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.basic import GraphRewriter
from opgraph.plugins import hookimpl
from opgraph.plugins.manager import make_plugin_manager
from opgraph.plugins.phases import STANDARD_PHASES, Phase, PhaseCycleError, PhaseError


class Log(GraphRewriter):
    """Appends its label to ``fgraph.log`` so a test sees the run order."""

    def __init__(self, label):
        self.label = label

    def apply(self, fgraph):
        fgraph.log.append(self.label)


def run_order(db, *tags, **kw):
    fg = FunctionGraph([], [])
    fg.log = []
    db.query(*tags, **kw).rewrite(fg)
    return fg.log


def phased():
    return SequenceDB(name="top", phases=STANDARD_PHASES)


def test_entries_run_by_phase_whatever_the_registration_order():
    db = phased()
    db.register("late", Log("late"), "t", phase="final_merge")
    db.register("fuse", Log("fuse"), "t", phase="fusion")
    db.register("early", Log("early"), "t", phase="inline")
    db.register("spec", Log("spec"), "t", phase="specialize")
    assert run_order(db, "t") == ["early", "spec", "fuse", "late"]


def test_pytensor_float_positions_map_onto_phases():
    db = phased()
    db.register("inplace_a", Log("inplace_a"), "t", phase="inplace")
    db.register("float_76", Log("float_76"), "t", position=76)
    db.register("float_1_5", Log("float_1_5"), "t", position=1.5)
    db.register("stab", Log("stab"), "t", phase="stabilize")
    db.register("float_49", Log("float_49"), "t", position=49)
    # within a phase, phase-named entries first, then floats by value
    assert run_order(db, "t") == ["stab", "float_1_5", "float_49", "inplace_a", "float_76"]
    assert db.__position__ == {"inplace_a": 75.0, "float_76": 76.0, "float_1_5": 1.5,
                               "stab": 1.5, "float_49": 49.0}
    db.register("last", Log("last"), "t")  # PyTensor's default position "last"
    assert db.__position__["last"] == 77.0
    assert run_order(db, "t", position_cutoff=49)[-1] == "float_1_5"


def test_a_plugin_phase_between_standard_ones():
    db = phased()
    db.add_phase("my_cleanup", after="specialize", before="post_specialize")
    db.register("fuse", Log("fuse"), "t", phase="fusion")
    db.register("mine", Log("mine"), "t", phase="my_cleanup")
    db.register("spec", Log("spec"), "t", phase="specialize")
    assert run_order(db, "t") == ["spec", "mine", "fuse"]
    out = io.StringIO()
    db.print_summary(stream=out)
    assert "specialize -> my_cleanup -> post_specialize" in out.getvalue()


def test_unknown_phase_and_bad_arguments_are_named():
    db = phased()
    db.register("lost", Log("lost"), "t", phase="nowhere")
    with pytest.raises(PhaseError, match=r"'lost'.*phase 'nowhere'.*phases: inline"):
        db.check()
    with pytest.raises(TypeError, match="phase= or position=, not both"):
        db.register("both", Log("b"), phase="fusion", position=3)
    with pytest.raises(PhaseError, match="already has a phase 'fusion'"):
        db.add_phase("fusion")


def test_a_database_without_phases_orders_by_number():
    db = SequenceDB()
    db.register("b", Log("b"), "t", position=2)
    db.register("a", Log("a"), "t", position=1)
    assert run_order(db, "t") == ["a", "b"]
    db.register("p", Log("p"), "t", phase="fusion")
    with pytest.raises(PhaseError, match="phase 'fusion'"):
        db.check()


def test_duplicate_name_names_both_registrations():
    db = phased()
    db.register("twice", Log("1"), phase="fusion")
    with pytest.raises(DuplicateRewriteError, match=r"The tag 'twice' is already present") as e:
        db.register("twice", Log("2"), phase="inplace")
    assert str(e.value).count("test_phases_db.py:") == 2


def test_the_standard_optdb_keeps_the_order_of_its_old_positions():
    db = build_database(make_plugin_manager(plugins=[("opgraph-rewrites", rewrites_plugin)],
                                            strict=True))
    order = [name for name, _ in sorted(db.__position__.items(), key=lambda kv: kv[1])]
    old = ["merge1", "canonicalize", "stabilize", "specialize", "elemwise_fusion",
           "merge2", "inplace_elemwise", "ifelse_make_view", "random_make_inplace", "merge3"]
    assert [name for name in order if name in old] == old
    # the loop rewrites run in a phase of their own, after the first merge and before
    # canonicalization (PyTensor's 0.51-0.55)
    scan = ["scan_push_out_non_seq", "scan_push_out_seq_products",
            "scan_share_row_block_products", "scan_push_out_outer_sum",
            "scan_merge", "scan_remove_unused", "scan_to_vectorized", "scan_reduce_nsteps",
            "scan_save_mem", "scan_save_mem_no_prealloc", "scan_sit_sot_to_untraced"]
    assert order[1:12] == scan
    standard = [p.name for p in STANDARD_PHASES]
    assert [p.name for p in db.phases] == [*standard[:2], "scan", *standard[2:]]


class Dup:
    """A plugin whose second registration repeats a standard name."""

    @hookimpl
    def opgraph_register_rewrites(self, db):
        db.register("first_ok", Log("first"), "fast_run", phase="fusion")
        db["canonicalize"].register("constant_folding", Log("dup"), "fast_run")
        db.register("after_dup", Log("after"), "fast_run", phase="fusion")


def test_duplicate_from_a_plugin_keeps_its_other_registrations_then_raises(monkeypatch):
    pm = make_plugin_manager(plugins=[("opgraph-rewrites", rewrites_plugin), ("dup", Dup())],
                             strict=True)
    seen = {}
    original = standard_skeleton

    def spy():
        seen["db"] = original()
        return seen["db"]

    monkeypatch.setattr("opgraph_rewrites.registry.standard_skeleton", spy)
    with pytest.raises(DuplicateRewriteError) as e:
        build_database(pm)
    message = str(e.value)
    assert "'constant_folding'" in message and "standard.py:" in message
    assert "test_phases_db.py:" in message
    assert {"first_ok", "after_dup"} <= set(seen["db"])


class Cyclic:
    @hookimpl
    def opgraph_register_rewrites(self, db):
        db.add_phase(Phase("loop_a", after="fusion", before="specialize"))


def test_a_phase_cycle_fails_when_the_database_is_built():
    pm = make_plugin_manager(plugins=[("opgraph-rewrites", rewrites_plugin), ("cyc", Cyclic())],
                             strict=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cycle = "fusion -> loop_a -> specialize -> post_specialize -> fusion"
        with pytest.raises(PhaseCycleError, match=cycle):
            build_database(pm)


def test_the_database_satisfies_the_core_protocol_and_is_found_through_the_hook():
    from opgraph.plugins import RewriteDatabaseProtocol, rewrite_database_record

    pm = make_plugin_manager(plugins=[("opgraph-rewrites", rewrites_plugin)], strict=True)
    record = rewrite_database_record(pm)
    db = record.get_database(pm)
    assert isinstance(db, RewriteDatabaseProtocol)
    assert record.get_database(pm) is db  # built once per manager
    assert "canonicalize" in db and db.phases[0].name == "inline"


def test_entries_of_one_phase_order_by_after_and_before():
    db = phased()
    db.register("elemwise", Log("elemwise"), "t", phase="inplace", after=("blas",))
    db.register("ofg", Log("ofg"), "t", phase="inplace", after="elemwise")
    db.register("blas", Log("blas"), "t", phase="inplace")
    db.register("linalg", Log("linalg"), "t", phase="inplace",
                before=("blas", "not_installed"))  # unknown names: the plugin may be absent
    db.register("spec", Log("spec"), "t", phase="specialize", after="ofg")  # another phase
    assert run_order(db, "t") == ["spec", "linalg", "blas", "elemwise", "ofg"]
    # a query that leaves an entry out keeps the others' constraints
    db.add_tags("blas", "skip")
    assert run_order(db, "t", exclude=["skip"]) == ["spec", "linalg", "elemwise", "ofg"]
    db.register("loop", Log("loop"), "t", phase="inplace", after="ofg", before="linalg")
    with pytest.raises(PhaseCycleError, match="rewrite entries form a cycle"):
        run_order(db, "t")
    with pytest.raises(TypeError, match="after/before name entries"):
        db.register("bad", Log("bad"), "t", phase="inplace", after=(3,))


def test_the_standard_inplace_phase_order_is_declared():
    db = build_database(make_plugin_manager(autoload=True))
    names = [e.name for e in db._in_order(db._entries.values())
             if db._phase_of(e, db.phases).name == "inplace"]
    for earlier, later in [("InplaceBlasOpt", "inplace_elemwise"),
                           ("blockwise_inplace", "inplace_elemwise"),
                           ("linalg_inplace", "inplace_elemwise"),
                           ("inplace_elemwise", "ofg_inplace")]:
        if earlier in names and later in names:
            assert names.index(earlier) < names.index(later), (earlier, later)

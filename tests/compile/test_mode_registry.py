"""Mode API as PyTensor code uses it: OPT_* queries, register_mode, backends, aliases."""

from __future__ import annotations

import copy
import pickle

import attrs
import numpy as np
import pytest
from compile_toys import TinyLinker, plus

from opgraph.compile import mode as M
from opgraph.compile.function import function
from opgraph.graph.features import Feature
from opgraph.plugins import make_plugin_manager
from opgraph.plugins.records import ModeRecord
from opgraph.tensor.type import TensorType

dvec = TensorType("float64", (None,))


def test_opt_queries_and_optimizer_names() -> None:
    assert M.OPT_FAST_RUN.include == ("fast_run",)
    assert M.OPT_NONE.include == ()
    assert "stable" in M.OPT_FAST_RUN_STABLE.require
    assert M.Mode(TinyLinker(), "fast_compile").optimizer == M.OPT_FAST_COMPILE
    assert M.Mode(TinyLinker(), "None").optimizer is None
    assert M.Mode(TinyLinker(), "my_tag").optimizer.include == ("my_tag",)


def test_mode_attributes_and_str() -> None:
    mode = M.Mode(linker="py", optimizer="merge", db="the-db")
    assert mode.optdb == "the-db" and mode.provided_linker == "py"
    assert set(mode._optimizer.include) == {"merge", "minimum_compile", "py_only"}
    assert set(mode.including("fast_compile")._optimizer.include) >= {"merge", "fast_compile"}
    assert str(mode).startswith("Mode(linker=py, optimizer=RewriteQuery")
    assert "cxx_only" in M.Mode(linker="cvm", optimizer="merge")._optimizer.include


def test_mode_copies_keep_settings() -> None:
    mode = M.Mode(TinyLinker(), "fast_run", name="mine").excluding("inplace")
    for clone in (copy.deepcopy(mode), pickle.loads(pickle.dumps(mode)), mode.clone()):
        assert clone.name == "mine" and clone.optimizer.exclude == ("inplace",)
    assert mode.clone(optimizer=None).optimizer is None


def test_register_mode_makes_the_name_usable() -> None:
    mode = M.Mode(TinyLinker(), None)
    name = "TEST_REGISTERED_MODE"
    M.register_mode(name, mode)
    try:
        assert M.get_mode(name) is mode
        x = dvec("x")
        np.testing.assert_array_equal(function([x], plus(x, x), mode=name)([1.0]), [2.0])
        with pytest.raises(ValueError, match="already registered"):
            M.register_mode(name, mode)
        with pytest.raises(TypeError, match="expected a Mode"):
            M.register_mode("OTHER_TEST_MODE", "FAST_RUN")
    finally:
        del M.predefined_modes[name]


# a manager with no plugin: the backend plugins may be installed where these tests run
NO_PLUGINS = make_plugin_manager(plugins=[], disabled=(), strict=False)


@pytest.mark.parametrize("name", ["JAX", "NUMBA", "PYTORCH", "numba"])
def test_backend_modes_name_the_missing_plugin(name) -> None:
    with pytest.raises(M.BackendNotInstalledError, match=r"opgraph-\w+ backend plugin"):
        M.get_mode(name, pm=NO_PLUGINS)


def test_backend_linker_names_the_missing_plugin() -> None:
    with pytest.raises(M.BackendNotInstalledError, match="opgraph-jax"):
        M.Mode(linker="jax", plugin_manager=NO_PLUGINS).linker  # noqa: B018 - resolving is the point
    # PyTensor's compile.mode.JAX (and NUMBA, ...), resolved on first use
    for backend, plugin in ((M.JAX, "opgraph-jax"), (M.NUMBA, "opgraph-numba"),
                            (M.PYTORCH, "opgraph-pytorch"), (M.MLX, "opgraph-mlx")):
        with pytest.raises(M.BackendNotInstalledError, match=plugin):
            backend.clone(plugin_manager=NO_PLUGINS).linker  # noqa: B018


def test_unknown_mode_lists_the_debug_modes() -> None:
    with pytest.raises(M.UnknownModeError, match="DebugMode"):
        M.get_mode("NO_SUCH_MODE")


class _Marker(Feature):
    def __init__(self) -> None:
        self.graphs = []

    def on_attach(self, fgraph) -> None:
        self.graphs.append(fgraph)


def test_register_runs_feature_rewriters_before_and_after() -> None:
    early, late = _Marker(), _Marker()
    order = []

    class Recorder:
        def rewrite(self, fgraph) -> None:
            order.append("db")

    base = M.Mode(TinyLinker(), Recorder())
    mode = base.register((M.AddFeatureOptimizer(early), 10), (M.AddFeatureOptimizer(late), 80))
    assert base.extra_rewriters == ()  # register returns a new mode
    x = dvec("x")
    f = function([x], plus(x, x), mode=mode)
    assert early.graphs == [f.maker.fgraph] and late.graphs == [f.maker.fgraph]
    assert order == ["db"]
    with pytest.raises(TypeError, match="rewriter, position"):
        base.register(M.AddFeatureOptimizer(early))


def test_mode_copies_keep_their_plugin_manager() -> None:
    pm = object()
    mode = M.Mode(TinyLinker(), "fast_run", plugin_manager=pm)
    for clone in (mode.excluding("x"), mode.including("y"), mode.requiring("z"), mode.clone(),
                  mode.register((M.AddFeatureOptimizer(None), 1)), copy.deepcopy(mode)):
        assert clone.plugin_manager is pm
    assert pickle.loads(pickle.dumps(M.Mode(TinyLinker(), None))).plugin_manager is None


def test_a_mode_is_immutable_and_changes_make_new_modes() -> None:
    mode = M.Mode(TinyLinker(), "fast_run", name="mine")
    for field in ("optimizer", "linker_spec", "name", "plugin_manager", "extra_rewriters"):
        with pytest.raises(attrs.exceptions.FrozenInstanceError, match="immutable"):
            setattr(mode, field, None)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        mode.linker = TinyLinker()
    assert mode.optimizer == M.OPT_FAST_RUN  # unchanged by the attempts
    # PyTensor's two habits: replacing the query of one's own copy, and free attributes
    mine = copy.copy(mode)
    mine._optimizer = M.RewriteQuery(include=("canonicalize",))
    assert mine.optimizer.include == ("canonicalize",) and mode.optimizer == M.OPT_FAST_RUN
    mine.check_isfinite = False
    assert mine.check_isfinite is False and not hasattr(mode, "check_isfinite")
    with pytest.raises(TypeError, match="not Mode fields"):
        mode.evolve(colour="red")


def test_register_orders_rewriters_by_named_phase() -> None:
    order = []

    class Note:
        def __init__(self, label) -> None:
            self.label = label

        def rewrite(self, fgraph) -> None:
            order.append(self.label)

    base = M.Mode(TinyLinker(), Note("db"))
    mode = base.register((Note("late"), "after_rewrites"), (Note("early"), "before_rewrites"),
                         (Note("pt-early"), 49.9), (Note("pt-late"), 50))
    assert [p for p, _ in mode.extra_rewriters] == [
        "after_rewrites", "before_rewrites", "before_rewrites", "after_rewrites"]
    x = dvec("x")
    function([x], plus(x, x), mode=mode)
    assert order == ["early", "pt-early", "db", "late", "pt-late"]
    with pytest.raises(ValueError, match="unknown phase 'inplace'"):
        base.register((Note("x"), "inplace"))
    with pytest.raises(TypeError, match="phase name or a number"):
        base.register((Note("x"), None))


def test_one_mode_table_holds_every_kind_of_entry() -> None:
    mode = M.Mode(TinyLinker(), None)
    M.register_mode("TEST_TABLE_MODE", mode)
    try:
        table = M.mode_table(NO_PLUGINS)
        assert isinstance(table["FAST_RUN"], ModeRecord)
        assert isinstance(table["FAST_COMPILE"], ModeRecord)  # the core's, like FAST_RUN
        assert table["DebugMode"] == "opgraph.compile.debug.debugmode:DebugMode"
        assert table["TEST_TABLE_MODE"] is mode
        fast_compile = M.get_mode("FAST_COMPILE", pm=NO_PLUGINS)
        assert fast_compile.linker_spec == ("vm", "py")
        assert fast_compile.optimizer == M.OPT_FAST_COMPILE
    finally:
        del M.predefined_modes["TEST_TABLE_MODE"]


def test_pytensor_table_names_are_the_resolver_tables() -> None:
    from opgraph.compile import linkers, query, resolver

    assert M.predefined_optimizers is query.STANDARD_QUERIES
    assert M.predefined_linkers is linkers.NAMED_LINKERS
    assert M.predefined_modes is resolver.REGISTERED_MODES
    assert M.fast_run_linkers_to_mode["cvm"] is M.CVM and M.fast_run_linkers_to_mode["vm"] is M.VM


def test_print_current_function_graph_prints_the_graph(capsys) -> None:
    x = dvec("x")
    mode = M.Mode(TinyLinker(), None).register((M.PrintCurrentFunctionGraph("here"), 10))
    np.testing.assert_array_equal(function([x], plus(x, x), mode=mode)([1.0]), [2.0])
    out = capsys.readouterr().out
    assert out.startswith("PrintCurrentFunctionGraph: here") and "plus" in out.lower()

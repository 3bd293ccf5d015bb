"""Mode API as PyTensor code uses it: OPT_* queries, register_mode, backends, aliases."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from compile_toys import TinyLinker, plus

from opgraph.compile import mode as M
from opgraph.compile.function import function
from opgraph.graph.features import Feature
from opgraph.plugins import make_plugin_manager
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
    jax_mode = M.JAX._copy()  # PyTensor's compile.mode.JAX, resolved on first use
    jax_mode.plugin_manager, jax_mode._linker = NO_PLUGINS, None
    with pytest.raises(M.BackendNotInstalledError, match="opgraph-jax"):
        jax_mode.linker  # noqa: B018


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

"""The typed seam: OpImpl and RewriteDatabaseRecord, the active plugin manager, the DB hook."""

import warnings

import pytest

from opgraph.compile.mode import Mode, get_mode, get_rewriter
from opgraph.graph.rewriting.basic import GraphRewriter
from opgraph.plugins import (
    OpgraphPluginWarning,
    OpImpl,
    PluginHookError,
    RewriteDatabaseProtocol,
    RewriteDatabaseRecord,
    call_hook_safely,
    current_plugin_manager,
    find_op_impl,
    get_plugin_manager,
    hookimpl,
    make_plugin_manager,
    rewrite_database_record,
    use_plugin_manager,
)


class Gives:
    def __init__(self, result):
        self.result = result

    @hookimpl
    def opgraph_op_impl(self, op, backend):
        return self.result


def test_find_op_impl_unwraps_the_record_for_the_asking_backend():
    pm = make_plugin_manager(plugins=[("p", Gives(OpImpl("c", "C for it")))], strict=True)
    assert find_op_impl("op", "c", pm) == "C for it"


def test_a_raw_result_or_another_backend_is_reported_against_the_plugin():
    pm = make_plugin_manager(plugins=[("raw", Gives("raw object"))], strict=True)
    with pytest.raises(PluginHookError, match=r"'raw'.*OpImpl\(backend, impl\)"):
        find_op_impl("op", "c", pm)
    pm = make_plugin_manager(plugins=[("other", Gives(OpImpl("dask", len)))], strict=False)
    with pytest.warns(OpgraphPluginWarning, match="OpImpl for backend 'dask'"):
        assert find_op_impl("op", "c", pm) is None
    assert ("other", "opgraph_op_impl") in pm.hook_failures


def test_records_check_their_fields():
    with pytest.raises(TypeError, match="backend name"):
        OpImpl("", object())
    with pytest.raises(TypeError, match="got None"):
        OpImpl("c", None)
    with pytest.raises(TypeError, match="import string"):
        RewriteDatabaseRecord("optdb", database="no colon", rewriter=len)


def test_use_plugin_manager_routes_hook_calls_that_name_no_manager():
    pm = make_plugin_manager(plugins=[("p", Gives(OpImpl("c", "mine")))], strict=True)
    assert current_plugin_manager() is get_plugin_manager()
    with use_plugin_manager(pm) as active:
        assert active is pm and current_plugin_manager() is pm
        assert call_hook_safely(None, "opgraph_op_impl", op="x", backend="c").impl == "mine"
        assert find_op_impl("x", "c") == "mine"
        with use_plugin_manager(None):  # None: keep the active one
            assert current_plugin_manager() is pm
    assert current_plugin_manager() is get_plugin_manager()
    with pytest.raises(TypeError, match="pluggy PluginManager"):
        with use_plugin_manager("pm"):
            pass


class Marker(GraphRewriter):
    def __init__(self, query, pm):
        self.query, self.pm = query, pm

    def apply(self, fgraph):
        pass


class FakeRewrites:
    """Provides 'optdb' without any rewrite plugin installed."""

    @hookimpl
    def opgraph_rewrite_database(self):
        return [RewriteDatabaseRecord(
            "optdb", database=lambda pm: ("db of", pm),
            rewriter=lambda include, exclude, require, pm: Marker((include, exclude, require),
                                                                  pm),
        )]


def test_modes_find_the_database_through_the_hook_of_their_own_manager():
    with_db = make_plugin_manager(plugins=[("fake-rewrites", FakeRewrites())], strict=True)
    without = make_plugin_manager(plugins=[], strict=True)
    rw = get_rewriter(get_mode("FAST_RUN", pm=with_db).excluding("fusion"))
    assert isinstance(rw, Marker) and rw.pm is with_db
    assert "fast_run" in rw.query[0] and "fusion" in rw.query[1]
    assert get_rewriter(get_mode("FAST_RUN", pm=without)) is None
    assert rewrite_database_record(with_db).get_database(with_db) == ("db of", with_db)
    assert rewrite_database_record(without) is None
    mode = Mode(linker="py", optimizer="fast_run")  # no manager of its own: the active one
    with use_plugin_manager(with_db):
        assert isinstance(get_rewriter(mode), Marker)


def test_two_plugins_providing_optdb_conflict_by_name():
    pm = make_plugin_manager(plugins=[("a", FakeRewrites()), ("b", FakeRewrites())],
                             strict=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert rewrite_database_record(pm) is None
    assert any("rewrite database 'optdb' is declared by several plugins" in str(w.message)
               for w in caught)


def test_the_protocol_describes_a_database_shape():
    class Minimal:
        phases = []

        def register(self, name, rewriter, *tags, **options): ...
        def query(self, *tags, **options): ...
        def __getitem__(self, name): ...
        def __contains__(self, name): ...
        def add_tags(self, name, *tags): ...
        def remove_tags(self, name, *tags): ...
        def tags_of(self, name): ...
        def add_phase(self, phase, *, after=(), before=(), description=""): ...
        def check(self): ...

    assert isinstance(Minimal(), RewriteDatabaseProtocol)
    assert not isinstance(object(), RewriteDatabaseProtocol)

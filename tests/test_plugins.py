"""Plugin manager: discovery, isolation of failures, records, listing."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import textwrap
import types
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from opgraph.config import change_flags
from opgraph.configdefaults import build_config
from opgraph.graph.features import Feature
from opgraph.plugins import (
    KNOWN_PROVIDERS,
    LinkerRecord,
    ModeRecord,
    OpgraphPluginWarning,
    OpImpl,
    PluginHookError,
    PluginLoadError,
    TargetLoadError,
    call_hook_safely,
    get_plugin_manager,
    hookimpl,
    linker_records,
    load_target,
    make_plugin_manager,
    mode_records,
    plugin_registry,
    plugin_report,
    provider_hint,
    reset_plugin_manager,
)

GROUP = "opgraph_tests.plugins"  # a private group: installed plugins never interfere
_counter = itertools.count()


@pytest.fixture(autouse=True)
def _clean_plugin_state(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("OPGRAPH_DISABLE_PLUGINS", raising=False)
    monkeypatch.delenv("OPGRAPH_STRICT_PLUGINS", raising=False)
    reset_plugin_manager()
    with change_flags(disable_plugins=(), strict_plugins=False):
        yield
    reset_plugin_manager()


DistFactory = Callable[..., str]


@pytest.fixture
def make_dist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[DistFactory]:
    """Install a fake distribution (module + *.dist-info) on sys.path; returns the module name."""
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    made: list[str] = []

    def make(
        dist: str, source: str, *, entry: str | None = None, group: str = GROUP, version="1.0"
    ) -> str:
        module = f"fake_opgraph_plugin_{next(_counter)}"
        (site / f"{module}.py").write_text(textwrap.dedent(source))
        info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
        (info / "entry_points.txt").write_text(f"[{group}]\n{entry or dist} = {module}\n")
        made.append(module)
        return module

    yield make
    for module in made:
        sys.modules.pop(module, None)


PY_PLUGIN = """
from opgraph.plugins import hookimpl, LinkerRecord, ModeRecord

@hookimpl
def opgraph_linkers():
    return [LinkerRecord("py", "json:dumps", "python", backend="py")]

@hookimpl
def opgraph_modes():
    return [ModeRecord("FAST_COMPILE", linkers=("py",), include=("fast_compile",))]
"""


def _plugin(name: str, **hooks: Callable[..., object]) -> types.SimpleNamespace:
    """An in-test plugin object whose functions are hook implementations."""
    return types.SimpleNamespace(__name__=name, **{k: hookimpl(v) for k, v in hooks.items()})


# --- plugins registered in a test ---------------------------------------------------


def test_registered_plugin_records_are_flattened() -> None:
    a = _plugin("a", opgraph_linkers=lambda: [LinkerRecord("py", "json:dumps")])
    b = _plugin(
        "b",
        opgraph_linkers=lambda: [LinkerRecord("vm", "json:loads")],
        opgraph_modes=lambda: [ModeRecord("FAST_RUN", ("c", "vm"))],
    )
    pm = make_plugin_manager(plugins=[a, ("b-plugin", b)])
    linkers = linker_records(pm)
    assert set(linkers) == {"py", "vm"}
    assert linkers["py"].load() is json.dumps
    assert mode_records(pm)["FAST_RUN"].linkers == ("c", "vm")
    report = {row.name: row for row in plugin_report(pm)}
    assert report["b-plugin"].linkers == ("vm",) and report["b-plugin"].modes == ("FAST_RUN",)
    assert report["a"].hooks == ("opgraph_linkers",)


def test_records_are_recomputed_after_register() -> None:
    pm = make_plugin_manager()
    assert linker_records(pm) == {}
    pm.register(_plugin("late", opgraph_linkers=lambda: [LinkerRecord("py", "json:dumps")]))
    assert set(linker_records(pm)) == {"py"}


def test_firstresult_hook_returns_first_non_none() -> None:
    seen: list[str] = []

    def declines(op, backend):
        seen.append("declines")
        return None

    def answers(op, backend):
        seen.append("answers")
        return OpImpl(backend, f"{op}-{backend}")

    # pluggy calls the last registered first
    pm = make_plugin_manager(plugins=[_plugin("x", opgraph_op_impl=answers)])
    pm.register(_plugin("y", opgraph_op_impl=declines))
    assert call_hook_safely(pm, "opgraph_op_impl", op="add", backend="c").impl == "add-c"
    assert seen == ["declines", "answers"]
    assert call_hook_safely(make_plugin_manager(), "opgraph_op_impl", op=1, backend="c") is None


def test_impl_may_take_a_subset_of_arguments() -> None:
    pm = make_plugin_manager(
        plugins=[_plugin("p", opgraph_pullback=lambda op, cotangents: [cotangents[0] * 2])]
    )
    result = call_hook_safely(
        pm, "opgraph_pullback", op=None, inputs=[1], outputs=[2], cotangents=[3]
    )
    assert result == [6]


def test_unknown_hook_name_is_an_error() -> None:
    with pytest.raises(AttributeError, match="opgraph_linkers"):
        call_hook_safely(make_plugin_manager(), "opgraph_linker")


def test_typo_hook_in_plugin_warns() -> None:
    with pytest.warns(OpgraphPluginWarning, match="unknown hook 'opgraph_linker'"):
        make_plugin_manager(plugins=[_plugin("typo", opgraph_linker=lambda: [])])


# --- failures inside hooks ------------------------------------------------------------


def _boom() -> list[LinkerRecord]:
    raise RuntimeError("kaboom")


def test_plugin_raising_in_collect_hook_is_isolated() -> None:
    good = _plugin("good", opgraph_linkers=lambda: [LinkerRecord("py", "json:dumps")])
    bad = _plugin("bad", opgraph_linkers=_boom)
    pm = make_plugin_manager(plugins=[good, bad])
    with pytest.warns(OpgraphPluginWarning, match=r"'bad'.*opgraph_linkers.*kaboom"):
        assert set(linker_records(pm)) == {"py"}
    assert ("bad", "opgraph_linkers") in pm.hook_failures
    row = {r.name: r for r in plugin_report(pm)}["bad"]
    assert row.status == "failed" and "kaboom" in row.error


def test_plugin_raising_in_firstresult_hook_falls_through() -> None:
    def broken(op, backend):
        raise ValueError("no")

    pm = make_plugin_manager(
        plugins=[_plugin("ok", opgraph_op_impl=lambda op, backend: OpImpl("c", "impl"))]
    )
    pm.register(_plugin("broken", opgraph_op_impl=broken))  # called first
    with pytest.warns(OpgraphPluginWarning):
        assert call_hook_safely(pm, "opgraph_op_impl", op=1, backend="c").impl == "impl"
    # a second failure is counted, not warned again
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert call_hook_safely(pm, "opgraph_op_impl", op=1, backend="c").impl == "impl"
    assert pm.hook_failures[("broken", "opgraph_op_impl")].count == 2


def test_strict_mode_raises_on_hook_error() -> None:
    pm = make_plugin_manager(plugins=[_plugin("bad", opgraph_linkers=_boom)], strict=True)
    with pytest.raises(PluginHookError, match="kaboom") as info:
        linker_records(pm)
    assert "is ignored" not in str(info.value) and "fatal" in str(info.value)


@pytest.mark.parametrize("value", ["maybe", "2", "strict"])
def test_a_bad_strict_plugins_value_names_the_environment_variable(value: str) -> None:
    with pytest.raises(ValueError, match=rf"OPGRAPH_STRICT_PLUGINS={value!r}.*not a boolean"):
        build_config({"OPGRAPH_STRICT_PLUGINS": value}, read_rc=False)
    for text, want in [("1", True), ("yes", True), ("off", False), ("0", False)]:
        cfg = build_config({"OPGRAPH_STRICT_PLUGINS": text}, read_rc=False)
        assert cfg.strict_plugins is want


def test_wrong_record_type_is_reported_and_skipped() -> None:
    pm = make_plugin_manager(
        plugins=[_plugin("odd", opgraph_linkers=lambda: [LinkerRecord("py", "json:dumps"), 42])]
    )
    with pytest.warns(OpgraphPluginWarning, match="LinkerRecord"):
        assert set(linker_records(pm)) == {"py"}


# --- conflicts ---------------------------------------------------------------------------


def test_duplicate_linker_disables_only_that_name() -> None:
    one = _plugin(
        "one",
        opgraph_linkers=lambda: [LinkerRecord("py", "json:dumps"), LinkerRecord("a", "json:dumps")],
    )
    two = _plugin("two", opgraph_linkers=lambda: [LinkerRecord("py", "json:loads")])
    pm = make_plugin_manager(plugins=[one, two])
    with pytest.warns(OpgraphPluginWarning, match=r"linker 'py' is declared by several"):
        linkers = linker_records(pm)
    assert set(linkers) == {"a"}
    conflict = plugin_registry(pm).conflict("linker", "py")
    assert conflict is not None and set(conflict.plugins) == {"one", "two"}
    assert conflict.kept is None
    hint = provider_hint("py", pm)
    assert hint is not None and "'one'" in hint and "'two'" in hint


def test_duplicate_mode_from_two_distributions_names_both(make_dist: DistFactory) -> None:
    make_dist("opgraph-alpha", PY_PLUGIN)
    make_dist("opgraph-beta", PY_PLUGIN.replace('"py"', '"py2"'), version="2.5")
    pm = make_plugin_manager(autoload=True, group=GROUP)
    with pytest.warns(OpgraphPluginWarning) as record:
        modes = mode_records(pm)
    assert "FAST_COMPILE" not in modes
    message = str(record[0].message)
    assert "FAST_COMPILE" in message
    assert "opgraph-alpha 1.0" in message and "opgraph-beta 2.5" in message
    rows = {row.name: row for row in plugin_report(pm)}
    assert any("FAST_COMPILE" in c for c in rows["opgraph-alpha"].conflicts)
    # the linkers the two plugins declare under different names are unaffected
    assert {"py", "py2"} <= set(linker_records(pm))


def test_first_party_registration_wins_a_conflict(make_dist: DistFactory) -> None:
    make_dist("opgraph-numpy", PY_PLUGIN, entry="opgraph-numpy")
    make_dist("someone-else", PY_PLUGIN.replace('"py"', '"py2"'), entry="rogue")
    pm = make_plugin_manager(autoload=True, group=GROUP, disabled=())
    with pytest.warns(OpgraphPluginWarning, match="opgraph-numpy.*is used"):
        modes = mode_records(pm)
    assert modes["FAST_COMPILE"].linkers == ("py",)


def test_foreign_distribution_cannot_take_a_first_party_name(make_dist: DistFactory) -> None:
    make_dist("impostor", PY_PLUGIN.replace('"py"', '"fake"'), entry="opgraph-numpy")
    make_dist("opgraph-numpy", PY_PLUGIN, entry="opgraph-numpy")
    with pytest.warns(OpgraphPluginWarning, match="reserved for opgraph's distribution"):
        pm = make_plugin_manager(autoload=True, group=GROUP, disabled=())
    assert pm.plugin_status["opgraph-numpy"].status == "ok"
    assert pm.plugin_status["opgraph-numpy"].distribution == "opgraph-numpy"
    assert set(linker_records(pm)) == {"py"}


def test_sys_exit_while_a_plugin_imports_is_a_failed_plugin(make_dist: DistFactory) -> None:
    make_dist("opgraph-quitter", "import sys\nsys.exit(3)\n")
    make_dist("opgraph-fine", PY_PLUGIN)
    with pytest.warns(OpgraphPluginWarning, match="SystemExit"):
        pm = make_plugin_manager(autoload=True, group=GROUP, disabled=(), strict=False)
    assert pm.plugin_status["opgraph-quitter"].status == "failed"
    assert "py" in linker_records(pm)


def test_bad_hook_result_is_reported_against_its_plugin_and_ignored() -> None:
    class Good(Feature):
        pass

    good = _plugin("good", opgraph_compile_features=lambda: [Good()])
    bad = _plugin("bad", opgraph_compile_features=lambda: 42)
    pm = make_plugin_manager(plugins=[good, bad], disabled=(), strict=False)
    with pytest.warns(OpgraphPluginWarning, match=r"'bad'.*returned 42.*list of Feature"):
        results = call_hook_safely(pm, "opgraph_compile_features", fgraph=None, mode=None)
    assert len(results) == 1 and isinstance(results[0][0], Good)
    assert ("bad", "opgraph_compile_features") in pm.hook_failures


def test_bad_hook_result_is_fatal_in_strict_mode() -> None:
    bad = _plugin("bad", opgraph_pullback=lambda: "nonsense")
    pm = make_plugin_manager(plugins=[bad], disabled=(), strict=True)
    with pytest.raises(PluginHookError, match="expected a list"):
        call_hook_safely(pm, "opgraph_pullback", op=None, inputs=(), outputs=(), cotangents=())


# --- entry points ---------------------------------------------------------------------------


def test_entry_point_plugin_is_loaded_and_listed(make_dist: DistFactory) -> None:
    make_dist("opgraph-fakepy", PY_PLUGIN, entry="fakepy", version="0.3")
    pm = make_plugin_manager(autoload=True, group=GROUP)
    assert pm.get_plugin("fakepy") is not None
    assert set(linker_records(pm)) == {"py"}
    (row,) = plugin_report(pm)
    assert (row.name, row.distribution, row.version, row.status) == (
        "fakepy",
        "opgraph-fakepy",
        "0.3",
        "ok",
    )
    assert row.hooks == ("opgraph_linkers", "opgraph_modes")
    assert row.linkers == ("py",) and row.modes == ("FAST_COMPILE",) and row.backends == ("py",)


def test_real_group_is_read_by_the_global_manager(make_dist: DistFactory) -> None:
    make_dist("opgraph-fakereal", PY_PLUGIN, entry="fakereal", group="opgraph.plugins")
    pm = get_plugin_manager()
    assert pm is get_plugin_manager()  # cached
    assert pm.plugin_status["fakereal"].status == "ok"
    reset_plugin_manager()
    assert get_plugin_manager() is not pm


def test_two_distributions_claiming_one_plugin_name(make_dist: DistFactory) -> None:
    make_dist("opgraph-first", PY_PLUGIN, entry="same")
    make_dist("opgraph-second", PY_PLUGIN, entry="same")
    with pytest.warns(OpgraphPluginWarning, match="claimed by both") as record:
        pm = make_plugin_manager(autoload=True, group=GROUP)
    message = str(record[0].message)
    assert "opgraph-first" in message and "opgraph-second" in message
    assert set(linker_records(pm)) == {"py"}  # the first one still works


BROKEN = "raise ImportError('needs a missing library')\n"


def test_plugin_failing_at_import_does_not_break_others(make_dist: DistFactory) -> None:
    make_dist("opgraph-broken", BROKEN, entry="broken")
    make_dist("opgraph-fine", PY_PLUGIN, entry="fine")
    with pytest.warns(OpgraphPluginWarning, match=r"'broken'.*opgraph-broken.*missing library"):
        pm = make_plugin_manager(autoload=True, group=GROUP)
    assert set(linker_records(pm)) == {"py"}
    status = pm.plugin_status["broken"]
    assert status.status == "failed" and "ImportError" in status.error
    assert "needs a missing library" in status.traceback
    rows = {r.name: r for r in plugin_report(pm)}
    assert rows["broken"].status == "failed" and rows["fine"].status == "ok"


def test_strict_mode_makes_load_failure_fatal(
    make_dist: DistFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_dist("opgraph-broken", BROKEN, entry="broken")
    with pytest.raises(PluginLoadError, match="opgraph-broken"):
        make_plugin_manager(autoload=True, group=GROUP, strict=True)
    monkeypatch.setenv("OPGRAPH_STRICT_PLUGINS", "1")
    with pytest.raises(PluginLoadError) as info:
        make_plugin_manager(autoload=True, group=GROUP)
    # the message says it is fatal, not skipped, and does not advise setting what is set
    text = str(info.value)
    assert "is skipped" not in text and "OPGRAPH_STRICT_PLUGINS=1" not in text, text
    assert "fatal" in text and "OPGRAPH_DISABLE_PLUGINS=broken" in text, text
    monkeypatch.delenv("OPGRAPH_STRICT_PLUGINS")
    with change_flags(strict_plugins=True), pytest.raises(PluginLoadError):
        make_plugin_manager(autoload=True, group=GROUP)


def test_disabled_plugin_is_not_imported(
    make_dist: DistFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = make_dist("opgraph-off", BROKEN, entry="off")
    make_dist("opgraph-on", PY_PLUGIN, entry="on")
    monkeypatch.setenv("OPGRAPH_DISABLE_PLUGINS", "off,unrelated")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a disabled broken plugin must not even warn
        pm = make_plugin_manager(autoload=True, group=GROUP)
    assert module not in sys.modules
    assert pm.plugin_status["off"].status == "disabled"
    rows = {r.name: r.status for r in plugin_report(pm)}
    assert rows == {"off": "disabled", "on": "ok"}


def test_disabled_through_config_and_registration() -> None:
    plugin = _plugin("nope", opgraph_linkers=lambda: [LinkerRecord("py", "json:dumps")])
    with change_flags(disable_plugins="nope"):
        pm = make_plugin_manager(plugins=[plugin])
    assert pm.get_plugin("nope") is None
    assert linker_records(pm) == {}
    assert pm.plugin_status["nope"].status == "disabled"


def test_importing_opgraph_loads_no_plugin() -> None:
    code = (
        "import sys, opgraph, opgraph.plugins\n"
        "from opgraph.plugins import hookimpl\n"
        "print('opgraph.plugins.manager' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- records ---------------------------------------------------------------------------------


def test_load_target_resolves_and_explains_failures() -> None:
    assert load_target("json:dumps") is json.dumps
    assert load_target("os.path:join") is load_target("os:path.join")
    assert load_target(len) is len
    with pytest.raises(TargetLoadError, match="no_such_module_xyz"):
        load_target("no_such_module_xyz:thing")
    with pytest.raises(TargetLoadError, match="has no attribute path 'nope'"):
        load_target("json:nope")
    with pytest.raises(TargetLoadError, match=r"pkg\.mod:Attr"):
        load_target("json")


def test_records_validate_and_normalize() -> None:
    with pytest.raises(TypeError, match="target"):
        LinkerRecord("py", "not an import string")
    with pytest.raises(TypeError, match="name"):
        LinkerRecord("", "json:dumps")
    mode = ModeRecord("M", ["c", "vm"], include="fast_run")
    assert mode.linkers == ("c", "vm") and mode.include == ("fast_run",)
    assert hash(mode) == hash(ModeRecord("M", ("c", "vm"), include=("fast_run",)))


def test_linker_probe() -> None:
    assert LinkerRecord("py", "json:dumps").unavailable_reason() is None
    rec = LinkerRecord("c", "json:dumps", probe=lambda: "no C compiler found")
    assert rec.unavailable_reason() == "no C compiler found"
    crashing = LinkerRecord("c", "json:dumps", probe="no_such_module_xyz:probe")
    assert "probe for linker 'c' failed" in (crashing.unavailable_reason() or "")


# --- provider hints ----------------------------------------------------------------------------


def test_provider_hint() -> None:
    assert provider_hint("no-such-linker") is None
    assert KNOWN_PROVIDERS["cvm"] == "opgraph-c"
    hint = provider_hint("c", make_plugin_manager())
    assert hint is not None and "opgraph-c" in hint and "not installed" in hint
    assert "opgraph-ofg" in (provider_hint("OpFromGraph") or "")


def test_provider_hint_knows_disabled_plugins(make_dist: DistFactory) -> None:
    make_dist("opgraph-numpy", PY_PLUGIN, entry="numpy")
    pm = make_plugin_manager(autoload=True, group=GROUP, disabled=["numpy"])
    assert "disabled" in (provider_hint("py", pm) or "")

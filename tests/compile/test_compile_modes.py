"""Mode registry, linker resolution and the rewrite seam, with private plugin managers."""

from __future__ import annotations

import warnings

import pytest
from compile_toys import TinyLinker, TinyPlugin, make_record_plugin

from opgraph.compile import mode as mode_mod
from opgraph.compile.mode import (
    LinkerUnavailableError,
    Mode,
    RewriteQuery,
    UnknownModeError,
    available_modes,
    get_mode,
    get_rewriter,
)
from opgraph.config import change_flags
from opgraph.plugins.manager import make_plugin_manager
from opgraph.plugins.records import LinkerRecord, ModeRecord


@pytest.fixture(autouse=True)
def _fresh_caches() -> None:
    mode_mod.reset_caches()
    yield
    mode_mod.reset_caches()


def _pm(*plugins: object) -> object:
    return make_plugin_manager(autoload=False, plugins=plugins, disabled=(), strict=False)


def test_unknown_mode_lists_names_and_provider() -> None:
    pm = _pm(TinyPlugin())
    with pytest.raises(UnknownModeError) as info:
        get_mode("CVM", pm=pm)
    text = str(info.value)
    assert "FAST_RUN" in text and "TINY" in text
    assert "opgraph-c" in text
    with pytest.raises(UnknownModeError, match="available modes"):
        get_mode("NO_SUCH_MODE", pm=pm)
    # the standard modes are the core's records, whatever the plugins
    assert available_modes(pm) == ["FAST_COMPILE", "FAST_RUN", "TINY"]
    with pytest.raises(LinkerUnavailableError, match=r"'vm' is not available.*opgraph-numpy"):
        _ = get_mode("FAST_COMPILE", pm=pm).linker


def test_mode_names_are_case_insensitive_and_modes_pass_through() -> None:
    pm = _pm(TinyPlugin())
    m = get_mode("tiny", pm=pm)
    assert m.name == "TINY" and isinstance(m.linker, TinyLinker)
    assert get_mode(m) is m
    with pytest.raises(TypeError, match="mode must be"):
        get_mode(3, pm=pm)


def test_fast_run_falls_back_with_one_warning_naming_the_reason() -> None:
    vm = LinkerRecord("vm", TinyLinker)
    pm = _pm(make_record_plugin(linkers=[vm]))
    with pytest.warns(UserWarning, match=r"'c' is not available.*opgraph-c.*'vm'"):
        linker = get_mode("FAST_RUN", pm=pm).linker
    assert isinstance(linker, TinyLinker)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _ = get_mode("FAST_RUN", pm=pm).linker  # resolved once: no second warning


def test_fallback_reports_probe_reason() -> None:
    c = LinkerRecord("c", TinyLinker, probe=lambda: "no C compiler found")
    vm = LinkerRecord("vm", TinyLinker)
    pm = _pm(make_record_plugin(linkers=[c, vm]))
    with pytest.warns(UserWarning, match="no C compiler found"):
        _ = get_mode("FAST_RUN", pm=pm).linker


def test_usable_first_choice_does_not_warn() -> None:
    pm = _pm(make_record_plugin(linkers=[LinkerRecord("c", TinyLinker)]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert isinstance(get_mode("FAST_RUN", pm=pm).linker, TinyLinker)


def test_no_usable_linker_is_an_error() -> None:
    pm = _pm()
    with pytest.raises(LinkerUnavailableError, match=r"no usable linker.*opgraph-numpy"):
        _ = get_mode("FAST_RUN", pm=pm).linker
    with pytest.raises(LinkerUnavailableError, match="'py' is not available"):
        _ = Mode("py", None, plugin_manager=pm).linker


def test_plugin_mode_replaces_builtin() -> None:
    mine = ModeRecord("FAST_RUN", linkers=("tiny",), include=("x",))
    pm = _pm(TinyPlugin(), make_record_plugin(modes=[mine]))
    m = get_mode("FAST_RUN", pm=pm)
    assert m.linker_spec == ("tiny",) and m.optimizer == RewriteQuery(include=("x",))


def test_config_linker_overrides_mode_preference() -> None:
    pm = _pm(TinyPlugin())
    with change_flags(linker="tiny"):
        m = get_mode("FAST_RUN", pm=pm)
    assert m.linker_spec == "tiny"
    assert isinstance(m.linker, TinyLinker)


def test_including_excluding_requiring() -> None:
    m = Mode(TinyLinker(), "fast_run")
    assert m.optimizer == RewriteQuery(include=("fast_run",))
    m2 = m.including("fusion").excluding("inplace").requiring("fast_run")
    assert m2.optimizer == RewriteQuery(("fast_run", "fusion"), ("inplace",), ("fast_run",))
    assert m.optimizer == RewriteQuery(include=("fast_run",))  # unchanged
    assert Mode(TinyLinker(), None).including("merge").optimizer.include == ("merge",)
    with pytest.raises(TypeError, match="non-empty strings"):
        m.including("")


def test_rewrite_seam_without_database_gives_none() -> None:
    pm = _pm(TinyPlugin())
    assert get_rewriter(get_mode("TINY", pm=pm)) is None
    assert get_rewriter(Mode(TinyLinker(), None)) is None

    class Rewriter:
        def rewrite(self, fgraph: object) -> None:
            pass

    rw = Rewriter()
    assert get_rewriter(Mode(TinyLinker(), rw)) is rw


def test_linker_instance_and_bad_spec() -> None:
    linker = TinyLinker()
    assert Mode(linker).linker is linker
    with pytest.raises(TypeError, match="linker name"):
        _ = Mode(42, plugin_manager=_pm()).linker
    bound = linker.accept(object(), no_recycling=[])
    assert bound is not linker and bound.fgraph is not None and linker.fgraph is None
